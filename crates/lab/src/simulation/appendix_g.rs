//! Writing the NashEval Appendix G simulation.

use std::collections::BTreeMap;
use std::path::Path;

use crate::worlds::nasheval::{
    replication_contexts, simulate_feedback, truth, Context, FeedbackKind, Truth, World, AGENTS,
    AMPLITUDES, CALIBRATION_CONTEXTS, CRITERIA, DIMENSIONS, DIRICHLET_ALPHA, FOURIER_FEATURES,
    LENGTH_SCALE, OFFSETS, UNIFORM_SHARE, VOTER_GROUPS,
};
use rayon::prelude::*;
use verdict::io::{write_parquet_table, ColumnData};

use super::{
    check_common, context_ids, equilibrium_note, stage, true_equilibria, FileNote,
    SimulationManifest, SimulationSummary, WorldKind,
};
use crate::worlds::SimulationError;
use verdict::VerdictError;

/// Settings of an Appendix G simulation (the paper's defaults).
///
/// | Name | Default | Meaning |
/// |---|---|---|
/// | `feedback` | pairwise | modality (Appendix G.3) |
/// | `voters` | 3 | the first 1–5 voters of the pool |
/// | `contexts` / `test_contexts` | 20,000 / 4,096 | training and test contexts |
/// | `seed` | 70 | replication seed |
/// | `rho` | 0 | regularization of the true equilibria |
/// | `propensity_range` | (0.25, 0.75) | `(e_min, e_max)` of Eq. 63 |
/// | `selection_slope` | 2 | `eta` of Eq. 63 |
#[derive(Debug, Clone, PartialEq)]
pub struct AppendixGSimulation {
    /// Feedback modality.
    pub feedback: FeedbackKind,
    /// Voters (1 to 5).
    pub voters: usize,
    /// Training contexts.
    pub contexts: usize,
    /// Test contexts (truth only).
    pub test_contexts: usize,
    /// Replication seed.
    pub seed: u64,
    /// Regularization of the true equilibria.
    pub rho: f64,
    /// `(e_min, e_max)`.
    pub propensity_range: (f64, f64),
    /// `eta`.
    pub selection_slope: f64,
}

impl Default for AppendixGSimulation {
    fn default() -> Self {
        Self {
            feedback: FeedbackKind::Pairwise,
            voters: 3,
            contexts: 20_000,
            test_contexts: 4096,
            seed: 70,
            rho: 0.0,
            propensity_range: (0.25, 0.75),
            selection_slope: 2.0,
        }
    }
}

/// `context_id` and one column per coordinate `x1..x5`.
fn context_columns(prefix: &str, contexts: &[Context]) -> Vec<(&'static str, ColumnData)> {
    const NAMES: [&str; DIMENSIONS] = ["x1", "x2", "x3", "x4", "x5"];
    let mut columns = vec![("context_id", context_ids(prefix, contexts.len()))];
    for (d, name) in NAMES.iter().enumerate() {
        columns.push((
            name,
            ColumnData::Float(contexts.iter().map(|x| x[d]).collect()),
        ));
    }
    columns
}

