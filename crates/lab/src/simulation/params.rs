//! A simulation's settings by name ([`SimulateParams`]), as a settings document holds
//! them (`verdict::settings`): every setting of `verdict simulate` under its flag's
//! name, which the command line converts its flags into and Python's `simulate` its
//! keyword arguments.

use std::path::Path;

use serde::{Deserialize, Serialize};
use verdict::settings::{as_name, as_name_or_none, by_name, by_name_or_none, Choice, Setting};
use verdict::VerdictError;

use super::{write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation};
use super::{SimulationSummary, WorldKind};
use crate::worlds::arena_world::ArenaWorldSettings;
use crate::worlds::nasheval::FeedbackKind;

/// The settings of `verdict simulate` by name: the world, the settings of one world
/// only (`feedback`, `voters` and `propensity_range` of Appendix G; `agents`,
/// `popularity_exponent`, `tie_rate`, `preference_scale`, `cycle_strength`, `group_rotation`, `group_balance` and
/// `no_training_truth` of the arena; none: the world's own default) and the shared
/// ones. `selection_slope` is Eq. 63's η in Appendix G (2) and the arena's tilt
/// toward agents strong at a prompt's task (1). Giving a setting of the other world
/// is refused, naming it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SimulateParams {
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub world: WorldKind,
    #[serde(
        deserialize_with = "by_name_or_none",
        serialize_with = "as_name_or_none"
    )]
    pub feedback: Option<FeedbackKind>,
    pub voters: Option<usize>,
    pub agents: Option<usize>,
    pub contexts: usize,
    pub test_contexts: usize,
    pub seed: u64,
    pub rho: f64,
    pub propensity_range: Option<(f64, f64)>,
    pub selection_slope: Option<f64>,
    pub popularity_exponent: Option<f64>,
    pub tie_rate: Option<f64>,
    pub preference_scale: Option<f64>,
    pub cycle_strength: Option<f64>,
    pub group_rotation: Option<f64>,
    pub group_balance: Option<f64>,
    pub no_training_truth: bool,
}

impl Default for SimulateParams {
    fn default() -> Self {
        let appendix_g = AppendixGSimulation::default();
        Self {
            world: WorldKind::AppendixG,
            feedback: None,
            voters: None,
            agents: None,
            contexts: appendix_g.contexts,
            test_contexts: appendix_g.test_contexts,
            seed: appendix_g.seed,
            rho: appendix_g.rho,
            propensity_range: None,
            selection_slope: None,
            popularity_exponent: None,
            tie_rate: None,
            preference_scale: None,
            cycle_strength: None,
            group_rotation: None,
            group_balance: None,
            no_training_truth: false,
        }
    }
}

impl SimulateParams {
    /// Writes the simulation to the new directory `out`.
    ///
    /// # Errors
    /// A setting of the other world, settings out of range, or writing failed
    /// (nothing is left half-written).
    pub fn write(&self, out: &Path) -> Result<SimulationSummary, VerdictError> {
        match self.world {
            WorldKind::AppendixG => write_appendix_g(&self.appendix_g()?, out),
            WorldKind::Arena => write_arena(&self.arena()?, out),
        }
    }

    /// What the feedback of the world is, for a summary line: `pairwise records (3
    /// voters)`, `battles among 16 agents`.
    ///
    /// # Errors
    /// A setting of the other world.
    pub fn records_kind(&self) -> Result<String, VerdictError> {
        Ok(match self.world {
            WorldKind::AppendixG => {
                let settings = self.appendix_g()?;
                format!(
                    "{} records ({} voters)",
                    settings.feedback.name(),
                    settings.voters
                )
            }
            WorldKind::Arena => format!("battles among {} agents", self.arena()?.world.agents),
        })
    }

    /// Appendix G's simulation, its defaults where a setting is none.
    fn appendix_g(&self) -> Result<AppendixGSimulation, VerdictError> {
        self.refuse_foreign(&[
            ("agents", self.agents.is_some()),
            ("popularity_exponent", self.popularity_exponent.is_some()),
            ("tie_rate", self.tie_rate.is_some()),
            ("preference_scale", self.preference_scale.is_some()),
            ("cycle_strength", self.cycle_strength.is_some()),
            ("group_rotation", self.group_rotation.is_some()),
            ("group_balance", self.group_balance.is_some()),
            ("no_training_truth", self.no_training_truth),
        ])?;
        let defaults = AppendixGSimulation::default();
        Ok(AppendixGSimulation {
            feedback: self.feedback.unwrap_or(defaults.feedback),
            voters: self.voters.unwrap_or(defaults.voters),
            contexts: self.contexts,
            test_contexts: self.test_contexts,
            seed: self.seed,
            rho: self.rho,
            propensity_range: self.propensity_range.unwrap_or(defaults.propensity_range),
            selection_slope: self.selection_slope.unwrap_or(defaults.selection_slope),
        })
    }

    /// The arena world's simulation, its defaults where a setting is none.
    fn arena(&self) -> Result<ArenaSimulation, VerdictError> {
        self.refuse_foreign(&[
            ("feedback", self.feedback.is_some()),
            ("voters", self.voters.is_some()),
            ("propensity_range", self.propensity_range.is_some()),
        ])?;
        let defaults = ArenaWorldSettings::default();
        Ok(ArenaSimulation {
            world: ArenaWorldSettings {
                agents: self.agents.unwrap_or(defaults.agents),
                popularity_exponent: self
                    .popularity_exponent
                    .unwrap_or(defaults.popularity_exponent),
                selection_tilt: self.selection_slope.unwrap_or(defaults.selection_tilt),
                tie_rate: self.tie_rate.unwrap_or(defaults.tie_rate),
                preference_scale: self.preference_scale.unwrap_or(defaults.preference_scale),
                cycle_strength: self.cycle_strength.unwrap_or(defaults.cycle_strength),
                group_rotation: self.group_rotation.unwrap_or(defaults.group_rotation),
                group_balance: self.group_balance.unwrap_or(defaults.group_balance),
                seed: self.seed,
            },
            contexts: self.contexts,
            test_contexts: self.test_contexts,
            rho: self.rho,
            training_truth: !self.no_training_truth,
        })
    }

    /// Refuses the settings of the other world that were `given`, naming them.
    fn refuse_foreign(&self, given: &[(&str, bool)]) -> Result<(), VerdictError> {
        let foreign: Vec<String> = given
            .iter()
            .filter(|(_, present)| *present)
            .map(|(name, _)| Setting(name).to_string())
            .collect();
        if foreign.is_empty() {
            return Ok(());
        }
        Err(VerdictError::Settings(format!(
            "{}: not a setting of the {} world; see verdict simulate --help for each world's settings",
            foreign.join(", "),
            self.world.name()
        )))
    }
}
