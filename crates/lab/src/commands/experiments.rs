//! `verdict bench nasheval` (the accuracy experiment of
//! [`crate::experiment`], its cells appended to `--out` as JSON lines so that an
//! interrupted run resumes), `bench summary`, `bench cost`, `bench real`, `bench
//! baselines` and `bench network`.

use crate::cost_curve::{cost_curves, figure as cost_figure, mean_points, CostSettings};
use crate::experiment::{
    network_step_seconds, run_accuracy, AccuracyCell, AccuracySettings, ResultsFile,
};
use crate::experiment_summary::{figure, summarize, SUMMARY_COLUMNS};
use crate::real_benchmark::{
    output_lengths, route_split, run_split, summarize_real, AlpacaEval, JudgePanel, RealSettings,
};
use verdict::model_file::load_model;
use verdict::report::plot_curves;
use verdict::VerdictError;

use super::{
    BenchBaselinesArgs, BenchCostArgs, BenchNashEvalArgs, BenchNetworkArgs, BenchRealArgs,
    BenchRouteArgs, BenchRouterArgs, BenchSummaryArgs, Shell,
};

pub fn run(args: &BenchNashEvalArgs) -> anyhow::Result<()> {
    let mut out = ResultsFile::open(&args.out)?;
    let done = out.keys().clone();
    let settings = AccuracySettings {
        seeds: args.seeds.clone(),
        voters: args.voters.clone(),
        contexts: args.contexts,
        test_contexts: args.test_contexts,
        rho: args.rho,
        outcome_backbone: args.outcome_backbone,
        propensity_backbone: args.propensity_backbone,
        payoff_backbone: args.payoff_backbone,
        policies: args.policies.clone(),
        variants: args.variants.clone(),
        network_init: args.network_init,
        propensity_range: super::simulate::propensity_range(&args.propensity_range)?,
        selection_slope: args.selection_slope,
        feedbacks: args.feedbacks.clone(),
        baselines: args.baselines,
    };
    let mut record = |cell: &AccuracyCell| -> Result<(), VerdictError> {
        out.append(&cell.key, cell)?;
        let name = |text: String| text.to_lowercase();
        eprintln!(
            "{} seed {} voters {} {:<11} {:<8} {:<8} {:<7} exploitability {:.4} F1 {:.3}{}",
            cell.feedback,
            cell.seed,
            cell.voters,
            cell.method,
            cell.variant.map_or("-".into(), |v| name(format!("{v:?}"))),
            match (cell.variant, cell.regression) {
                (None, _) => "-".into(),
                (Some(_), None) => "selected".into(),
                (Some(_), Some(r)) => name(format!("{r:?}")),
            },
            name(format!("{:?}", cell.policy)),
            cell.exploitability,
            cell.support_f1,
            match (cell.chosen, cell.chosen_regression, cell.regression) {
                (Some(c), Some(r), None) => name(format!(" (chose {c:?} {r:?})")),
                _ => String::new(),
            }
        );
        Ok(())
    };
    run_accuracy(&settings, &|key| done.contains(key), &mut record)?;
    Ok(())
}

/// `verdict bench summary`: the Markdown table (and with `--plot` the figure) of a
/// results file.
pub fn summary(args: &BenchSummaryArgs, shell: Shell) -> anyhow::Result<()> {
    let plot = shell.outputs.optional(args.plot.as_deref(), "--plot");
    verdict::outputs::Outputs::check(std::slice::from_ref(&plot))?;
    let rows = summarize(&args.results)?;
    println!("| {} |", SUMMARY_COLUMNS.join(" | "));
    println!("|{}", "---|".repeat(SUMMARY_COLUMNS.len()));
    for row in &rows {
        println!("| {} |", row.cells().join(" | "));
    }
    if let Some(plot) = &plot {
        plot_curves(plot, &figure(&rows))?;
    }
    Ok(())
}

/// `verdict bench cost`: every method's points, averaged over seeds, as a Markdown
/// table, and with `--plot` the figure.
pub fn cost(args: &BenchCostArgs, shell: Shell) -> anyhow::Result<()> {
    let plot = shell.outputs.optional(args.plot.as_deref(), "--plot");
    verdict::outputs::Outputs::check(std::slice::from_ref(&plot))?;
    let means = mean_cost_points(args)?;
    println!("| method | β or budget | mean cost | exploitability | strict win rate |");
    println!("|---|---|---|---|---|");
    for p in &means {
        println!(
            "| {} | {} | {:.3} | {:.4} | {:.4} |",
            p.method, p.parameter, p.cost, p.exploitability, p.win_rate
        );
    }
    if let Some(plot) = &plot {
        plot_curves(plot, &cost_figure(&means))?;
    }
    Ok(())
}

