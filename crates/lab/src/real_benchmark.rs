//! NashEval on real prompts (the spirit of the paper's RQ2, Appendix H.2), built from
//! AlpacaEval's per-prompt judgments: 805 prompts with their text and source data
//! set, models judged against one reference by a panel of judges ([`JudgePanel`]:
//! AlpacaEval 2's GPT-4-turbo judges against `gpt4_1106_preview`, or AlpacaEval 1's
//! GPT-4 and Claude judges against `text_davinci_003`).
//!
//! - **Scores.** `s^J_m(x) ∈ [0, 1]`: judge `J`'s preference for model `m` over the
//!   reference at prompt `x` (`preference − 1`; the weighted judge gives a
//!   probability, the others 0, ½ or 1; copies of one judgment averaged).
//! - **Reference payoffs.** `A_jk(x) = mean_J (s^J_j(x) − s^J_k(x))`, complete and
//!   skew-symmetric at every held-out prompt; its regularized equilibrium `π*(x)`.
//! - **Training feedback.** Each training prompt selects `pairs_per_prompt` distinct
//!   pairs, with a known context-dependent propensity (pairs within the first half of
//!   the models weigh three times more on `koala` and `oasst` prompts); a judge is
//!   drawn uniformly (rater heterogeneity) and its verdict is a draw with
//!   `P(j wins) = (1 + s^J_j − s^J_k)/2`, so `E[Z | x] = A_jk(x)`.
//! - **Contexts.** The prompt text as hashed features, the source data set
//!   (categorical) and the prompt's length in characters.
//!
//! The methods: NashEval (default, plug-in, debiased), the per-context baselines on
//! the same surfaces, and the global ones from the training verdicts — the maximal
//! lottery (Eq. 78), the robust lottery over the source data sets (Eq. 79–81, the
//! prompt mix the lottery must hold up across) and the pluralistic leaderboard's top
//! three (Eq. 82–84).
//!
//! Each split (a seed) draws its held-out prompts and its feedback; every method is
//! scored on the held-out prompts against `A(x)`: exploitability (Eq. 69), support F1
//! against `π*(x)` (Eq. 70), and the head-to-head game value of NashEval's default
//! against it (Eq. 71).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use verdict::game::{
    exploitability, game_value, regularized_equilibrium, support_f1, PayoffMatrix, Regularizer,
    SUPPORT_THRESHOLD,
};
use verdict::io::{
    read_contexts, read_contextual_log, read_table, write_parquet_table, ColumnData,
    ContextualOptions, Source,
};
use verdict::nasheval::global::{global_lottery, robust_global_lottery};
use verdict::nasheval::pluralistic::pluralistic_leaderboard;
use verdict::nasheval::{prepare, FitOptions, NashEvalModel, PolicyKind, PolicyRule, Variant};
use verdict::ratings::{MarginFill, UnobservedPairs};

use crate::experiment::fit_on;
use verdict::model_file::Featurizer;
use verdict::VerdictError;

/// Judges of AlpacaEval that compared models against one reference model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgePanel {
    /// The panel's name on the command line.
    pub name: &'static str,
    /// The reference model every judgment of the panel compares against.
    pub reference: &'static str,
    /// The judges (AlpacaEval's annotator names).
    pub judges: &'static [&'static str],
    /// The share of the prompts every judge must have scored a model on for the
    /// model to be kept; the benchmark then uses the prompts where every judge
    /// scored every kept model.
    pub min_coverage: f64,
    /// The panel's AlpacaEval leaderboard in the data folder (each model's
    /// `avg_length`).
    pub leaderboard: &'static str,
}

/// AlpacaEval 2's GPT-4-turbo judges against `gpt4_1106_preview`: the weighted judge
/// and its chain-of-thought sibling (the two that judged most models on all 805
/// prompts against that reference; five models in common, one of them, gpt4_turbo,
/// preferred on most prompts).
pub const TURBO_PANEL: JudgePanel = JudgePanel {
    name: "turbo",
    reference: "gpt4_1106_preview",
    judges: &[
        "weighted_alpaca_eval_gpt4_turbo",
        "alpaca_eval_cot_gpt4_turbo_fn",
    ],
    min_coverage: 1.0,
    leaderboard: "leaderboard_AlpacaEval2_weighted_gpt4_turbo.csv",
};

