//! Simulations written and opened through the library: seeded byte-identical files,
//! a typed manifest, truth that is a distribution where it must be, and a policy
//! scored against it (the true equilibrium scores exploitability 0 and support F1 1,
//! the closed form of Eq. 69–70 at the solution).

use verdict::sim::arena_world::ArenaWorldSettings;
use verdict::simulation::{
    score, write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation, SimulationManifest,
    Split, Truth, WorldKind,
};

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
    }
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
    for file in [
        "contexts.parquet",
        "feedback.parquet",
        "battles.parquet",
        "truth.parquet",
        "test_truth.parquet",
    ] {
        let read = |d: &std::path::Path| std::fs::read(d.join(file)).unwrap();
        assert_eq!(read(&a), read(&b), "{file}");
        assert_ne!(read(&a), read(&c), "{file}");
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
