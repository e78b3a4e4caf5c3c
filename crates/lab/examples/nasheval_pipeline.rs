//! NashEval end to end through the library: simulate the Appendix G world, fit on its
//! contextual log, save and load the model, predict the test contexts, and score the
//! policy against the simulator's exact truth (Eq. 69–71).
//!
//! `cargo run -p verdict --example nasheval_pipeline`

use verdict::io::{read_contextual_log, ContextualOptions, OutputFile, Source};
use verdict::model_file::{load_model, read_model_contexts, save_model, Featurizer};
use verdict::nasheval::{fit, FitOptions, PolicyKind};
use verdict_lab::simulation::{score, write_appendix_g, AppendixGSimulation, Split, Truth};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let sim = dir.path().join("sim");
    write_appendix_g(
        &AppendixGSimulation {
            contexts: 2_000,
            test_contexts: 500,
            rho: 0.001,
            ..AppendixGSimulation::default()
        },
        &sim,
    )?;
    let reading = ContextualOptions::default();
    let log = read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &reading,
    )?;
    let options = FitOptions {
        policy: PolicyKind::Solver,
        folds: 3,
        ..FitOptions::default()
    };
    let featurizer = Featurizer::from_options(&reading).to_value();
    let model = fit(&log, &options, featurizer, &|_, _, _| {})?;
    println!(
        "fitted {} agents on {} contexts: surface {:?}, final gap {:.5}",
        model.agents.len(),
        model.summary.contexts,
        model.summary.chosen,
        model.summary.final_gap
    );
    let path = dir.path().join("model.json");
    save_model(&model, &OutputFile::new(&path, "model file"))?;
    let model = load_model(&path)?;
    let test = read_model_contexts(
        &model,
        &Source::File(sim.join("test_contexts.parquet")),
        None,
    )?;
    let policies = model.policy(&test.features)?;
    let truth = Truth::open(&sim, Split::Test)?;
    let fitted = score(&model.agents, &policies, &truth)?;
    let k = model.agents.len();
    let uniform = score(&model.agents, &vec![1.0 / k as f64; policies.len()], &truth)?;
    println!(
        "test contexts {}: exploitability {:.4} (uniform {:.4}), support F1 {:.3}, game value {:.4}",
        fitted.contexts, fitted.exploitability, uniform.exploitability, fitted.support_f1, fitted.game_value
    );
    Ok(())
}
