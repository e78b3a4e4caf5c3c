//! NashEval: simulations with exact truth, fitting a model on a contextual log, and
//! the fitted model's predictions, file and evaluation.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use verdict::contextual::LogSource;
use verdict::fit_params::FitParams;
use verdict::io::TextEncoder;
use verdict::model_file::{load_model, predict_at, save_model};
use verdict::nasheval::NashEvalModel;
use verdict::settings::from_document;
use verdict_lab::simulation::{evaluate_model, fit_with_truth, SimulateParams};

use crate::failure;
use crate::tables::TableArg;

/// Writes a simulation with exact truth to the new directory `out`, as `verdict
/// simulate`; `settings` is a settings document of [`SimulateParams`]. Returns
/// `(contexts, records, test_contexts)`.
#[pyfunction]
pub fn simulate(py: Python<'_>, settings: &str, out: PathBuf) -> PyResult<(usize, usize, usize)> {
    let params: SimulateParams = from_document(settings).map_err(failure)?;
    let summary = py.detach(|| params.write(&out)).map_err(failure)?;
    Ok((summary.contexts, summary.records, summary.test_contexts))
}

/// A fitted NashEval model (see `verdict.NashEval`).
#[pyclass(module = "verdict_arena._native", frozen)]
pub struct Model {
    inner: NashEvalModel,
    /// The text encoder last used, by directory: batch prediction (a Spark or Ray
    /// worker calls `predict` once per batch) reads the encoder's table once, not once
    /// per batch.
    encoder: Mutex<Option<(PathBuf, Arc<TextEncoder>)>>,
}

impl Model {
    fn new(inner: NashEvalModel) -> Self {
        Self {
            inner,
            encoder: Mutex::new(None),
        }
    }

    /// The fitted model.
    pub(crate) fn model(&self) -> &NashEvalModel {
        &self.inner
    }

    /// The encoder in `dir`, read on first use and kept. The lock is not held while
    /// the file is read (that runs without the interpreter, and another thread
    /// waiting on the lock with the interpreter held would deadlock it).
    fn encoder(&self, py: Python<'_>, dir: PathBuf) -> PyResult<Arc<TextEncoder>> {
        let cached = |slot: &Option<(PathBuf, Arc<TextEncoder>)>| {
            slot.as_ref()
                .filter(|(path, _)| *path == dir)
                .map(|(_, encoder)| Arc::clone(encoder))
        };
        if let Some(encoder) = cached(&self.encoder.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(encoder);
        }
        let loaded = py
            .detach(|| TextEncoder::load(&dir, false))
            .map_err(verdict::VerdictError::from)
            .map_err(failure)?;
        let loaded = Arc::new(loaded);
        *self.encoder.lock().unwrap_or_else(|e| e.into_inner()) = Some((dir, Arc::clone(&loaded)));
        Ok(loaded)
    }
}

/// Fits NashEval, as `verdict fit` with the same settings: `settings` is a settings
/// document of `verdict fit`'s settings by name ([`FitParams`]); the log is a contexts
/// table (`context_id` and features) with a feedback table (`context_id, menu,
/// modality, response`), or a battle log (`battles`) whose `context_cols` make
/// the context. Tables are paths or frames; `truth` is a simulation directory, for
/// the oracle variant.
#[pyfunction]
#[pyo3(signature = (settings, *, contexts=None, feedback=None, battles=None, truth=None))]
pub fn fit(
    py: Python<'_>,
    settings: &str,
    contexts: Option<TableArg>,
    feedback: Option<TableArg>,
    battles: Option<TableArg>,
    truth: Option<PathBuf>,
) -> PyResult<Model> {
    let params: FitParams = from_document(settings).map_err(failure)?;
    let table =
        |arg: Option<TableArg>, label: &str| arg.map(|t| t.source(py, label, None)).transpose();
    let source = LogSource::from_tables(
        table(contexts, "<contexts table>")?,
        table(feedback, "<feedback table>")?,
        table(battles, "<battles table>")?,
        params.context_cols.clone(),
    )
    .map_err(failure)?;
    let request = params.request(source).map_err(failure)?;
    // The log's warning is shown once the fit is back (Python warnings need the
    // interpreter, which the fit runs without).
    let warnings = std::sync::Mutex::new(Vec::new());
    let (fitted, warnings) = crate::interruptible(py, move || {
        let warn = |warning: &str| warnings.lock().unwrap().push(warning.to_string());
        let fitted = fit_with_truth(&request, truth.as_deref(), &warn, &|_, _, _| {});
        (fitted, warnings.into_inner().unwrap_or_default())
    })?;
    for warning in warnings {
        crate::warn(py, &warning)?;
    }
    let inner = fitted.map_err(failure)?;
    Ok(Model::new(inner))
}

/// The embeddings of `texts` by the encoder in `encoder` (a directory: one
/// `*.safetensors` table and its tokenizer JSON), as `verdict embed` computes them:
/// the dimension and the `texts × dimension` values, row-major.
#[pyfunction]
#[pyo3(signature = (texts, encoder, normalize=false))]
pub fn embed(
    py: Python<'_>,
    texts: Vec<String>,
    encoder: PathBuf,
    normalize: bool,
) -> PyResult<(usize, Vec<f64>)> {
    py.detach(|| {
        let encoder =
            TextEncoder::load(&encoder, normalize).map_err(verdict::VerdictError::from)?;
        let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
        let values = encoder.0.embed_all(&borrowed).map_err(|(row, message)| {
            verdict::VerdictError::Data(format!("text {row}: {message}"))
        })?;
        Ok::<_, verdict::VerdictError>((encoder.0.dim(), values))
    })
    .map_err(failure)
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
        Ok(Model::new(inner))
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
    /// when `payoffs`; as `verdict predict`. `encoder` is the directory of the encoder
    /// a model fitted with one embeds its text column with.
    #[pyo3(signature = (contexts, payoffs=false, encoder=None))]
    fn predict(
        &self,
        py: Python<'_>,
        contexts: TableArg,
        payoffs: bool,
        encoder: Option<PathBuf>,
    ) -> PyResult<PredictionParts> {
        let source = contexts.source(py, "<contexts table>", None)?;
        let encoder = encoder.map(|dir| self.encoder(py, dir)).transpose()?;
        let warnings = std::sync::Mutex::new(Vec::new());
        let warn = |warning: &str| warnings.lock().unwrap().push(warning.to_owned());
        let predicted =
            py.detach(|| predict_at(&self.inner, &source, encoder.as_deref(), payoffs, &warn));
        for warning in warnings.into_inner().unwrap_or_default() {
            crate::warn(py, &warning)?;
        }
        let p = predicted.map_err(failure)?;
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
