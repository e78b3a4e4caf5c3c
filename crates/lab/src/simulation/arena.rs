//! Writing the arena-shaped world: the contextual files `verdict fit` reads, the same
//! battles as an LMArena-schema log, and the exact truth.

use std::collections::BTreeMap;
use std::path::Path;

use crate::worlds::arena_world::{
    ArenaContext, ArenaTruth, ArenaVerdict, ArenaWorld, ArenaWorldSettings, BOTHBAD_SHARE,
    CODE_SHARE, LANGUAGES, LANGUAGE_SHARES, MATH_SHARE, SKILL_SPREAD,
};
use rayon::prelude::*;
use verdict::io::{write_parquet_table, ColumnData};

use super::{
    check_common, context_ids, equilibrium_note, stage, true_equilibria, FileNote,
    SimulationManifest, SimulationSummary, WorldKind,
};
use verdict::VerdictError;

/// Settings of an arena simulation.
///
/// | Name | Default | Meaning |
/// |---|---|---|
/// | `world` | see [`ArenaWorldSettings`] | agents, popularity, tilt, ties, scale, seed |
/// | `contexts` / `test_contexts` | 20,000 / 4,096 | prompts with a battle; test prompts (truth only) |
/// | `rho` | 0 | regularization of the true equilibria |
/// | `training_truth` | true | write `truth.parquet` (K² payoffs per training prompt) |
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaSimulation {
    /// The world.
    pub world: ArenaWorldSettings,
    /// Prompts with one battle each.
    pub contexts: usize,
    /// Test prompts.
    pub test_contexts: usize,
    /// Regularization of the true equilibria.
    pub rho: f64,
    /// Whether the training prompts' truth is written (`truth.parquet`, read only
    /// by the oracle variant): `K²` payoffs and an equilibrium per prompt, 200 GB
    /// at 128 agents and a million prompts. The test prompts' truth is always
    /// written.
    pub training_truth: bool,
}

impl Default for ArenaSimulation {
    fn default() -> Self {
        Self {
            world: ArenaWorldSettings::default(),
            contexts: 20_000,
            test_contexts: 4096,
            rho: 0.0,
            training_truth: true,
        }
    }
}

/// The context columns of a log: language, task flags, length, prompt.
fn context_columns(contexts: &[ArenaContext]) -> Vec<(&'static str, ColumnData)> {
    let flag = |f: fn(&ArenaContext) -> bool| {
        ColumnData::UInt(contexts.iter().map(|x| u64::from(f(x))).collect())
    };
    vec![
        (
            "language",
            ColumnData::Text(
                contexts
                    .iter()
                    .map(|x| LANGUAGES[x.language].to_string())
                    .collect(),
            ),
        ),
        ("is_code", flag(|x| x.code)),
        ("is_math", flag(|x| x.math)),
        (
            "length",
            ColumnData::Float(contexts.iter().map(|x| f64::from(x.length)).collect()),
        ),
        (
            "prompt",
            ColumnData::Text(contexts.iter().map(|x| x.prompt.clone()).collect()),
        ),
    ]
}

fn with_ids(prefix: &str, contexts: &[ArenaContext]) -> Vec<(&'static str, ColumnData)> {
    let mut columns = vec![("context_id", context_ids(prefix, contexts.len()))];
    columns.extend(context_columns(contexts));
    columns
}

