//! NashEval through the library alone — simulate, fit, save, load, predict, evaluate —
//! with no binary, as a Rust program or the Python module drives it; one seed drives
//! every learner (LightGBM's boosters included).

use std::path::{Path, PathBuf};

use verdict::feedback::ContextualLog;
use verdict::io::{read_contextual_log, ContextualOptions, OutputFile, Source};
use verdict::model_file::{load_model, model_target, read_model_contexts, save_model, Featurizer};
use verdict::nasheval::{fit, Backbone, FitOptions, NashEvalModel, PolicyKind};
use verdict_lab::simulation::{
    evaluate_model, payoff_rmse, score, write_appendix_g, AppendixGSimulation, PolicyScore, Split,
    Truth,
};

fn options(seed: u64) -> FitOptions {
    FitOptions {
        seed,
        policy: PolicyKind::Solver,
        folds: 3,
        ..FitOptions::default()
    }
}

/// An Appendix G simulation with `rho = 0.001` written to `dir/sim`.
fn simulate(dir: &Path, contexts: usize, test_contexts: usize, seed: u64) -> PathBuf {
    let sim = dir.join("sim");
    write_appendix_g(
        &AppendixGSimulation {
            contexts,
            test_contexts,
            seed,
            rho: 0.001,
            ..AppendixGSimulation::default()
        },
        &sim,
    )
    .unwrap();
    sim
}

/// The simulation's training log, read with the default featurizer.
fn training_log(sim: &Path) -> ContextualLog {
    read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &ContextualOptions::default(),
    )
    .unwrap()
}

fn fitted(sim: &Path, seed: u64) -> NashEvalModel {
    let featurizer = Featurizer::from_options(&ContextualOptions::default()).to_value();
    fit(
        &training_log(sim),
        &options(seed),
        featurizer,
        &|_, _, _| {},
    )
    .unwrap()
}

#[test]
fn simulate_fit_save_load_predict_evaluate_without_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path(), 800, 120, 71);
    let model = fitted(&sim, 5);
    let path = dir.path().join("model.json");
    save_model(&model, &OutputFile::new(&path, "model file")).unwrap();
    // A model file is verdict's only by the output manifest's record: a copy in a
    // directory without one may be the user's edited copy, so it is refused (and kept)
    // unless forced; a user's file there is refused too.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::copy(&path, elsewhere.join("model.json")).unwrap();
    assert!(save_model(
        &model,
        &model_target(elsewhere.join("model.json"), "out", false),
    )
    .is_err());
    save_model(
        &model,
        &model_target(elsewhere.join("model.json"), "out", true),
    )
    .unwrap();
    std::fs::write(elsewhere.join("notes.json"), "{\"mine\": true}").unwrap();
    assert!(save_model(
        &model,
        &model_target(elsewhere.join("notes.json"), "out", false)
    )
    .is_err());
    let loaded = load_model(&path).unwrap();
    let contexts = read_model_contexts(
        &loaded,
        &Source::File(sim.join("test_contexts.parquet")),
        None,
    )
    .unwrap();
    assert!(contexts.unseen_categories.is_empty());
    let policies = loaded.policy(&contexts.features).unwrap();
    assert_eq!(policies, model.policy(&contexts.features).unwrap());
    let truth = Truth::open(&sim, Split::Test).unwrap();
    assert_eq!(contexts.table.ids, truth.ids);
    let scored = score(&loaded.agents, &policies, &truth).unwrap();
    // The library's evaluation reads the test contexts itself and scores the same.
    let evaluation = evaluate_model(&loaded, &sim).unwrap();
    let surface = payoff_rmse(&loaded.agents, &loaded.payoffs(&contexts.features), &truth).unwrap();
    assert_eq!(
        evaluation.score,
        PolicyScore {
            payoff_rmse: Some(surface),
            ..scored
        }
    );
    assert!(evaluation.notes.is_empty(), "{:?}", evaluation.notes);
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

