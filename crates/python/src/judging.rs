//! Judges under a budget: a judging run through a spend ledger with judges from a TOML
//! configuration or Python callables, and the oracle allocation of Theorem 3.2.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use verdict::judge_request::{judge_request, JudgeOutcome, JudgeParams};
use verdict::judges::{
    gold_from_pairs, item_ids, read_gold, ConfiguredPool, JudgeError, JudgePool, JudgesConfig,
    Norm, PaidCalls,
};
use verdict::settings::from_document;

use verdict::arrays::{flatten_rows, ivwe_by_name, shared_errors_by_name};
use verdict::judges::BiasStructure;

use crate::failure;

/// A Python callable judge: `score(item) -> float` in `[0, range]`, at `cost` a call.
#[pyclass(module = "verdict_arena._native", frozen, get_all)]
pub struct CallableJudge {
    /// The name the ledger keys its calls by.
    name: String,
    /// `item -> score`; `None` reports a failed call (not charged, asked again).
    score: Py<PyAny>,
    /// Price of one call.
    cost: f64,
    /// True when asking again for a call cut off mid-way costs nothing extra.
    idempotent: bool,
    /// The judge's family (judges of one family may share their mistakes); None: its
    /// own.
    family: Option<String>,
}

#[pymethods]
impl CallableJudge {
    #[new]
    #[pyo3(signature = (name, score, cost, *, idempotent=false, family=None))]
    fn new(
        name: String,
        score: Py<PyAny>,
        cost: f64,
        idempotent: bool,
        family: Option<String>,
    ) -> Self {
        Self {
            name,
            score,
            cost,
            idempotent,
            family,
        }
    }
}

