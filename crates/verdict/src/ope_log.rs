//! `verdict ope`: a router's decision log (the JSON Lines `verdict serve --decisions`
//! writes) joined with the outcomes observed later, and candidate policies scored on it
//! by [`crate::ope`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use verdict_io::{read_table, Source, TextEncoder};

use crate::model_file::{load_model, read_model_contexts};
use crate::ope::{
    cross_fitted_outcomes, difference, policy_value, Estimate, LoggedChoice, PolicyValue,
};
use crate::VerdictError;

/// A decision log read back: one row per routed request.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionLog {
    /// The agents, in the order of `logging`.
    pub agents: Vec<String>,
    /// Each row's request id.
    pub request_ids: Vec<String>,
    /// Each row's context object, as the server read it.
    pub contexts: Vec<Map<String, Value>>,
    /// The routed agent of each row.
    pub chosen: Vec<usize>,
    /// `rows × agents`: each agent's probability of being routed at the row (the
    /// log's `routed_probabilities`).
    pub logging: Vec<f64>,
}

/// A candidate policy, as `--policy` names it.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicySpec {
    /// `agent:NAME`: always that agent.
    Agent(String),
    /// `logged`: the logging policy itself.
    Logged,
    /// `lottery:FILE`: one distribution for every context, from a `verdict rank
    /// --method lottery --format json` result.
    Lottery(PathBuf),
    /// A model file written by `verdict fit`: its policy at each logged context.
    Model(PathBuf),
}

impl PolicySpec {
    /// Reads `agent:NAME`, `logged`, `lottery:FILE` or a model file's path.
    pub fn parse(text: &str) -> Self {
        if let Some(name) = text.strip_prefix("agent:") {
            Self::Agent(name.to_owned())
        } else if text == "logged" {
            Self::Logged
        } else if let Some(file) = text.strip_prefix("lottery:") {
            Self::Lottery(PathBuf::from(file))
        } else {
            Self::Model(PathBuf::from(text))
        }
    }

    /// How the output names it.
    pub fn label(&self) -> String {
        match self {
            Self::Agent(name) => format!("agent:{name}"),
            Self::Logged => "logged".into(),
            Self::Lottery(file) => format!("lottery:{}", verdict_io::shown_name(file)),
            Self::Model(file) => verdict_io::shown_name(file),
        }
    }
}

/// Reads the decision log at `path`.
///
/// # Errors
/// [`VerdictError::Data`] naming the line: not JSON, a field missing or of the wrong
/// kind, a routed agent not among the agents, routing probabilities that do not sum
/// to 1, two decisions with one request id.
pub fn read_decision_log(path: &Path) -> Result<DecisionLog, VerdictError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        VerdictError::Data(format!(
            "{}: cannot read the decision log: {e}",
            path.display()
        ))
    })?;
    let place = |line: usize| format!("{}:{}", verdict_io::shown_name(path), line + 1);
    let mut log = DecisionLog {
        agents: Vec::new(),
        request_ids: Vec::new(),
        contexts: Vec::new(),
        chosen: Vec::new(),
        logging: Vec::new(),
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (line, content) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |what: &str| VerdictError::Data(format!("{}: {what}", place(line)));
        let value: Value =
            serde_json::from_str(content).map_err(|e| bad(&format!("not a JSON object: {e}")))?;
        let request_id = value["request_id"]
            .as_str()
            .ok_or_else(|| bad("no request_id"))?
            .to_owned();
        if let Some(first) = seen.insert(request_id.clone(), line) {
            return Err(bad(&format!(
                "request {request_id:?} was already decided on line {}; one decision per request",
                first + 1
            )));
        }
        let routed = value["routed_probabilities"].as_object().ok_or_else(|| {
            bad("no routed_probabilities (a log of verdict serve from before they were logged cannot be evaluated)")
        })?;
        if log.agents.is_empty() {
            log.agents = routed.keys().cloned().collect();
        }
        let mut row = Vec::with_capacity(log.agents.len());
        for agent in &log.agents {
            let p = routed
                .get(agent)
                .and_then(Value::as_f64)
                .filter(|p| (0.0..=1.0).contains(p))
                .ok_or_else(|| {
                    bad(&format!(
                        "routed_probabilities has no probability for {agent}"
                    ))
                })?;
            row.push(p);
        }
        if routed.len() != log.agents.len() || (row.iter().sum::<f64>() - 1.0).abs() > 1e-6 {
            return Err(bad(
                "routed_probabilities are not one distribution over the log's agents",
            ));
        }
        let chosen_name = value["chosen"]
            .as_str()
            .ok_or_else(|| bad("no chosen agent"))?;
        let chosen = log
            .agents
            .iter()
            .position(|a| a == chosen_name)
            .ok_or_else(|| {
                bad(&format!(
                    "chosen agent {chosen_name:?} is not one of the log's agents"
                ))
            })?;
        let context = value["context"].as_object().cloned().unwrap_or_default();
        log.request_ids.push(request_id);
        log.contexts.push(context);
        log.chosen.push(chosen);
        log.logging.extend(row);
    }
    if log.chosen.is_empty() {
        return Err(VerdictError::Data(format!(
            "{}: no decision",
            path.display()
        )));
    }
    Ok(log)
}

