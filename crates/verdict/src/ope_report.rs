//! `verdict ope`: candidate policies scored on a decision log joined with outcomes
//! ([`crate::ope_log`]) — each candidate's value by IPS, SNIPS and DR ([`crate::ope`])
//! on the single answers, its payoff against an opponent on the duels
//! ([`crate::ope_duel`]), its expected cost, the overlap diagnostics, and its paired
//! difference from the first candidate.

use std::path::PathBuf;

use serde_json::Value;
use verdict_io::{Source, TextEncoder};
use verdict_nasheval::NashEvalModel;

use crate::model_file::{load_model, read_model_contexts};
use crate::ope::{
    cross_fitted_outcomes, difference, mass_below_floor, policy_value, Estimate, LoggedChoice,
    Overlap, PolicyValue,
};
use crate::ope_duel::{cross_fitted_margins, duel_difference, duel_value, DuelValue};
use crate::ope_log::{join_outcomes, DecisionLog, Joined, OutcomeColumns};
use crate::VerdictError;

/// A candidate policy, as `--policy` names it.
#[derive(Debug, Clone)]
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
    /// A model already in memory, shown as `label`.
    Fitted {
        /// How the output names it.
        label: String,
        /// The model.
        model: std::sync::Arc<NashEvalModel>,
    },
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
            Self::Fitted { label, .. } => label.clone(),
        }
    }
}

/// A candidate read: its spec and what its file held.
enum Resolved {
    Agent(String),
    Logged,
    Lottery(Vec<(String, f64)>),
    Model(std::sync::Arc<NashEvalModel>),
}

impl Resolved {
    /// Reads the candidate's file, if it has one.
    fn read(spec: &PolicySpec) -> Result<Self, VerdictError> {
        Ok(match spec {
            PolicySpec::Agent(name) => Self::Agent(name.clone()),
            PolicySpec::Logged => Self::Logged,
            PolicySpec::Lottery(file) => Self::Lottery(read_lottery(file)?),
            PolicySpec::Model(file) => Self::Model(std::sync::Arc::new(load_model(file)?)),
            PolicySpec::Fitted { model, .. } => Self::Model(model.clone()),
        })
    }

    /// The agents it may route to.
    fn agents(&self) -> Vec<String> {
        match self {
            Self::Agent(name) => vec![name.clone()],
            Self::Logged => Vec::new(),
            Self::Lottery(p) => p.iter().map(|(a, _)| a.clone()).collect(),
            Self::Model(m) => m.agents.clone(),
        }
    }
}

/// `agent:NAME` for an agent the log never names (a typo, or another catalogue's
/// name) has no logged outcome at all: every estimate of it would be the outcome
/// model's extrapolation, so it is refused, naming the log's agents. A model or a
/// lottery may hold agents the log lacks; the overlap diagnostics flag those.
///
/// # Errors
/// The agent named, with the log's agents.
fn refuse_an_agent_never_logged(
    candidate: &Resolved,
    logged: &[String],
) -> Result<(), VerdictError> {
    match candidate {
        Resolved::Agent(name) if !logged.contains(name) => Err(VerdictError::Settings(format!(
            "agent:{name}: the decision log never names this agent; its agents are {}",
            logged.join(", ")
        ))),
        _ => Ok(()),
    }
}