/// AlpacaEval 1's GPT-4 judge and its Claude judge against `text_davinci_003`: two
/// model families as raters. The Claude judge's output was not parsed on a few
/// prompts for every model, so models need 97% coverage: six models, on the 776
/// prompts where both judges scored all six.
pub const V1_PANEL: JudgePanel = JudgePanel {
    name: "v1",
    reference: "text_davinci_003",
    judges: &["alpaca_eval_gpt4", "claude"],
    min_coverage: 0.97,
    leaderboard: "leaderboard_AlpacaEval1_alpaca_eval_gpt4.csv",
};

/// Every panel, the default first.
pub const PANELS: [JudgePanel; 2] = [TURBO_PANEL, V1_PANEL];

impl JudgePanel {
    /// The panel called `name`.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the panels there are.
    pub fn named(name: &str) -> Result<Self, VerdictError> {
        PANELS.into_iter().find(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = PANELS.iter().map(|p| p.name).collect();
            data(format!(
                "no judge panel {name:?}; the panels are {}",
                names.join(", ")
            ))
        })
    }
}

/// The data sets whose prompts favour the first half of the models' pairs.
const SKEWED: [&str; 2] = ["koala", "oasst"];

/// AlpacaEval's prompts and the judges' scores of the models every judge scored on
/// every prompt.
#[derive(Debug, Clone)]
pub struct AlpacaEval {
    /// Prompt ids, text and source data set, in id order.
    pub prompts: Vec<(String, String, String)>,
    /// The models, sorted.
    pub models: Vec<String>,
    /// `scores[judge][model][prompt]`, `s^J_m(x)`.
    pub scores: Vec<Vec<Vec<f64>>>,
}

fn data(message: String) -> VerdictError {
    VerdictError::Data(message)
}

/// The text column `name` of `table` as strings (missing values empty).
fn column(table: &verdict::io::Table, name: &str, file: &str) -> Result<Vec<String>, VerdictError> {
    let c = table
        .column(name)
        .ok_or_else(|| data(format!("{file}: no column {name}")))?;
    Ok((0..table.rows())
        .map(|r| c.value(r).unwrap_or("").to_string())
        .collect())
}

