//! A router's decision log read back for off-policy evaluation (`verdict ope`): the
//! JSON Lines `verdict serve --decisions` writes, or any table with a request id, the
//! menu offered (`chosen`, or `menu` as `a|b` for a duel), its logged `propensity`, the
//! context columns and, optionally, the logger's probability of every agent
//! (`routed:<agent>` columns); and the outcomes observed later, joined by request id.

use std::collections::HashMap;

use std::io::BufRead;

use serde_json::{Map, Value};
use verdict_io::{read_table, Format, Source, Table};

use crate::ope::{checked_propensity, LoggedChoice};
use crate::ope_duel::LoggedDuel;
use crate::VerdictError;

/// The prefix of a decision table's columns giving the logger's probability of routing
/// to each agent (`routed:gpt-4o`).
pub const ROUTED_PREFIX: &str = "routed:";

/// A decision log read back: one row per routed request.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionLog {
    /// The agents, in the order of `logging`.
    pub agents: Vec<String>,
    /// Each row's request id.
    pub request_ids: Vec<String>,
    /// Each row's context object as compact JSON text (a log of millions of rows
    /// holds a few hundred bytes per row this way; [`DecisionLog::context`] reads one).
    pub contexts: Vec<Box<str>>,
    /// Each row's menu: the routed agent, or a duel's two agents (first, second).
    pub menus: Vec<Vec<usize>>,
    /// The probability each menu was offered (as a set).
    pub propensities: Vec<f64>,
    /// `rows × agents`: each agent's probability of being routed at the row (the
    /// log's `routed_probabilities`); NaN where the log does not say.
    pub logging: Vec<f64>,
}

impl DecisionLog {
    fn new() -> Self {
        Self {
            agents: Vec::new(),
            request_ids: Vec::new(),
            contexts: Vec::new(),
            menus: Vec::new(),
            propensities: Vec::new(),
            logging: Vec::new(),
        }
    }

    /// Decisions in the log.
    pub fn rows(&self) -> usize {
        self.menus.len()
    }

    /// The context object of `row`.
    pub fn context(&self, row: usize) -> Map<String, Value> {
        serde_json::from_str(&self.contexts[row]).unwrap_or_default()
    }

    /// The logger's probabilities of every agent at `row`.
    pub fn logging_at(&self, row: usize) -> &[f64] {
        let k = self.agents.len();
        &self.logging[row * k..(row + 1) * k]
    }

    /// The logger's probabilities of every agent at each of `rows` (`rows × agents`).
    pub fn logging_rows(&self, rows: &[usize]) -> Vec<f64> {
        rows.iter()
            .flat_map(|&i| self.logging_at(i).iter().copied())
            .collect()
    }

    /// Whether the log gives the logger's probability of every agent at every row.
    pub fn knows_logging(&self) -> bool {
        self.logging.iter().all(|p| p.is_finite())
    }

    /// Adds `names` the log does not know as agents it never routed to: probability 0
    /// at every row (a candidate's mass there is mass where the log has no evidence).
    pub fn add_agents(&mut self, names: &[String]) {
        let new: Vec<&String> = names.iter().filter(|n| !self.agents.contains(n)).collect();
        if new.is_empty() {
            return;
        }
        let (old, k) = (self.agents.len(), self.agents.len() + new.len());
        let mut logging = vec![0.0; self.rows() * k];
        for row in 0..self.rows() {
            logging[row * k..row * k + old].copy_from_slice(self.logging_at(row));
        }
        self.logging = logging;
        self.agents.extend(new.into_iter().cloned());
    }

    fn agent(&mut self, name: &str) -> usize {
        if let Some(i) = self.agents.iter().position(|a| a == name) {
            return i;
        }
        self.agents.push(name.to_owned());
        self.agents.len() - 1
    }
}

/// The columns of a decision table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionColumns {
    /// The request id, shared with the outcomes.
    pub request: String,
}

