//! NashEval through the library alone — simulate, fit, save, load, predict, evaluate —
//! with no binary, as a Rust program or the Python module drives it; one seed drives
//! every learner (LightGBM's boosters included).

use std::path::Path;

use verdict::io::{read_contextual_log, ContextualOptions, Source};
use verdict::model_file::{load_model, read_model_contexts, save_model, Featurizer};
use verdict::nasheval::{fit, Backbone, FitOptions, NashEvalModel, PolicyKind};
use verdict::simulation::{score, write_appendix_g, AppendixGSimulation, Split, Truth};

fn options(seed: u64) -> FitOptions {
    FitOptions {
        seed,
        policy: PolicyKind::Solver,
        folds: 3,
        ..FitOptions::default()
    }
}

fn fitted(sim: &Path, seed: u64) -> NashEvalModel {
    let reading = ContextualOptions::default();
    let log = read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &reading,
    )
    .unwrap();
    fit(
        &log,
        &options(seed),
        None,
        Featurizer::from_options(&reading).to_value(),
        &|_, _, _| {},
    )
    .unwrap()
}

#[test]
fn simulate_fit_save_load_predict_evaluate_without_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim");
    write_appendix_g(
        &AppendixGSimulation {
            contexts: 800,
            test_contexts: 120,
            seed: 71,
            rho: 0.001,
            ..AppendixGSimulation::default()
        },
        &sim,
    )
    .unwrap();
    let model = fitted(&sim, 5);
    let path = dir.path().join("model.json");
    save_model(&model, &path).unwrap();
    let loaded = load_model(&path).unwrap();
    let contexts =
        read_model_contexts(&loaded, &Source::File(sim.join("test_contexts.parquet"))).unwrap();
    assert!(contexts.unseen_categories.is_empty());
    let policies = loaded.policy(&contexts.features).unwrap();
    assert_eq!(policies, model.policy(&contexts.features).unwrap());
    let truth = Truth::open(&sim, Split::Test).unwrap();
    assert_eq!(contexts.table.ids, truth.ids);
    let scored = score(&loaded.agents, &policies, &truth).unwrap();
    // Five agents: a uniform policy's exploitability is the mean of max_j (A 1/K)_j;
    // the fitted policy must do better than that baseline.
    let uniform = vec![0.2; policies.len()];
    let baseline = score(&loaded.agents, &uniform, &truth).unwrap();
    assert!(
        scored.exploitability < baseline.exploitability,
        "{scored:?} vs uniform {baseline:?}"
    );

    // Equal seeds give byte-identical files; another seed other boosters.
    let text = |m: &NashEvalModel| serde_json::to_string(m).unwrap();
    assert_eq!(text(&fitted(&sim, 5)), text(&model));
    let other = fitted(&sim, 6);
    assert_ne!(text(&other), text(&model));
    let boosters = |m: &NashEvalModel| serde_json::to_string(&m.payoff).unwrap();
    assert_ne!(boosters(&other), boosters(&model));
    // LightGBM's own seed is the fit's seed, for every learner.
    for (m, seed) in [(&model, 5), (&other, 6)] {
        for backbone in [
            &m.options.outcome_backbone,
            &m.options.propensity_backbone,
            &m.options.payoff_backbone,
        ] {
            let Backbone::Gbdt(params) = backbone else {
                panic!("the default backbone is LightGBM")
            };
            assert_eq!(params.seed, seed);
        }
    }

    // A model file of another version is refused, naming the version.
    let mut old: serde_json::Value = serde_json::from_str(&text(&model)).unwrap();
    old["version"] = serde_json::json!(0);
    std::fs::write(&path, old.to_string()).unwrap();
    let e = load_model(&path).unwrap_err().to_string();
    assert!(e.contains('0') && e.contains("version"), "{e}");
}