/// Writes the simulation into `out` (see the module docs for how a directory is
/// replaced).
///
/// # Errors
/// [`VerdictError::Settings`] for a setting outside its range, I/O errors, a file of
/// someone else's in `out`.
pub fn write_appendix_g(
    settings: &AppendixGSimulation,
    out: &Path,
) -> Result<SimulationSummary, VerdictError> {
    let s = settings;
    if !(1..=5).contains(&s.voters) {
        return Err(SimulationError {
            name: "voters",
            value: s.voters.to_string(),
            expected: "1 to 5, the pool of five voters (the paper uses 1, 3, 5)",
        }
        .into());
    }
    check_common(s.contexts, s.rho)?;
    let (low, high) = s.propensity_range;
    let world = World::draw(s.seed)
        .with_selection(low, high, s.selection_slope)
        .map_err(|_| SimulationError {
            name: "propensity_range",
            value: format!("{low},{high} with slope {}", s.selection_slope),
            expected: "0 < LO <= HI <= 1 and a finite selection slope",
        })?;
    let kind = s.feedback;
    let (training, test) = replication_contexts(s.seed, s.contexts, s.test_contexts);
    let records = simulate_feedback(&world, &training, s.voters, kind, s.seed);
    let agents: Vec<String> = (1..=AGENTS).map(|j| format!("agent_{j}")).collect();
    let menus = kind.menus();
    let staging = stage(out)?;
    let dir = staging.path();
    write_parquet_table(
        &dir.join("contexts.parquet"),
        &context_columns("c", &training),
    )?;
    write_parquet_table(
        &dir.join("test_contexts.parquet"),
        &context_columns("t", &test),
    )?;
    let name = |a: usize| agents[a].clone();
    let response = |r: &[usize]| match kind {
        FeedbackKind::Ranking => {
            serde_json::to_string(&r.iter().map(|&a| name(a)).collect::<Vec<_>>())
                .expect("names serialise")
        }
        FeedbackKind::Pairwise | FeedbackKind::Winner => name(r[0]),
    };
    write_parquet_table(
        &dir.join("feedback.parquet"),
        &[
            (
                "context_id",
                ColumnData::Text(records.iter().map(|r| format!("c{}", r.context)).collect()),
            ),
            (
                "menu",
                ColumnData::TextList(
                    records
                        .iter()
                        .map(|r| menus[r.menu].iter().map(|&a| name(a)).collect())
                        .collect(),
                ),
            ),
            (
                "modality",
                ColumnData::Text(vec![kind.name().to_string(); records.len()]),
            ),
            (
                "response",
                ColumnData::Text(records.iter().map(|r| response(&r.response)).collect()),
            ),
            (
                "voter",
                ColumnData::UInt(records.iter().map(|r| r.voter as u64).collect()),
            ),
        ],
    )?;
    for (file, prefix, contexts) in [
        ("truth.parquet", "c", &training),
        ("test_truth.parquet", "t", &test),
    ] {
        let truths: Vec<Truth> = contexts
            .par_iter()
            .map(|x| truth(&world, x, s.voters, kind))
            .collect();
        let payoffs: Vec<Vec<f64>> = truths.iter().map(|t| t.payoff.clone()).collect();
        let equilibria = true_equilibria(&payoffs, AGENTS, s.rho)?;
        write_parquet_table(
            &dir.join(file),
            &[
                ("context_id", context_ids(prefix, contexts.len())),
                (
                    "propensity",
                    ColumnData::Float(truths.iter().map(|t| t.propensity).collect()),
                ),
                (
                    "margin",
                    ColumnData::FloatList(truths.iter().map(|t| t.margin.clone()).collect()),
                ),
                ("payoff", ColumnData::FloatList(payoffs)),
                (
                    "menu_means",
                    ColumnData::FloatList(truths.iter().map(|t| t.menu_means.concat()).collect()),
                ),
                (
                    "equilibrium",
                    ColumnData::FloatList(
                        equilibria.into_iter().map(|e| e.probabilities).collect(),
                    ),
                ),
            ],
        )?;
    }
    let note = FileNote::new;
    let files = BTreeMap::from([
        ("contexts.parquet".to_string(), note(training.len(), "context_id, x1..x5")),
        ("feedback.parquet".to_string(), note(records.len(), "context_id, menu (agent names), modality, response (winner name, or a JSON list for rankings), voter (who answered; ground truth, not for learning)")),
        ("test_contexts.parquet".to_string(), note(test.len(), "context_id, x1..x5")),
        ("truth.parquet".to_string(), note(training.len(), "context_id, propensity e0 (every menu), margin M (KxK row-major), payoff A (KxK), menu_means mu0 (one KxK block per menu, in manifest order), equilibrium pi*")),
        ("test_truth.parquet".to_string(), note(test.len(), "as truth.parquet, for the test contexts")),
    ]);
    let manifest = SimulationManifest {
        generator: "NashEval Appendix G".into(),
        world: WorldKind::AppendixG,
        seed: s.seed,
        feedback: kind.name().into(),
        voters: Some(s.voters),
        contexts: s.contexts,
        test_contexts: s.test_contexts,
        equilibrium: equilibrium_note(s.rho),
        agents: agents.clone(),
        menus: menus
            .iter()
            .map(|m| m.iter().map(|&a| name(a)).collect())
            .collect(),
        parameters: serde_json::json!({
            "dimensions": DIMENSIONS,
            "criteria": CRITERIA,
            "fourier_features": FOURIER_FEATURES,
            "length_scale": LENGTH_SCALE,
            "calibration_contexts": CALIBRATION_CONTEXTS,
            "amplitudes": AMPLITUDES,
            "offsets": OFFSETS,
            "voter_groups": VOTER_GROUPS,
            "dirichlet_alpha": DIRICHLET_ALPHA,
            "uniform_share": UNIFORM_SHARE,
            "propensity": [low, high, s.selection_slope],
        }),
        files,
    };
    manifest.publish(staging)?;
    Ok(SimulationSummary {
        contexts: training.len(),
        records: records.len(),
        test_contexts: test.len(),
    })
}
