//! NashEval: simulations with exact truth, fitting a model on a contextual log, and
//! the fitted model's predictions, file and evaluation.

use std::path::PathBuf;

use pyo3::prelude::*;

use verdict::contextual::LogSource;
use verdict::equilibrium::SoftBudgetPrices;
use verdict::fit_request::{fit_request, Backbones, FitRequest};
use verdict::io::{CategoricalEncoding, ContextualOptions};
use verdict::model_file::{load_model, read_model_contexts, save_model};
use verdict::nasheval::{
    AggregatorKind, BackboneKind, FitMethod, FitOptions, NashEvalModel, NetworkInit,
    NetworkOptions, NuisanceDesign, PayoffRegression, PolicyKind, Variant, LINEAR_PENALTY,
};
use verdict::ErrorKind;
use verdict_lab::simulation::{
    evaluate_model, write_appendix_g, write_arena, AppendixGSimulation, ArenaSimulation, Truth,
};
use verdict_lab::worlds::arena_world::ArenaWorldSettings;
use verdict_lab::worlds::nasheval::FeedbackKind;

use crate::tables::TableArg;
use crate::{choice, failure};

/// Writes a simulation with exact truth to the new directory `out`, as `verdict
/// simulate`: the Appendix G world (`world="appendix-g"`: `feedback`, `voters`) or
/// the arena world (`world="arena"`: `agents`). Returns `(contexts, records,
/// test_contexts)`.
#[pyfunction]
#[pyo3(signature = (out, *, world="appendix-g", feedback="pairwise", voters=3, agents=16, contexts=20_000, test_contexts=4096, seed=70, rho=0.0))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    out: PathBuf,
    world: &str,
    feedback: &str,
    voters: usize,
    agents: usize,
    contexts: usize,
    test_contexts: usize,
    seed: u64,
    rho: f64,
) -> PyResult<(usize, usize, usize)> {
    let summary = match world {
        "appendix-g" => {
            let settings = AppendixGSimulation {
                feedback: choice::<FeedbackKind>("feedback", feedback)?,
                voters,
                contexts,
                test_contexts,
                seed,
                rho,
                ..AppendixGSimulation::default()
            };
            py.detach(|| write_appendix_g(&settings, &out))
        }
        "arena" => {
            let settings = ArenaSimulation {
                world: ArenaWorldSettings {
                    agents,
                    seed,
                    ..ArenaWorldSettings::default()
                },
                contexts,
                test_contexts,
                rho,
            };
            py.detach(|| write_arena(&settings, &out))
        }
        other => {
            return Err(failure(format!(
                "world {other:?}: use \"appendix-g\" or \"arena\""
            )))
        }
    }
    .map_err(failure)?;
    Ok((summary.contexts, summary.records, summary.test_contexts))
}

/// A fitted NashEval model (see `verdict.NashEval`).
#[pyclass(module = "verdict_arena._native", frozen)]
pub struct Model {
    inner: NashEvalModel,
}

impl Model {
    /// The fitted model.
    pub(crate) fn model(&self) -> &NashEvalModel {
        &self.inner
    }
}