impl AlpacaEval {
    /// Reads `instructions.csv` and `alpacaeval_judgments.csv.gz` from `dir` (the
    /// shared data folder's `alpacaeval-judges`): the scores of `panel`'s judges.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the file that is missing or malformed, or when
    /// fewer than three models were scored by every judge on every prompt.
    pub fn read(dir: &Path, panel: &JudgePanel) -> Result<Self, VerdictError> {
        let judges = panel.judges;
        let instructions = dir.join("instructions.csv");
        let table = read_table(&Source::File(instructions.clone()), None, None)?;
        let label = instructions.display().to_string();
        let ids = column(&table, "instruction_id", &label)?;
        let datasets = column(&table, "dataset", &label)?;
        let texts = column(&table, "instruction", &label)?;
        let prompts: Vec<(String, String, String)> = ids
            .into_iter()
            .zip(texts)
            .zip(datasets)
            .map(|((id, text), set)| (id, text, set))
            .collect();
        let index: HashMap<&str, usize> = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.0.as_str(), i))
            .collect();
        let path = dir.join("alpacaeval_judgments.csv.gz");
        let mut text = Vec::new();
        std::fs::File::open(&path)
            .map(flate2::read::GzDecoder::new)
            .and_then(|mut gz| gz.read_to_end(&mut text))
            .map_err(|e| data(format!("{}: cannot read: {e}", path.display())))?;
        let table = read_table(
            &Source::Bytes {
                label: "alpacaeval_judgments.csv".into(),
                data: text,
            },
            None,
            None,
        )?;
        let label = path.display().to_string();
        let (prompt, reference, model, annotator, preference) = (
            column(&table, "instruction_id", &label)?,
            column(&table, "reference_model", &label)?,
            column(&table, "model", &label)?,
            column(&table, "annotator", &label)?,
            column(&table, "preference", &label)?,
        );
        // (judge, model) → per prompt (sum, copies).
        let mut sums: HashMap<(usize, &str), Vec<(f64, u32)>> = HashMap::new();
        for r in 0..table.rows() {
            let Some(judge) = judges.iter().position(|j| *j == annotator[r]) else {
                continue;
            };
            let (Some(&p), Ok(value)) =
                (index.get(prompt[r].as_str()), preference[r].parse::<f64>())
            else {
                continue;
            };
            // Unparsed judgments are 0, -1 or empty; the reference itself and names
            // inferred from folders (a trailing `*`) are left out.
            if reference[r] != panel.reference
                || !(1.0..=2.0).contains(&value)
                || model[r] == panel.reference
                || model[r].ends_with('*')
            {
                continue;
            }
            let cells = sums
                .entry((judge, model[r].as_str()))
                .or_insert_with(|| vec![(0.0, 0); prompts.len()]);
            cells[p].0 += value - 1.0;
            cells[p].1 += 1;
        }
        // Models every judge scored on at least `min_coverage` of the prompts, then
        // the prompts where every judge scored every one of them.
        let needed = (panel.min_coverage * prompts.len() as f64).ceil() as usize;
        let mut models: Vec<String> = sums
            .keys()
            .map(|(_, m)| (*m).to_string())
            .filter(|m| {
                (0..judges.len()).all(|j| {
                    sums.get(&(j, m.as_str()))
                        .is_some_and(|cells| cells.iter().filter(|c| c.1 > 0).count() >= needed)
                })
            })
            .collect();
        models.sort();
        models.dedup();
        let kept: Vec<usize> = (0..prompts.len())
            .filter(|&p| {
                models
                    .iter()
                    .all(|m| (0..judges.len()).all(|j| sums[&(j, m.as_str())][p].1 > 0))
            })
            .collect();
        if models.len() < 3 || kept.is_empty() {
            return Err(data(format!(
                "{}: {} models were scored by every judge on {} of the prompts; at least 3 are needed",
                path.display(),
                models.len(),
                needed
            )));
        }
        let scores = (0..judges.len())
            .map(|j| {
                models
                    .iter()
                    .map(|m| {
                        let cells = &sums[&(j, m.as_str())];
                        kept.iter()
                            .map(|&p| cells[p].0 / f64::from(cells[p].1))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        Ok(Self {
            prompts: kept.iter().map(|&p| prompts[p].clone()).collect(),
            models,
            scores,
        })
    }

    /// Each of `agents`' index in `self.models`, when `agents` are every model (a
    /// split's log lists them in the order it met them).
    pub fn positions(&self, agents: &[String]) -> Option<Vec<usize>> {
        if agents.len() != self.models.len() {
            return None;
        }
        agents
            .iter()
            .map(|a| self.models.iter().position(|m| m == a))
            .collect()
    }

    /// The contexts table of the prompts `rows`: id, source data set, length in
    /// characters and the prompt's text.
    pub fn contexts_table(&self, rows: &[usize]) -> Vec<(&'static str, ColumnData)> {
        let text = |f: &dyn Fn(&(String, String, String)) -> String| {
            ColumnData::Text(rows.iter().map(|&p| f(&self.prompts[p])).collect())
        };
        vec![
            ("context_id", text(&|p| format!("p{}", p.0))),
            ("dataset", text(&|p| p.2.clone())),
            (
                "length",
                ColumnData::Float(
                    rows.iter()
                        .map(|&p| self.prompts[p].1.chars().count() as f64)
                        .collect(),
                ),
            ),
            ("prompt", text(&|p| p.1.clone())),
        ]
    }

    /// The reference game `A(x)` of prompt `p`.
    pub fn reference_game(&self, p: usize) -> Result<PayoffMatrix, VerdictError> {
        let k = self.models.len();
        let judges = self.scores.len() as f64;
        let rows: Vec<Vec<f64>> = (0..k)
            .map(|j| {
                (0..k)
                    .map(|l| self.scores.iter().map(|s| s[j][p] - s[l][p]).sum::<f64>() / judges)
                    .collect()
            })
            .collect();
        Ok(PayoffMatrix::new(&rows)?)
    }
}

/// What the benchmark is run with.
#[derive(Debug, Clone, PartialEq)]
pub struct RealSettings {
    /// Share of prompts held out.
    pub test_share: f64,
    /// Pairs judged per training prompt.
    pub pairs_per_prompt: usize,
    /// `ρ` of every equilibrium (the fit's and the reference's).
    pub rho: f64,
    /// Dimensions of the hashed text features.
    pub text_dim: usize,
    /// The encoder that embeds the prompt instead of hashing it, when given.
    pub encoder: Option<verdict::io::TextEncoder>,
}

impl Default for RealSettings {
    fn default() -> Self {
        Self {
            test_share: 0.25,
            pairs_per_prompt: 3,
            rho: 0.001,
            text_dim: 64,
            encoder: None,
        }
    }
}

/// One method's scores on one split.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RealScore {
    /// The split's seed.
    pub split: u64,
    /// The method.
    pub method: String,
    /// Mean exploitability against the reference games.
    pub exploitability: f64,
    /// Mean support F1 against the reference equilibria.
    pub support_f1: f64,
    /// Mean game value of NashEval's default against this method (Eq. 71).
    pub default_vs_this: f64,
}

/// The selection weight of pair `(j, l)` at a prompt of data set `set`.
fn pair_weight(j: usize, l: usize, k: usize, set: &str) -> f64 {
    if SKEWED.contains(&set) && j < k / 2 && l < k / 2 {
        3.0
    } else {
        1.0
    }
}

/// Writes one split's tables into `dir`; returns the held-out prompts.
fn write_split(
    data: &AlpacaEval,
    settings: &RealSettings,
    seed: u64,
    dir: &Path,
) -> Result<Vec<usize>, VerdictError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..data.prompts.len()).collect();
    order.shuffle(&mut rng);
    let held = ((data.prompts.len() as f64) * settings.test_share).round() as usize;
    let (test, train) = order.split_at(held);
    write_parquet_table(&dir.join("contexts.parquet"), &data.contexts_table(train))?;
    write_parquet_table(
        &dir.join("test_contexts.parquet"),
        &data.contexts_table(test),
    )?;
    let k = data.models.len();
    let pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|j| (j + 1..k).map(move |l| (j, l)))
        .collect();
    let (mut ids, mut menus, mut responses) = (Vec::new(), Vec::new(), Vec::new());
    for &p in train {
        let set = &data.prompts[p].2;
        // Weighted sampling without replacement, one pair at a time.
        let mut left = pairs.clone();
        for _ in 0..settings.pairs_per_prompt.min(pairs.len()) {
            let weights: Vec<f64> = left
                .iter()
                .map(|&(j, l)| pair_weight(j, l, k, set))
                .collect();
            let total: f64 = weights.iter().sum();
            let mut draw = rng.random::<f64>() * total;
            let pick = weights
                .iter()
                .position(|w| {
                    draw -= w;
                    draw < 0.0
                })
                .unwrap_or(weights.len() - 1);
            let (j, l) = left.swap_remove(pick);
            let judge = rng.random_range(0..data.scores.len());
            let s = &data.scores[judge];
            let j_wins = rng.random::<f64>() < (1.0 + s[j][p] - s[l][p]) / 2.0;
            ids.push(format!("p{}", data.prompts[p].0));
            menus.push(vec![data.models[j].clone(), data.models[l].clone()]);
            responses.push(data.models[if j_wins { j } else { l }].clone());
        }
    }
    let n = ids.len();
    write_parquet_table(
        &dir.join("feedback.parquet"),
        &[
            ("context_id", ColumnData::Text(ids)),
            ("menu", ColumnData::TextList(menus)),
            ("modality", ColumnData::Text(vec!["pairwise".into(); n])),
            ("response", ColumnData::Text(responses)),
        ],
    )?;
    Ok(test.to_vec())
}

