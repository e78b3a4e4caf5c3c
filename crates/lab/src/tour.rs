//! `verdict demo`: a tour of all three parts on bundled and generated data, printed
//! and written as one page. The arena tutorial's walk-through and its board under
//! Bradley–Terry, Elo and the maximal lottery side by side; the maximal lottery of a
//! cyclic real arena (GenAI-Arena's anonymous image-editing battles, bundled); a small
//! NashEval simulation fitted with the linear backbone and scored against its truth
//! (with the `nasheval` feature); and judges under a budget, as an experiment over
//! budgets and as one ledgered run.

use std::fmt::Write;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict::io::{read_battles, Filter, ReadOptions, Source};
use verdict::judges::{
    judge_with_ledger, run_experiment, EstimateSettings, ExperimentSettings, JudgedScores, Ledger,
    LedgerSpend, Method as JudgeMethod, Norm, Scenario, SimulatedJudges, COVERAGE_LEVEL,
};
use verdict::report::{
    combined_html, judge_run_sections, judged_scores_sections, judges_curves, judges_sections,
    judges_table, rank_sections, render_table, PagePart,
};

use crate::tutorial::{walkthrough_and_board, TUTORIAL_LOG};
use verdict::rank::{rank, Intervals, Method, RankSettings};
use verdict::VerdictError;

/// GenAI-Arena's battle log of 2024-02-20 (bundled; see `examples/data/README.md`).
const GENAI_ARENA: &[u8] =
    include_bytes!("../../../examples/data/genai-arena-battles-20240220.json");

/// The tour: what `verdict demo` prints, and the page of all of it.
#[derive(Debug, Clone)]
pub struct Tour {
    /// The text, part by part.
    pub text: String,
    /// The page (self-contained HTML).
    pub page: String,
}

/// Runs the tour; `progress` hears the name of each part as it starts.
///
/// # Errors
/// [`VerdictError`] should a bundled log fail to read or a fit fail (neither does),
/// or a temporary directory not be writable.
pub fn tour(progress: &dyn Fn(&str)) -> Result<Tour, VerdictError> {
    let mut text = String::new();
    let mut parts = Vec::new();
    progress("the arena tutorial");
    parts.push(tutorial_part(&mut text)?);
    progress("a maximal lottery of a cyclic real arena");
    parts.push(cyclic_arena_part(&mut text)?);
    #[cfg(feature = "nasheval")]
    {
        progress("NashEval on a simulated arena");
        parts.push(crate::tour_nasheval::nasheval_part(&mut text)?);
    }
    progress("judges under a budget");
    parts.extend(judges_parts(&mut text)?);
    let page = combined_html(
        "verdict: a tour",
        "What verdict computes, on bundled and generated data: arena leaderboards, a maximal lottery where preferences cycle, each context's winners learned from selective feedback (NashEval), and scores from several judges under a budget.",
        &parts,
    );
    Ok(Tour { text, page })
}

fn bundled(label: &str, data: &[u8]) -> Source {
    Source::Bytes {
        label: label.into(),
        data: data.to_vec(),
    }
}

/// The walk-through's text, and the tutorial log under all three methods.
fn tutorial_part(text: &mut String) -> Result<PagePart, VerdictError> {
    let (walkthrough, _) = walkthrough_and_board()?;
    text.push_str(&walkthrough);
    let log = read_battles(
        &bundled("tutorial-arena.csv", TUTORIAL_LOG),
        &ReadOptions::default(),
    )?
    .log;
    let settings = RankSettings {
        method: Method::All,
        matrices: true,
        ..RankSettings::default()
    };
    let report = rank(&log, "tutorial-arena.csv", &settings, &|| {})?;
    Ok(PagePart {
        title: "The arena tutorial".into(),
        anchor: "tutorial".into(),
        intro: "Four bots, 18 battles: Bradley–Terry with 95% bootstrap intervals, Elo and the maximal lottery side by side, with the predicted win probabilities (P(A beats D) = 0.978 at the maximum-likelihood fit; the tutorial prints 0.977, its twentieth iterate) and the margins.".into(),
        body: rank_sections(&report, None),
    })
}

