//! `verdict bench nasheval` (the accuracy experiment of
//! [`verdict::experiment`], its cells appended to `--out` as JSON lines so that an
//! interrupted run resumes), `bench predict` and `bench network`.

use std::collections::HashSet;
use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;

use verdict::experiment::{run_accuracy, AccuracyCell, AccuracySettings};
use verdict::model_file::load_model;
use verdict::nasheval::payoff_matrices;
use verdict::VerdictError;

use crate::args::{BenchNashEvalArgs, BenchNetworkArgs, BenchPredictArgs};

/// The keys of the cells `path` holds (none when it does not exist yet).
///
/// # Errors
/// When `path` exists and a line is not a cell of this experiment: the file is not
/// ours to append to.
fn recorded_keys(path: &std::path::Path) -> anyhow::Result<HashSet<String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v["key"].as_str().map(str::to_string))
                .with_context(|| {
                    format!(
                        "{} line {}: not a result of verdict bench nasheval; name a new file with --out",
                        path.display(),
                        n + 1
                    )
                })
        })
        .collect()
}

pub fn run(args: &BenchNashEvalArgs) -> anyhow::Result<()> {
    let done = recorded_keys(&args.out)?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("cannot append to {}", args.out.display()))?;
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
        network_init: args.network_init,
        propensity_range: crate::simulate::propensity_range(&args.propensity_range)?,
        selection_slope: args.selection_slope,
    };
    let mut record = |cell: &AccuracyCell| -> Result<(), VerdictError> {
        let written = serde_json::to_string(cell)
            .map_err(std::io::Error::other)
            .and_then(|line| writeln!(out, "{line}"))
            .and_then(|()| out.flush());
        written.map_err(|e| {
            VerdictError::Data(format!("cannot append to {}: {e}", args.out.display()))
        })?;
        eprintln!(
            "seed {} voters {} {:<8} {:<8} {:<7} exploitability {:.4} F1 {:.3}{}",
            cell.seed,
            cell.voters,
            format!("{:?}", cell.variant).to_lowercase(),
            cell.regression
                .map_or("selected".into(), |r| format!("{r:?}").to_lowercase()),
            format!("{:?}", cell.policy).to_lowercase(),
            cell.exploitability,
            cell.support_f1,
            match (cell.chosen, cell.chosen_regression, cell.regression) {
                (Some(c), Some(r), None) => format!(" (chose {c:?} {r:?})").to_lowercase(),
                _ => String::new(),
            }
        );
        Ok(())
    };
    run_accuracy(&settings, &|key| done.contains(key), &mut record)?;
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
    let (load, model) = median_seconds(args.runs, || Ok(load_model(&args.model)?))?;
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