/// One split: its training log, its held-out contexts, and the reference game of
/// each held-out prompt in the log's agent order (`position[j]`: the index in
/// `data.models` of the log's agent `j`).
struct HeldOut {
    _dir: tempfile::TempDir,
    reading: ContextualOptions,
    log: verdict::feedback::ContextualLog,
    contexts: verdict::io::ContextTable,
    games: Vec<PayoffMatrix>,
    position: Vec<usize>,
}

/// Writes and reads back the split of `seed`.
fn held_out(
    data: &AlpacaEval,
    settings: &RealSettings,
    seed: u64,
) -> Result<HeldOut, VerdictError> {
    let dir = tempfile::tempdir()
        .map_err(|e| data_error(format!("cannot make a temporary directory: {e}")))?;
    let test = write_split(data, settings, seed, dir.path())?;
    let reading = ContextualOptions {
        text_column: Some("prompt".into()),
        text_dim: settings.text_dim,
        text_encoder: settings.encoder.clone(),
        ..ContextualOptions::default()
    };
    let log = read_contextual_log(
        &Source::File(dir.path().join("contexts.parquet")),
        &Source::File(dir.path().join("feedback.parquet")),
        &reading,
    )?;
    let contexts = read_contexts(
        &Source::File(dir.path().join("test_contexts.parquet")),
        &reading,
    )?;
    let k = log.agents.len();
    // The log lists agents as first met: the reference games in its order.
    let position = data.positions(&log.agents).ok_or_else(|| {
        data_error(format!(
            "the split's feedback names {k} models, the data {}; every model must appear in some training pair",
            data.models.len()
        ))
    })?;
    let mut games = Vec::with_capacity(test.len());
    for &p in &test {
        let a = data.reference_game(p)?;
        let rows: Vec<Vec<f64>> = position
            .iter()
            .map(|&j| position.iter().map(|&l| a.get(j, l)).collect())
            .collect();
        games.push(PayoffMatrix::new(&rows)?);
    }
    Ok(HeldOut {
        _dir: dir,
        reading,
        log,
        contexts,
        games,
        position,
    })
}