/// Reads a decision log: the JSON Lines of `verdict serve --decisions` (recognised by
/// their `routed_probabilities`), or a table with the request id, `chosen` or `menu`,
/// `propensity`, optional `routed:<agent>` columns and the context columns.
///
/// # Errors
/// [`VerdictError::Data`] or [`VerdictError::Io`] naming the line or row: not JSON, a
/// field missing or of the wrong kind, a routed agent not among the agents, routing
/// probabilities that do not sum to 1, a propensity of 0 or above 1, two decisions
/// with one request id.
pub fn read_decision_log(
    source: &Source,
    columns: &DecisionColumns,
) -> Result<DecisionLog, VerdictError> {
    let label = source.label();
    if let Source::File(path) = source {
        // A device or pipe (`/dev/zero` behind a link) would be read for ever.
        if verdict_io::not_a_regular_file(path) {
            return Err(VerdictError::Data(format!(
                "{label}: not a regular file; name the decision log verdict serve wrote, or a decision table"
            )));
        }
    }
    let serve_log = matches!(
        Format::from_path(std::path::Path::new(&label)),
        Ok(Format::JsonLines)
    ) && first_line(source)?.contains("\"routed_probabilities\"");
    let log = if serve_log {
        read_serve_log(source)?
    } else {
        read_decision_table(&read_table(source, None, None)?, columns)?
    };
    if log.rows() == 0 {
        return Err(VerdictError::Data(format!("{label}: no decision")));
    }
    Ok(log)
}

/// A reader of a JSON Lines source, and the error for a failed read.
fn reader_of(source: &Source) -> Result<Box<dyn std::io::BufRead + '_>, VerdictError> {
    Ok(match source {
        Source::File(path) => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|e| unreadable(source, e))?,
        )),
        Source::Bytes { data, .. } => Box::new(data.as_slice()),
        Source::Table(_) => Box::new(std::io::empty()),
    })
}

fn unreadable(source: &Source, e: std::io::Error) -> VerdictError {
    VerdictError::Data(format!(
        "{}: cannot read the decision log: {e}",
        source.label()
    ))
}

/// The first non-blank line of a JSON Lines source (one line is read).
fn first_line(source: &Source) -> Result<String, VerdictError> {
    let mut reader = reader_of(source)?;
    let mut line = String::new();
    while line.trim().is_empty() {
        line.clear();
        if reader
            .read_line(&mut line)
            .map_err(|e| unreadable(source, e))?
            == 0
        {
            break;
        }
    }
    Ok(line)
}

/// Remembers request ids: the second decision for one is refused.
struct Requests(HashMap<String, usize>);

impl Requests {
    /// `place` counts from 0 in `unit`s (`line`, `row`), shown from 1.
    fn first_time(&mut self, id: &str, place: usize, unit: &str) -> Result<(), String> {
        match self.0.insert(id.to_owned(), place) {
            Some(first) => Err(format!(
                "request {id:?} was already decided on {unit} {}; one decision per request",
                first + 1
            )),
            None => Ok(()),
        }
    }
}

/// The propensity of a menu, checked to be a probability in `(0, 1]`.
fn propensity(value: Option<f64>) -> Result<f64, String> {
    checked_propensity(value.ok_or("no propensity")?, "decision")
}

/// One line of a serve log, parsed.
struct ServeLine {
    request_id: String,
    menu: Vec<usize>,
    propensity: f64,
    logging: Vec<f64>,
    context: Box<str>,
}

/// Lines parsed in parallel at a time: a batch's text is all a read holds.
const BATCH_LINES: usize = 65_536;

