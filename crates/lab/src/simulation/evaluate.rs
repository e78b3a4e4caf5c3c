//! A fitted model, or one global lottery, scored on a simulation's test contexts
//! against the truth (NashEval Appendix I.1): unregularized exploitability (Eq. 69),
//! support F1 at `tau = 1e-3` (Eq. 70) and the game value against the true
//! equilibrium (Eq. 71).

use std::path::Path;

use verdict::io::Source;
use verdict::nasheval::{NashEvalModel, WinnerFrequency};

use super::{equilibria_in, payoff_rmse, score, PolicyScore, Split, Truth};
use verdict::model_file::{category_column, load_model, read_model_contexts, ModelContexts};
use verdict::VerdictError;

/// A score with what a reader must know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The policy's score.
    pub score: PolicyScore,
    /// Warnings: categories the model never saw, or a model regularized unlike the
    /// true equilibria.
    pub notes: Vec<String>,
}

/// Scores `model` on the test contexts of simulation `dir`.
///
/// # Errors
/// [`VerdictError`] when the directory is not a simulation, its test tables disagree,
/// or the contexts do not fit the model's schema.
pub fn evaluate_model(model: &NashEvalModel, dir: &Path) -> Result<Evaluation, VerdictError> {
    let (truth, read) = test_split(model, dir)?;
    let mut notes: Vec<String> = read.unseen_warning().into_iter().collect();
    let truth_rho = truth.manifest.equilibrium.rho;
    if (truth_rho - model.options.rho).abs() > 1e-12 {
        notes.push(format!(
            "warning: the true equilibria use rho = {truth_rho} but the model rho = {}; support F1 compares different games",
            model.options.rho
        ));
    }
    let policies = model.policy(&read.features)?;
    let mut score = score(&model.agents, &policies, &truth)?;
    score.payoff_rmse = Some(payoff_rmse(
        &model.agents,
        &model.payoffs(&read.features),
        &truth,
    )?);
    Ok(Evaluation { score, notes })
}

/// `model` scored on the test contexts of simulation `dir` beside two reference
/// policies on the same contexts: the uniform lottery, and the argmax of per-context
/// Bradley–Terry scores of the model's own surface (NashEval Eq. 75). Named rows, the
/// model's first (its notes come with [`evaluate_model`]).
///
/// # Errors
/// As [`evaluate_model`].
pub fn evaluate_with_references(
    model: &NashEvalModel,
    dir: &Path,
) -> Result<Vec<(String, PolicyScore)>, VerdictError> {
    let evaluation = evaluate_model(model, dir)?;
    let truth = Truth::open(dir, Split::Test)?;
    let k = model.agents.len();
    let uniform = vec![1.0 / k as f64; truth.ids.len() * k];
    let rows = vec![
        ("NashEval (this model)".to_string(), evaluation.score),
        (
            "Bradley–Terry argmax of the same surface".to_string(),
            super::evaluate_bt_argmax(model, dir)?.score,
        ),
        (
            "uniform lottery".to_string(),
            score(&model.agents, &uniform, &truth)?,
        ),
    ];
    Ok(rows)
}

/// Who wins where on the test contexts of simulation `dir`, by their categorical
/// column `column`: under `model`'s policy, and under the true equilibria (NashEval
/// Figure 4, fitted beside the truth).
///
/// # Errors
/// As [`evaluate_model`] and [`verdict::model_file::category_column`].
pub fn test_winners_by(
    model: &NashEvalModel,
    dir: &Path,
    column: &str,
) -> Result<(WinnerFrequency, WinnerFrequency), VerdictError> {
    let (truth, read) = test_split(model, dir)?;
    let labels = category_column(&Source::File(dir.join(Split::Test.contexts_file())), column)?;
    let fitted = WinnerFrequency::new(&model.agents, &labels, &model.policy(&read.features)?);
    let stars = equilibria_in(&model.agents, &truth)?;
    let truth = WinnerFrequency::new(&model.agents, &labels, &stars);
    Ok((fitted, truth))
}

/// The test truth of simulation `dir` and its test contexts read with `model`'s
/// featurizer, checked to list the same contexts.
///
/// # Errors
/// As [`evaluate_model`].
pub(super) fn test_split(
    model: &NashEvalModel,
    dir: &Path,
) -> Result<(Truth, ModelContexts), VerdictError> {
    let truth = Truth::open(dir, Split::Test)?;
    let contexts = Source::File(dir.join(Split::Test.contexts_file()));
    let read = read_model_contexts(model, &contexts, None)?;
    same_contexts(&read.table.ids, &truth, dir)?;
    Ok((truth, read))
}

/// Refuses test contexts that are not the truth's, in its order.
pub(super) fn same_contexts(ids: &[String], truth: &Truth, dir: &Path) -> Result<(), VerdictError> {
    if ids != truth.ids {
        return Err(VerdictError::Data(format!(
            "{}: test_contexts.parquet and test_truth.parquet list different contexts",
            dir.display()
        )));
    }
    Ok(())
}

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

/// Scores the file at `path` on simulation `dir`: a NashEval model file, or a
/// leaderboard of `verdict rank --method lottery --format json`, whose one lottery
/// is then the policy at every context (the global maximal lottery as a baseline).
///
/// # Errors
/// As [`evaluate_model`], and when the file is neither.
pub fn evaluate_file(path: &Path, dir: &Path) -> Result<Evaluation, VerdictError> {
    let board = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|value| lottery_board(&value));
    if let Some((agents, pi)) = board {
        let truth = Truth::open(dir, Split::Test)?;
        let policies: Vec<f64> = (0..truth.ids.len())
            .flat_map(|_| pi.iter().copied())
            .collect();
        return Ok(Evaluation {
            score: score(&agents, &policies, &truth)?,
            notes: Vec::new(),
        });
    }
    evaluate_model(&load_model(path)?, dir)
}
