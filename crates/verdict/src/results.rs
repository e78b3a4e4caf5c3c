//! Saved results read back and drawn as one page (`verdict report RESULT...`): the
//! JSON that `verdict rank`, `verdict game` and `verdict bench judges` print with
//! `--format json`, a spend ledger of `verdict judge`, and, with the `nasheval`
//! feature, a model file of `verdict fit`; kinds of other crates (the lab's
//! evaluations and experiments) through a [`ResultReader`]. A result
//! alone gets the page its command's `--report` draws from the same numbers; several
//! get one page with a part each and a list of the parts at the top.
//!
//! What a saved result does not hold is not drawn: a board saved without `--matrix`
//! has no heatmaps, a game saved without `--payoffs` no cycle graph, a model file no
//! stage times, and a ledger names only the items it called. The page says so where
//! it matters.

use std::path::Path;

use serde_json::Value;
use verdict_judges::{ExperimentRow, ExperimentSettings, Ledger, LedgerSpend, LEDGER_FORMAT};
use verdict_report::{
    combined_html, game_sections, judge_run_sections, judges_curves, judges_sections, judges_table,
    page, rank_sections, GameReport, PagePart, RankOutput, RankReport,
};

use crate::VerdictError;

/// What a result file can be, in words, for the message that refuses another file.
const KINDS: &str = "the JSON of verdict rank, game or bench judges (--format json), a spend ledger of verdict judge, a NashEval model file of verdict fit, the JSON of verdict evaluate, or a results file of verdict bench nasheval";

/// One saved result, read and checked.
#[derive(Debug)]
pub enum SavedResult {
    /// A leaderboard, or several side by side (`verdict rank --format json`).
    Rank(RankReport),
    /// The equilibrium of a payoff matrix (`verdict game --format json`).
    Game(GameReport),
    /// A judging-on-a-budget experiment (`verdict bench judges --format json`).
    JudgesExperiment {
        /// What was run.
        settings: ExperimentSettings,
        /// Its rows.
        rows: Vec<ExperimentRow>,
    },
    /// One judging run, from its spend ledger (`verdict judge --ledger`).
    JudgeRun {
        /// Spend per judge and item, and the allocation.
        spend: LedgerSpend,
        /// The run's budget, as its ledger records it.
        budget: f64,
        /// The run's settings in a line.
        summary: String,
    },
    /// A NashEval model file (`verdict fit --out`).
    #[cfg(feature = "nasheval")]
    Model(Box<verdict_nasheval::NashEvalModel>),
    /// A kind another crate reads and draws ([`ResultReader`]).
    Other(Box<dyn DrawnResult>),
}

/// A saved result of a kind this crate does not know, drawn as its command draws it.
pub trait DrawnResult: std::fmt::Debug {
    /// What the result is, in a few words (a part's heading starts with it).
    fn kind(&self) -> &'static str;
    /// The page title its command's `--report` gives it; `name` is the file's name.
    fn title(&self, name: &str) -> String;
    /// The result's sections, as its command's `--report` draws them.
    ///
    /// # Errors
    /// [`VerdictError::Report`] should a figure fail to draw.
    fn sections(&self, name: &str) -> Result<String, VerdictError>;
}

/// Reads the saved results of kinds this crate does not know: each hook answers `None`
/// for a file not of its kind, so the next reader, or the refusal naming every kind,
/// has its turn.
pub trait ResultReader {
    /// A file told by its first line, a JSON document of its own (`head`): a results
    /// file written a line per cell, say.
    fn by_first_line(
        &self,
        label: &str,
        head: &Value,
        bytes: &[u8],
    ) -> Option<Result<SavedResult, VerdictError>>;
    /// A JSON document told by its keys, after every kind of this crate was ruled out.
    fn by_document(
        &self,
        label: &str,
        document: &Value,
    ) -> Option<Result<SavedResult, VerdictError>>;
}

/// Reads the result at `path`, telling its kind from its content ([`parse_result`]).
///
/// # Errors
/// As [`parse_result`], and when the file cannot be read.
pub fn read_result(path: &Path, others: &[&dyn ResultReader]) -> Result<SavedResult, VerdictError> {
    let bytes = std::fs::read(path)
        .map_err(|e| VerdictError::Data(format!("{}: cannot read it: {e}", path.display())))?;
    parse_result(&path.display().to_string(), &bytes, others)
}