/// A fitted model is never changed in place: another policy is a new model, and going
/// back to the solver gives the solver's predictions exactly. Options are checked
/// against one log and refused for another.
#[test]
fn a_policy_change_is_a_new_model_and_checked_options_belong_to_one_log() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path(), 600, 50, 72);
    let solver = fitted(&sim, 3);
    assert!(solver.network.is_none());
    let log = training_log(&sim);
    let test = read_model_contexts(
        &solver,
        &Source::File(sim.join("test_contexts.parquet")),
        None,
    )
    .unwrap()
    .features;
    let before = solver.policy(&test).unwrap();

    let network = solver
        .with_policy(PolicyKind::Network, &log.features, &|_, _, _| {})
        .unwrap();
    assert_eq!(network.options.policy, PolicyKind::Network);
    assert!(network.network.is_some() && network.summary.training.is_some());
    let back = network
        .with_policy(PolicyKind::Solver, &log.features, &|_, _, _| {})
        .unwrap();
    assert!(back.network.is_none() && back.summary.training.is_none());
    assert_eq!(back.policy(&test).unwrap(), before);

    // Options checked against this log do not fit a log with fewer contexts.
    let checked = options(3).check(&log).unwrap();
    let mut shorter = log.clone();
    shorter.contexts.pop();
    let e = verdict::nasheval::prepare(&shorter, &checked, &|_, _, _| {}).unwrap_err();
    assert!(e.to_string().contains("checked against a log"), "{e}");
    // An unchecked setting is refused at the door, naming it.
    let bad = FitOptions {
        propensity_floor: 1.5,
        ..options(3)
    };
    let e = bad.check(&log).unwrap_err().to_string();
    assert!(e.contains("propensity floor 1.5"), "{e}");
}

/// The accuracy experiment's resume keys are data written field by field, not how a
/// type prints itself: the defaults' key is spelled out here.
#[test]
fn accuracy_cell_keys_are_stable_text() {
    use verdict::nasheval::{PayoffRegression, Variant};
    use verdict_lab::experiment::AccuracySettings;
    let settings = AccuracySettings::default();
    assert_eq!(
        settings
            .key(70, 3, Variant::Auto, PayoffRegression::Shared, PolicyKind::Network)
            .to_string(),
        "contexts=20000/test=4096/rho=0.001/outcome=gbdt/propensity=gbdt/payoff=gbdt/range=0.25,0.75/slope=2/seed=70/voters=3/variant=auto/regression=selected/policy=network/init=solver"
    );
    assert_eq!(
        settings
            .key(71, 1, Variant::Debiased, PayoffRegression::PerPair, PolicyKind::Solver)
            .to_string(),
        "contexts=20000/test=4096/rho=0.001/outcome=gbdt/propensity=gbdt/payoff=gbdt/range=0.25,0.75/slope=2/seed=71/voters=1/variant=debiased/regression=per-pair/policy=solver/init=-"
    );
}

/// `predict_at` featurizes and predicts a long table a chunk at a time: 70,000
/// contexts (two chunks of `PREDICT_CHUNK_ROWS`) are predicted as the whole table
/// featurized at once is, and an id repeated across chunks is refused at its row.
#[test]
fn a_long_contexts_table_is_predicted_in_chunks_as_in_one_piece() {
    use verdict::model_file::{predict_at, PREDICT_CHUNK_ROWS};
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path(), 300, 50, 72);
    let model = fitted(&sim, 5);
    let test =
        verdict::io::read_table(&Source::File(sim.join("test_contexts.parquet")), None, None)
            .unwrap();
    let rows = PREDICT_CHUNK_ROWS + 4_464;
    let long_table = |repeat_at: Option<usize>| {
        let names = test.present_columns().to_vec();
        let mut text = names.join(",") + "\n";
        for row in 0..rows {
            let source = row % test.rows();
            let cells: Vec<String> = names
                .iter()
                .map(|name| match name.as_str() {
                    "context_id" if Some(row) == repeat_at => "c5".to_owned(),
                    "context_id" => format!("c{row}"),
                    _ => test
                        .column(name)
                        .unwrap()
                        .value(source)
                        .unwrap_or("")
                        .to_owned(),
                })
                .collect();
            text += &(cells.join(",") + "\n");
        }
        let path = dir.path().join(format!("long-{repeat_at:?}.csv"));
        std::fs::write(&path, text).unwrap();
        Source::File(path)
    };
    let source = long_table(None);
    let chunked = predict_at(&model, &source, None, true, &|w| panic!("{w}")).unwrap();
    let whole = read_model_contexts(&model, &source, None).unwrap();
    let at_once = model
        .predict(whole.table.ids, &whole.features, true)
        .unwrap();
    assert_eq!(chunked.ids.len(), rows);
    assert_eq!(chunked, at_once);
    let error = predict_at(&model, &long_table(Some(rows - 1)), None, false, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("appears twice") && error.contains(&format!("{}", rows + 1)),
        "{error}"
    );
}