/// The agents of a serve log: the keys of its first line's `routed_probabilities`.
fn serve_log_agents(first: &str) -> Vec<String> {
    serde_json::from_str::<Value>(first)
        .ok()
        .and_then(|v| {
            v["routed_probabilities"]
                .as_object()
                .map(|o| o.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// One line of a serve log over `agents`, or what is wrong with it.
fn parse_serve_line(content: &str, agents: &[String]) -> Result<ServeLine, String> {
    let value: Value =
        serde_json::from_str(content).map_err(|e| format!("not a JSON object: {e}"))?;
    let request_id = value["request_id"]
        .as_str()
        .ok_or("no request_id")?
        .to_owned();
    let routed = value["routed_probabilities"].as_object().ok_or(
        "no routed_probabilities (a log of verdict serve from before they were logged cannot be evaluated)",
    )?;
    let logging = agents
        .iter()
        .map(|agent| {
            routed
                .get(agent)
                .and_then(Value::as_f64)
                .filter(|p| (0.0..=1.0).contains(p))
                .ok_or_else(|| format!("routed_probabilities has no probability for {agent}"))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    if routed.len() != agents.len() || (logging.iter().sum::<f64>() - 1.0).abs() > 1e-6 {
        return Err("routed_probabilities are not one distribution over the log's agents".into());
    }
    let menu_text = value["menu"]
        .as_str()
        .or_else(|| value["chosen"].as_str())
        .ok_or("no menu or chosen agent")?;
    let menu = menu_of(menu_text, agents)?;
    let propensity = propensity(value["propensity"].as_f64().or(Some(logging[menu[0]])))?;
    let context = match &value["context"] {
        context @ Value::Object(_) => context.to_string(),
        _ => "{}".to_owned(),
    };
    Ok(ServeLine {
        request_id,
        menu,
        propensity,
        logging,
        context: context.into_boxed_str(),
    })
}

/// The JSON Lines of `verdict serve --decisions`, read in batches whose lines are
/// parsed on every core; errors name the first bad line.
fn read_serve_log(source: &Source) -> Result<DecisionLog, VerdictError> {
    use rayon::prelude::*;
    let mut lines = reader_of(source)?.lines().enumerate();
    let shown = source.shown_name();
    let mut log = DecisionLog::new();
    let mut requests = Requests(HashMap::new());
    loop {
        let mut batch: Vec<(usize, String)> = Vec::with_capacity(BATCH_LINES);
        for (line, content) in lines.by_ref() {
            let content = content.map_err(|e| unreadable(source, e))?;
            if !content.trim().is_empty() {
                batch.push((line, content));
                if batch.len() == BATCH_LINES {
                    break;
                }
            }
        }
        let Some((_, first)) = batch.first() else {
            return Ok(log);
        };
        if log.agents.is_empty() {
            log.agents = serve_log_agents(first);
        }
        let parsed: Vec<Result<ServeLine, String>> = batch
            .par_iter()
            .map(|(_, content)| parse_serve_line(content, &log.agents))
            .collect();
        for ((line, _), parsed) in batch.iter().zip(parsed) {
            let bad = |what: &str| VerdictError::Data(format!("{shown}:{}: {what}", line + 1));
            let row = parsed.map_err(|e| bad(&e))?;
            requests
                .first_time(&row.request_id, *line, "line")
                .map_err(|e| bad(&e))?;
            log.request_ids.push(row.request_id);
            log.contexts.push(row.context);
            log.menus.push(row.menu);
            log.propensities.push(row.propensity);
            log.logging.extend(row.logging);
        }
    }
}

/// The agents of a menu `a` or `a|b`, all known.
fn menu_of(text: &str, agents: &[String]) -> Result<Vec<usize>, String> {
    let menu: Vec<usize> =
        text.split('|')
            .map(|name| {
                agents.iter().position(|a| a == name).ok_or_else(|| {
                    format!("agent {name:?} of the menu is not one of the log's agents")
                })
            })
            .collect::<Result<_, _>>()?;
    if menu.len() > 2 || (menu.len() == 2 && menu[0] == menu[1]) {
        return Err(format!(
            "menu {text:?} is neither one agent nor a duel of two"
        ));
    }
    Ok(menu)
}

/// A decision table: request id, `chosen` or `menu`, `propensity`, optional
/// `routed:<agent>` columns, and the rest as the context.
fn read_decision_table(
    table: &Table,
    columns: &DecisionColumns,
) -> Result<DecisionLog, VerdictError> {
    let ids = table.required(
        &columns.request,
        "a decision table names each request (--request-col)",
    )?;
    let menus = table
        .column("menu")
        .or_else(|| table.column("chosen"))
        .ok_or_else(|| {
            VerdictError::Data(format!(
                "{}: no chosen or menu column (present: {}); a decision table gives the agent routed to (chosen) or the duel offered (menu, as a|b)",
                table.file(),
                table.present_columns_shown()
            ))
        })?;
    let propensities = table.required(
        "propensity",
        "a decision table gives the probability each menu was offered",
    )?;
    let routed: Vec<(&str, &verdict_io::Column)> = table
        .columns()
        .iter()
        .filter_map(|c| Some((c.name().strip_prefix(ROUTED_PREFIX)?, c)))
        .collect();
    let mut log = DecisionLog::new();
    log.agents = routed.iter().map(|(a, _)| (*a).to_owned()).collect();
    let fixed = !log.agents.is_empty();
    let context_columns: Vec<&verdict_io::Column> = table
        .columns()
        .iter()
        .filter(|c| {
            let name = c.name();
            name != columns.request
                && name != menus.name()
                && name != "propensity"
                && !name.starts_with(ROUTED_PREFIX)
        })
        .collect();
    let mut requests = Requests(HashMap::new());
    let mut rows_logging: Vec<Vec<f64>> = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let at = |column: &str, what: String| {
            VerdictError::Io(verdict_io::IoError::invalid(
                table.location(row, Some(column)),
                what,
            ))
        };
        let id = ids
            .value(row)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| at(&columns.request, "no request id".into()))?;
        requests
            .first_time(id, row, "row")
            .map_err(|e| at(&columns.request, e))?;
        let menu_text = menus
            .value(row)
            .ok_or_else(|| at(menus.name(), "no agent".into()))?;
        if !fixed {
            menu_text.split('|').for_each(|name| {
                log.agent(name);
            });
        }
        let menu = menu_of(menu_text, &log.agents).map_err(|e| at(menus.name(), e))?;
        let p = propensity(
            propensities
                .value(row)
                .and_then(|v| v.trim().parse::<f64>().ok()),
        )
        .map_err(|e| at("propensity", e))?;
        let probabilities: Vec<f64> = routed
            .iter()
            .map(|(_, c)| {
                c.value(row)
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|p| (0.0..=1.0).contains(p))
                    .ok_or_else(|| at(c.name(), "not a probability in [0, 1]".into()))
            })
            .collect::<Result<_, _>>()?;
        if fixed && (probabilities.iter().sum::<f64>() - 1.0).abs() > 1e-6 {
            return Err(at(
                routed[0].1.name(),
                "the routed: columns do not sum to 1 over the agents".into(),
            ));
        }
        let context: Map<String, Value> = context_columns
            .iter()
            .filter_map(|c| {
                let v = c.value(row).filter(|v| !v.is_empty())?;
                let value = match v.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() => Value::from(x),
                    _ => Value::String(v.to_owned()),
                };
                Some((c.name().to_owned(), value))
            })
            .collect();
        log.request_ids.push(id.to_owned());
        log.contexts
            .push(Value::Object(context).to_string().into_boxed_str());
        log.propensities.push(p);
        log.menus.push(menu);
        rows_logging.push(probabilities);
    }
    // The agents are known only now (a table without routed: columns names them as
    // it goes): the logger's table is laid out after the rows.
    let k = log.agents.len();
    for ((menu, &p), probabilities) in log.menus.iter().zip(&log.propensities).zip(rows_logging) {
        if fixed {
            log.logging.extend(probabilities);
        } else {
            // Only the routed agent's probability is known (single menus).
            let mut row = vec![f64::NAN; k];
            if menu.len() == 1 {
                row[menu[0]] = p;
            }
            log.logging.extend(row);
        }
    }
    Ok(log)
}

/// The logged decisions with an outcome: single answers with their score, duels with
/// their verdict, and the log rows of each.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Joined {
    /// Log rows of the single answers, in log order.
    pub single_rows: Vec<usize>,
    /// The single answers.
    pub single: Vec<LoggedChoice>,
    /// Log rows of the duels, in log order.
    pub duel_rows: Vec<usize>,
    /// The duels.
    pub duels: Vec<LoggedDuel>,
    /// Each single answer's observed cost, when the outcomes give one.
    pub costs: Option<Vec<f64>>,
    /// Decisions without an outcome, left out.
    pub without_outcome: usize,
}

/// The outcome columns: request id, value, and an optional observed cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeColumns {
    /// The request id.
    pub request: String,
    /// The value: a number for a single answer; for a duel, the winner's name, `tie`,
    /// or a number in `[0, 1]` (1 when the menu's first won).
    pub outcome: String,
    /// The observed cost of the routed answer.
    pub cost: Option<String>,
}

