//! `verdict evaluate`: a fitted model on a simulation's test contexts against the
//! ground truth (NashEval Appendix I.1): average unregularized exploitability
//! (Eq. 69), support F1 at tau = 1e-3 (Eq. 70) and the game value against the true
//! equilibrium (Eq. 71).

use anyhow::bail;

use verdict::simulation::{score, PolicyScore, Split, Truth};

use crate::args::{EvaluateArgs, OutputFormat};
use crate::predict::model_features;
use verdict::model_file::load_model;

/// The agents and probabilities of a `verdict rank --method lottery --format json`
/// board, or `None` when `value` is not one.
fn lottery_board(value: &serde_json::Value) -> Option<(Vec<String>, Vec<f64>)> {
    if value["method"] != "maximal-lottery" {
        return None;
    }
    value["models"]
        .as_array()?
        .iter()
        .map(|m| Some((m["name"].as_str()?.to_string(), m["probability"].as_f64()?)))
        .collect::<Option<Vec<_>>>()
        .map(|rows| rows.into_iter().unzip())
}

pub fn run(args: &EvaluateArgs) -> anyhow::Result<()> {
    let truth = Truth::open(&args.truth, Split::Test)?;
    let board = std::fs::read(&args.model)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|value| lottery_board(&value));
    if let Some((agents, pi)) = board {
        // One lottery for every context: the global maximal lottery as a policy.
        let policies: Vec<f64> = (0..truth.ids.len())
            .flat_map(|_| pi.iter().copied())
            .collect();
        return report(args, &score(&agents, &policies, &truth)?);
    }
    let model = load_model(&args.model)?;
    let (table, features) = model_features(&model, &args.truth.join("test_contexts.parquet"))?;
    if table.ids != truth.ids {
        bail!(
            "{}: test_contexts.parquet and test_truth.parquet list different contexts",
            args.truth.display()
        );
    }
    let truth_rho = truth.manifest.equilibrium.rho;
    if (truth_rho - model.options.rho).abs() > 1e-12 {
        eprintln!(
            "warning: the true equilibria use rho = {} but the model rho = {}; support F1 compares different games",
            truth_rho, model.options.rho
        );
    }
    let policies = model.policy(&features)?;
    report(args, &score(&model.agents, &policies, &truth)?)
}

fn report(args: &EvaluateArgs, score: &PolicyScore) -> anyhow::Result<()> {
    let report = serde_json::to_value(score)?;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        OutputFormat::Table | OutputFormat::Csv => println!(
            "{} test contexts: exploitability {:.4}, support F1 {:.4}, game value vs the true equilibrium {:+.4}",
            score.contexts, score.exploitability, score.support_f1, score.game_value
        ),
    }
    Ok(())
}