/// The `(name, probability)` of a `verdict rank --method lottery --format json` result.
fn read_lottery(file: &std::path::Path) -> Result<Vec<(String, f64)>, VerdictError> {
    let shown = verdict_io::shown_name(file);
    // A device or pipe named as a lottery (`/dev/zero`) would be read for ever.
    if verdict_io::not_a_regular_file(file) {
        return Err(VerdictError::Data(format!(
            "{shown}: not a regular file; give the JSON of verdict rank --method lottery --format json"
        )));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| VerdictError::Data(format!("{shown}: cannot read the lottery: {e}")))?;
    let board: Value = serde_json::from_str(&text)
        .map_err(|e| VerdictError::Data(format!("{shown}: not JSON: {e}")))?;
    let models = board["models"].as_array().ok_or_else(|| {
        VerdictError::Data(format!(
            "{shown}: no models; give the JSON of verdict rank --method lottery --format json"
        ))
    })?;
    let lottery: Vec<(String, f64)> = models
        .iter()
        .map(|m| {
            let p = m["probability"]
                .as_f64()
                .filter(|p| (0.0..=1.0).contains(p));
            Some((m["name"].as_str()?.to_owned(), p?))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| {
            VerdictError::Data(format!(
                "{shown}: every model needs a name and a probability in [0, 1]"
            ))
        })?;
    if (lottery.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() > 1e-6 {
        return Err(VerdictError::Data(format!(
            "{shown}: the probabilities do not sum to 1"
        )));
    }
    Ok(lottery)
}

/// A candidate at some logged rows: its probabilities (`rows × agents`, in the log's
/// agent order) and, for a model, its features (`rows × columns`) with the number of
/// columns.
type AtRows = (Vec<f64>, Option<(Vec<f64>, usize)>);

/// `candidate`'s policy at the log's `rows`.
fn at_rows(
    candidate: &Resolved,
    label: &str,
    log: &DecisionLog,
    rows: &[usize],
    encoder: Option<&TextEncoder>,
) -> Result<AtRows, VerdictError> {
    let k = log.agents.len();
    let position = |name: &str| {
        log.agents
            .iter()
            .position(|a| a == name)
            .expect("the log holds every candidate's agents")
    };
    let constant = |p: Vec<f64>| rows.iter().flat_map(|_| p.clone()).collect();
    match candidate {
        Resolved::Agent(name) => {
            let mut p = vec![0.0; k];
            p[position(name)] = 1.0;
            Ok((constant(p), None))
        }
        Resolved::Logged => {
            if !log.knows_logging() {
                return Err(VerdictError::Data(format!(
                    "{label}: the log gives only the routed agent's propensity, not the logger's probability of every agent; add routed:<agent> columns, or compare other candidates"
                )));
            }
            Ok((
                rows.iter()
                    .flat_map(|&i| log.logging_at(i).iter().copied())
                    .collect(),
                None,
            ))
        }
        Resolved::Lottery(lottery) => {
            let mut p = vec![0.0; k];
            lottery.iter().for_each(|(a, q)| p[position(a)] = *q);
            Ok((constant(p), None))
        }
        Resolved::Model(model) => {
            // A decision table need not repeat an id column: the request id names
            // the context then.
            let contexts: Vec<Value> = rows
                .iter()
                .map(|&i| {
                    let mut context = log.context(i);
                    context
                        .entry("context_id")
                        .or_insert_with(|| Value::String(log.request_ids[i].clone()));
                    Value::Object(context)
                })
                .collect();
            let source = Source::Bytes {
                label: "decision-contexts.json".into(),
                data: serde_json::to_vec(&Value::Array(contexts)).expect("JSON serialises"),
            };
            let read = read_model_contexts(model, &source, encoder)?;
            let policy = model.policy(&read.features)?;
            let order: Vec<usize> = model.agents.iter().map(|a| position(a)).collect();
            let mut target = vec![0.0; rows.len() * k];
            for (r, chunk) in policy.chunks(model.agents.len()).enumerate() {
                for (j, p) in chunk.iter().enumerate() {
                    target[r * k + order[j]] = *p;
                }
            }
            Ok((target, Some((read.features, model.feature_names.len()))))
        }
    }
}

/// How a candidate's expected cost is known.
#[derive(Debug, Clone, PartialEq)]
pub enum CostSource {
    /// Each agent's price: the expected cost is `Σ_a π(a|x) c_a`, averaged over the
    /// logged contexts.
    Prices(Vec<(String, f64)>),
    /// The observed cost of each routed answer (the outcomes' cost column): estimated
    /// like the value, doubly robust.
    Observed,
}

/// What `verdict ope` is asked.
#[derive(Debug, Clone)]
pub struct OpeRequest {
    /// The candidates; differences are against the first.
    pub policies: Vec<PolicySpec>,
    /// The duels' opponent (default: the logging policy).
    pub against: Option<PolicySpec>,
    /// The outcomes' columns.
    pub columns: OutcomeColumns,
    /// Agents' prices, if known.
    pub prices: Option<Vec<(String, f64)>>,
    /// The logger's probability below which an agent counts as not offered.
    pub floor: f64,
    /// Folds of the cross-fitted outcome model.
    pub folds: usize,
}

/// A candidate's payoff in the duels against the opponent.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DuelScore {
    /// IPS and DR.
    #[serde(flatten)]
    pub value: DuelValue,
    /// The overlap: weights `(π(a)ρ(b) + π(b)ρ(a)) / μ` of the logged pairs.
    pub overlap: Overlap,
    /// The paired difference from the first candidate (none for the first).
    pub versus_first: Option<DuelValue>,
}

/// One candidate's scores.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CandidateScore {
    /// How `--policy` named it.
    pub policy: String,
    /// IPS, SNIPS, DR and the overlap on the single answers (none without one).
    #[serde(flatten)]
    pub value: Option<PolicyValue>,
    /// Its paired difference from the first candidate, by IPS and DR (none for the
    /// first).
    pub versus_first: Option<(Estimate, Estimate)>,
    /// Its expected cost per request, when prices or observed costs are given.
    pub cost: Option<Estimate>,
    /// Its payoff against the opponent on the duels (none without one).
    pub duel: Option<DuelScore>,
}