/// Every method's scores on the split of `seed`.
///
/// # Errors
/// [`VerdictError`] from writing the split, the fits or a solver.
pub fn run_split(
    data: &AlpacaEval,
    settings: &RealSettings,
    seed: u64,
) -> Result<Vec<RealScore>, VerdictError> {
    let held = held_out(data, settings, seed)?;
    let HeldOut {
        reading,
        log,
        contexts,
        games,
        ..
    } = &held;
    let k = log.agents.len();
    let regularizer = Regularizer {
        rho: settings.rho,
        costs: Vec::new(),
    };
    let stars = games
        .iter()
        .map(|g| regularized_equilibrium(g, &regularizer).map(|l| l.probabilities))
        .collect::<Result<Vec<_>, _>>()?;

    let base = FitOptions {
        rho: settings.rho,
        seed,
        ..FitOptions::default()
    };
    let prepared = prepare(log, &base.check(log)?, &|_, _, _| {})?;
    let featurizer = Featurizer::from_options(reading).to_value();
    let fit = |variant: Variant, policy: PolicyKind| {
        let options = FitOptions {
            variant,
            policy,
            ..base.clone()
        };
        fit_on(log, options, &prepared, featurizer.clone())
    };
    let default = fit(Variant::Auto, PolicyKind::Network)?;
    let plugin = fit(Variant::Plugin, PolicyKind::Solver)?;
    let debiased = fit(Variant::Debiased, PolicyKind::Solver)?;
    let x = &contexts.features;
    let aligned = |model: &NashEvalModel| model.align_features(&contexts.feature_names, x);
    let features = aligned(&default)
        .map_err(|e| data_error(e.to_string()))?
        .features;
    // The global baselines: one lottery for every held-out prompt.
    let everywhere = |pi: Vec<f64>| pi.repeat(games.len());
    // The paper's baseline (Appendix I.3): pairs never compared pool to margin 0.
    let ties = MarginFill {
        unobserved: UnobservedPairs::Ties,
        ..MarginFill::default()
    };
    let lottery = everywhere(global_lottery(log, settings.rho, &ties)?);
    let robust = everywhere(robust_global_lottery(log, "dataset", None, &ties)?.probabilities);
    let pluralistic = everywhere(pluralistic_leaderboard(log, seed)?.top_three_lottery(k));
    let reference_policy = default.policy(&features)?;
    let methods: Vec<(String, Vec<f64>)> = vec![
        (
            "NashEval (default: auto, network)".into(),
            reference_policy.clone(),
        ),
        ("NashEval-plugin (solver)".into(), plugin.policy(&features)?),
        (
            "NashEval-debiased (solver)".into(),
            debiased.policy(&features)?,
        ),
        (
            "bt-plugin".into(),
            plugin.baseline_policies(PolicyRule::BtArgmax, &features)?,
        ),
        (
            "bt-reg".into(),
            plugin.baseline_policies(PolicyRule::BtReg, &features)?,
        ),
        (
            "bt-debiased".into(),
            debiased.baseline_policies(PolicyRule::BtArgmax, &features)?,
        ),
        (
            "borda".into(),
            debiased.baseline_policies(PolicyRule::Borda, &features)?,
        ),
        ("global lottery".into(), lottery),
        ("robust lottery (groups: source data set)".into(), robust),
        ("pluralistic leaderboard (top three)".into(), pluralistic),
        ("uniform".into(), vec![1.0 / k as f64; games.len() * k]),
        // The ceiling: each held-out prompt's own reference equilibrium.
        ("reference equilibrium (ceiling)".into(), stars.concat()),
    ];
    Ok(methods
        .into_iter()
        .map(|(method, policies)| {
            let n = games.len() as f64;
            let (mut e, mut f, mut v) = (0.0, 0.0, 0.0);
            for (i, (pi, a)) in policies.chunks(k).zip(games).enumerate() {
                e += exploitability(a, pi);
                f += support_f1(pi, &stars[i], SUPPORT_THRESHOLD);
                v += game_value(a, &reference_policy[i * k..(i + 1) * k], pi);
            }
            RealScore {
                split: seed,
                method,
                exploitability: e / n,
                support_f1: f / n,
                default_vs_this: v / n,
            }
        })
        .collect())
}