/// A saved result's bytes, its kind told from its content, `others` reading the kinds
/// of other crates; `label` names it in errors.
///
/// # Errors
/// [`VerdictError::Data`] naming `label`: not a result verdict saves (with the kinds it
/// reads), or of a known kind but damaged (with what is wrong).
pub fn parse_result(
    label: &str,
    bytes: &[u8],
    others: &[&dyn ResultReader],
) -> Result<SavedResult, VerdictError> {
    let at = |message: String| VerdictError::Data(format!("{label}: {message}"));
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(at(format!(
            "empty (did the command that should have written it fail?); give {KINDS}"
        )));
    }
    // A ledger and a bench results file are told by their first line, a JSON
    // document of its own; a document written on one line (a compact dump) is that
    // line, read once.
    let (first, rest) = bytes.split_at(
        bytes
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(bytes.len()),
    );
    let head: Option<Value> = serde_json::from_slice(first).ok();
    if let Some(head) = &head {
        if is_ledger_header(head) {
            return judge_run(label, bytes);
        }
        for other in others {
            if let Some(result) = other.by_first_line(label, head, bytes) {
                return result;
            }
        }
    }
    let value: Value = match head {
        Some(whole) if rest.iter().all(u8::is_ascii_whitespace) => whole,
        _ => serde_json::from_slice(bytes)
            .map_err(|e| at(format!("not a result verdict saved ({e}); give {KINDS}")))?,
    };
    let has = |key: &str| value.get(key).is_some();
    let kind = if value.get("format").and_then(Value::as_str) == Some(NASHEVAL_FORMAT) {
        Kind::Model
    } else if has("leaderboards") || (has("method") && has("models")) {
        Kind::Rank
    } else if has("models") && has("gap") && has("value") {
        Kind::Game
    } else if has("rows") && has("settings") {
        Kind::JudgesExperiment
    } else if has("rows") {
        return Err(at("the rows of verdict bench judges without their settings (saved by an earlier verdict): run verdict bench judges --format json again".into()));
    } else if let (Some(model), true) = (value.get("model").and_then(Value::as_str), has("summary"))
    {
        return Err(at(format!(
            "this is what verdict fit printed; give the model file it names, {model}"
        )));
    } else {
        for other in others {
            if let Some(result) = other.by_document(label, &value) {
                return result;
            }
        }
        return Err(at(format!("not a result verdict saved; give {KINDS}")));
    };
    let damaged = |what: &str, e: serde_json::Error| at(format!("{what} but damaged: {e}"));
    Ok(match kind {
        Kind::Rank => {
            let report = rank_report(value).map_err(|e| damaged("verdict rank's JSON", e))?;
            check_rank(&report).map_err(|m| at(format!("verdict rank's JSON but {m}")))?;
            SavedResult::Rank(report)
        }
        Kind::Game => {
            let report: GameReport =
                serde_json::from_value(value).map_err(|e| damaged("verdict game's JSON", e))?;
            check_game(&report).map_err(|m| at(format!("verdict game's JSON but {m}")))?;
            SavedResult::Game(report)
        }
        Kind::JudgesExperiment => {
            #[derive(serde::Deserialize)]
            struct Saved {
                settings: ExperimentSettings,
                rows: Vec<ExperimentRow>,
            }
            let saved: Saved = serde_json::from_value(value)
                .map_err(|e| damaged("verdict bench judges' JSON", e))?;
            check_experiment(&saved.settings, &saved.rows).map_err(at)?;
            SavedResult::JudgesExperiment {
                settings: saved.settings,
                rows: saved.rows,
            }
        }
        Kind::Model => model(label, value)?,
    })
}

/// The kinds told apart by a JSON document's keys.
enum Kind {
    Rank,
    Game,
    JudgesExperiment,
    Model,
}

#[cfg(feature = "nasheval")]
const NASHEVAL_FORMAT: &str = verdict_nasheval::FORMAT;
/// A build without NashEval still recognises its model files, to refuse them by name.
#[cfg(not(feature = "nasheval"))]
const NASHEVAL_FORMAT: &str = "verdict-nasheval";

#[cfg(feature = "nasheval")]
fn model(label: &str, value: Value) -> Result<SavedResult, VerdictError> {
    let model = crate::model_file::model_from_value(label, value)?;
    Ok(SavedResult::Model(Box::new(model)))
}

#[cfg(not(feature = "nasheval"))]
fn model(label: &str, _: Value) -> Result<SavedResult, VerdictError> {
    Err(without_nasheval(label, "a NashEval model file"))
}