/// The logged choices of `log` with their outcomes from `outcomes` (a table with
/// `request_column` and `outcome_column`); rows without an outcome are left out
/// (their count is returned).
///
/// # Errors
/// [`VerdictError::Data`] naming the row: an outcome for a request the log never
/// decided, two outcomes for one request, an outcome that is not a finite number;
/// a propensity of 0.
pub fn join_outcomes(
    log: &DecisionLog,
    outcomes: &Source,
    request_column: &str,
    outcome_column: &str,
) -> Result<(Vec<usize>, Vec<LoggedChoice>, usize), VerdictError> {
    let table = read_table(outcomes, None, None)?;
    let ids = table.required(
        request_column,
        "name the request id column with --request-col",
    )?;
    let values = table.required(outcome_column, "name the outcome column with --outcome-col")?;
    let row_of: HashMap<&str, usize> = log
        .request_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut outcome_of: HashMap<usize, f64> = HashMap::new();
    for row in 0..table.rows() {
        let at = |what: &str| {
            VerdictError::Io(verdict_io::IoError::invalid(
                table.location(row, Some(request_column)),
                what,
            ))
        };
        let id = ids.value(row).unwrap_or("");
        let Some(&decision) = row_of.get(id) else {
            return Err(at(&format!(
                "request {id:?} has an outcome but no decision in the log; join outcomes with the log that routed them"
            )));
        };
        let outcome = values
            .value(row)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| at("the outcome is not a finite number"))?;
        if outcome_of.insert(decision, outcome).is_some() {
            return Err(at(&format!("request {id:?} has two outcomes; give one")));
        }
    }
    let k = log.agents.len();
    let mut rows: Vec<usize> = outcome_of.keys().copied().collect();
    rows.sort_unstable();
    let logged = rows
        .iter()
        .map(|&i| LoggedChoice {
            action: log.chosen[i],
            propensity: log.logging[i * k + log.chosen[i]],
            outcome: outcome_of[&i],
        })
        .collect();
    let unmatched = log.chosen.len() - rows.len();
    Ok((rows, logged, unmatched))
}

/// A candidate at the logged rows: its probabilities (`rows × agents`), and for a model
/// its features (`rows × columns`) with the number of columns.
pub type Candidate = (Vec<f64>, Option<(Vec<f64>, usize)>);

/// The candidate's probabilities at the logged `rows` (`rows × agents`, in the log's
/// agent order), and, for a model, its features at those rows.
///
/// # Errors
/// [`VerdictError::Data`]: an agent the log does not know, a lottery or model over
/// other agents; the model's reading errors.
pub fn candidate_policy(
    spec: &PolicySpec,
    log: &DecisionLog,
    rows: &[usize],
    encoder: Option<&TextEncoder>,
) -> Result<Candidate, VerdictError> {
    let k = log.agents.len();
    let position = |name: &str| {
        log.agents.iter().position(|a| a == name).ok_or_else(|| {
            VerdictError::Data(format!(
                "{}: agent {name:?} is not one of the log's agents ({})",
                spec.label(),
                log.agents.join(", ")
            ))
        })
    };
    let constant = |p: Vec<f64>| rows.iter().flat_map(|_| p.clone()).collect();
    match spec {
        PolicySpec::Agent(name) => {
            let mut p = vec![0.0; k];
            p[position(name)?] = 1.0;
            Ok((constant(p), None))
        }
        PolicySpec::Logged => Ok((
            rows.iter()
                .flat_map(|&i| log.logging[i * k..(i + 1) * k].iter().copied())
                .collect(),
            None,
        )),
        PolicySpec::Lottery(file) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| VerdictError::Data(format!("{}: {e}", file.display())))?;
            let board: Value = serde_json::from_str(&text)
                .map_err(|e| VerdictError::Data(format!("{}: not JSON: {e}", file.display())))?;
            let models = board["models"].as_array().ok_or_else(|| {
                VerdictError::Data(format!(
                    "{}: no models; give the JSON of verdict rank --method lottery --format json",
                    file.display()
                ))
            })?;
            let mut p = vec![0.0; k];
            for m in models {
                let name = m["name"].as_str().unwrap_or("");
                let probability = m["probability"].as_f64().unwrap_or(0.0);
                p[position(name)?] = probability;
            }
            Ok((constant(p), None))
        }
        PolicySpec::Model(file) => {
            let model = load_model(file)?;
            let contexts: Vec<Value> = rows
                .iter()
                .map(|&i| Value::Object(log.contexts[i].clone()))
                .collect();
            let source = Source::Bytes {
                label: "decision-contexts.json".into(),
                data: serde_json::to_vec(&Value::Array(contexts)).expect("JSON serialises"),
            };
            let read = read_model_contexts(&model, &source, encoder)?;
            let policy = model.policy(&read.features)?;
            let columns = model.feature_names.len();
            let order: Vec<usize> = model
                .agents
                .iter()
                .map(|a| position(a))
                .collect::<Result<_, _>>()?;
            if model.agents.len() != k {
                return Err(VerdictError::Data(format!(
                    "{}: the model ranks {} agents, the log {k}",
                    spec.label(),
                    model.agents.len()
                )));
            }
            let mut target = vec![0.0; rows.len() * k];
            for (r, chunk) in policy.chunks(model.agents.len()).enumerate() {
                for (j, p) in chunk.iter().enumerate() {
                    target[r * k + order[j]] = *p;
                }
            }
            Ok((target, Some((read.features, columns))))
        }
    }
}