/// What `verdict ope` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OpeReport {
    /// Single answers with an outcome.
    pub rows: usize,
    /// Duels with a verdict.
    pub duels: usize,
    /// Decisions without an outcome, left out.
    pub without_outcome: usize,
    /// The agents.
    pub agents: Vec<String>,
    /// The outcome model of the doubly-robust estimates.
    pub outcome_model: String,
    /// How the expected cost is known, if it is.
    pub cost_model: Option<String>,
    /// The duels' opponent.
    pub opponent: Option<String>,
    /// The floor below which the logger's probability of an agent is too small to
    /// lean on.
    pub floor: f64,
    /// Whether the log gave the logger's probability of every agent (else the floor
    /// sees only the agents the log never routed to).
    pub logging_known: bool,
    /// The candidates, in the order given.
    pub candidates: Vec<CandidateScore>,
}

/// Scores `request`'s candidates on `log` joined with `outcomes`: on single answers
/// IPS, SNIPS and DR (the outcome model a cross-fitted ridge per agent on the first
/// model candidate's features, else on the log's numeric context fields, else each
/// agent's cross-fitted mean), the overlap at the floor, the expected cost and each
/// candidate's paired difference from the first; on duels the payoff against the
/// opponent by IPS and DR (a cross-fitted ridge per pair). The log is taken, not
/// copied: agents only a candidate names are added to it.
///
/// # Errors
/// As [`join_outcomes`]; a candidate's file unreadable; the logging policy asked of a
/// log that does not give it; no outcome joined.
pub fn evaluate_log(
    mut log: DecisionLog,
    outcomes: &Source,
    request: &OpeRequest,
    encoder: Option<&TextEncoder>,
) -> Result<OpeReport, VerdictError> {
    let joined = join_outcomes(&log, outcomes, &request.columns)?;
    if joined.single.is_empty() && joined.duels.is_empty() {
        return Err(VerdictError::Data(
            "no decision has an outcome: join outcomes by the log's request ids".into(),
        ));
    }
    let resolved: Vec<Resolved> = request
        .policies
        .iter()
        .map(Resolved::read)
        .collect::<Result<_, _>>()?;
    let opponent = match (&request.against, joined.duels.is_empty()) {
        (_, true) => None,
        (Some(spec), false) => Some((spec.label(), Resolved::read(spec)?)),
        (None, false) => Some(("logged".to_owned(), Resolved::Logged)),
    };
    for candidate in resolved.iter().chain(opponent.iter().map(|(_, r)| r)) {
        refuse_an_agent_never_logged(candidate, &log.agents)?;
        log.add_agents(&candidate.agents());
    }
    let labels: Vec<String> = request.policies.iter().map(PolicySpec::label).collect();
    let cost_model = match (&request.prices, &request.columns.cost) {
        (Some(_), Some(_)) => {
            return Err(VerdictError::Settings(
                "give agents' prices or an observed cost column, not both".into(),
            ))
        }
        (Some(prices), None) => Some(CostSource::Prices(prices.clone())),
        (None, Some(_)) => Some(CostSource::Observed),
        (None, None) => None,
    };
    let mut scores: Vec<CandidateScore> = labels
        .iter()
        .map(|policy| CandidateScore {
            policy: policy.clone(),
            value: None,
            versus_first: None,
            cost: None,
            duel: None,
        })
        .collect();
    let mut outcome_model = String::new();
    if !joined.single.is_empty() {
        outcome_model = score_single(
            &log,
            &joined,
            &resolved,
            &labels,
            cost_model.as_ref(),
            request,
            encoder,
            &mut scores,
        )?;
    }
    if let Some((label, opponent)) = &opponent {
        let description = score_duels(
            &log,
            &joined,
            &resolved,
            (label, opponent),
            &labels,
            request,
            encoder,
            &mut scores,
        )?;
        outcome_model = if outcome_model.is_empty() {
            description
        } else {
            format!("{outcome_model}; duels: {description}")
        };
    }
    Ok(OpeReport {
        rows: joined.single.len(),
        duels: joined.duels.len(),
        without_outcome: joined.without_outcome,
        agents: log.agents.clone(),
        outcome_model,
        cost_model: cost_model.map(|c| match c {
            CostSource::Prices(_) => "each agent's price, averaged over the logged contexts".into(),
            CostSource::Observed => {
                "the observed cost of each routed answer, doubly robust like the value".into()
            }
        }),
        opponent: opponent.map(|(label, _)| label),
        floor: request.floor,
        logging_known: log.knows_logging(),
        candidates: scores,
    })
}