/// The refusal of a NashEval result (`what`, in the file `label`) by a build without
/// NashEval; the lab's readers refuse theirs with it too.
pub fn without_nasheval(label: &str, what: &str) -> VerdictError {
    VerdictError::Data(format!(
        "{label}: {what}, and this verdict was built without NashEval (the nasheval feature)"
    ))
}

/// `verdict rank`'s JSON: one board, or `--method all`'s boards under `leaderboards`.
fn rank_report(mut value: Value) -> Result<RankReport, serde_json::Error> {
    match value.get_mut("leaderboards").map(Value::take) {
        Some(boards) => Ok(RankReport::All {
            method: "all",
            leaderboards: serde_json::from_value::<Vec<RankOutput>>(boards)?,
            notes: match value.get_mut("notes").map(Value::take) {
                Some(notes) => serde_json::from_value(notes)?,
                None => Vec::new(),
            },
        }),
        None => serde_json::from_value(value).map(|one| RankReport::Single(Box::new(one))),
    }
}

/// What the drawings index: a board at least, and matrices of the board's size.
fn check_rank(report: &RankReport) -> Result<(), String> {
    let outputs = report.outputs();
    if outputs.is_empty() {
        return Err("with no leaderboard in it".into());
    }
    for output in outputs {
        let Some(matrices) = &output.matrices else {
            continue;
        };
        let k = matrices.models.len();
        let all = [
            Some(&matrices.wins),
            Some(&matrices.ties),
            matrices.win_probability.as_ref(),
            matrices.margins.as_ref(),
        ];
        if !all.into_iter().flatten().all(|m| is_square(m, k)) {
            return Err(format!(
                "the {} board's matrices are not {k} × {k} like its list of models (edited or damaged)",
                output.leaderboard.method
            ));
        }
    }
    Ok(())
}

/// The payoffs, when saved, are one row and column per agent.
fn check_game(report: &GameReport) -> Result<(), String> {
    let k = report.models.len();
    match &report.payoffs {
        Some(payoffs) if !is_square(payoffs, k) => Err(format!(
            "its payoffs are not {k} × {k} like its list of agents (edited or damaged)"
        )),
        _ => Ok(()),
    }
}

fn is_square(matrix: &[Vec<f64>], k: usize) -> bool {
    matrix.len() == k && matrix.iter().all(|row| row.len() == k)
}

