//! `verdict evaluate`: a fitted model on a simulation's test contexts against the
//! ground truth (NashEval Appendix I.1): average unregularized exploitability
//! (Eq. 69), support F1 at tau = 1e-3 (Eq. 70) and the game value against the true
//! equilibrium (Eq. 71).

use anyhow::bail;

use verdict::simulation::{score, Split, Truth};

use crate::args::{EvaluateArgs, OutputFormat};
use crate::fit::load_model;
use crate::predict::model_features;

pub fn run(args: &EvaluateArgs) -> anyhow::Result<()> {
    let model = load_model(&args.model)?;
    let truth = Truth::open(&args.truth, Split::Test)?;
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
    let score = score(&model.agents, &policies, &truth)?;
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
