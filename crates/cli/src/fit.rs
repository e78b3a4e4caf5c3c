//! `verdict fit`: NashEval on a contextual log, written as one model file.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context as _};
use indicatif::ProgressBar;

use verdict::equilibrium::costs_by_agent;
use verdict::feedback::ContextualLog;
use verdict::io::{read_costs, Source};
use verdict::nasheval::tune::{tune_nuisances, tune_payoff, Tuned};
use verdict::nasheval::{
    fit_prepared, prepare, AggregatorKind, Backbone, FitOptions, GbdtParams, NashEvalModel,
    NetworkOptions, NuisanceDesign, PayoffRegression, PolicyKind, Stage, TrainingReport, Variant,
};
use verdict::simulation::{Split, Truth};

use crate::args::{
    BackboneArg, FitArgs, NuisanceDesignArg, OutputFormat, PolicyArg, RegressionArg, VariantArg,
};
use crate::log::read_log;
use crate::progress::bar;

pub fn run(args: &FitArgs, quiet: bool) -> anyhow::Result<()> {
    let (mut log, featurizer) = read_log(&args.source)?;
    complete_pairs(&mut log, args)?;
    let options = options(args, &log)?;
    let truth = match (options.variant, &args.truth) {
        (Variant::Oracle, Some(dir)) => {
            Some(Truth::open(dir, Split::Training)?.nuisances_for(&log)?)
        }
        (Variant::Oracle, None) => {
            bail!("--variant oracle needs --truth DIR, a directory written by verdict simulate")
        }
        _ => None,
    };
    let bars: RefCell<HashMap<&'static str, ProgressBar>> = RefCell::default();
    let progress = |stage: Stage, done: usize, total: usize| {
        let mut bars = bars.borrow_mut();
        let bar = bars
            .entry(stage.label())
            .or_insert_with(|| bar(total, stage.label(), quiet));
        bar.set_position(done as u64);
        if done >= total {
            bar.finish();
        }
    };
    let started = std::time::Instant::now();
    let mut options = options;
    if args.tune {
        let searches = tune_nuisances(&log, &mut options, &|done, total| {
            progress(Stage::Tuning, done, total);
        })?;
        report_tuning(&searches);
    }
    let prepared = prepare(&log, &options, &progress)?;
    if args.tune {
        let search = tune_payoff(&log, &mut options, &prepared, &|done, total| {
            progress(Stage::Tuning, done, total);
        })?;
        report_tuning(search.as_slice());
    }
    let model = fit_prepared(
        &log,
        &options,
        &prepared,
        truth.as_ref(),
        featurizer,
        &progress,
    )?;
    drop(bars);
    if let Some(t) = &model.summary.network_tuning {
        let n = &t.options;
        eprintln!(
            "tuned the network over {} grid points on {} contexts: width {}, learning rate {}, weight decay {}, batches of {} (held-out gap {:.5})",
            t.points, t.contexts, n.hidden, n.learning_rate, n.weight_decay, n.batch_size, t.validation_gap
        );
    }
    if model.summary.clipped_propensities > 0 {
        eprintln!(
            "warning: {} of {} out-of-fold propensities were below {} and were raised to it (--propensity-floor{})",
            model.summary.clipped_propensities,
            log.contexts.len() * log.menus.len(),
            floor_text(&options),
            if options.propensity_floor_share > 0.0 { ", --propensity-floor-share" } else { "" }
        );
    }
    if let Some(cold) = &model.summary.collapsed_training {
        let retrained = model.summary.training.as_ref();
        eprintln!(
            "warning: the policy network's held-out gap {:.4} was no better than a constant policy's ({:.4}): it ignored the contexts (a saturated softmax), so it was trained again from the solver's equilibria: held-out gap {:.4}{}",
            cold.validation_gap,
            cold.constant_gap.unwrap_or(f64::NAN),
            retrained.map_or(f64::NAN, |t| t.validation_gap),
            if model.summary.solver_fallback {
                "; still no better, so the model uses the solver policy (as with --policy solver)"
            } else {
                ""
            }
        );
    }
    if model.summary.solver_fallback && model.summary.collapsed_training.is_none() {
        eprintln!(
            "warning: the policy network's held-out gap was no better than a constant policy's (it ignored the contexts), so the model uses the solver policy (as with --policy solver)"
        );
    }
    verdict::model_file::save_model(&model, &args.out)?;
    let seconds = started.elapsed().as_secs_f64();
    match args.format {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "model": args.out.display().to_string(),
                "seconds": seconds,
                "stage_seconds": model.summary.stage_seconds,
                "summary": model.summary,
            }))?
        ),
        OutputFormat::Table | OutputFormat::Csv => {
            print!("{}", summary_table(&model, &args.out, seconds))
        }
    }
    Ok(())
}

/// The propensity floor in words: a number, or relative to each menu's rate.
fn floor_text(options: &FitOptions) -> String {
    if options.propensity_floor_share > 0.0 {
        format!(
            "the smaller of {} and {} times the menu's selection rate",
            options.propensity_floor, options.propensity_floor_share
        )
    } else {
        options.propensity_floor.to_string()
    }
}

