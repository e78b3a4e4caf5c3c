//! `verdict judge` (score items under a budget with a ledger) and `verdict bench
//! judges` (the judge paper's synthetic experiments).

use std::fmt::Write;
use std::io::BufRead;

use anyhow::Context;
use indicatif::ProgressBar;
use verdict::judges::{
    estimate, run_experiment, ConfiguredPool, CostStructure, EstimateSettings, ExperimentRow,
    ExperimentSettings, JudgeError, JudgePool, JudgesConfig, LedgeredPool, Method, Norm, Scenario,
    METHODS,
};
use verdict::report::{plot_curves, Curves, Series, TextTable};

use crate::args::{BenchJudgesArgs, JudgeArgs, JudgeCosts, JudgeMethod, OutputFormat};

pub fn run(args: &JudgeArgs, quiet: bool) -> anyhow::Result<()> {
    let p: Norm = args.p.parse()?;
    let config = JudgesConfig::read(&args.judges)?;
    let items = read_items(&args.items)?;
    anyhow::ensure!(
        !items.is_empty(),
        "{}: no items; add one JSON object per line",
        args.items.display()
    );
    let mut pool = ConfiguredPool::new(items, config, args.seed)?;
    let ids = pool.ids().to_vec();
    let names = pool.judge_names();
    let bar = crate::progress::bar(
        (args.budget * 100.0).round() as usize,
        "budget spent",
        quiet,
    );
    let mut shown = Progress {
        inner: &mut pool,
        bar: bar.clone(),
    };
    let method = match args.method {
        JudgeMethod::EstIvwe => Method::EstIvwe,
        JudgeMethod::EstIvweGaussian => Method::EstIvweGaussian,
        JudgeMethod::Uniform => Method::Uniform,
        JudgeMethod::Adaptive => Method::Adaptive,
    };
    let settings_record = serde_json::json!({
        "method": method.name(),
        "budget": args.budget,
        "p": args.p,
        "delta": args.delta,
        "n0": args.n0,
        "tau": args.tau,
        "seed": args.seed,
    });
    let serde_json::Value::Object(settings_record) = settings_record else {
        unreachable!("a JSON object literal")
    };
    let mut ledgered = LedgeredPool::open(
        &mut shown,
        ids.clone(),
        names.clone(),
        settings_record,
        &args.ledger,
    )?;
    let settings = EstimateSettings {
        p,
        delta: args.delta,
        exploration: args.n0,
        tau: args.tau,
    };
    let result = estimate(&mut ledgered, args.budget, &method, &settings);
    let (replayed, made) = (ledgered.replayed(), ledgered.made());
    let lost = ledgered.lost().to_vec();
    bar.finish_and_clear();
    for entry in &lost {
        eprintln!(
            "warning: call {} (judge {:?}, item {:?}) was in flight when an earlier run stopped; it may have been paid, so it is charged ({}) and not asked again",
            entry.call, entry.judge, entry.item, entry.cost
        );
    }
    let estimate = result.map_err(|e| explain(e, &ids, &names, &args.ledger))?;
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["id", "score"])?;
    for (id, score) in ids.iter().zip(&estimate.scores) {
        csv.write_record([id.as_str(), &score.to_string()])?;
    }
    let csv = String::from_utf8(csv.into_inner()?)?;
    crate::output::emit(&csv, Some(&args.out))?;
    eprintln!(
        "{} items scored: spent {:.4} of {} on {} calls ({} replayed from the ledger, {} made){}",
        ids.len(),
        estimate.spent,
        args.budget,
        estimate.calls,
        replayed,
        made,
        estimate
            .exploration
            .map_or(String::new(), |n| format!("; Phase I: {n} calls per pair"))
    );
    Ok(())
}

/// A run's error for a person: judges and items by name, and — only where calls were
/// made and the run can go on — how to resume.
fn explain(
    error: JudgeError,
    ids: &[String],
    names: &[String],
    ledger: &std::path::Path,
) -> anyhow::Error {
    match error {
        JudgeError::Call {
            item,
            judge,
            message,
        } => anyhow::anyhow!(
            "judge {:?} failed on item {:?} {} times in a row (last: {message}); every call so far is recorded in {}: rerun the same command to resume, and the failed calls are asked again",
            names[judge],
            ids[item],
            verdict::judges::ATTEMPTS,
            ledger.display()
        ),
        JudgeError::Stopped(why) => anyhow::anyhow!(
            "stopped ({why}); every call so far is recorded in {}: rerun the same command to resume",
            ledger.display()
        ),
        other => other.into(),
    }
}

fn read_items(path: &std::path::Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut items = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: not a JSON object", path.display(), number + 1))?;
        anyhow::ensure!(
            value.is_object(),
            "{}:{}: not a JSON object",
            path.display(),
            number + 1
        );
        items.push(value);
    }
    Ok(items)
}

/// Moves the progress bar by each paid call's cost (in hundredths).
struct Progress<'a> {
    inner: &'a mut dyn JudgePool,
    bar: ProgressBar,
}