/// A duel's verdict from the outcome cell: the winner's name, `tie`, or a number in
/// `[0, 1]` (the first's score).
fn verdict(text: &str, menu: &[usize], agents: &[String]) -> Result<f64, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("tie") {
        return Ok(0.5);
    }
    if let Some(i) = menu.iter().position(|&a| agents[a] == text) {
        return Ok(if i == 0 { 1.0 } else { 0.0 });
    }
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{text:?} is not a duel's verdict: give the winner ({} or {}), tie, or the first's score in [0, 1]",
            agents[menu[0]], agents[menu[1]]
        )),
    }
}

/// The logged decisions of `log` with their outcomes from `outcomes`; decisions without
/// an outcome are left out (and counted).
///
/// # Errors
/// [`VerdictError::Io`] naming the row: an outcome for a request the log never
/// decided, two outcomes for one request, an outcome that is not a finite number (or,
/// for a duel, not a verdict), a cost that is not a finite number.
pub fn join_outcomes(
    log: &DecisionLog,
    outcomes: &Source,
    columns: &OutcomeColumns,
) -> Result<Joined, VerdictError> {
    let table = read_table(outcomes, None, None)?;
    let ids = table.required(
        &columns.request,
        "name the request id column with --request-col",
    )?;
    let values = table.required(
        &columns.outcome,
        "name the outcome column with --outcome-col",
    )?;
    let costs = match &columns.cost {
        Some(c) => Some(table.required(c, "name the observed cost column with --cost-col")?),
        None => None,
    };
    let row_of: HashMap<&str, usize> = log
        .request_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut outcome_of: HashMap<usize, (f64, f64)> = HashMap::new();
    for row in 0..table.rows() {
        let at = |column: &str, what: &str| {
            VerdictError::Io(verdict_io::IoError::invalid(
                table.location(row, Some(column)),
                what,
            ))
        };
        let id = ids.value(row).unwrap_or("");
        let Some(&decision) = row_of.get(id) else {
            return Err(at(&columns.request, &format!(
                "request {id:?} has an outcome but no decision in the log; join outcomes with the log that routed them"
            )));
        };
        let text = values.value(row).unwrap_or("");
        let menu = &log.menus[decision];
        let outcome = if menu.len() == 2 {
            verdict(text, menu, &log.agents).map_err(|e| at(&columns.outcome, &e))?
        } else {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(&columns.outcome, "the outcome is not a finite number"))?
        };
        let cost = match costs {
            Some(c) => c
                .value(row)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(c.name(), "the cost is not a finite number"))?,
            None => 0.0,
        };
        if outcome_of.insert(decision, (outcome, cost)).is_some() {
            return Err(at(
                &columns.request,
                &format!("request {id:?} has two outcomes; give one"),
            ));
        }
    }
    let mut rows: Vec<usize> = outcome_of.keys().copied().collect();
    rows.sort_unstable();
    let mut joined = Joined {
        without_outcome: log.rows() - rows.len(),
        ..Joined::default()
    };
    let mut observed_costs = Vec::new();
    for i in rows {
        let (outcome, cost) = outcome_of[&i];
        match log.menus[i][..] {
            [first, second] => {
                joined.duel_rows.push(i);
                joined.duels.push(LoggedDuel {
                    first,
                    second,
                    propensity: log.propensities[i],
                    outcome,
                });
            }
            [action] => {
                joined.single_rows.push(i);
                joined.single.push(LoggedChoice {
                    action,
                    propensity: log.propensities[i],
                    outcome,
                });
                observed_costs.push(cost);
            }
            _ => {}
        }
    }
    joined.costs = columns.cost.as_ref().map(|_| observed_costs);
    Ok(joined)
}