/// Pairs no menu holds: refused, or with `--allow-unobserved` given a menu of their
/// own (no feedback) that the pooled outcome model extrapolates to, with a warning.
fn complete_pairs(log: &mut ContextualLog, args: &FitArgs) -> anyhow::Result<()> {
    let unheld = log.unheld_pairs();
    if unheld.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = unheld
        .iter()
        .take(8)
        .map(|&(j, k)| format!("{} vs {}", log.agents[j], log.agents[k]))
        .collect();
    let more = if unheld.len() > names.len() {
        format!(" and {} more", unheld.len() - names.len())
    } else {
        String::new()
    };
    if !args.allow_unobserved {
        bail!(
            "{} pairs of agents never met in any menu ({}{more}): their payoffs cannot be learned from this log; pass --allow-unobserved to extrapolate them through the pooled outcome model",
            unheld.len(),
            names.join(", ")
        );
    }
    anyhow::ensure!(
        args.nuisance_design != NuisanceDesignArg::PerMenu,
        "--allow-unobserved extrapolates through the pooled outcome model; it does not combine with --nuisance-design per-menu"
    );
    log.hold_every_pair();
    eprintln!(
        "warning: {} pairs of agents never met ({}{more}); their payoffs are extrapolated by the pooled outcome model from the agents' other battles, not observed",
        unheld.len(),
        names.join(", ")
    );
    Ok(())
}

fn report_tuning(searches: &[Tuned]) {
    for t in searches {
        eprintln!(
            "tuned over {} grid points: learning rate {}, {} leaves, depth {}, {} rows per leaf, L2 {}, feature fraction {} (3-fold loss {:.5})",
            t.points,
            t.params.learning_rate,
            t.params.num_leaves,
            t.params.max_depth,
            t.params.min_data_in_leaf,
            t.params.lambda_l2,
            t.params.feature_fraction,
            t.loss
        );
    }
}

fn backbone(arg: BackboneArg, mut gbdt: GbdtParams, seed: u64, lambda: f64) -> Backbone {
    gbdt.seed = seed;
    match arg {
        BackboneArg::Gbdt => Backbone::Gbdt(gbdt),
        BackboneArg::Linear => Backbone::Linear { lambda },
    }
}

/// The linear backbone's default penalty.
pub const LINEAR_PENALTY: f64 = 1.0;

/// Default fit options with the given backbones for the outcome, propensity and
/// payoff models (LightGBM with the defaults of [`GbdtParams`], or ridge/logistic with
/// penalty `linear_penalty`), seeded.
pub fn backbone_options(
    outcome: BackboneArg,
    propensity: BackboneArg,
    payoff: BackboneArg,
    seed: u64,
    linear_penalty: f64,
) -> FitOptions {
    let l = linear_penalty;
    FitOptions {
        outcome_backbone: backbone(outcome, GbdtParams::nuisance(), seed, l),
        propensity_backbone: backbone(propensity, GbdtParams::nuisance(), seed, l),
        payoff_backbone: backbone(payoff, GbdtParams::payoff(), seed, l),
        ..FitOptions::default()
    }
}

fn options(args: &FitArgs, log: &ContextualLog) -> anyhow::Result<FitOptions> {
    let costs = match &args.costs.costs {
        None => Vec::new(),
        Some(path) => {
            let given = read_costs(&Source::File(path.clone()), None)?;
            costs_by_agent(&log.agents, &given).with_context(|| path.display().to_string())?
        }
    };
    anyhow::ensure!(
        args.linear_penalty.is_finite() && args.linear_penalty >= 0.0,
        "--linear-penalty {} must be a finite number >= 0",
        args.linear_penalty
    );
    let aggregator = match args.aggregator.split_once(':') {
        None if args.aggregator == "mean" => AggregatorKind::Mean,
        Some(("cubic", alpha)) => AggregatorKind::Cubic(
            alpha
                .parse()
                .ok()
                .filter(|a: &f64| a.is_finite() && *a >= 0.0)
                .with_context(|| {
                    format!("--aggregator cubic:{alpha}: alpha must be a number >= 0")
                })?,
        ),
        _ => bail!("--aggregator {}: use mean or cubic:ALPHA", args.aggregator),
    };
    let options = FitOptions {
        variant: match args.variant {
            VariantArg::Auto => Variant::Auto,
            VariantArg::Debiased => Variant::Debiased,
            VariantArg::Plugin => Variant::Plugin,
            VariantArg::Oracle => Variant::Oracle,
        },
        policy: match args.policy {
            PolicyArg::Network => PolicyKind::Network,
            PolicyArg::Solver => PolicyKind::Solver,
        },
        rho: args.rho,
        costs,
        budget: args.costs.budget,
        soft_budget: args.costs.soft_budget_prices(),
        folds: args.folds,
        seed: args.seed,
        propensity_floor: args.propensity_floor,
        propensity_floor_share: args.propensity_floor_share,
        regression: match args.payoff_regression {
            RegressionArg::Shared => PayoffRegression::Shared,
            RegressionArg::PerPair => PayoffRegression::PerPair,
        },
        aggregator,
        network: NetworkOptions {
            hidden: args.hidden,
            learning_rate: args.learning_rate,
            weight_decay: args.weight_decay,
            batch_size: args.batch_size,
            max_epochs: args.max_epochs,
            patience: args.patience,
            ..NetworkOptions::default()
        },
        tune_network: args.tune,
        network_init: args.network_init.into(),
        nuisance_design: match args.nuisance_design {
            NuisanceDesignArg::Auto => NuisanceDesign::Auto,
            NuisanceDesignArg::PerMenu => NuisanceDesign::PerMenu,
            NuisanceDesignArg::Pooled => NuisanceDesign::Pooled,
        },
        ..backbone_options(
            args.outcome_backbone.unwrap_or(args.backbone),
            args.propensity_backbone.unwrap_or(args.backbone),
            args.payoff_backbone.unwrap_or(args.backbone),
            args.seed,
            args.linear_penalty,
        )
    };
    Ok(options)
}

