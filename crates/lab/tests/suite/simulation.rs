//! Simulations written and opened through the library: seeded byte-identical files,
//! a typed manifest, truth that is a distribution where it must be, and a policy
//! scored against it (the true equilibrium scores exploitability 0 and support F1 1,
//! the closed form of Eq. 69–70 at the solution).

use verdict_lab::simulation::{
    score, write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation, SimulationManifest,
    Split, Truth, WorldKind,
};
use verdict_lab::worlds::arena_world::ArenaWorldSettings;

fn small_arena(seed: u64) -> ArenaSimulation {
    ArenaSimulation {
        world: ArenaWorldSettings {
            agents: 5,
            seed,
            ..ArenaWorldSettings::default()
        },
        contexts: 400,
        test_contexts: 50,
        rho: 0.0,
        training_truth: true,
    }
}

/// Files of an arena simulation that both tests compare (each adds its own: the
/// training truth, or the test prompts).
const DATA_FILES: [&str; 4] = [
    "contexts.parquet",
    "feedback.parquet",
    "battles.parquet",
    "test_truth.parquet",
];

/// The bytes of `file` in simulation `dir`.
fn bytes(dir: &std::path::Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap()
}

/// Without the training truth (for simulations too large to hold it) every other
/// file is the same byte for byte, the manifest no longer lists `truth.parquet`, and
/// opening the training truth is an error naming the file.
#[test]
fn an_arena_simulation_without_training_truth_writes_the_rest_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (full, lean) = (dir.path().join("full"), dir.path().join("lean"));
    write_arena(&small_arena(3), &full).unwrap();
    write_arena(
        &ArenaSimulation {
            training_truth: false,
            ..small_arena(3)
        },
        &lean,
    )
    .unwrap();
    assert!(!lean.join("truth.parquet").exists());
    for file in DATA_FILES.iter().chain(&["test_contexts.parquet"]) {
        assert_eq!(bytes(&full, file), bytes(&lean, file), "{file}");
    }
    let manifest = std::fs::read_to_string(lean.join("manifest.json")).unwrap();
    assert!(!manifest.contains("\"truth.parquet\""), "{manifest}");
    let error = Truth::open(&lean, Split::Training).unwrap_err().to_string();
    assert!(error.contains("truth.parquet"), "{error}");
}

#[test]
fn arena_simulations_are_seeded_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    write_arena(&small_arena(3), &a).unwrap();
    write_arena(&small_arena(3), &b).unwrap();
    write_arena(&small_arena(4), &c).unwrap();
    for file in DATA_FILES.iter().chain(&["truth.parquet"]) {
        assert_eq!(bytes(&a, file), bytes(&b, file), "{file}");
        assert_ne!(bytes(&a, file), bytes(&c, file), "{file}");
    }
    let manifest = SimulationManifest::open(&a).unwrap();
    assert_eq!(manifest.world, WorldKind::Arena);
    assert_eq!(manifest.agents.len(), 5);
    assert_eq!(manifest.menus.len(), 10);
}

#[test]
fn truth_opens_for_both_worlds_and_the_true_equilibrium_scores_perfectly() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("arena");
    let paper = dir.path().join("paper");
    write_arena(&small_arena(1), &arena).unwrap();
    write_appendix_g(
        &AppendixGSimulation {
            contexts: 200,
            test_contexts: 30,
            ..AppendixGSimulation::default()
        },
        &paper,
    )
    .unwrap();
    for (dir, menus) in [(&arena, 10), (&paper, 10)] {
        let truth = Truth::open(dir, Split::Test).unwrap();
        let k = truth.agents().len();
        assert_eq!(truth.propensity.len(), truth.ids.len() * menus);
        if truth.manifest.world == WorldKind::Arena {
            // One pair per prompt: the menus' propensities sum to one.
            for row in truth.propensity.chunks(menus) {
                assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            }
        }
        let scored = score(truth.agents(), &truth.equilibrium, &truth).unwrap();
        assert_eq!(scored.contexts, truth.ids.len());
        assert!(scored.exploitability < 1e-6, "{scored:?}");
        assert!((scored.support_f1 - 1.0).abs() < 1e-12, "{scored:?}");
        assert!(scored.game_value.abs() < 1e-6, "{scored:?}");
        assert_eq!(truth.payoff.len(), truth.ids.len() * k * k);
    }
}

