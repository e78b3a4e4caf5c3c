//! A simulation's settings by name ([`SimulateParams`]), as a settings document holds
//! them (`verdict::settings`): what Python's `simulate` hands over.

use std::path::Path;

use serde::Deserialize;
use verdict::VerdictError;

use super::{write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation};
use super::{SimulationSummary, WorldKind};
use crate::worlds::arena_world::ArenaWorldSettings;
use crate::worlds::nasheval::FeedbackKind;

/// The settings of `verdict simulate` by name: the world, its own settings
/// (`feedback` and `voters` of Appendix G, `agents` of the arena) and the shared
/// ones, each defaulting as the command line does.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SimulateParams {
    pub world: WorldKind,
    pub feedback: FeedbackKind,
    pub voters: usize,
    pub agents: usize,
    pub contexts: usize,
    pub test_contexts: usize,
    pub seed: u64,
    pub rho: f64,
}

impl Default for SimulateParams {
    fn default() -> Self {
        let appendix_g = AppendixGSimulation::default();
        Self {
            world: WorldKind::AppendixG,
            feedback: appendix_g.feedback,
            voters: appendix_g.voters,
            agents: ArenaWorldSettings::default().agents,
            contexts: appendix_g.contexts,
            test_contexts: appendix_g.test_contexts,
            seed: appendix_g.seed,
            rho: appendix_g.rho,
        }
    }
}

impl SimulateParams {
    /// Writes the simulation to the new directory `out`.
    ///
    /// # Errors
    /// Settings out of range, or writing failed (nothing is left half-written).
    pub fn write(&self, out: &Path) -> Result<SimulationSummary, VerdictError> {
        match self.world {
            WorldKind::AppendixG => {
                let settings = AppendixGSimulation {
                    feedback: self.feedback,
                    voters: self.voters,
                    contexts: self.contexts,
                    test_contexts: self.test_contexts,
                    seed: self.seed,
                    rho: self.rho,
                    ..AppendixGSimulation::default()
                };
                write_appendix_g(&settings, out)
            }
            WorldKind::Arena => {
                let settings = ArenaSimulation {
                    world: ArenaWorldSettings {
                        agents: self.agents,
                        seed: self.seed,
                        ..ArenaWorldSettings::default()
                    },
                    contexts: self.contexts,
                    test_contexts: self.test_contexts,
                    rho: self.rho,
                    training_truth: true,
                };
                write_arena(&settings, out)
            }
        }
    }
}
