//! `verdict simulate`: a world with exact ground truth written to a directory
//! ([`crate::simulation`]).

use std::time::Instant;

use super::SimulateArgs;
use crate::simulation::SimulateParams;

/// `--propensity-range LO,HI` as a pair.
pub fn propensity_range(values: &[f64]) -> anyhow::Result<(f64, f64)> {
    match values {
        &[low, high] => Ok((low, high)),
        other => anyhow::bail!(
            "--propensity-range takes two numbers, LO,HI (e.g. 0.25,0.75); got {other:?}"
        ),
    }
}

pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let params = SimulateParams {
        world: args.world,
        feedback: args.feedback,
        voters: args.voters,
        agents: args.agents,
        contexts: args.contexts,
        test_contexts: args.test_contexts,
        seed: args.seed,
        rho: args.rho,
        propensity_range: args
            .propensity_range
            .as_deref()
            .map(propensity_range)
            .transpose()?,
        selection_slope: args.selection_slope,
        popularity_exponent: args.popularity_exponent,
        tie_rate: args.tie_rate,
        preference_scale: args.preference_scale,
        cycle_strength: args.cycle_strength,
        group_rotation: args.group_rotation,
        group_balance: args.group_balance,
        no_training_truth: args.no_training_truth,
    };
    let what = params.records_kind()?;
    let summary = params.write(&args.out)?;
    eprintln!(
        "{} contexts, {} {what}, {} test contexts, ground truth and manifest in {} ({:.2} s)",
        summary.contexts,
        summary.records,
        summary.test_contexts,
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
