//! `verdict judge`: score items under a budget, every call through a ledger.

use verdict::judges::{
    check_level, explain_failure, judge_with_ledger, lost_call_warning, plan_with_ledger,
    read_gold, read_items, ConfiguredPool, EstimateSettings, JudgePool, JudgedItems, JudgedScores,
    JudgesConfig, JudgingRun, Ledger, LedgerSpend, Method, Norm, PaidCalls,
};
use verdict::report::{budget_plan_csv, budget_plan_text, judge_run_html, judged_scores_csv};

use crate::args::{JudgeArgs, JudgeFormat, JudgeMethod};

pub fn run(args: &JudgeArgs, quiet: bool) -> anyhow::Result<()> {
    // Checked before any judge is paid.
    let out = crate::output::outputs().file(&args.out, "--out");
    let page = crate::output::outputs().optional_page(args.report.as_deref(), "--report");
    let mut inputs = vec![args.items.as_path(), &args.judges, &args.ledger];
    inputs.extend(args.gold.as_deref());
    verdict::outputs::Outputs::check_with_inputs(&[Some(out.clone()), page.clone()], &inputs)?;
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
        verdict::page::write_page(page, &html)?;
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
