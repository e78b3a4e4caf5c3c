//! `verdict evaluate`: a fitted model (or a lottery leaderboard) on a simulation's
//! test contexts against the ground truth ([`verdict::simulation::evaluate_file`]).

use verdict::simulation::evaluate_file;

use crate::args::{EvaluateArgs, OutputFormat};

pub fn run(args: &EvaluateArgs) -> anyhow::Result<()> {
    let evaluation = evaluate_file(&args.model, &args.truth)?;
    for note in &evaluation.notes {
        eprintln!("{note}");
    }
    let score = &evaluation.score;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(score)?),
        OutputFormat::Table | OutputFormat::Csv => {
            println!(
                "{} test contexts: exploitability {:.4}, support F1 {:.4}, game value vs the true equilibrium {:+.4}",
                score.contexts, score.exploitability, score.support_f1, score.game_value
            );
            if let Some(rmse) = score.payoff_rmse {
                println!("payoff surface vs the truth: root mean squared error {rmse:.4}");
            }
            println!(
                "{} of {} true games have a Condorcet winner",
                score.condorcet_contexts, score.contexts
            );
        }
    }
    Ok(())
}