#[test]
fn a_directory_that_is_not_a_simulation_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("manifest.json"), r#"{"generator": "x"}"#).unwrap();
    let e = Truth::open(dir.path(), Split::Test)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a simulation manifest"), "{e}");
    let e = Truth::open(&dir.path().join("absent"), Split::Test)
        .unwrap_err()
        .to_string();
    assert!(e.contains("written by verdict simulate"), "{e}");
}

/// The lottery baselines: with no column, the global lottery, scored as `verdict
/// evaluate` scores the board `verdict rank --method lottery` writes (the same numbers
/// by another path); per language, one lottery per language, every policy a
/// distribution. BT-argmax of a fitted surface puts all mass on one agent.
#[test]
fn lottery_and_bradley_terry_baselines_score_on_the_arena_world() {
    use verdict::io::{read_battles, ReadOptions, Source};
    use verdict::nasheval::{fit, FitOptions, PolicyKind};
    use verdict::rank::{rank, Intervals, Method, RankSettings};
    use verdict_lab::simulation::{evaluate_bt_argmax, evaluate_file, evaluate_lottery_by};

    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("arena");
    write_arena(&small_arena(2), &sim).unwrap();
    let global = evaluate_lottery_by(&sim, None, None).unwrap();
    let log = read_battles(
        &Source::File(sim.join("battles.parquet")),
        &ReadOptions::default(),
    )
    .unwrap()
    .log;
    let settings = RankSettings {
        method: Method::Lottery,
        intervals: Intervals::None,
        unobserved: verdict::ratings::UnobservedPairs::Ties,
        ..RankSettings::default()
    };
    let board = dir.path().join("lottery.json");
    let report = rank(&log, "battles", &settings, &|| {}).unwrap();
    std::fs::write(&board, serde_json::to_string(&report).unwrap()).unwrap();
    assert_eq!(global.score, evaluate_file(&board, &sim).unwrap().score);

    let by_language = evaluate_lottery_by(&sim, Some("language"), None).unwrap();
    assert!(by_language.score.exploitability.is_finite());
    assert_ne!(
        by_language.score, global.score,
        "one lottery per language differs"
    );
    let error = evaluate_lottery_by(&sim, Some("planet"), Some(0.0))
        .unwrap_err()
        .to_string();
    assert!(error.contains("planet"), "{error}");

    let options = FitOptions {
        policy: PolicyKind::Solver,
        folds: 3,
        ..FitOptions::default()
    }
    .with_backbones(
        verdict::nasheval::BackboneKind::Linear,
        verdict::nasheval::BackboneKind::Linear,
        verdict::nasheval::BackboneKind::Linear,
        verdict::nasheval::LINEAR_PENALTY,
    );
    // 16 hashed text dimensions: 27 features on 400 contexts. At the default 64 (75
    // features) this linear fit is worse than the zero surface (EXPERIMENTS.md, "The
    // arena world's surface error").
    let reading = verdict::io::ContextualOptions {
        text_column: Some("prompt".into()),
        text_dim: 16,
        ..verdict::io::ContextualOptions::default()
    };
    let mut contextual = verdict::io::read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &reading,
    )
    .unwrap();
    verdict::contextual::complete_pairs(
        &mut contextual,
        true,
        verdict::nasheval::NuisanceDesign::Auto,
    )
    .unwrap();
    let featurizer = verdict::model_file::Featurizer::from_options(&reading).to_value();
    let model = fit(&contextual, &options, featurizer, &|_, _, _| {}).unwrap();
    let bt = evaluate_bt_argmax(&model, &sim).unwrap();
    assert_eq!(bt.score.contexts, global.score.contexts);
    // A pure policy e_j is exploited by max_k A(x)[k][j]: whatever agent BT-argmax picks
    // at each context, its mean exploitability lies between the best and the worst
    // pure strategy's, computed here from the true games alone.
    let truth =
        verdict_lab::simulation::Truth::open(&sim, verdict_lab::simulation::Split::Test).unwrap();
    let k = truth.agents().len();
    let (mut best, mut worst) = (0.0, 0.0);
    for a in truth.payoff.chunks(k * k) {
        let exploited: Vec<f64> = (0..k)
            .map(|j| (0..k).map(|i| a[i * k + j]).fold(f64::MIN, f64::max))
            .collect();
        best += exploited.iter().copied().fold(f64::MAX, f64::min);
        worst += exploited.iter().copied().fold(f64::MIN, f64::max);
    }
    let contexts = truth.ids.len() as f64;
    let (best, worst) = (best / contexts, worst / contexts);
    let pure = bt.score.exploitability;
    assert!(
        best - 1e-12 <= pure && pure <= worst + 1e-12,
        "{pure} outside [{best}, {worst}]"
    );
    let fitted = verdict_lab::simulation::evaluate_model(&model, &sim).unwrap();
    let rmse = fitted.score.payoff_rmse.unwrap();
    // The fitted surface is nearer the truth than the zero surface, whose error is
    // sqrt(mean A_jk²) over the true games (a closed form of the truth alone, checked
    // in `payoff_error_and_condorcet_winners_follow_from_the_truth`).
    let truth =
        verdict_lab::simulation::Truth::open(&sim, verdict_lab::simulation::Split::Test).unwrap();
    let k = model.agents.len();
    let zero_surface = vec![0.0; truth.ids.len() * k * k];
    let zero = verdict_lab::simulation::payoff_rmse(&model.agents, &zero_surface, &truth).unwrap();
    assert!(
        rmse > 0.0 && rmse < zero,
        "fitted {rmse} vs the zero surface {zero}"
    );
    assert_eq!(global.score.payoff_rmse, None, "a lottery has no surface");
}