/// One candidate's scores.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CandidateScore {
    /// How `--policy` named it.
    pub policy: String,
    /// IPS, SNIPS, DR and the overlap.
    #[serde(flatten)]
    pub value: PolicyValue,
    /// Its paired difference from the first candidate, by IPS and DR (none for the
    /// first).
    pub versus_first: Option<(Estimate, Estimate)>,
}

/// What `verdict ope` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpeReport {
    /// Logged decisions with an outcome.
    pub rows: usize,
    /// Decisions without an outcome, left out.
    pub without_outcome: usize,
    /// The agents.
    pub agents: Vec<String>,
    /// The outcome model of the doubly-robust estimates.
    pub outcome_model: String,
    /// The floor below which the logger's probability of an agent is too small to
    /// lean on.
    pub floor: f64,
    /// The candidates, in the order given.
    pub candidates: Vec<CandidateScore>,
}

/// Scores `specs` on `log` joined with `outcomes`: IPS, SNIPS and DR (the outcome model
/// a cross-fitted ridge per agent on the first model candidate's features, else each
/// agent's cross-fitted mean), the overlap at `floor`, and each candidate's paired
/// difference from the first.
///
/// # Errors
/// As [`join_outcomes`] and [`candidate_policy`]; no outcome joined.
pub fn evaluate_log(
    log: &DecisionLog,
    outcomes: &Source,
    columns: (&str, &str),
    specs: &[PolicySpec],
    encoder: Option<&TextEncoder>,
    floor: f64,
    folds: usize,
) -> Result<OpeReport, VerdictError> {
    let (rows, logged, without_outcome) = join_outcomes(log, outcomes, columns.0, columns.1)?;
    if logged.is_empty() {
        return Err(VerdictError::Data(
            "no decision has an outcome: join outcomes by the log's request ids".into(),
        ));
    }
    let k = log.agents.len();
    let targets: Vec<Candidate> = specs
        .iter()
        .map(|spec| candidate_policy(spec, log, &rows, encoder))
        .collect::<Result<_, _>>()?;
    let first_model = targets
        .iter()
        .zip(specs)
        .find_map(|((_, f), spec)| Some((f.as_ref()?, spec)));
    let (outcome_model, description) = match first_model {
        Some(((x, columns), spec)) => (
            cross_fitted_outcomes(&logged, x, *columns, k, folds, 1.0)?,
            format!("ridge per agent on the features of {}", spec.label()),
        ),
        None => (
            cross_fitted_outcomes(&logged, &vec![0.0; logged.len()], 1, k, folds, 1.0)?,
            "each agent's mean outcome".to_owned(),
        ),
    };
    let logging: Vec<f64> = rows
        .iter()
        .flat_map(|&i| log.logging[i * k..(i + 1) * k].iter().copied())
        .collect();
    let mut candidates = Vec::with_capacity(specs.len());
    for (spec, (target, _)) in specs.iter().zip(&targets) {
        let value = policy_value(&logged, target, &outcome_model, &logging, k, floor)?;
        let versus_first = if candidates.is_empty() {
            None
        } else {
            Some(difference(
                &logged,
                target,
                &targets[0].0,
                &outcome_model,
                k,
            )?)
        };
        candidates.push(CandidateScore {
            policy: spec.label(),
            value,
            versus_first,
        });
    }
    Ok(OpeReport {
        rows: logged.len(),
        without_outcome,
        agents: log.agents.clone(),
        outcome_model: description,
        floor,
        candidates,
    })
}