/// Every method's cost points of each seed, averaged over the seeds.
fn mean_cost_points(args: &BenchCostArgs) -> anyhow::Result<Vec<crate::cost_curve::CostPoint>> {
    let mut all = Vec::new();
    for &seed in &args.seeds {
        let points = cost_curves(&CostSettings {
            costs: args.costs.clone(),
            seed,
            voters: args.voters,
            contexts: args.contexts,
            test_contexts: args.test_contexts,
        })?;
        eprintln!("seed {seed}: {} points", points.len());
        all.extend(points);
    }
    Ok(mean_points(&all))
}

/// `verdict bench route`: the cost analysis's curves scored as routers — AIQ,
/// APGR and CPT(50%, 80%) of each method's strict win rate against its mean cost,
/// with the single agents as the reference ([`crate::route_metrics`]) — on the
/// simulator, or with `--data` on AlpacaEval's real prompts.
pub fn route(args: &BenchRouteArgs, shell: Shell) -> anyhow::Result<()> {
    use crate::route_metrics::score_router;
    let plot = shell
        .outputs
        .optional(args.simulator.plot.as_deref(), "--plot");
    verdict::outputs::Outputs::check(std::slice::from_ref(&plot))?;
    let (means, names) = match &args.data {
        None => {
            let names = (1..=args.simulator.costs.len())
                .map(|a| format!("agent_{a}"))
                .collect();
            (mean_cost_points(&args.simulator)?, names)
        }
        Some(dir) => {
            let panel = JudgePanel::named(&args.panel)?;
            let data = AlpacaEval::read(dir, &panel)?;
            let costs = output_lengths(dir, &panel, &data)?;
            let mut all = Vec::new();
            for &split in &args.splits {
                let points = route_split(&data, &RealSettings::default(), split, &costs)?;
                eprintln!("split {split}: {} points", points.len());
                all.extend(points);
            }
            (mean_points(&all), data.models.clone())
        }
    };
    let singles: Vec<(f64, f64)> = means
        .iter()
        .filter(|p| p.method == "single")
        .map(|p| (p.cost, p.win_rate))
        .collect();
    anyhow::ensure!(
        !singles.is_empty(),
        "no single-agent points to score routers against"
    );
    println!("| agent alone | cost | strict win rate |");
    println!("|---|---|---|");
    for p in means.iter().filter(|p| p.method == "single") {
        let name = names.get(p.parameter as usize).map_or("?", String::as_str);
        println!("| {name} | {:.3} | {:.4} |", p.cost, p.win_rate);
    }
    println!("\n| router | points | AIQ | APGR | CPT(50%) | CPT(80%) |");
    println!("|---|---|---|---|---|---|");
    let share = |s: Option<f64>| s.map_or("never".to_string(), |s| format!("{:.1}%", 100.0 * s));
    let methods = crate::experiment_summary::first_met(means.iter().map(|p| p.method.as_str()));
    for method in methods.iter().filter(|m| **m != "single") {
        let points: Vec<(f64, f64)> = means
            .iter()
            .filter(|p| p.method == *method)
            .map(|p| (p.cost, p.win_rate))
            .collect();
        let scores = score_router(&points, &singles);
        println!(
            "| {method} | {} | {:.4} | {:.3} | {} | {} |",
            points.len(),
            scores.aiq,
            scores.apgr,
            share(scores.cpt50),
            share(scores.cpt80)
        );
    }
    if let Some(plot) = &plot {
        plot_curves(plot, &cost_figure(&means))?;
    }
    Ok(())
}

/// `verdict bench real`: each split's scores as JSON lines, then the means ± sd over
/// splits as a Markdown table.
pub fn real(args: &BenchRealArgs) -> anyhow::Result<()> {
    let panel = JudgePanel::named(&args.panel)?;
    let data = AlpacaEval::read(&args.data, &panel)?;
    eprintln!(
        "{} prompts, judges {} against {}, {} models scored by every judge on every prompt: {}",
        data.prompts.len(),
        panel.judges.join(" and "),
        panel.reference,
        data.models.len(),
        data.models.join(", ")
    );
    let settings = RealSettings {
        pairs_per_prompt: args.pairs_per_prompt,
        encoder: args
            .encoder
            .as_deref()
            .map(|dir| verdict::io::TextEncoder::load(dir, false))
            .transpose()?,
        ..RealSettings::default()
    };
    let mut all = Vec::new();
    for &split in &args.splits {
        let scores = run_split(&data, &settings, split)?;
        for s in &scores {
            println!("{}", serde_json::to_string(s)?);
        }
        all.extend(scores);
    }
    println!(
        "\n| method | splits | exploitability | support F1 | default's game value against it |"
    );
    println!("|---|---|---|---|---|");
    for r in summarize_real(&all) {
        println!(
            "| {} | {} | {:.4} ± {:.4} | {:.3} ± {:.3} | {:+.4} ± {:.4} |",
            r.method,
            r.splits,
            r.exploitability.0,
            r.exploitability.1,
            r.support_f1.0,
            r.support_f1.1,
            r.default_vs_this.0,
            r.default_vs_this.1
        );
    }
    Ok(())
}

