//! The lab's saved results read back beside the product's (`verdict report`): the JSON
//! of `verdict evaluate` (a model's scores against a simulation's truth) and a results
//! file of `verdict bench nasheval` (summarized over seeds as `verdict bench summary`
//! does). [`LAB_RESULTS`] is the reader the faces hand to
//! [`verdict::results::report_page`] and [`verdict::results::parse_result`].

use serde_json::Value;
use verdict::results::{ResultReader, SavedResult};
use verdict::VerdictError;

/// The lab's kinds of saved result, for the product's readers.
pub const LAB_RESULTS: &LabResults = &LabResults;

/// Reads the lab's kinds of saved result ([`ResultReader`]).
#[derive(Debug, Clone, Copy)]
pub struct LabResults;

/// A lab result, drawn as its command draws it.
#[cfg(feature = "nasheval")]
#[derive(Debug)]
pub enum LabResult {
    /// A model's scores against a simulation's truth (`verdict evaluate --format json`).
    Evaluation(crate::simulation::PolicyScore),
    /// NashEval's accuracy experiment (`verdict bench nasheval --out FILE`), summarized
    /// over seeds (NashEval's Figure 3 and its table).
    Experiment(Vec<crate::experiment_summary::SummaryRow>),
}

impl ResultReader for LabResults {
    fn by_first_line(
        &self,
        label: &str,
        head: &Value,
        bytes: &[u8],
    ) -> Option<Result<SavedResult, VerdictError>> {
        let is_bench_cell = ["key", "voters", "exploitability", "support_f1"]
            .iter()
            .all(|k| head.get(k).is_some());
        is_bench_cell.then(|| experiment(label, bytes))
    }

    fn by_document(
        &self,
        label: &str,
        document: &Value,
    ) -> Option<Result<SavedResult, VerdictError>> {
        let is_evaluation = ["exploitability", "support_f1", "game_value"]
            .iter()
            .all(|k| document.get(k).is_some());
        is_evaluation.then(|| evaluation(label, document))
    }
}

#[cfg(feature = "nasheval")]
fn experiment(label: &str, bytes: &[u8]) -> Result<SavedResult, VerdictError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| VerdictError::Data(format!("{label}: not UTF-8 text: {e}")))?;
    let rows = crate::experiment_summary::summarize_text(label, text)?;
    Ok(lab(LabResult::Experiment(rows)))
}

#[cfg(feature = "nasheval")]
fn evaluation(label: &str, document: &Value) -> Result<SavedResult, VerdictError> {
    use serde::Deserialize;
    crate::simulation::PolicyScore::deserialize(document)
        .map(|score| lab(LabResult::Evaluation(score)))
        .map_err(|e| {
            VerdictError::Data(format!("{label}: verdict evaluate's JSON but damaged: {e}"))
        })
}

#[cfg(feature = "nasheval")]
fn lab(result: LabResult) -> SavedResult {
    SavedResult::Other(Box::new(result))
}

#[cfg(not(feature = "nasheval"))]
fn experiment(label: &str, _: &[u8]) -> Result<SavedResult, VerdictError> {
    Err(verdict::results::without_nasheval(
        label,
        "a results file of verdict bench nasheval",
    ))
}

#[cfg(not(feature = "nasheval"))]
fn evaluation(label: &str, _: &Value) -> Result<SavedResult, VerdictError> {
    Err(verdict::results::without_nasheval(
        label,
        "the JSON of verdict evaluate",
    ))
}

#[cfg(feature = "nasheval")]
impl verdict::results::DrawnResult for LabResult {
    fn kind(&self) -> &'static str {
        match *self {
            LabResult::Evaluation(_) => "NashEval model against the truth",
            LabResult::Experiment(_) => "NashEval accuracy experiment",
        }
    }

    fn title(&self, name: &str) -> String {
        match *self {
            LabResult::Evaluation(_) => format!("verdict evaluate: {name}"),
            LabResult::Experiment(_) => format!("verdict bench nasheval: {name}"),
        }
    }

    fn sections(&self, name: &str) -> Result<String, VerdictError> {
        Ok(match self {
            LabResult::Evaluation(score) => {
                verdict::report::score_sections(&[score.page_row(name.to_string())])
            }
            LabResult::Experiment(rows) => {
                use crate::experiment_summary::{figure, SUMMARY_COLUMNS};
                let mut table = verdict::report::TextTable::new(SUMMARY_COLUMNS);
                for row in rows {
                    table.push(row.cells().to_vec());
                }
                verdict::report::experiment_sections(
                    "Exploitability and support F1 against voters",
                    &figure(rows),
                    "Mean ± sd over seeds",
                    &table,
                )?
            }
        })
    }
}
