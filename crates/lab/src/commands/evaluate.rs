//! `verdict evaluate`: a fitted model (or a lottery leaderboard) on a simulation's
//! test contexts against the ground truth ([`crate::simulation::evaluate_file`]);
//! with `--report`, the model's page with its scores beside reference policies.

use crate::simulation::{evaluate_file, evaluate_with_references, test_winners_by};
use verdict::model_file::load_model;
use verdict::report::{fit_html, FitPage};

use super::{EvaluateArgs, Shell, Shown};

pub fn run(args: &EvaluateArgs, shell: Shell) -> anyhow::Result<()> {
    let page = shell
        .outputs
        .optional_page(args.report.as_deref(), "--report");
    verdict::outputs::Outputs::check(std::slice::from_ref(&page))?;
    let evaluation = evaluate_file(&args.model, &args.truth)?;
    if let Some(page) = &page {
        report(args, page)?;
    }
    for note in &evaluation.notes {
        eprintln!("{note}");
    }
    let score = &evaluation.score;
    match args.format {
        Shown::Json => println!("{}", serde_json::to_string_pretty(score)?),
        Shown::Table => {
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

/// The model's page: its fit, its scores beside the references, and who wins where.
fn report(args: &EvaluateArgs, page: &verdict::io::OutputFile) -> anyhow::Result<()> {
    let model = load_model(&args.model).map_err(|e| {
        anyhow::anyhow!("--report draws a NashEval model's page, and the model file could not be read as one: {e}")
    })?;
    let rows = evaluate_with_references(&model, &args.truth)?;
    let winners = match &args.winners_by {
        Some(column) => Some((
            column.as_str(),
            test_winners_by(&model, &args.truth, column)?,
        )),
        None => None,
    };
    let extras = FitPage {
        winners: winners.as_ref().map(|(c, (fitted, _))| (*c, fitted)),
        true_winners: winners.as_ref().map(|(_, (_, truth))| truth),
        scores: rows
            .into_iter()
            .map(|(policy, s)| s.page_row(policy))
            .collect(),
    };
    let name = verdict::page::shown_name(&args.model);
    verdict::page::write_page(page, &fit_html(&model, &name, None, &extras))?;
    Ok(())
}