/// GenAI-Arena's anonymous image-editing battles: no Condorcet winner, a lottery of
/// three models that beat each other in a cycle.
fn cyclic_arena_part(text: &mut String) -> Result<PagePart, VerdictError> {
    let filters = ["model_a~_edition", "anony=true"]
        .iter()
        .map(|f| f.parse::<Filter>().map_err(VerdictError::Data))
        .collect::<Result<Vec<_>, _>>()?;
    let options = ReadOptions {
        filters,
        skip_self_battles: true,
        ..ReadOptions::default()
    };
    let loaded = read_battles(
        &bundled("genai-arena-battles-20240220.json", GENAI_ARENA),
        &options,
    )?;
    let settings = RankSettings {
        method: Method::Lottery,
        intervals: Intervals::None,
        matrices: true,
        unobserved: verdict::ratings::UnobservedPairs::Ties,
        ..RankSettings::default()
    };
    let report = rank(
        &loaded.log,
        "genai-arena-battles-20240220.json",
        &settings,
        &|| {},
    )?;
    let _ = writeln!(
        text,
        "\nA cyclic real arena: GenAI-Arena's anonymous image-editing battles ({} battles)\n",
        loaded.log.len()
    );
    // The matrices of seven long names are for the page, not a terminal.
    text.push_str(&render_table(&report.without_matrices()));
    Ok(PagePart {
        title: "A maximal lottery where preferences cycle".into(),
        anchor: "lottery".into(),
        intro: format!(
            "GenAI-Arena's anonymous image-editing battles of 2024-02-20 ({} battles, self-battles dropped, unplayed pairs as ties): no model beats every other, and the maximal lottery mixes the three that beat each other in a cycle.",
            loaded.log.len()
        ),
        body: rank_sections(&report, None),
    })
}

/// Items, judges and budgets of the tour's judging part: small enough for seconds.
const JUDGE_ITEMS: usize = 40;
const JUDGES: usize = 4;
const JUDGE_BUDGET: f64 = 4_000.0;

/// The judging experiment over budgets, and one ledgered run's spend and allocation.
fn judges_parts(text: &mut String) -> Result<Vec<PagePart>, VerdictError> {
    let settings = ExperimentSettings {
        items: JUDGE_ITEMS,
        judges: JUDGES,
        budgets: vec![1_000.0, 2_000.0, 4_000.0, 8_000.0, 16_000.0],
        norms: vec![Norm::P(2.0)],
        repetitions: 10,
        scenario: Scenario::Random,
        methods: ["uniform", "oracle", "est-ivwe", "adaptive"]
            .map(String::from)
            .to_vec(),
        seed: 0,
        target_error: None,
        shared_errors: None,
    };
    let rows = run_experiment(&settings);
    let table = judges_table(&rows, &settings);
    let _ = writeln!(
        text,
        "\nJudges under a budget: {JUDGE_ITEMS} items, {JUDGES} judges of random cost and noise, 10 instances per budget\n\n{table}"
    );
    let experiment = PagePart {
        title: "Judges under a budget".into(),
        anchor: "judges".into(),
        intro: format!("{JUDGE_ITEMS} items, {JUDGES} simulated judges of random cost and noise: the l_2 error of each strategy's scores against the budget, mean over 10 instances (log–log)."),
        body: judges_sections(&table, &judges_curves(&rows, &settings))?,
    };

    let instance = Scenario::Random.draw(JUDGE_ITEMS, JUDGES, &mut ChaCha8Rng::seed_from_u64(1));
    let truth = instance.scores().to_vec();
    let mut pool = SimulatedJudges::new(instance, 1);
    let items: Vec<String> = (1..=JUDGE_ITEMS).map(|i| format!("item-{i:02}")).collect();
    let judges: Vec<String> = (1..=JUDGES).map(|j| format!("judge-{j}")).collect();
    let dir = tempfile::tempdir()
        .map_err(|e| VerdictError::Data(format!("cannot make a temporary directory: {e}")))?;
    let ledger = dir.path().join("spend.jsonl");
    let run = verdict::judges::JudgingRun {
        budget: JUDGE_BUDGET,
        method: JudgeMethod::Adaptive,
        settings: EstimateSettings::new(Norm::P(2.0)),
        seed: 1,
    };
    let judged = judge_with_ledger(&mut pool, items.clone(), judges.clone(), &run, &ledger)?;
    let estimate = judged.result?;
    let scores = JudgedScores::new(&items, &judges, &[], &estimate, &run, COVERAGE_LEVEL, None)?;
    let covered = scores
        .items
        .iter()
        .zip(&truth)
        .filter(|(item, &t)| item.interval.low <= t && t <= item.interval.high)
        .count();
    // The experiment's error: the l2 norm of the score errors.
    let error = estimate
        .scores
        .iter()
        .zip(&truth)
        .map(|(s, t)| (s - t).powi(2))
        .sum::<f64>()
        .sqrt();
    let summary = format!(
        "adaptive run: {} items, {} calls, spent {:.1} of {JUDGE_BUDGET}; l_2 error against the truth {error:.4}; {covered} of {} 95% intervals hold the true score",
        items.len(),
        estimate.calls,
        estimate.spent,
        items.len()
    );
    let _ = writeln!(text, "{summary}");
    let spend = LedgerSpend::of(&Ledger::read(&ledger)?, &items);
    Ok(vec![
        experiment,
        PagePart {
            title: "One judging run, from its ledger".into(),
            anchor: "judge-run".into(),
            intro: "The adaptive strategy on one instance, every call recorded in a spend ledger before and after it is made: what each judge and item cost, and which judges scored which items.".into(),
            body: judge_run_sections(&spend, JUDGE_BUDGET, &summary)
                + &judged_scores_sections(&scores),
        },
    ])
}