impl JudgePool for Progress<'_> {
    fn items(&self) -> usize {
        self.inner.items()
    }
    fn costs(&self) -> &[f64] {
        self.inner.costs()
    }
    fn range(&self) -> f64 {
        self.inner.range()
    }
    fn repeatable(&self, judge: usize) -> bool {
        self.inner.repeatable(judge)
    }
    fn label_calls(&mut self, keys: &[String]) {
        self.inner.label_calls(keys);
    }
    fn concurrency(&self, judge: usize) -> u64 {
        self.inner.concurrency(judge)
    }
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
        self.bar
            .inc((self.inner.costs()[judge] * 100.0).round() as u64);
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let score = self.inner.score(item, judge)?;
        self.bar
            .inc((self.inner.costs()[judge] * 100.0).round() as u64);
        Ok(score)
    }
    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let step = (self.inner.costs()[judge] * 100.0).round() as u64;
        let bar = &self.bar;
        self.inner.score_pair(item, judge, count, &mut |outcome| {
            if outcome.is_ok() {
                bar.inc(step);
            }
            take(outcome)
        })
    }
}

pub fn bench(args: &BenchJudgesArgs) -> anyhow::Result<()> {
    let settings = settings(args)?;
    let rows = run_experiment(&settings);
    if let Some(path) = &args.plot {
        plot_curves(path, &panels(&rows, &settings))?;
    }
    let text = match args.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(&serde_json::json!({ "rows": rows }))? + "\n"
        }
        OutputFormat::Table => table(&rows, &settings),
        OutputFormat::Csv => anyhow::bail!("--format csv is not offered here; use table or json"),
    };
    print!("{text}");
    Ok(())
}

fn settings(args: &BenchJudgesArgs) -> anyhow::Result<ExperimentSettings> {
    anyhow::ensure!(args.k > 0 && args.j > 0, "--k and --j must be at least 1");
    anyhow::ensure!(args.reps > 0, "--reps must be at least 1");
    anyhow::ensure!(
        args.budgets.iter().all(|b| b.is_finite() && *b > 0.0),
        "--budgets must be positive numbers, e.g. 2e4,1e5"
    );
    if let Some(unknown) = args.methods.iter().find(|m| !METHODS.contains(&m.as_str())) {
        anyhow::bail!(
            "unknown method {unknown:?} in --methods; choose from {}",
            METHODS.join(", ")
        );
    }
    let norms = args
        .p
        .iter()
        .map(|p| p.parse::<Norm>())
        .collect::<Result<Vec<_>, _>>()?;
    let scenario = match args.costs {
        JudgeCosts::Random => Scenario::Random,
        JudgeCosts::BadIsExpensive => Scenario::CostQuality(CostStructure::BadIsExpensive),
        JudgeCosts::BadIsCheap => Scenario::CostQuality(CostStructure::BadIsCheap),
        JudgeCosts::Uniform => Scenario::CostQuality(CostStructure::Uniform),
    };
    Ok(ExperimentSettings {
        items: args.k,
        judges: args.j,
        budgets: args.budgets.clone(),
        norms,
        repetitions: args.reps,
        scenario,
        methods: args.methods.clone(),
        seed: args.seed,
    })
}

/// One block per norm: mean ± std of the error per method and budget, and each
/// method's mean error relative to the oracle's.
fn table(rows: &[ExperimentRow], settings: &ExperimentSettings) -> String {
    let mut out = String::new();
    for norm in &settings.norms {
        let p = norm.to_string();
        let _ = writeln!(
            out,
            "l_{p} error, K = {}, J = {}, {} instances (mean ± std; × oracle)",
            settings.items, settings.judges, settings.repetitions
        );
        let mut header = vec!["budget".to_string()];
        header.extend(settings.methods.iter().cloned());
        let mut table = TextTable::new(header);
        for &budget in &settings.budgets {
            let cell = |method: &str| {
                rows.iter()
                    .find(|r| r.p == p && r.budget == budget && r.method == method)
            };
            let oracle = cell("oracle").and_then(|r| r.error_mean);
            let mut line = vec![format!("{budget:e}")];
            for method in &settings.methods {
                let row = cell(method).expect("every cell has a row");
                line.push(match (row.error_mean, row.error_std) {
                    (Some(mean), std) => {
                        let ratio =
                            oracle.map_or(String::new(), |o| format!(" ({:.2}×)", mean / o));
                        let partial = if row.infeasible > 0 {
                            format!(" [{} of {} ran]", row.runs, settings.repetitions)
                        } else {
                            String::new()
                        };
                        format!("{mean:.3e} ± {:.1e}{ratio}{partial}", std.unwrap_or(0.0))
                    }
                    (None, _) => "budget too small".into(),
                });
            }
            table.push(line);
        }
        let _ = writeln!(out, "{}", table.render());
    }
    out
}

/// One panel per norm, one line per method: mean error against budget.
fn panels(rows: &[ExperimentRow], settings: &ExperimentSettings) -> Vec<Curves> {
    settings
        .norms
        .iter()
        .map(|norm| {
            let p = norm.to_string();
            Curves {
                title: format!(
                    "l_{p} error, K = {}, J = {}",
                    settings.items, settings.judges
                ),
                x_label: "budget B".into(),
                y_label: format!("mean l_{p} error ({} instances)", settings.repetitions),
                series: settings
                    .methods
                    .iter()
                    .map(|method| Series {
                        name: method.clone(),
                        points: rows
                            .iter()
                            .filter(|r| r.p == p && &r.method == method)
                            .filter_map(|r| Some((r.budget, r.error_mean?)))
                            .collect(),
                    })
                    .collect(),
            }
        })
        .collect()
}