/// Each method's mean and sample standard deviation over splits of exploitability,
/// support F1 and the default's game value against it, methods in first-met order.
pub fn summarize_real(scores: &[RealScore]) -> Vec<RealSummary> {
    crate::experiment_summary::first_met(scores.iter().map(|s| s.method.as_str()))
        .into_iter()
        .map(|m| {
            let of = |f: fn(&RealScore) -> f64| -> (f64, f64) {
                let values: Vec<f64> = scores.iter().filter(|s| s.method == m).map(f).collect();
                crate::experiment_summary::mean_sd(&values)
            };
            RealSummary {
                method: m.to_string(),
                splits: scores.iter().filter(|s| s.method == m).count(),
                exploitability: of(|s| s.exploitability),
                support_f1: of(|s| s.support_f1),
                default_vs_this: of(|s| s.default_vs_this),
            }
        })
        .collect()
}

/// One method's scores over splits: mean and sample standard deviation.
#[derive(Debug, Clone, PartialEq)]
pub struct RealSummary {
    /// The method.
    pub method: String,
    /// Splits.
    pub splits: usize,
    /// Exploitability.
    pub exploitability: (f64, f64),
    /// Support F1.
    pub support_f1: (f64, f64),
    /// The default's game value against this method.
    pub default_vs_this: (f64, f64),
}

