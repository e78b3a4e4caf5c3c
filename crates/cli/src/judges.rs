//! `verdict judge` (score items under a budget with a ledger) and `verdict bench
//! judges` (the judge paper's synthetic experiments).

use verdict::judges::{
    check_level, explain_failure, judge_with_ledger, lost_call_warning, plan_with_ledger,
    read_gold, read_items, run_experiment, ConfiguredPool, CostStructure, EstimateSettings,
    ExperimentSettings, JudgePool, JudgedItems, JudgedScores, JudgesConfig, JudgingRun, Ledger,
    LedgerSpend, Method, Norm, PaidCalls, Scenario, METHODS,
};
use verdict::report::{
    budget_plan_csv, budget_plan_text, judge_run_html, judged_scores_csv, judges_curves,
    judges_html, judges_table, plot_curves,
};

use crate::args::{BenchJudgesArgs, JudgeArgs, JudgeCosts, JudgeFormat, JudgeMethod, OutputFormat};

pub fn run(args: &JudgeArgs, quiet: bool) -> anyhow::Result<()> {
    // Checked before any judge is paid.
    let out = crate::output::target(&args.out, "--out");
    let page = crate::output::report(args.report.as_deref());
    let mut inputs = vec![args.items.as_path(), &args.judges, &args.ledger];
    inputs.extend(args.gold.as_deref());
    crate::output::check_with_inputs(&[Some(out.clone()), page.clone()], &inputs)?;
    check_level(args.level)?;
    let p: Norm = args.p.parse()?;
    let config = JudgesConfig::read(&args.judges)?;
    let items = read_items(&args.items)?;
    let mut pool = ConfiguredPool::new(items, config, args.seed)?;
    let (ids, names) = (pool.ids().to_vec(), pool.judge_names());
    let gold = match &args.gold {
        Some(path) => Some(read_gold(path, &ids, pool.range())?),
        None => None,
    };
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
            target_error: args.target_error,
        },
        seed: args.seed,
    };
    if args.plan {
        let planned = plan_with_ledger(&mut shown, ids.clone(), names.clone(), &run, &args.ledger)?;
        bar.finish_and_clear();
        let plan = settle(planned, &ids, &names, &args.ledger)?.0;
        let text = match args.format {
            JudgeFormat::Json => serde_json::to_string_pretty(&plan)? + "\n",
            JudgeFormat::Csv => budget_plan_csv(&plan)?,
        };
        crate::output::emit(&text, Some(&out))?;
        eprintln!("{}", budget_plan_text(&plan));
        return Ok(());
    }
    let judged = judge_with_ledger(&mut shown, ids.clone(), names.clone(), &run, &args.ledger)?;
    bar.finish_and_clear();
    let (estimate, replayed, made) = settle(judged, &ids, &names, &args.ledger)?;
    let result = JudgedScores::new(&ids, &names, &estimate, &run, args.level, gold.as_deref())?;
    let text = match args.format {
        JudgeFormat::Csv => judged_scores_csv(&result)?,
        JudgeFormat::Json => serde_json::to_string_pretty(&result)? + "\n",
    };
    crate::output::emit(&text, Some(&out))?;
    let summary = format!(
        "{} items scored: spent {:.4} of {} on {} calls ({replayed} replayed from the ledger, {made} made){}",
        ids.len(),
        estimate.spent,
        args.budget,
        estimate.calls,
        estimate
            .exploration
            .map_or(String::new(), |n| format!("; Phase I: {n} calls per pair"))
    );
    eprintln!("{summary}");
    for line in result.summary() {
        eprintln!("{line}");
    }
    if let Some(page) = &page {
        let spend = LedgerSpend::of(&Ledger::read(&args.ledger)?, &ids);
        let title = format!("verdict judge: {}", verdict::page::shown_name(&args.items));
        let html = judge_run_html(&spend, args.budget, &summary, Some(&result), &title);
        crate::output::write_page(page, &html)?;
    }
    Ok(())
}

/// A ledgered run's outcome, its lost calls warned about: the result with the calls
/// replayed and made, or the failure explained by name.
fn settle<T>(
    judged: JudgedItems<T>,
    ids: &[String],
    names: &[String],
    ledger: &std::path::Path,
) -> anyhow::Result<(T, u64, u64)> {
    for entry in &judged.lost {
        eprintln!("{}", lost_call_warning(entry));
    }
    let result = judged
        .result
        .map_err(|e| anyhow::anyhow!(explain_failure(&e, ids, names, ledger)))?;
    Ok((result, judged.replayed, judged.made))
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
        args.target_error.is_none_or(|e| e.is_finite() && e > 0.0),
        "--target-error must be a positive number (the estimated l_p error to stop at)"
    );
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
        target_error: args.target_error,
    })
}