/// The candidates' policies at some rows, the outcome model's features there (`rows ×
/// columns`, with the columns) and their description.
type Policies = (Vec<Vec<f64>>, (Vec<f64>, usize), String);

/// The candidates' policies at `rows`, and the first model candidate's features there
/// (else one constant column) with its description.
fn policies_at(
    log: &DecisionLog,
    resolved: &[Resolved],
    labels: &[String],
    rows: &[usize],
    encoder: Option<&TextEncoder>,
) -> Result<Policies, VerdictError> {
    let mut targets = Vec::with_capacity(resolved.len());
    let mut features = None;
    for (candidate, label) in resolved.iter().zip(labels) {
        let (target, x) = at_rows(candidate, label, log, rows, encoder)?;
        if features.is_none() {
            features = x.map(|x| (x, label.clone()));
        }
        targets.push(target);
    }
    Ok(match features {
        Some((x, label)) => (targets, x, format!("ridge on the features of {label}")),
        None => match numeric_context(log, rows) {
            Some((x, names)) => {
                let description = format!("ridge on the logged contexts' {}", names.join(", "));
                (targets, (x, names.len()), description)
            }
            None => (
                targets,
                (vec![0.0; rows.len()], 1),
                "cross-fitted means".to_owned(),
            ),
        },
    })
}

/// The context fields that are numbers at every one of `rows` (`rows × fields`, with
/// their names), when there are any: the outcome model's features when no candidate
/// is a model.
fn numeric_context(log: &DecisionLog, rows: &[usize]) -> Option<(Vec<f64>, Vec<String>)> {
    use rayon::prelude::*;
    let candidates: Vec<String> = log.context(*rows.first()?).keys().cloned().collect();
    // Each row's value of each of the first row's fields, parsed on every core.
    let values: Vec<Vec<Option<f64>>> = rows
        .par_iter()
        .map(|&i| {
            let context = log.context(i);
            candidates
                .iter()
                .map(|n| {
                    context
                        .get(n)
                        .and_then(Value::as_f64)
                        .filter(|v| v.is_finite())
                })
                .collect()
        })
        .collect();
    let kept: Vec<usize> = (0..candidates.len())
        .filter(|&j| values.iter().all(|row| row[j].is_some()))
        .collect();
    if kept.is_empty() {
        return None;
    }
    let x = values
        .iter()
        .flat_map(|row| kept.iter().map(|&j| row[j].unwrap_or(0.0)))
        .collect();
    Some((x, kept.iter().map(|&j| candidates[j].clone()).collect()))
}

