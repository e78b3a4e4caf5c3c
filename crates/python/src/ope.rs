//! Off-policy evaluation of routers from a decision log, as `verdict ope`.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use verdict::io::TextEncoder;
use verdict::model_file::model_from_value;
use verdict::ope_log::{read_decision_log, DecisionColumns, OutcomeColumns};
use verdict::ope_report::{evaluate_log, OpeRequest, PolicySpec};
use verdict::ope_view::ope_html;

use crate::failure;
use crate::nasheval::Model;
use crate::tables::TableArg;

/// A candidate from Python: a spec as `--policy` reads it, or a fitted model.
fn policy(value: &Bound<'_, PyAny>, index: usize) -> PyResult<PolicySpec> {
    if let Ok(model) = value.cast::<Model>() {
        let value = serde_json::to_value(model.get().model()).map_err(failure)?;
        let label = format!("model {index}");
        let model = model_from_value(&label, value).map_err(failure)?;
        return Ok(PolicySpec::Fitted {
            label,
            model: Arc::new(model),
        });
    }
    Ok(PolicySpec::parse(&value.extract::<String>()?))
}

/// Candidate policies scored on a decision log joined with outcomes, as `verdict ope
/// --format json`; returns the JSON and the report page. `decisions` is the JSON Lines
/// `verdict serve --decisions` writes (a path) or a decision table (a path or a
/// frame); `outcomes` a path or a frame; `policies` specs (`agent:NAME`, `logged`,
/// `lottery:FILE`, a model file) or fitted models; `costs` each agent's price.
#[pyfunction]
#[pyo3(signature = (decisions, outcomes, policies, *, against=None, request_col="request_id".to_owned(), outcome_col="outcome".to_owned(), cost_col=None, costs=None, encoder=None, floor=0.01, folds=5))]
#[allow(clippy::too_many_arguments)]
pub fn ope_json(
    py: Python<'_>,
    decisions: TableArg,
    outcomes: TableArg,
    policies: Vec<Bound<'_, PyAny>>,
    against: Option<Bound<'_, PyAny>>,
    request_col: String,
    outcome_col: String,
    cost_col: Option<String>,
    costs: Option<Vec<(String, f64)>>,
    encoder: Option<PathBuf>,
    floor: f64,
    folds: usize,
) -> PyResult<(String, String)> {
    let decisions = decisions.source(py, "<decisions table>", None)?;
    let outcomes = outcomes.source(py, "<outcomes table>", None)?;
    let request = OpeRequest {
        policies: policies
            .iter()
            .enumerate()
            .map(|(i, p)| policy(p, i))
            .collect::<PyResult<_>>()?,
        against: against
            .as_ref()
            .map(|a| policy(a, policies.len()))
            .transpose()?,
        columns: OutcomeColumns {
            request: request_col.clone(),
            outcome: outcome_col,
            cost: cost_col,
        },
        prices: costs,
        floor,
        folds,
    };
    let title = format!("verdict ope: {}", decisions.shown_name());
    py.detach(|| {
        let encoder = encoder
            .map(|dir| TextEncoder::load(&dir, false))
            .transpose()
            .map_err(verdict::VerdictError::from)?;
        let log = read_decision_log(
            &decisions,
            &DecisionColumns {
                request: request_col,
            },
        )?;
        let report = evaluate_log(log, &outcomes, &request, encoder.as_ref())?;
        let json = serde_json::to_string(&report)
            .map_err(|e| verdict::VerdictError::Data(e.to_string()))?;
        Ok::<_, verdict::VerdictError>((json, ope_html(&report, &title)))
    })
    .map_err(failure)
}
