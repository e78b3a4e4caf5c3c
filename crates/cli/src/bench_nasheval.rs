//! `verdict bench nasheval`: the accuracy experiment of NashEval Section 5 on the
//! Appendix G simulator — oracle, debiased, plug-in and the data-driven choice, with
//! a shared or per-pair payoff regression, under the solver and the network policy —
//! seed by seed and voter count by voter count. The nuisances are cross-fitted once
//! per data set and shared by every configuration (as they would be by separate fits
//! with the same seed). Finished cells are appended to `--out` as JSON lines, so an
//! interrupted run resumes where it stopped.

use std::collections::HashSet;
use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;

use verdict::io::{read_contexts, read_contextual_log, ContextualOptions, Source};
use verdict::nasheval::{
    fit_prepared, payoff_matrices, prepare, FitOptions, PayoffRegression, PolicyKind, Variant,
};

use crate::args::{
    BenchNashEvalArgs, BenchNetworkArgs, BenchPredictArgs, NetworkInitArg, PolicyArg,
};
use crate::fit::backbone_options;
use verdict::simulation::{score, write_appendix_g, AppendixGSimulation, Split, Truth};

/// The configurations of one data set: variant and payoff regression.
/// (`auto` chooses its own regression; it is listed once, as shared.)
const CONFIGURATIONS: [(Variant, PayoffRegression); 6] = [
    (Variant::Oracle, PayoffRegression::Shared),
    (Variant::Debiased, PayoffRegression::Shared),
    (Variant::Plugin, PayoffRegression::Shared),
    (Variant::Auto, PayoffRegression::Shared),
    (Variant::Oracle, PayoffRegression::PerPair),
    (Variant::Debiased, PayoffRegression::PerPair),
];

fn name(variant: Variant) -> &'static str {
    match variant {
        Variant::Oracle => "oracle",
        Variant::Debiased => "debiased",
        Variant::Plugin => "plugin",
        Variant::Auto => "auto",
    }
}

fn regression_name(regression: PayoffRegression) -> &'static str {
    match regression {
        PayoffRegression::Shared => "shared",
        PayoffRegression::PerPair => "per-pair",
    }
}

/// Whether a policy is scored on a surface: per-pair surfaces only with the solver,
/// as the paper's Section 5.2 comparison is.
fn scored(policy: PolicyArg, regression: PayoffRegression) -> bool {
    policy == PolicyArg::Solver || regression == PayoffRegression::Shared
}

pub fn run(args: &BenchNashEvalArgs) -> anyhow::Result<()> {
    let done: HashSet<String> = match std::fs::read_to_string(&args.out) {
        Ok(text) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["key"].as_str().map(str::to_string))
            .collect(),
        Err(_) => HashSet::new(),
    };
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("cannot append to {}", args.out.display()))?;
    let setting = format!(
        "n{}-t{}-rho{}-o{:?}-e{:?}-a{:?}-range{:?}-slope{}",
        args.contexts,
        args.test_contexts,
        args.rho,
        args.outcome_backbone,
        args.propensity_backbone,
        args.payoff_backbone,
        args.propensity_range,
        args.selection_slope
    );
    for &seed in &args.seeds {
        for &voters in &args.voters {
            let key = |variant: Variant, regression: PayoffRegression, policy: PolicyArg| {
                let regression = if variant == Variant::Auto {
                    "selected"
                } else {
                    regression_name(regression)
                };
                // Cells of the random start kept their key from before the option.
                let start = match (policy, args.network_init) {
                    (PolicyArg::Network, NetworkInitArg::Solver) => "-solver",
                    _ => "",
                };
                format!(
                    "{setting}/s{seed}/v{voters}/{}/{regression}/{policy:?}{start}",
                    name(variant)
                )
            };
            let pending = CONFIGURATIONS.iter().any(|&(v, r)| {
                args.policies
                    .iter()
                    .any(|&p| scored(p, r) && !done.contains(&key(v, r, p)))
            });
            if !pending {
                continue;
            }
            let dir = tempfile::tempdir()?;
            let sim = dir.path().join("sim");
            write_appendix_g(
                &AppendixGSimulation {
                    voters,
                    contexts: args.contexts,
                    test_contexts: args.test_contexts,
                    seed,
                    rho: args.rho,
                    propensity_range: crate::simulate::propensity_range(&args.propensity_range)?,
                    selection_slope: args.selection_slope,
                    ..AppendixGSimulation::default()
                },
                &sim,
            )?;
            let log = read_contextual_log(
                &Source::File(sim.join("contexts.parquet")),
                &Source::File(sim.join("feedback.parquet")),
                &ContextualOptions::default(),
            )?;
            let truth = Truth::open(&sim, Split::Training)?.nuisances_for(&log)?;
            let test_truth = Truth::open(&sim, Split::Test)?;
            let test = read_contexts(
                &Source::File(sim.join("test_contexts.parquet")),
                &ContextualOptions::default(),
            )?;
            anyhow::ensure!(
                test.feature_names == log.feature_names,
                "test features differ"
            );
            let base = FitOptions {
                variant: Variant::Auto,
                policy: PolicyKind::Solver,
                network_init: args.network_init.into(),
                rho: args.rho,
                seed,
                ..backbone_options(
                    args.outcome_backbone,
                    args.propensity_backbone,
                    args.payoff_backbone,
                    seed,
                    crate::fit::LINEAR_PENALTY,
                )
            };
            let started = Instant::now();
            let prepared = prepare(&log, &base, &|_, _, _| {})?;
            let prepare_seconds = started.elapsed().as_secs_f64();
            for &(variant, regression) in &CONFIGURATIONS {
                let todo = args.policies.iter().any(|&p| {
                    scored(p, regression) && !done.contains(&key(variant, regression, p))
                });
                if !todo {
                    continue;
                }
                let options = FitOptions {
                    variant,
                    regression,
                    ..base.clone()
                };
                let started = Instant::now();
                let mut model = fit_prepared(
                    &log,
                    &options,
                    &prepared,
                    Some(&truth),
                    serde_json::Value::Null,
                    &|_, _, _| {},
                )?;
                let surface_seconds = started.elapsed().as_secs_f64();
                for &policy in &args.policies {
                    let key = key(variant, regression, policy);
                    // Per-pair surfaces are scored with the solver, as the paper's
                    // Section 5.2 comparison is.
                    let skipped =
                        policy == PolicyArg::Network && regression == PayoffRegression::PerPair;
                    if done.contains(&key) || skipped {
                        continue;
                    }
                    let started = Instant::now();
                    if policy == PolicyArg::Network {
                        let games =
                            payoff_matrices(&model.payoffs(&log.features), log.agents.len());
                        model.train_network(&log.features, &games, &|_, _, _| {})?;
                    }
                    let policies = model.policy(&test.features)?;
                    let score = score(&model.agents, &policies, &test_truth)?;
                    let row = serde_json::json!({
                        "key": key,
                        "seed": seed,
                        "voters": voters,
                        "variant": name(variant),
                        "regression": if variant == Variant::Auto { "selected" } else { regression_name(regression) },
                        "policy": format!("{policy:?}").to_lowercase(),
                        "chosen": model.summary.chosen.map(name),
                        "chosen_regression": model.summary.chosen_regression.map(regression_name),
                        "candidates": model.summary.candidates,
                        "exploitability": score.exploitability,
                        "support_f1": score.support_f1,
                        "game_value": score.game_value,
                        "training": model.summary.training,
                        "network_init": format!("{:?}", args.network_init).to_lowercase(),
                        "collapsed_training": model.summary.collapsed_training,
                        "solver_fallback": model.summary.solver_fallback,
                        "seconds": {"nuisances": prepare_seconds, "surface": surface_seconds, "policy": started.elapsed().as_secs_f64()},
                        "outcome_backbone": format!("{:?}", args.outcome_backbone).to_lowercase(),
                    });
                    writeln!(out, "{row}")?;
                    out.flush()?;
                    eprintln!(
                        "seed {seed} voters {voters} {:<8} {:<8} {:<7} exploitability {:.4} F1 {:.3}{}",
                        name(variant),
                        regression_name(regression),
                        format!("{policy:?}").to_lowercase(),
                        score.exploitability,
                        score.support_f1,
                        match (variant, model.summary.chosen, model.summary.chosen_regression) {
                            (Variant::Auto, Some(c), Some(r)) => format!(" (chose {} {})", name(c), regression_name(r)),
                            _ => String::new(),
                        }
                    );
                    model.network = None;
                    model.options.policy = PolicyKind::Solver;
                }
            }
        }
    }
    Ok(())
}