/// `verdict bench router`: one JSON line per router and split, then the table of means
/// ± sd over splits.
pub fn router(args: &BenchRouterArgs) -> anyhow::Result<()> {
    use crate::router_benchmark::{router_split, summarize_routers, RouterData, RouterSettings};
    let data = RouterData::read(&args.data)?;
    eprintln!(
        "{} prompts, {} models with a length on the leaderboard (left out: {})",
        data.data.prompts.len(),
        data.data.models.len(),
        data.dropped.join(", ")
    );
    let settings = RouterSettings {
        observed: args.observed,
        neighbours: args.neighbours,
        encoder: args
            .encoder
            .as_deref()
            .map(|dir| verdict::io::TextEncoder::load(dir, false))
            .transpose()?,
        ..RouterSettings::default()
    };
    let mut all = Vec::new();
    for &split in &args.splits {
        let rows = router_split(&data, &settings, split)?;
        for r in &rows {
            println!("{}", serde_json::to_string(r)?);
        }
        all.extend(rows);
    }
    println!("\n| router | quality (win rate, %) | cost (chars) | AIQ | APGR | CPT(50%) | CPT(80%) | CPT(95%) | arena score | models used |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let splits = args.splits.len();
    for r in summarize_routers(&all) {
        let cpt = r.cpt.map(|(share, reached)| match reached {
            0 => "never".to_owned(),
            n if n == splits => format!("{:.1}%", 100.0 * share),
            n => format!("{:.1}% ({n} of {splits})", 100.0 * share),
        });
        println!(
            "| {} | {:.2} ± {:.2} | {:.0} ± {:.0} | {:.2} ± {:.2} | {:.3} ± {:.3} | {} | {} | {} | {:.2} ± {:.2} | {} |",
            r.router,
            100.0 * r.quality.0,
            100.0 * r.quality.1,
            r.cost.0,
            r.cost.1,
            100.0 * r.aiq.0,
            100.0 * r.aiq.1,
            r.apgr.0,
            r.apgr.1,
            cpt[0],
            cpt[1],
            cpt[2],
            100.0 * r.arena.0,
            100.0 * r.arena.1,
            r.models_used
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for r in summarize_routers(&all)
        .iter()
        .filter(|r| !r.choices.is_empty())
    {
        println!("\n{}, split by split: {}", r.router, r.choices.join(", "));
    }
    Ok(())
}

/// `verdict bench network`: seconds per full-batch training step.
pub fn network(args: &BenchNetworkArgs) -> anyhow::Result<()> {
    let per_step = network_step_seconds(args.contexts, args.hidden, args.steps);
    println!(
        "{} contexts, 5-{h}-{h}-5 network: {:.1} ms per training step (forward, Danskin gap gradient, backward, Adam, and the monitoring forward pass)",
        args.contexts,
        per_step * 1e3,
        h = args.hidden
    );
    Ok(())
}

/// One JSON line per baseline: its name and score on the simulation's test contexts.
pub fn baselines(args: &BenchBaselinesArgs) -> anyhow::Result<()> {
    use crate::simulation::{
        evaluate_bt_argmax, evaluate_lottery_by, evaluate_true_surface_argmax, Evaluation,
    };
    let show = |name: &str, evaluation: Evaluation| -> anyhow::Result<()> {
        for note in &evaluation.notes {
            eprintln!("{note}");
        }
        let mut row = serde_json::to_value(evaluation.score)?;
        row["method"] = name.into();
        println!("{row}");
        Ok(())
    };
    show(
        "global lottery",
        evaluate_lottery_by(&args.truth, None, args.rho)?,
    )?;
    if let Some(column) = &args.by {
        let evaluation = evaluate_lottery_by(&args.truth, Some(column), args.rho)?;
        show(&format!("lottery per {column}"), evaluation)?;
    }
    for path in &args.model {
        let evaluation = evaluate_bt_argmax(&load_model(path)?, &args.truth)?;
        show(&format!("BT argmax of {}", path.display()), evaluation)?;
    }
    for (name, evaluation) in evaluate_true_surface_argmax(&args.truth)? {
        show(&name, evaluation)?;
    }
    Ok(())
}