/// Fits NashEval, as `verdict fit` with the same settings: on a contexts table
/// (`context_id` and features) with a feedback table (`context_id, menu, modality,
/// response`), or on a battle log (`battles`) whose `context_columns` make the
/// context. Tables are paths or frames.
#[pyfunction]
#[pyo3(signature = (*, contexts=None, feedback=None, battles=None, context_columns=Vec::new(), text_col=None, text_dim=64, categorical="onehot", catalogue=None, method="nasheval", variant="auto", truth=None, policy="network", backbone="gbdt", outcome_backbone=None, propensity_backbone=None, payoff_backbone=None, linear_penalty=LINEAR_PENALTY, payoff_regression="shared", aggregator="mean", rho=0.001, folds=5, seed=0, costs=None, budget=None, soft_budget=None, tune=false, nuisance_design="auto", allow_unobserved=false, propensity_floor=0.01, propensity_floor_share=0.0, network_init="solver", hidden=64, learning_rate=1e-3, weight_decay=1e-5, batch_size=256, max_epochs=500, patience=30, groups_by=None, robust_radius=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit(
    py: Python<'_>,
    contexts: Option<TableArg>,
    feedback: Option<TableArg>,
    battles: Option<TableArg>,
    context_columns: Vec<String>,
    text_col: Option<String>,
    text_dim: usize,
    categorical: &str,
    catalogue: Option<Vec<Vec<String>>>,
    method: &str,
    variant: &str,
    truth: Option<PathBuf>,
    policy: &str,
    backbone: &str,
    outcome_backbone: Option<&str>,
    propensity_backbone: Option<&str>,
    payoff_backbone: Option<&str>,
    linear_penalty: f64,
    payoff_regression: &str,
    aggregator: &str,
    rho: f64,
    folds: usize,
    seed: u64,
    costs: Option<Vec<(String, f64)>>,
    budget: Option<f64>,
    soft_budget: Option<(f64, f64, f64, f64)>,
    tune: bool,
    nuisance_design: &str,
    allow_unobserved: bool,
    propensity_floor: f64,
    propensity_floor_share: f64,
    network_init: &str,
    hidden: usize,
    learning_rate: f64,
    weight_decay: f64,
    batch_size: usize,
    max_epochs: usize,
    patience: usize,
    groups_by: Option<String>,
    robust_radius: Option<f64>,
) -> PyResult<Model> {
    let reading = ContextualOptions {
        text_column: text_col,
        text_dim,
        categorical: choice::<CategoricalEncoding>("categorical", categorical)?,
        catalogue,
    };
    let backbone = choice::<BackboneKind>("backbone", backbone)?;
    let family = |setting: &str, given: Option<&str>| {
        given.map_or(Ok(backbone), |name| choice::<BackboneKind>(setting, name))
    };
    let source = match (contexts, feedback, battles) {
        (Some(contexts), Some(feedback), None) => LogSource::Tables {
            contexts: contexts.source(py, "<contexts table>", None)?,
            feedback: feedback.source(py, "<feedback table>", None)?,
        },
        (None, None, Some(battles)) => LogSource::Battles {
            log: battles.source(py, "<battles table>", None)?,
            context_columns,
        },
        _ => {
            return Err(failure(
                "give contexts and feedback, or battles with context_columns",
            ))
        }
    };
    let request = FitRequest {
        reading,
        allow_unobserved,
        costs,
        options: FitOptions {
            variant: choice::<Variant>("variant", variant)?,
            policy: choice::<PolicyKind>("policy", policy)?,
            rho,
            budget,
            soft_budget: soft_budget.map(|(budget, base_price, surcharge, width)| {
                SoftBudgetPrices {
                    base_price,
                    surcharge,
                    budget,
                    width,
                }
            }),
            folds,
            seed,
            propensity_floor,
            propensity_floor_share,
            regression: choice::<PayoffRegression>("payoff_regression", payoff_regression)?,
            aggregator: aggregator
                .parse::<AggregatorKind>()
                .map_err(|e| failure((ErrorKind::Setting, format!("aggregator: {e}"))))?,
            network: NetworkOptions {
                hidden,
                learning_rate,
                weight_decay,
                batch_size,
                max_epochs,
                patience,
                ..NetworkOptions::default()
            },
            network_init: choice::<NetworkInit>("network_init", network_init)?,
            tune_learners: tune,
            tune_network: tune,
            nuisance_design: choice::<NuisanceDesign>("nuisance_design", nuisance_design)?,
            groups_by,
            robust_radius,
            ..FitOptions::default()
        },
        backbones: Backbones {
            outcome: family("outcome_backbone", outcome_backbone)?,
            propensity: family("propensity_backbone", propensity_backbone)?,
            payoff: family("payoff_backbone", payoff_backbone)?,
            linear_penalty,
        },
        method: choice::<FitMethod>("method", method)?,
        oracle: truth.map(Truth::oracle_nuisances),
        ..FitRequest::new(source)
    };
    // The log's warning is shown once the fit is back (Python warnings need the
    // interpreter, which the fit runs without).
    let warnings = std::sync::Mutex::new(Vec::new());
    let (fitted, warnings) = crate::interruptible(py, move || {
        let fitted = fit_request(
            &request,
            &|warning| warnings.lock().unwrap().push(warning.to_string()),
            &|_, _, _| {},
        );
        (fitted, warnings.into_inner().unwrap_or_default())
    })?;
    for warning in warnings {
        crate::warn(py, &warning)?;
    }
    let inner = fitted.map_err(failure)?;
    Ok(Model { inner })
}

/// What a prediction hands to Python: context ids, agent names, the `contexts ×
/// agents` probabilities (row-major), each context's winners, and the `contexts ×
/// agents × agents` payoffs when asked for.
type PredictionParts = (
    Vec<String>,
    Vec<String>,
    Vec<f64>,
    Vec<Vec<String>>,
    Option<Vec<f64>>,
);

#[pymethods]
impl Model {
    /// Reads a model file written by `save` or `verdict fit`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
        let inner = py.detach(|| load_model(&path)).map_err(failure)?;
        Ok(Model { inner })
    }

    /// Writes the model file (atomically; the same bytes `verdict fit` writes), never
    /// over a file verdict did not write unless `force`.
    #[pyo3(signature = (path, force=false))]
    fn save(&self, py: Python<'_>, path: PathBuf, force: bool) -> PyResult<()> {
        let target = verdict::model_file::model_target(path, "path", force);
        py.detach(|| save_model(&self.inner, &target))
            .map_err(failure)
    }

    /// Agent names, in the order of every prediction's columns.
    #[getter]
    fn agents(&self) -> Vec<String> {
        self.inner.agents.clone()
    }

    /// The fit's summary as JSON (chosen surface, risks, gaps, stage times).
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.summary).map_err(failure)
    }

    /// A global baseline's lottery and what it computed (groups and radius, or the
    /// pluralistic ranking), as JSON; `null` for a per-context method.
    fn global_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.global).map_err(failure)
    }

    /// The equilibrium and winner set at each context of `contexts` (a path or a
    /// frame with `context_id` and the training features), and its payoff matrix
    /// when `payoffs`; as `verdict predict`.
    #[pyo3(signature = (contexts, payoffs=false))]
    fn predict(
        &self,
        py: Python<'_>,
        contexts: TableArg,
        payoffs: bool,
    ) -> PyResult<PredictionParts> {
        let source = contexts.source(py, "<contexts table>", None)?;
        let read = py
            .detach(|| read_model_contexts(&self.inner, &source))
            .map_err(failure)?;
        if let Some(warning) = read.unseen_warning() {
            crate::warn(py, &warning)?;
        }
        let p = py
            .detach(|| self.inner.predict(read.table.ids, &read.features, payoffs))
            .map_err(failure)?;
        Ok((p.ids, p.agents, p.probabilities, p.winners, p.payoffs))
    }

    /// The model scored on a simulation's test contexts against its exact truth, as
    /// `verdict evaluate`: JSON of exploitability, support F1 and game value.
    fn evaluate_json(&self, py: Python<'_>, simulation: PathBuf) -> PyResult<String> {
        let evaluation = py
            .detach(|| evaluate_model(&self.inner, &simulation))
            .map_err(failure)?;
        for note in &evaluation.notes {
            crate::warn(py, note)?;
        }
        serde_json::to_string(&evaluation.score).map_err(failure)
    }
}