fn data_error(message: String) -> VerdictError {
    VerdictError::Data(message)
}

/// Each model's mean output length in characters on the panel's AlpacaEval
/// leaderboard (`avg_length`), in `data.models` order: the cost proxy of `verdict
/// bench route` on real prompts (APIs bill per output token; the proxy leaves out
/// that models are priced differently per token).
///
/// # Errors
/// [`VerdictError`] for a missing leaderboard or a model it does not list.
pub fn output_lengths(
    dir: &Path,
    panel: &JudgePanel,
    data: &AlpacaEval,
) -> Result<Vec<f64>, VerdictError> {
    let label = dir.join(panel.leaderboard).display().to_string();
    output_lengths_where_known(dir, panel, data)?
        .into_iter()
        .zip(&data.models)
        .map(|(length, model)| {
            length.ok_or_else(|| data_error(format!("{label}: no avg_length for model {model:?}")))
        })
        .collect()
}

/// Each model's mean output length on the panel's leaderboard, `None` where the
/// leaderboard does not give one.
///
/// # Errors
/// [`VerdictError`] for a missing or malformed leaderboard.
pub fn output_lengths_where_known(
    dir: &Path,
    panel: &JudgePanel,
    data: &AlpacaEval,
) -> Result<Vec<Option<f64>>, VerdictError> {
    let file = dir.join(panel.leaderboard);
    let table = read_table(&Source::File(file.clone()), None, None)?;
    let label = file.display().to_string();
    let names = table
        .columns()
        .first()
        .ok_or_else(|| data_error(format!("{label}: no columns")))?;
    let lengths = column(&table, "avg_length", &label)?;
    Ok(data
        .models
        .iter()
        .map(|model| {
            (0..table.rows())
                .find(|&r| names.value(r) == Some(model.as_str()))
                .and_then(|r| lengths[r].parse::<f64>().ok())
        })
        .collect())
}

/// The cost analysis's curves ([`crate::cost_curve`]) on the held-out prompts of the
/// split of `seed`, scored against the reference games, with `costs` per model in
/// `data.models` order. The single-agent points' parameter is the model's index in
/// `data.models` (the log's own order differs between splits).
///
/// # Errors
/// [`VerdictError`] from the split, the fits or a solver.
pub fn route_split(
    data: &AlpacaEval,
    settings: &RealSettings,
    seed: u64,
    costs: &[f64],
) -> Result<Vec<crate::cost_curve::CostPoint>, VerdictError> {
    use crate::cost_curve::{router_curves, Surfaces};
    let held = held_out(data, settings, seed)?;
    let log = &held.log;
    let k = log.agents.len();
    let agent_costs: Vec<f64> = held.position.iter().map(|&m| costs[m]).collect();
    let base = FitOptions {
        rho: settings.rho,
        seed,
        policy: PolicyKind::Solver,
        ..FitOptions::default()
    };
    let prepared = prepare(log, &base.check(log)?, &|_, _, _| {})?;
    let featurizer = Featurizer::from_options(&held.reading).to_value();
    let fit = |variant: Variant| {
        let options = FitOptions {
            variant,
            ..base.clone()
        };
        fit_on(log, options, &prepared, featurizer.clone())
    };
    let debiased = fit(Variant::Debiased)?;
    let features = debiased
        .align_features(&held.contexts.feature_names, &held.contexts.features)
        .map_err(|e| data_error(e.to_string()))?
        .features;
    let pooled =
        PayoffMatrix::from_row_major(&verdict::nasheval::baselines::pooled_margins(log), k)?;
    let mut points = router_curves(
        &Surfaces {
            true_games: &held.games,
            costs: &agent_costs,
            debiased: &debiased,
            pooled: &pooled,
            features: &features,
        },
        fit(Variant::Plugin)?,
    )?;
    for p in points.iter_mut().filter(|p| p.method == "single") {
        p.parameter = held.position[p.parameter as usize] as f64;
    }
    Ok(points)
}