/// Scores the single answers into `scores`; returns the outcome model's description.
#[allow(clippy::too_many_arguments)]
fn score_single(
    log: &DecisionLog,
    joined: &Joined,
    resolved: &[Resolved],
    labels: &[String],
    cost_model: Option<&CostSource>,
    request: &OpeRequest,
    encoder: Option<&TextEncoder>,
    scores: &mut [CandidateScore],
) -> Result<String, VerdictError> {
    let k = log.agents.len();
    let rows = &joined.single_rows;
    let (targets, (x, columns), description) = policies_at(log, resolved, labels, rows, encoder)?;
    let logged = &joined.single;
    let model = cross_fitted_outcomes(logged, &x, columns, k, request.folds, 1.0)?;
    let logging = log.logging_rows(rows);
    // What the expected cost needs, made once for every candidate: each agent's
    // price, or the observed costs with their cross-fitted outcome model.
    enum Costs {
        None,
        Prices(Vec<f64>),
        Observed(Vec<LoggedChoice>, Vec<f64>),
    }
    let costs = match cost_model {
        None => Costs::None,
        Some(CostSource::Prices(prices)) => Costs::Prices(
            log.agents
                .iter()
                .map(|a| {
                    prices
                        .iter()
                        .find(|(n, _)| n == a)
                        .map(|(_, c)| *c)
                        .ok_or_else(|| {
                            VerdictError::Data(format!(
                                "the prices name no cost for {a}; give every agent's price"
                            ))
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(CostSource::Observed) => {
            let observed: Vec<LoggedChoice> = logged
                .iter()
                .zip(joined.costs.as_deref().unwrap_or_default())
                .map(|(l, &c)| LoggedChoice { outcome: c, ..*l })
                .collect();
            let model = cross_fitted_outcomes(&observed, &x, columns, k, request.folds, 1.0)?;
            Costs::Observed(observed, model)
        }
    };
    let cost_of = |target: &[f64]| -> Result<Option<Estimate>, VerdictError> {
        Ok(match &costs {
            Costs::None => None,
            Costs::Prices(price) => {
                let per_row: Vec<f64> = target
                    .chunks(k)
                    .map(|p| p.iter().zip(price).map(|(p, c)| p * c).sum())
                    .collect();
                Some(Estimate::of_terms(&per_row))
            }
            Costs::Observed(observed, model) => {
                Some(policy_value(observed, target, model, &logging, k, request.floor)?.dr)
            }
        })
    };
    for (i, target) in targets.iter().enumerate() {
        let score = &mut scores[i];
        score.value = Some(policy_value(
            logged,
            target,
            &model,
            &logging,
            k,
            request.floor,
        )?);
        score.cost = cost_of(target)?;
        if i > 0 {
            score.versus_first = Some(difference(logged, target, &targets[0], &model, k)?);
        }
    }
    Ok(format!("{description}, per agent"))
}

/// Scores the duels against the opponent into `scores`; returns the margin model's
/// description.
#[allow(clippy::too_many_arguments)]
fn score_duels(
    log: &DecisionLog,
    joined: &Joined,
    resolved: &[Resolved],
    (label, opponent): (&str, &Resolved),
    labels: &[String],
    request: &OpeRequest,
    encoder: Option<&TextEncoder>,
    scores: &mut [CandidateScore],
) -> Result<String, VerdictError> {
    let k = log.agents.len();
    let rows = &joined.duel_rows;
    let (targets, (x, columns), description) = policies_at(log, resolved, labels, rows, encoder)?;
    let (rho, _) = at_rows(opponent, label, log, rows, encoder)?;
    let duels = &joined.duels;
    let margins = cross_fitted_margins(duels, &x, columns, k, request.folds, 1.0)?;
    let logging = log.logging_rows(rows);
    for (i, target) in targets.iter().enumerate() {
        let weights: Vec<f64> = duels
            .iter()
            .enumerate()
            .map(|(r, d)| {
                let (p, q) = (&target[r * k..(r + 1) * k], &rho[r * k..(r + 1) * k]);
                (p[d.first] * q[d.second] + p[d.second] * q[d.first]) / d.propensity
            })
            .collect();
        scores[i].duel = Some(DuelScore {
            value: duel_value(duels, target, &rho, &margins, k)?,
            overlap: Overlap::of(
                &weights,
                mass_below_floor(target, &logging, k, request.floor),
            ),
            versus_first: if i == 0 {
                None
            } else {
                Some(duel_difference(
                    duels,
                    target,
                    &targets[0],
                    &rho,
                    &margins,
                    k,
                )?)
            },
        });
    }
    Ok(format!("{description}, per pair"))
}
