//! Simulations with exact ground truth, written to and opened from a directory: the
//! NashEval Appendix G world ([`write_appendix_g`]) and the arena-shaped world
//! ([`write_arena`]). A directory holds Parquet tables of contexts, feedback and truth
//! for training and test contexts, and a typed [`SimulationManifest`]; it is staged
//! beside its destination and published only when complete, replacing only files an
//! earlier run of verdict wrote ([`verdict::io::StagedDir`]).

mod appendix_g;
mod arena;
mod baselines;
mod evaluate;
mod params;
mod truth;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use verdict::game::{solve_batch, Lottery, PayoffMatrix, Regularizer};
use verdict::io::{ColumnData, StagedDir};

pub use appendix_g::{write_appendix_g, AppendixGSimulation};
pub use arena::{write_arena, ArenaSimulation};
pub use baselines::{
    bradley_terry_of_payoff, bt_argmax_policies, evaluate_bt_argmax, evaluate_lottery_by,
    evaluate_true_surface_argmax, BT_RIDGE,
};
pub use evaluate::{
    evaluate_file, evaluate_model, evaluate_with_references, test_winners_by, Evaluation,
};
pub use params::SimulateParams;
pub use truth::{
    equilibria_in, fit_oracle, fit_with_truth, head_to_head, payoff_rmse, score, PolicyScore,
    Split, Truth,
};

use crate::worlds::SimulationError;
use verdict::VerdictError;

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";

/// Which world a simulation directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum WorldKind {
    /// NashEval Appendix G: five agents, menus selected independently (Eq. 63).
    #[default]
    AppendixG,
    /// The arena world: K agents, one pair per prompt ([`crate::worlds::arena_world`]).
    Arena,
}

/// How the true equilibria were computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EquilibriumNote {
    /// `rho` of `rho/2 ||pi − 1/K||²`; 0 is the maximal lottery (minimum norm).
    pub rho: f64,
    /// The regularizer in words.
    pub regularizer: String,
}

/// One file of a simulation: its rows and what its columns hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileNote {
    /// Rows.
    pub rows: usize,
    /// The columns, in words.
    pub columns: String,
}

/// What `manifest.json` records: enough to read the files and to redo the run.
/// Fields verdict adds when publishing (`written_by`, `checksums`) are read by
/// [`StagedDir`], not here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulationManifest {
    /// The data-generating process, in words.
    pub generator: String,
    /// The world (older manifests without it are Appendix G).
    #[serde(default)]
    pub world: WorldKind,
    /// The seed.
    pub seed: u64,
    /// Feedback modality of `feedback.parquet`.
    pub feedback: String,
    /// Voters in the population (Appendix G).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voters: Option<usize>,
    /// Training contexts.
    pub contexts: usize,
    /// Test contexts.
    pub test_contexts: usize,
    /// How the true equilibria were computed.
    pub equilibrium: EquilibriumNote,
    /// Agent names; every matrix of the truth is in this order.
    pub agents: Vec<String>,
    /// The menu catalogue, agents by name; truth columns per menu are in this order.
    pub menus: Vec<Vec<String>>,
    /// The world's parameters.
    pub parameters: serde_json::Value,
    /// The files and their columns.
    pub files: BTreeMap<String, FileNote>,
}

impl SimulationManifest {
    /// Reads `dir/manifest.json`.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the file when it is missing, not JSON, or not a
    /// simulation manifest.
    pub fn open(dir: &Path) -> Result<Self, VerdictError> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            VerdictError::Data(format!(
                "cannot read {}: {e}; a simulation directory is written by verdict simulate",
                path.display()
            ))
        })?;
        let manifest: Self = serde_json::from_str(&text).map_err(|e| {
            VerdictError::Data(format!(
                "{}: not a simulation manifest: {e}",
                path.display()
            ))
        })?;
        if manifest.agents.len() < 2 || manifest.menus.is_empty() {
            return Err(VerdictError::Data(format!(
                "{}: a simulation needs at least two agents and one menu",
                path.display()
            )));
        }
        Ok(manifest)
    }

    fn publish(self, staging: StagedDir) -> Result<(), VerdictError> {
        let serde_json::Value::Object(map) =
            serde_json::to_value(self).expect("a manifest serialises")
        else {
            unreachable!("a struct serialises to an object")
        };
        staging.publish(map)?;
        Ok(())
    }
}

impl FileNote {
    /// A file of `rows` rows whose columns are described by `columns`.
    pub fn new(rows: usize, columns: &str) -> Self {
        Self {
            rows,
            columns: columns.into(),
        }
    }
}

/// What a written simulation holds, for the caller's message.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationSummary {
    /// Training contexts.
    pub contexts: usize,
    /// Feedback records.
    pub records: usize,
    /// Test contexts.
    pub test_contexts: usize,
}

/// The equilibrium note of `rho`.
fn equilibrium_note(rho: f64) -> EquilibriumNote {
    EquilibriumNote {
        rho,
        regularizer: if rho > 0.0 {
            "rho/2 ||pi - 1/K||^2".into()
        } else {
            "none (maximal lottery, minimum norm)".into()
        },
    }
}

/// Solves every context's true game (`payoffs`: contexts × K × K, row-major).
fn true_equilibria(payoffs: &[Vec<f64>], k: usize, rho: f64) -> Result<Vec<Lottery>, VerdictError> {
    let games = payoffs
        .iter()
        .map(|p| PayoffMatrix::from_row_major(p, k))
        .collect::<Result<Vec<_>, _>>()?;
    let regularizer = Regularizer {
        rho,
        costs: Vec::new(),
    };
    Ok(solve_batch(&games, &regularizer)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?)
}

/// The `context_id` column: `prefix0, prefix1, …`.
fn context_ids(prefix: &str, n: usize) -> ColumnData {
    ColumnData::Text((0..n).map(|i| format!("{prefix}{i}")).collect())
}

/// Checks the settings every world shares.
fn check_common(contexts: usize, rho: f64) -> Result<(), VerdictError> {
    if contexts == 0 {
        return Err(SimulationError {
            name: "contexts",
            value: contexts.to_string(),
            expected: "at least 1",
        }
        .into());
    }
    if !(rho.is_finite() && rho >= 0.0) {
        return Err(SimulationError {
            name: "rho",
            value: rho.to_string(),
            expected: "a finite number >= 0",
        }
        .into());
    }
    Ok(())
}

/// Opens the staging directory for `out`.
fn stage(out: &Path) -> Result<StagedDir, VerdictError> {
    Ok(StagedDir::new(out, MANIFEST)?)
}