/// Judges that are Python callables, scoring the items as Python objects. A callable
/// that raises stops the run: the call stays in flight in the ledger (charged at
/// resumption unless the judge is idempotent, since it may have been paid), and the
/// exception is raised again once the run has stopped.
struct CallablePool {
    items: Vec<Py<PyAny>>,
    ids: Vec<String>,
    judges: Vec<Py<CallableJudge>>,
    costs: Vec<f64>,
    range: f64,
    /// The exception that stopped the run, shared with the caller.
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl JudgePool for CallablePool {
    fn items(&self) -> usize {
        self.items.len()
    }
    fn costs(&self) -> &[f64] {
        &self.costs
    }
    fn range(&self) -> f64 {
        self.range
    }
    fn repeatable(&self, judge: usize) -> bool {
        self.judges[judge].get().idempotent
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        Python::attach(|py| {
            let called = self.judges[judge]
                .get()
                .score
                .call1(py, (self.items[item].bind(py),));
            let stop = |pool: &mut Self, error: PyErr| {
                let why = format!(
                    "judge {:?} on item {:?} raised {error}",
                    pool.judges[judge].get().name,
                    pool.ids[item]
                );
                *pool.raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
                JudgeError::Stopped(why)
            };
            match called {
                Ok(value) if value.is_none(py) => Err(JudgeError::Call {
                    item,
                    judge,
                    message: "the judge returned None (a failed call)".into(),
                }),
                Ok(value) => match value.extract::<f64>(py) {
                    Ok(score) => Ok(score),
                    Err(_) => {
                        let shown = value.bind(py).repr().map(|r| r.to_string());
                        let error = PyTypeError::new_err(format!(
                            "a judge returns a number (or None for a failed call), not {}",
                            shown.unwrap_or_default()
                        ));
                        Err(stop(self, error))
                    }
                },
                Err(error) => Err(stop(self, error)),
            }
        })
    }
}

/// Scores `items` (a JSON array of objects, each with an `"id"`; `objects` are the
/// same items as Python values, handed to callable judges) as `verdict judge` with `settings`, a
/// settings document of the run's settings by name ([`JudgeParams`]), through the
/// ledger at `ledger`: `judges` is a TOML configuration's path or a list of
/// `CallableJudge`; `progress` (a callable) gets each paid call's price; `gold` is a
/// CSV path or `(id, score)` pairs. Returns a dict: `result` (the JSON of the
/// library's `JudgedScores`, or of its `BudgetPlan` with `plan`), `replayed`,
/// `made`.
#[pyfunction]
#[pyo3(signature = (settings, items, objects, judges, *, ledger, progress=None, gold=None))]
#[allow(clippy::too_many_arguments)]
pub fn judge<'py>(
    py: Python<'py>,
    settings: &str,
    items: &str,
    objects: Vec<Py<PyAny>>,
    judges: Bound<'py, PyAny>,
    ledger: PathBuf,
    progress: Option<Py<PyAny>>,
    gold: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let params: JudgeParams = from_document(settings).map_err(failure)?;
    let items: Vec<serde_json::Value> = serde_json::from_str(items)
        .map_err(|e| failure(format!("items are not a JSON array of objects: {e}")))?;
    let ids = item_ids(&items).map_err(failure)?;
    let raised = Arc::new(Mutex::new(None));
    type Pool = Box<dyn JudgePool + Send>;
    let (mut pool, names, families): (Pool, Vec<String>, Vec<String>) = if let Ok(path) =
        judges.extract::<PathBuf>()
    {
        let config = JudgesConfig::read(&path).map_err(failure)?;
        let pool = ConfiguredPool::new(items, config, params.seed).map_err(failure)?;
        let (names, families) = (pool.judge_names(), pool.judge_families());
        (Box::new(pool), names, families)
    } else {
        let judges: Vec<Py<CallableJudge>> = judges.extract().map_err(|_| {
            PyTypeError::new_err("judges: a TOML configuration's path, or a list of verdict.Judge")
        })?;
        let names: Vec<String> = judges.iter().map(|j| j.get().name.clone()).collect();
        let families = judges
            .iter()
            .zip(&names)
            .map(|(j, name)| j.get().family.clone().unwrap_or_else(|| name.clone()))
            .collect();
        let pool = CallablePool {
            items: objects,
            ids: ids.clone(),
            costs: judges.iter().map(|j| j.get().cost).collect(),
            judges,
            range: params.range,
            raised: Arc::clone(&raised),
        };
        (Box::new(pool), names, families)
    };
    let labels = gold_of(gold.as_ref(), &ids, pool.range())?;
    let mut request = params.request(&ledger, labels).map_err(failure)?;
    request.families = families;
    let report = |cost: f64| {
        if let Some(progress) = &progress {
            // A failing progress display must not stop a paid run.
            Python::attach(|py| {
                let _ = progress.call1(py, (cost,));
            });
        }
    };
    // Ctrl-C between calls: a pending signal (`KeyboardInterrupt`) stops the run
    // before the next wave of calls is written ahead, so no call is left in flight,
    // and is raised again once the ledger is settled.
    let mut interrupted = None;
    let mut interrupt = || {
        let (error, kind) = Python::attach(|py| {
            let error = py.check_signals().err()?;
            let kind = error.get_type(py).name().map(|n| n.to_string());
            Some((error, kind.unwrap_or_default()))
        })?;
        interrupted = Some(error);
        Some(format!("interrupted ({kind})"))
    };
    // The run goes with the interpreter released; callable judges take it back.
    let judged = py
        .detach(|| {
            let mut watched = PaidCalls::new(pool.as_mut(), &report).stopping_when(&mut interrupt);
            judge_request(&mut watched, &ids, &names, &request)
        })
        .map_err(failure)?;
    let raised = raised
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .or(interrupted);
    for warning in &judged.warnings {
        crate::warn(py, warning)?;
    }
    let json = match judged.outcome {
        Ok(JudgeOutcome::Plan(plan)) => serde_json::to_string(&plan),
        Ok(JudgeOutcome::Scores { scores, .. }) => serde_json::to_string(&scores),
        Err(stopped) => {
            return Err(match raised {
                Some(raised) => {
                    crate::warn(py, &stopped.explained)?;
                    raised
                }
                None => PyRuntimeError::new_err(stopped.explained),
            })
        }
    }
    .map_err(failure)?;
    let result = PyDict::new(py);
    result.set_item("result", json)?;
    result.set_item("replayed", judged.replayed)?;
    result.set_item("made", judged.made)?;
    Ok(result)
}

/// Gold labels from a CSV path or `(id, score)` pairs, checked against the items
/// before any judge is paid.
fn gold_of(
    gold: Option<&Bound<'_, PyAny>>,
    ids: &[String],
    range: f64,
) -> PyResult<Option<Vec<Option<f64>>>> {
    let Some(gold) = gold else { return Ok(None) };
    let labels = if let Ok(path) = gold.extract::<PathBuf>() {
        read_gold(&path, ids, range)
    } else {
        let pairs: Vec<(String, f64)> = gold.extract().map_err(|_| {
            PyTypeError::new_err("gold: a CSV path (id, score) or (id, score) pairs")
        })?;
        gold_from_pairs(pairs, ids, range)
    };
    labels.map(Some).map_err(failure)
}