/// Reads and checks a model file.
pub fn load_model(path: &Path) -> anyhow::Result<NashEvalModel> {
    Ok(verdict::model_file::load_model(path)?)
}

/// A network training's epochs (with `detail` after the count), kept epoch and
/// held-out gaps, for the summary table.
fn training_line(t: &TrainingReport, detail: &str) -> String {
    format!(
        "{} epochs{detail} (kept {}), held-out gap {:.5} (best constant policy {:.5})",
        t.epochs,
        t.best_epoch,
        t.validation_gap,
        t.constant_gap.unwrap_or(f64::NAN)
    )
}

fn summary_table(model: &NashEvalModel, out: &Path, seconds: f64) -> String {
    use std::fmt::Write as _;
    let s = &model.summary;
    let o = &model.options;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "NashEval fit: {} contexts, {} agents, {} features, {} menus ({:.1} s)",
        s.contexts,
        model.agents.len(),
        model.feature_names.len(),
        model.menus.len(),
        seconds
    );
    if !s.fold_sizes.is_empty() {
        let sizes: Vec<String> = s.fold_sizes.iter().map(ToString::to_string).collect();
        let _ = writeln!(text, "folds                 {}", sizes.join(", "));
        let _ = writeln!(
            text,
            "backbones             outcome {}, propensity {}, payoff {} ({:?})",
            o.outcome_backbone.name(),
            o.propensity_backbone.name(),
            o.payoff_backbone.name(),
            o.regression
        );
        let _ = writeln!(
            text,
            "clipped propensities  {} (floor {})",
            s.clipped_propensities,
            floor_text(o)
        );
        if let Some(design) = s.nuisance_design {
            let sparse = s.sparse_menus.len();
            let _ = writeln!(
                text,
                "outcome models        {}{}",
                match design {
                    NuisanceDesign::Pooled => "pooled over menus",
                    _ => "per menu",
                },
                if sparse > 0 {
                    format!(" ({sparse} menus missing from some fold's training contexts)")
                } else {
                    String::new()
                }
            );
        }
        if let (Some(outcome), Some(propensity)) = (s.outcome_loss, s.propensity_loss) {
            let _ = writeln!(text, "outcome MSE (OOF)     {outcome:.5}");
            let _ = writeln!(text, "propensity log loss   {propensity:.5}");
        }
    }
    if !s.stage_seconds.is_empty() {
        let stages: Vec<String> = s
            .stage_seconds
            .iter()
            .map(|(stage, seconds)| format!("{stage} {seconds:.1}"))
            .collect();
        let _ = writeln!(text, "seconds by stage      {}", stages.join(", "));
    }
    for c in &s.candidates {
        let paired = c.difference.map_or(String::new(), |(d, se)| {
            format!("  ({d:+.5} ± {se:.5} against plugin, paired)")
        });
        let _ = writeln!(
            text,
            "risk {:<16} {:.5} ± {:.5}{paired}",
            c.name, c.risk, c.standard_error
        );
    }
    if let Some(chosen) = s.chosen {
        let regression = match (chosen, s.chosen_regression) {
            (verdict::nasheval::Variant::Plugin, _) | (_, None) => String::new(),
            (_, Some(r)) => format!(" ({r:?} payoff regression)"),
        };
        let _ = writeln!(text, "payoff surface        {chosen:?}{regression}");
    }
    if let Some(t) = &s.collapsed_training {
        let _ = writeln!(text, "network (collapsed)   {}", training_line(t, ""));
    }
    if let Some(t) = &s.training {
        let distilled = if t.distilled_epochs > 0 {
            format!(
                ", the first {} distilling the solver's equilibria",
                t.distilled_epochs
            )
        } else {
            String::new()
        };
        let fallback = if s.solver_fallback {
            "; collapsed, policy is the solver"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "network               {}{fallback}",
            training_line(t, &distilled)
        );
    }
    let _ = writeln!(text, "final gap (train)     {:.6}", s.final_gap);
    let _ = writeln!(text, "model                 {}", out.display());
    text
}
