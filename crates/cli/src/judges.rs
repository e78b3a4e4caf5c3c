//! `verdict judge` (score items under a budget with a ledger) and `verdict bench
//! judges` (the judge paper's synthetic experiments).

use verdict::judges::{
    explain_failure, judge_with_ledger, lost_call_warning, read_items, run_experiment,
    ConfiguredPool, CostStructure, EstimateSettings, ExperimentSettings, JudgesConfig, JudgingRun,
    Ledger, LedgerSpend, Method, Norm, PaidCalls, Scenario, METHODS,
};
use verdict::report::{judge_run_html, judges_curves, judges_html, judges_table, plot_curves};

use crate::args::{BenchJudgesArgs, JudgeArgs, JudgeCosts, JudgeMethod, OutputFormat};

pub fn run(args: &JudgeArgs, quiet: bool) -> anyhow::Result<()> {
    // Checked before any judge is paid.
    let out = crate::output::target(&args.out, "--out");
    let page = crate::output::report(args.report.as_deref());
    crate::output::check_with_inputs(
        &[Some(out.clone()), page.clone()],
        &[&args.items, &args.judges, &args.ledger],
    )?;
    let p: Norm = args.p.parse()?;
    let config = JudgesConfig::read(&args.judges)?;
    let items = read_items(&args.items)?;
    let mut pool = ConfiguredPool::new(items, config, args.seed)?;
    let (ids, names) = (pool.ids().to_vec(), pool.judge_names());
    let bar = crate::progress::bar(
        (args.budget * 100.0).round() as usize,
        "budget spent",
        quiet,
    );
    let paid = |cost: f64| bar.inc((cost * 100.0).round() as u64);
    let mut shown = PaidCalls::new(&mut pool, &paid);
    let run = JudgingRun {
        budget: args.budget,
        method: match args.method {
            JudgeMethod::EstIvwe => Method::EstIvwe,
            JudgeMethod::EstIvweGaussian => Method::EstIvweGaussian,
            JudgeMethod::Uniform => Method::Uniform,
            JudgeMethod::Adaptive => Method::Adaptive,
        },
        settings: EstimateSettings {
            p,
            delta: args.delta,
            exploration: args.n0,
            tau: args.tau,
        },
        seed: args.seed,
    };
    let judged = judge_with_ledger(&mut shown, ids.clone(), names.clone(), &run, &args.ledger)?;
    bar.finish_and_clear();
    for entry in &judged.lost {
        eprintln!("{}", lost_call_warning(entry));
    }
    let estimate = judged
        .result
        .map_err(|e| anyhow::anyhow!(explain_failure(&e, &ids, &names, &args.ledger)))?;
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["id", "score"])?;
    for (id, score) in ids.iter().zip(&estimate.scores) {
        csv.write_record([id.as_str(), &score.to_string()])?;
    }
    let csv = String::from_utf8(csv.into_inner()?)?;
    crate::output::emit(&csv, Some(&out))?;
    let summary = format!(
        "{} items scored: spent {:.4} of {} on {} calls ({} replayed from the ledger, {} made){}",
        ids.len(),
        estimate.spent,
        args.budget,
        estimate.calls,
        judged.replayed,
        judged.made,
        estimate
            .exploration
            .map_or(String::new(), |n| format!("; Phase I: {n} calls per pair"))
    );
    eprintln!("{summary}");
    if let Some(page) = &page {
        let spend = LedgerSpend::of(&Ledger::read(&args.ledger)?, &ids);
        let title = format!("verdict judge: {}", verdict::page::shown_name(&args.items));
        crate::output::write_page(page, &judge_run_html(&spend, args.budget, &summary, &title))?;
    }
    Ok(())
}

pub fn bench(args: &BenchJudgesArgs) -> anyhow::Result<()> {
    let plot = crate::output::optional(args.plot.as_deref(), "--plot");
    let page = crate::output::report(args.report.as_deref());
    crate::output::check(&[plot.clone(), page.clone()])?;
    let settings = settings(args)?;
    let rows = run_experiment(&settings);
    if let Some(plot) = &plot {
        plot_curves(plot, &judges_curves(&rows, &settings))?;
    }
    let text = match args.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(
                &serde_json::json!({ "settings": settings, "rows": rows }),
            )? + "\n"
        }
        OutputFormat::Table => judges_table(&rows, &settings),
        OutputFormat::Csv => anyhow::bail!("--format csv is not offered here; use table or json"),
    };
    if let Some(page) = &page {
        let html = judges_html(
            &judges_table(&rows, &settings),
            &judges_curves(&rows, &settings),
            "verdict bench judges",
        )?;
        crate::output::write_page(page, &html)?;
    }
    print!("{text}");
    Ok(())
}

fn settings(args: &BenchJudgesArgs) -> anyhow::Result<ExperimentSettings> {
    anyhow::ensure!(
        args.items > 0 && args.judges > 0,
        "--items and --judges must be at least 1"
    );
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
        items: args.items,
        judges: args.judges,
        budgets: args.budgets.clone(),
        norms,
        repetitions: args.reps,
        scenario,
        methods: args.methods.clone(),
        seed: args.seed,
    })
}