/// Each item's judge, each item's budget share, and the calls per (item, judge).
type OracleAllocation = (Vec<usize>, Vec<f64>, Vec<Vec<u64>>);

/// The oracle allocation of Theorem 3.2 for known variances `variances[k][j]` (item
/// k, judge j), `costs[j]` and `budget` under the `p`-norm: each item's judge
/// `j*(k) = argmin_j c_j σ²_kj`, its budget share `ω_k ∝ (c_j* σ²_kj*)^(p/(p+2))`, and
/// integer calls that never cost more than the budget. Returns `(judge, weight,
/// counts)`, `counts` as rows of calls per judge.
#[pyfunction]
#[pyo3(signature = (variances, costs, budget, *, p="2"))]
pub fn oracle_allocation(
    variances: Vec<Vec<f64>>,
    costs: Vec<f64>,
    budget: f64,
    p: &str,
) -> PyResult<OracleAllocation> {
    let norm: Norm = p.parse().map_err(failure)?;
    let judges = costs.len();
    let variances = flatten_rows(&variances, judges, "variances").map_err(failure)?;
    let (weights, allocation) =
        verdict::judges::oracle_allocation(&variances, &costs, budget, norm).map_err(failure)?;
    let counts = allocation
        .counts
        .chunks(judges)
        .map(<[u64]>::to_vec)
        .collect();
    Ok((weights.judge, weights.weight, counts))
}

/// IVWE of each item from scores given one call at a time (`items[i]`, `judges[i]`,
/// `scores[i]`), weighted by `variances` (`K × J` in the order of first appearance of
/// items and judges) or, when `None`, by each pair's sample variance:
/// `ŝ_k = Σ_j (N_kj / σ²_kj) m_kj / Σ_j (N_kj / σ²_kj)`. Returns `(items, estimates)`.
#[pyfunction]
#[pyo3(signature = (items, judges, scores, variances=None))]
pub fn ivwe(
    items: Vec<String>,
    judges: Vec<String>,
    scores: Vec<f64>,
    variances: Option<Vec<Vec<f64>>>,
) -> PyResult<(Vec<String>, Vec<f64>)> {
    ivwe_by_name(&items, &judges, &scores, variances.as_deref()).map_err(failure)
}

/// The judges' shared mistakes from calls given one at a time (`items[i]`,
/// `judges[i]`, `scores[i]`), with `families` as `(judge, family)` pairs (the other
/// judges each their own) and `structure` (`pooled` or `per-judge`): the JSON of the
/// library's `SharedErrorsByName`.
#[pyfunction]
#[pyo3(signature = (items, judges, scores, families, structure))]
pub fn shared_errors(
    items: Vec<String>,
    judges: Vec<String>,
    scores: Vec<f64>,
    families: Vec<(String, String)>,
    structure: &str,
) -> PyResult<String> {
    let structure: BiasStructure =
        serde_json::from_value(serde_json::Value::String(structure.into()))
            .map_err(|_| failure(format!("structure {structure:?}: use pooled or per-judge")))?;
    let found =
        shared_errors_by_name(&items, &judges, &scores, &families, structure).map_err(failure)?;
    serde_json::to_string(&found).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// PPI++'s mean of the gold labels `gold` (with the judged scores of the same items,
/// `judged_gold`) and the judged scores of unlabelled items `judged_rest`, at
/// confidence `level` — what `judge(gold=...)` reports; the JSON of the library's
/// `PpiMean`.
#[pyfunction]
#[pyo3(signature = (gold, judged_gold, judged_rest, *, level=0.95))]
pub fn ppi_mean(
    gold: Vec<f64>,
    judged_gold: Vec<f64>,
    judged_rest: Vec<f64>,
    level: f64,
) -> PyResult<String> {
    let mean =
        verdict::judges::ppi_mean(&gold, &judged_gold, &judged_rest, level).map_err(failure)?;
    serde_json::to_string(&mean).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Krippendorff's alpha for interval data of `ratings[item][judge]` (`None` where a
/// judge did not rate an item).
#[pyfunction]
pub fn krippendorff_alpha(ratings: Vec<Vec<Option<f64>>>) -> PyResult<Option<f64>> {
    let judges = ratings.first().map_or(0, Vec::len);
    let flat = flatten_rows(&ratings, judges, "ratings").map_err(failure)?;
    Ok(verdict::judges::krippendorff_alpha(&flat, judges))
}