/// Writes the arena simulation into `out`: `contexts.parquet`, `feedback.parquet`
/// (pairwise duels, `"tie"` for both kinds of tie), `battles.parquet` (LMArena's
/// `model_a, model_b, winner` with the context columns), and the truth of training
/// and test prompts.
///
/// # Errors
/// [`VerdictError::Simulation`] or [`VerdictError::Settings`] for a setting outside
/// its range, I/O errors, a file of someone else's in `out`.
pub fn write_arena(
    settings: &ArenaSimulation,
    out: &Path,
) -> Result<SimulationSummary, VerdictError> {
    check_common(settings.contexts, settings.rho)?;
    let world = ArenaWorld::draw(&settings.world)?;
    let seed = settings.world.seed;
    let training = world.draw_contexts(settings.contexts, seed ^ 0x00C0_47E7);
    let test = world.draw_contexts(settings.test_contexts, seed ^ 0x007E_57C0);
    let battles = world.battles(&training, seed);
    let k = world.agents();
    let width = k.to_string().len();
    let agents: Vec<String> = (1..=k).map(|j| format!("model_{j:0width$}")).collect();
    let menus = world.menus();
    let staging = stage(out)?;
    let dir = staging.path();
    write_parquet_table(&dir.join("contexts.parquet"), &with_ids("c", &training))?;
    write_parquet_table(&dir.join("test_contexts.parquet"), &with_ids("t", &test))?;
    let seats: Vec<(usize, usize, ArenaVerdict)> = battles.iter().map(|b| b.seats(menus)).collect();
    write_parquet_table(
        &dir.join("feedback.parquet"),
        &[
            ("context_id", context_ids("c", training.len())),
            (
                "menu",
                ColumnData::TextList(
                    seats
                        .iter()
                        .map(|&(a, b, _)| vec![agents[a].clone(), agents[b].clone()])
                        .collect(),
                ),
            ),
            (
                "modality",
                ColumnData::Text(vec!["pairwise".to_string(); battles.len()]),
            ),
            (
                "response",
                ColumnData::Text(
                    seats
                        .iter()
                        .map(|&(a, b, verdict)| match verdict {
                            ArenaVerdict::First => agents[a].clone(),
                            ArenaVerdict::Second => agents[b].clone(),
                            ArenaVerdict::Tie | ArenaVerdict::BothBad => "tie".into(),
                        })
                        .collect(),
                ),
            ),
            (
                "voter",
                ColumnData::UInt(battles.iter().map(|b| b.group as u64).collect()),
            ),
        ],
    )?;
    let mut log = vec![
        (
            "model_a",
            ColumnData::Text(seats.iter().map(|&(a, _, _)| agents[a].clone()).collect()),
        ),
        (
            "model_b",
            ColumnData::Text(seats.iter().map(|&(_, b, _)| agents[b].clone()).collect()),
        ),
        (
            "winner",
            ColumnData::Text(
                seats
                    .iter()
                    .map(|&(_, _, v)| v.label().to_string())
                    .collect(),
            ),
        ),
        ("context_id", context_ids("c", training.len())),
    ];
    log.extend(context_columns(&training));
    write_parquet_table(&dir.join("battles.parquet"), &log)?;
    let mut truths = vec![("test_truth.parquet", "t", &test)];
    if settings.training_truth {
        truths.insert(0, ("truth.parquet", "c", &training));
    }
    for (file, prefix, contexts) in truths {
        let truths: Vec<ArenaTruth> = contexts.par_iter().map(|x| world.truth(x)).collect();
        let payoffs: Vec<Vec<f64>> = truths.iter().map(|t| t.payoff.clone()).collect();
        let equilibria = true_equilibria(&payoffs, k, settings.rho)?;
        write_parquet_table(
            &dir.join(file),
            &[
                ("context_id", context_ids(prefix, contexts.len())),
                (
                    "propensity",
                    ColumnData::FloatList(truths.iter().map(|t| t.propensity.clone()).collect()),
                ),
                ("payoff", ColumnData::FloatList(payoffs)),
                (
                    "group_shares",
                    ColumnData::FloatList(truths.iter().map(|t| t.group_shares.to_vec()).collect()),
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
    let context_columns = "context_id, language, is_code, is_math, length (tokens), prompt (free text, for the text featurizer)";
    let mut files = BTreeMap::from([
        ("contexts.parquet".to_string(), note(training.len(), context_columns)),
        ("test_contexts.parquet".to_string(), note(test.len(), context_columns)),
        ("feedback.parquet".to_string(), note(battles.len(), "context_id, menu (the pair, model_a first), modality (pairwise), response (winner name or \"tie\"), voter (the voter group; ground truth, not for learning)")),
        ("battles.parquet".to_string(), note(battles.len(), "model_a, model_b, winner (model_a | model_b | tie | tie (bothbad)), context_id, and the context columns: an LMArena-schema log")),
        ("truth.parquet".to_string(), note(training.len(), "context_id, propensity e0 (one per menu, in manifest order; they sum to 1), payoff A = mu0 (KxK row-major; every menu is one pair), group_shares w (voter groups), equilibrium pi*")),
        ("test_truth.parquet".to_string(), note(test.len(), "as truth.parquet, for the test prompts")),
    ]);
    if !settings.training_truth {
        files.remove("truth.parquet");
    }
    let w = &settings.world;
    let manifest = SimulationManifest {
        generator: "verdict arena world".into(),
        world: WorldKind::Arena,
        seed,
        feedback: "pairwise".into(),
        voters: None,
        contexts: settings.contexts,
        test_contexts: settings.test_contexts,
        equilibrium: equilibrium_note(settings.rho),
        agents: agents.clone(),
        menus: menus
            .iter()
            .map(|&[a, b]| vec![agents[a].clone(), agents[b].clone()])
            .collect(),
        parameters: serde_json::json!({
            "agents": k,
            "popularity_exponent": w.popularity_exponent,
            "selection_tilt": w.selection_tilt,
            "tie_rate": w.tie_rate,
            "bothbad_share": BOTHBAD_SHARE,
            "preference_scale": w.preference_scale,
            "cycle_strength": w.cycle_strength,
            "group_rotation": w.group_rotation,
            "group_balance": w.group_balance,
            "skill_spread": SKILL_SPREAD,
            "languages": LANGUAGES,
            "language_shares": LANGUAGE_SHARES,
            "code_share": CODE_SHARE,
            "math_share": MATH_SHARE,
            "popularity": world.popularity(),
        }),
        files,
    };
    manifest.publish(staging)?;
    Ok(SimulationSummary {
        contexts: training.len(),
        records: battles.len(),
        test_contexts: test.len(),
    })
}