/// The surface error and the Condorcet count against values computed here from the
/// truth alone: the true surface has error 0, the zero surface `sqrt(mean A_jk²)`
/// (in any agent order), and at `rho = 0` a game has a Condorcet winner exactly
/// when its equilibrium is one agent.
#[test]
fn payoff_error_and_condorcet_winners_follow_from_the_truth() {
    use verdict_lab::simulation::{payoff_rmse, score, Split, Truth};
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("arena");
    write_arena(&small_arena(5), &sim).unwrap();
    let truth = Truth::open(&sim, Split::Test).unwrap();
    let agents = truth.agents().to_vec();
    let k = agents.len();
    assert_eq!(payoff_rmse(&agents, &truth.payoff, &truth).unwrap(), 0.0);
    let zero = vec![0.0; truth.payoff.len()];
    let mean_square = truth
        .payoff
        .chunks(k * k)
        .flat_map(|a| (0..k).flat_map(move |j| (j + 1..k).map(move |l| a[j * k + l].powi(2))))
        .sum::<f64>()
        / (truth.ids.len() * k * (k - 1) / 2) as f64;
    let reversed: Vec<String> = agents.iter().rev().cloned().collect();
    for order in [&agents, &reversed] {
        let rmse = payoff_rmse(order, &zero, &truth).unwrap();
        assert!((rmse - mean_square.sqrt()).abs() < 1e-12, "{rmse}");
    }
    let pure = truth
        .equilibrium
        .chunks(k)
        .filter(|pi| pi.iter().any(|&p| p > 1.0 - 1e-6))
        .count();
    let uniform = vec![1.0 / k as f64; truth.ids.len() * k];
    let scored = score(&agents, &uniform, &truth).unwrap();
    assert_eq!(scored.condorcet_contexts, pure);
    assert!(pure > 0, "some game has a Condorcet winner");
}
