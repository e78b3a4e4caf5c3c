//! `verdict simulate`: a world with exact ground truth written to a directory
//! ([`crate::simulation`]).

use std::time::Instant;

use crate::simulation::{write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation};
use crate::worlds::arena_world::ArenaWorldSettings;

use super::SimulateArgs;
use crate::simulation::WorldKind;

/// `--propensity-range LO,HI` as a pair.
pub fn propensity_range(values: &[f64]) -> anyhow::Result<(f64, f64)> {
    match values {
        &[low, high] => Ok((low, high)),
        other => anyhow::bail!(
            "--propensity-range takes two numbers, LO,HI (e.g. 0.25,0.75); got {other:?}"
        ),
    }
}

/// Refuses the options of the other world, naming them.
fn refuse_foreign(world: &str, given: &[(&str, bool)]) -> anyhow::Result<()> {
    let foreign: Vec<&str> = given
        .iter()
        .filter(|(_, present)| *present)
        .map(|(flag, _)| *flag)
        .collect();
    anyhow::ensure!(
        foreign.is_empty(),
        "{} does not apply to --world {world}; see verdict simulate --help for each world's options",
        foreign.join(", ")
    );
    Ok(())
}

pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let (summary, what) = match args.world {
        WorldKind::AppendixG => {
            refuse_foreign(
                "appendix-g",
                &[
                    ("--agents", args.agents.is_some()),
                    ("--popularity-exponent", args.popularity_exponent.is_some()),
                    ("--tie-rate", args.tie_rate.is_some()),
                    ("--preference-scale", args.preference_scale.is_some()),
                    ("--cycle-strength", args.cycle_strength.is_some()),
                    ("--no-training-truth", args.no_training_truth),
                ],
            )?;
            let defaults = AppendixGSimulation::default();
            let settings = AppendixGSimulation {
                feedback: args.feedback.unwrap_or(defaults.feedback),
                voters: args.voters.unwrap_or(defaults.voters),
                contexts: args.contexts,
                test_contexts: args.test_contexts,
                seed: args.seed,
                rho: args.rho,
                propensity_range: match &args.propensity_range {
                    Some(values) => propensity_range(values)?,
                    None => defaults.propensity_range,
                },
                selection_slope: args.selection_slope.unwrap_or(defaults.selection_slope),
            };
            let what = format!(
                "{} records ({} voters)",
                settings.feedback.name(),
                settings.voters
            );
            (write_appendix_g(&settings, &args.out)?, what)
        }
        WorldKind::Arena => {
            refuse_foreign(
                "arena",
                &[
                    ("--feedback", args.feedback.is_some()),
                    ("--voters", args.voters.is_some()),
                    ("--propensity-range", args.propensity_range.is_some()),
                ],
            )?;
            let defaults = ArenaWorldSettings::default();
            let settings = ArenaSimulation {
                world: ArenaWorldSettings {
                    agents: args.agents.unwrap_or(defaults.agents),
                    popularity_exponent: args
                        .popularity_exponent
                        .unwrap_or(defaults.popularity_exponent),
                    selection_tilt: args.selection_slope.unwrap_or(defaults.selection_tilt),
                    tie_rate: args.tie_rate.unwrap_or(defaults.tie_rate),
                    preference_scale: args.preference_scale.unwrap_or(defaults.preference_scale),
                    cycle_strength: args.cycle_strength.unwrap_or(defaults.cycle_strength),
                    seed: args.seed,
                },
                contexts: args.contexts,
                test_contexts: args.test_contexts,
                rho: args.rho,
                training_truth: !args.no_training_truth,
            };
            let what = format!("battles among {} agents", settings.world.agents);
            (write_arena(&settings, &args.out)?, what)
        }
    };
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
