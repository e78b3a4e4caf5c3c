//! `verdict judge`: score items under a budget, every call through a ledger.

use verdict::judge_request::{judge_request, JudgeOutcome, JudgeParams};
use verdict::judges::{
    read_gold, read_items, ConfiguredPool, JudgePool, JudgesConfig, Ledger, LedgerSpend, Method,
    PaidCalls,
};
use verdict::outputs::Outputs;
use verdict::report::{budget_plan_csv, budget_plan_text, judge_run_html, judged_scores_csv};

use crate::args::{JudgeArgs, JudgeFormat, JudgeMethod};

pub fn run(args: &JudgeArgs, quiet: bool) -> anyhow::Result<()> {
    // Checked before any judge is paid.
    let out = crate::output::outputs().file(&args.out, "--out");
    let page = crate::output::outputs().optional_page(args.report.as_deref(), "--report");
    let mut inputs = vec![args.items.as_path(), &args.judges, &args.ledger];
    inputs.extend(args.gold.as_deref());
    Outputs::check_with_inputs(&[Some(out.clone()), page.clone()], &inputs)?;
    let config = JudgesConfig::read(&args.judges)?;
    let mut pool = ConfiguredPool::new(read_items(&args.items)?, config, args.seed)?;
    let (ids, names) = (pool.ids().to_vec(), pool.judge_names());
    let gold = match &args.gold {
        Some(path) => Some(read_gold(path, &ids, pool.range())?),
        None => None,
    };
    // The run's settings, made into a request as Python's are.
    let params = JudgeParams {
        budget: Some(args.budget),
        p: args.p.parse()?,
        method: match args.method {
            JudgeMethod::EstIvwe => Method::EstIvwe,
            JudgeMethod::EstIvweGaussian => Method::EstIvweGaussian,
            JudgeMethod::Uniform => Method::Uniform,
            JudgeMethod::Adaptive => Method::Adaptive,
            JudgeMethod::EstIvweShared => Method::EstIvweShared {
                families: Vec::new(),
            },
        },
        delta: args.delta,
        n0: args.n0,
        tau: args.tau,
        seed: args.seed,
        level: args.level,
        target_error: args.target_error,
        plan: args.plan,
        ..JudgeParams::default()
    };
    let mut request = params.request(&args.ledger, gold)?;
    request.families = pool.judge_families();
    let bar = crate::progress::bar(
        (args.budget * 100.0).round() as usize,
        "budget spent",
        quiet,
    );
    let paid = |cost: f64| bar.inc((cost * 100.0).round() as u64);
    let judged = judge_request(
        &mut PaidCalls::new(&mut pool, &paid),
        &ids,
        &names,
        &request,
    )?;
    bar.finish_and_clear();
    for warning in &judged.warnings {
        eprintln!("{warning}");
    }
    let outcome = judged
        .outcome
        .map_err(|stopped| anyhow::anyhow!(stopped.explained))?;
    let (scores, estimate) = match outcome {
        JudgeOutcome::Plan(plan) => {
            let text = match args.format {
                JudgeFormat::Json => serde_json::to_string_pretty(&plan)? + "\n",
                JudgeFormat::Csv => budget_plan_csv(&plan)?,
            };
            crate::output::emit(&text, Some(&out))?;
            eprintln!("{}", budget_plan_text(&plan));
            return Ok(());
        }
        JudgeOutcome::Scores { scores, estimate } => (scores, estimate),
    };
    let text = match args.format {
        JudgeFormat::Csv => judged_scores_csv(&scores)?,
        JudgeFormat::Json => serde_json::to_string_pretty(&scores)? + "\n",
    };
    crate::output::emit(&text, Some(&out))?;
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
    for line in scores.summary() {
        eprintln!("{line}");
    }
    if let Some(page) = &page {
        let spend = LedgerSpend::of(&Ledger::read(&args.ledger)?, &ids);
        let title = format!("verdict judge: {}", verdict::page::shown_name(&args.items));
        let html = judge_run_html(&spend, args.budget, &summary, Some(&scores), &title);
        verdict::page::write_page(page, &html)?;
    }
    Ok(())
}