/// Every (norm, budget, method) cell of the settings has its row, as the table needs.
fn check_experiment(settings: &ExperimentSettings, rows: &[ExperimentRow]) -> Result<(), String> {
    for norm in &settings.norms {
        let p = norm.to_string();
        for &budget in &settings.budgets {
            for method in &settings.methods {
                let found = rows
                    .iter()
                    .any(|r| r.p == p && r.budget == budget && &r.method == method);
                if !found {
                    return Err(format!(
                        "verdict bench judges' JSON without a row for {method} at budget {budget} and p = {p} (edited or damaged): run it again"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether a line is a spend ledger's header.
fn is_ledger_header(line: &Value) -> bool {
    line.get("format").and_then(Value::as_str) == Some(LEDGER_FORMAT)
}

/// A judging run from its ledger: the spend over the items it called.
fn judge_run(label: &str, bytes: &[u8]) -> Result<SavedResult, VerdictError> {
    let ledger = Ledger::parse(Path::new(label), bytes)?;
    let settings = &ledger.run.settings;
    let budget = settings
        .get("budget")
        .and_then(Value::as_f64)
        .filter(|b| b.is_finite() && *b > 0.0)
        .ok_or_else(|| {
            VerdictError::Data(format!(
                "{label}: a spend ledger without a positive budget in its header (edited or damaged)"
            ))
        })?;
    let items = ledger.called_items();
    let setting = |key: &str| {
        settings.get(key).map_or_else(
            || "?".into(),
            |v| v.to_string().trim_matches('"').to_string(),
        )
    };
    let summary = format!(
        "{} with budget {budget}, p = {}, seed {}: {} items in the run, {} of them called; {} judges",
        setting("method"),
        setting("p"),
        setting("seed"),
        ledger.run.items,
        items.len(),
        ledger.run.judges.len()
    );
    Ok(SavedResult::JudgeRun {
        spend: LedgerSpend::of(&ledger, &items),
        budget,
        summary,
    })
}

impl SavedResult {
    /// What the result is, in a few words (a part's heading starts with it).
    pub fn kind(&self) -> &'static str {
        match self {
            SavedResult::Rank(_) => "Leaderboard",
            SavedResult::Game(_) => "Equilibrium of a payoff matrix",
            SavedResult::JudgesExperiment { .. } => "Judges under a budget",
            SavedResult::JudgeRun { .. } => "A judging run",
            #[cfg(feature = "nasheval")]
            SavedResult::Model(_) => "NashEval model",
            SavedResult::Other(result) => result.kind(),
        }
    }

    /// The page title its command's `--report` gives it; `name` is the file's name.
    pub fn title(&self, name: &str) -> String {
        match self {
            SavedResult::Rank(report) => {
                format!("verdict rank {}", report.outputs()[0].source)
            }
            SavedResult::Game(_) => format!("verdict game {name}"),
            SavedResult::JudgesExperiment { .. } => "verdict bench judges".into(),
            SavedResult::JudgeRun { .. } => format!("verdict judge: {name}"),
            #[cfg(feature = "nasheval")]
            SavedResult::Model(_) => format!("verdict fit: {name}"),
            SavedResult::Other(result) => result.title(name),
        }
    }

    /// The result's sections, as its command's `--report` draws them.
    ///
    /// # Errors
    /// [`VerdictError::Report`] should a curve fail to draw.
    pub fn sections(&self, name: &str) -> Result<String, VerdictError> {
        Ok(match self {
            SavedResult::Rank(report) => rank_sections(report, None),
            SavedResult::Game(report) => game_sections(report),
            SavedResult::JudgesExperiment { settings, rows } => judges_sections(
                &judges_table(rows, settings),
                &judges_curves(rows, settings),
            )?,
            SavedResult::JudgeRun {
                spend,
                budget,
                summary,
            } => judge_run_sections(spend, *budget, summary),
            #[cfg(feature = "nasheval")]
            SavedResult::Model(model) => {
                verdict_report::fit_sections(model, name, None, &verdict_report::FitPage::default())
            }
            SavedResult::Other(result) => result.sections(name)?,
        })
    }
}

/// The page of the results at `paths` ([`results_page`]), `others` reading the kinds
/// of other crates.
///
/// # Errors
/// As [`read_result`] for the first file that cannot be read; no page is made then.
pub fn report_page(
    paths: &[&Path],
    title: Option<&str>,
    others: &[&dyn ResultReader],
) -> Result<String, VerdictError> {
    let results = paths
        .iter()
        .map(|path| read_result(path, others).map(|result| (crate::page::shown_name(path), result)))
        .collect::<Result<Vec<_>, _>>()?;
    results_page(&results, title)
}

/// [`report_page`] of results held in memory: each a name (a file's, as given) with the
/// bytes a file of it holds.
///
/// # Errors
/// As [`report_page`], naming each result as given.
pub fn report_page_of_bytes(
    results: &[(String, Vec<u8>)],
    title: Option<&str>,
    others: &[&dyn ResultReader],
) -> Result<String, VerdictError> {
    let results = results
        .iter()
        .map(|(name, bytes)| {
            let result = parse_result(name, bytes, others)?;
            Ok((crate::page::shown_name(Path::new(name)), result))
        })
        .collect::<Result<Vec<_>, VerdictError>>()?;
    results_page(&results, title)
}

/// The page of `results` (each with the name of its file): one result's page as its
/// command draws it, or one page with a part per result (titled `title`, by default
/// "verdict report").
///
/// # Errors
/// No result; [`VerdictError::Report`] should a curve fail to draw.
pub fn results_page(
    results: &[(String, SavedResult)],
    title: Option<&str>,
) -> Result<String, VerdictError> {
    if results.is_empty() {
        return Err(VerdictError::Settings(
            "a report draws saved results: give at least one".into(),
        ));
    }
    if let [(name, result)] = results {
        let title = title.map_or_else(|| result.title(name), str::to_string);
        return Ok(page(&title, &result.sections(name)?));
    }
    let parts = results
        .iter()
        .enumerate()
        .map(|(i, (name, result))| {
            let file = crate::page::shown_name(Path::new(name));
            Ok(PagePart {
                title: format!("{}: {file}", result.kind()),
                anchor: format!("result-{}", i + 1),
                intro: format!("From {name}."),
                body: result.sections(name)?,
            })
        })
        .collect::<Result<Vec<_>, VerdictError>>()?;
    Ok(combined_html(
        title.unwrap_or("verdict report"),
        &format!("{} saved results, one part each.", parts.len()),
        &parts,
    ))
}