/// Median seconds of `runs` calls of `f` (at least one), with the last result.
fn median_seconds<T>(
    runs: usize,
    mut f: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        last = Some(f()?);
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], last.expect("at least one run")))
}

/// `verdict bench predict`: load, read and predict, timed separately.
pub fn predict(args: &BenchPredictArgs) -> anyhow::Result<()> {
    let (load, model) = median_seconds(args.runs, || crate::fit::load_model(&args.model))?;
    let (read, (table, features)) = median_seconds(args.runs, || {
        crate::predict::model_features(&model, &args.contexts)
    })?;
    let (policy, policies) = median_seconds(args.runs, || Ok(model.policy(&features)?))?;
    println!(
        "{} contexts, {:?} policy: load {:.1} ms, read contexts {:.1} ms, predict {:.1} ms (median of {} runs; {} probabilities)",
        table.ids.len(),
        model.options.policy,
        load * 1e3,
        read * 1e3,
        policy * 1e3,
        args.runs.max(1),
        policies.len()
    );
    Ok(())
}

/// `verdict bench network`: full-batch training steps on random games (each epoch is
/// one forward and backward pass over every context, then one forward pass to
/// monitor the gap), timed per step.
pub fn network(args: &BenchNetworkArgs) -> anyhow::Result<()> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let agents = 5;
    let features: Vec<f64> = (0..args.contexts * 5)
        .map(|_| rng.random_range(0.0..1.0))
        .collect();
    let payoffs: Vec<f64> = (0..args.contexts)
        .flat_map(|_| {
            let mut a = vec![0.0; agents * agents];
            for j in 0..agents {
                for k in j + 1..agents {
                    let v: f64 = rng.random_range(-1.0..1.0);
                    a[j * agents + k] = v;
                    a[k * agents + j] = -v;
                }
            }
            a
        })
        .collect();
    let games = payoff_matrices(&payoffs, agents);
    let loss = verdict::nasheval::GapLoss::Priced(verdict::game::Regularizer {
        rho: 1e-3,
        costs: Vec::new(),
    });
    let options = verdict::nasheval::NetworkOptions {
        hidden: args.hidden,
        batch_size: args.contexts,
        max_epochs: args.steps.max(1),
        patience: usize::MAX,
        validation_fraction: 0.0,
        ..verdict::nasheval::NetworkOptions::default()
    };
    let started = Instant::now();
    verdict::nasheval::Network::train(&features, 5, &games, &loss, &options, &|_, _| {});
    let per_step = started.elapsed().as_secs_f64() / options.max_epochs as f64;
    println!(
        "{} contexts, 5-{h}-{h}-{agents} network: {:.1} ms per training step (forward, Danskin gap gradient, backward, Adam, and the monitoring forward pass)",
        args.contexts,
        per_step * 1e3,
        h = args.hidden
    );
    Ok(())
}
