//! A simulation's ground truth read back, for the oracle variant (true nuisances) and
//! for scoring a policy (NashEval Eq. 69–71).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use verdict::feedback::ContextualLog;
use verdict::fit_request::{fit_inputs, fit_request, FitRequest};
use verdict::game::{
    condorcet_winner, exploitability, game_value, support_f1, PayoffMatrix, SUPPORT_THRESHOLD,
};
use verdict::io::{read_table, Column, Source};
use verdict::nasheval::{
    fit_prepared, AggregatorKind, NashEvalModel, Nuisances, Outcomes, PairMap, Prepared, Stage,
    Variant,
};

use super::SimulationManifest;
use verdict::VerdictError;

/// Training or test contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// `truth.parquet`: the contexts with feedback.
    Training,
    /// `test_truth.parquet`: held-out contexts.
    Test,
}

impl Split {
    /// The truth file.
    pub fn truth_file(self) -> &'static str {
        match self {
            Self::Training => "truth.parquet",
            Self::Test => "test_truth.parquet",
        }
    }

    /// The contexts file.
    pub fn contexts_file(self) -> &'static str {
        match self {
            Self::Training => "contexts.parquet",
            Self::Test => "test_contexts.parquet",
        }
    }
}

/// Ground truth of one split, contexts in file order.
#[derive(Debug, Clone)]
pub struct Truth {
    /// The manifest.
    pub manifest: SimulationManifest,
    /// Context ids.
    pub ids: Vec<String>,
    /// `e0^m(x)`, contexts × menus (manifest order).
    pub propensity: Vec<f64>,
    /// `A(x)`, contexts × K × K.
    pub payoff: Vec<f64>,
    /// `π*(x)`, contexts × K.
    pub equilibrium: Vec<f64>,
    /// `μ0^m(x)`, contexts × menus × K × K, when the world records it; `None` when
    /// every menu is one pair, whose mean verdict is the payoff itself.
    menu_means: Option<Vec<f64>>,
}

fn data(message: String) -> VerdictError {
    VerdictError::Data(message)
}

fn cell<'t>(column: &'t Column, row: usize, place: &str) -> Result<&'t str, VerdictError> {
    column
        .value(row)
        .ok_or_else(|| data(format!("{place}: missing {}", column.name())))
}

fn numbers(text: &str, place: &str, column: &str) -> Result<Vec<f64>, VerdictError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|_| {
        data(format!(
            "{place}: {column} is not a number or a list of numbers"
        ))
    })?;
    let list = match &value {
        serde_json::Value::Array(items) => items.iter().map(serde_json::Value::as_f64).collect(),
        other => other.as_f64().map(|v| vec![v]),
    };
    list.ok_or_else(|| {
        data(format!(
            "{place}: {column} is not a number or a list of numbers"
        ))
    })
}

impl Truth {
    /// Reads the manifest and the truth of `split` from `dir`.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the file and row of a missing column or a list of
    /// the wrong length; I/O errors.
    pub fn open(dir: &Path, split: Split) -> Result<Self, VerdictError> {
        let manifest = SimulationManifest::open(dir)?;
        let path = dir.join(split.truth_file());
        let table = read_table(&Source::File(path.clone()), None, None)?;
        let column = |name: &str| {
            table
                .column(name)
                .ok_or_else(|| data(format!("{}: no column {name}", path.display())))
        };
        let (ids, propensity, payoff, equilibrium) = (
            column("context_id")?,
            column("propensity")?,
            column("payoff")?,
            column("equilibrium")?,
        );
        let means = table.column("menu_means");
        let pairs_only = manifest.menus.iter().all(|m| m.len() == 2);
        if means.is_none() && !pairs_only {
            return Err(data(format!(
                "{}: no column menu_means, which menus of more than two agents need",
                path.display()
            )));
        }
        let (k, menus, n) = (manifest.agents.len(), manifest.menus.len(), table.rows());
        let mut truth = Self {
            ids: Vec::with_capacity(n),
            propensity: Vec::with_capacity(n * menus),
            payoff: Vec::with_capacity(n * k * k),
            equilibrium: Vec::with_capacity(n * k),
            menu_means: means.map(|_| Vec::with_capacity(n * menus * k * k)),
            manifest,
        };
        let expect = |values: Vec<f64>, len: usize, name: &str, place: &str| {
            if values.len() == len {
                Ok(values)
            } else {
                Err(data(format!(
                    "{place}: {name} holds {} numbers, expected {len}",
                    values.len()
                )))
            }
        };
        for row in 0..n {
            let place = format!("{} row {}", path.display(), row + 1);
            truth.ids.push(cell(ids, row, &place)?.to_string());
            let e = numbers(cell(propensity, row, &place)?, &place, "propensity")?;
            // Appendix G records one propensity shared by every menu.
            let e = if e.len() == 1 { vec![e[0]; menus] } else { e };
            truth
                .propensity
                .extend(expect(e, menus, "propensity", &place)?);
            let a = numbers(cell(payoff, row, &place)?, &place, "payoff")?;
            truth.payoff.extend(expect(a, k * k, "payoff", &place)?);
            let pi = numbers(cell(equilibrium, row, &place)?, &place, "equilibrium")?;
            truth
                .equilibrium
                .extend(expect(pi, k, "equilibrium", &place)?);
            if let (Some(column), Some(out)) = (means, truth.menu_means.as_mut()) {
                let mu = numbers(cell(column, row, &place)?, &place, "menu_means")?;
                out.extend(expect(mu, menus * k * k, "menu_means", &place)?);
            }
        }
        Ok(truth)
    }

    /// Agents K.
    pub fn agents(&self) -> &[String] {
        &self.manifest.agents
    }

    /// `μ0^m_jk` at context row `r` for catalogue menu `m` and agents `j, k` (truth
    /// order).
    fn menu_mean(&self, r: usize, m: usize, j: usize, l: usize) -> f64 {
        let k = self.manifest.agents.len();
        match &self.menu_means {
            Some(means) => means[(r * self.manifest.menus.len() + m) * k * k + j * k + l],
            None => self.payoff[r * k * k + j * k + l],
        }
    }

    /// The true nuisances at the contexts of `log` (matched by id, agents and menus
    /// by name), in the layout of the learner's [`PairMap`].
    ///
    /// # Errors
    /// [`VerdictError::Data`] for an agent, menu or context of the log that the
    /// simulation does not have.
    pub fn nuisances_for(&self, log: &ContextualLog) -> Result<Nuisances, VerdictError> {
        let agents = &self.manifest.agents;
        let agent = |name: &str| {
            agents.iter().position(|a| a == name).ok_or_else(|| {
                data(format!(
                    "agent {name:?} of the log is not in the simulation"
                ))
            })
        };
        let row: HashMap<&str, usize> = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        fn sorted<'n>(names: &[&'n str]) -> Vec<&'n str> {
            let mut v = names.to_vec();
            v.sort_unstable();
            v
        }
        let catalogue: HashMap<Vec<&str>, usize> = self
            .manifest
            .menus
            .iter()
            .enumerate()
            .map(|(m, menu)| {
                (
                    sorted(&menu.iter().map(String::as_str).collect::<Vec<_>>()),
                    m,
                )
            })
            .collect();
        let mut menu_map = Vec::with_capacity(log.menus.len());
        for menu in &log.menus {
            let names: Vec<&str> = menu.iter().map(|&a| log.agents[a].as_str()).collect();
            let position = *catalogue.get(&sorted(&names)).ok_or_else(|| {
                data(format!(
                    "menu {names:?} of the log is not in the simulation"
                ))
            })?;
            let indices = names
                .iter()
                .map(|n| agent(n))
                .collect::<Result<Vec<_>, _>>()?;
            menu_map.push((position, indices));
        }
        let pairs = PairMap::new(log.agents.len(), &log.menus, AggregatorKind::Mean)
            .map_err(|e| VerdictError::Settings(e.to_string()))?;
        let catalogue_menus = self.manifest.menus.len();
        let mut rows = Vec::with_capacity(log.contexts.len());
        let mut outcome = vec![0.0; log.contexts.len() * pairs.columns];
        for (i, id) in log.contexts.iter().enumerate() {
            let &r = row
                .get(id.as_str())
                .ok_or_else(|| data(format!("context {id:?} of the log has no ground truth")))?;
            rows.push(r);
            for (m, menu_pairs) in pairs.menu_pairs.iter().enumerate() {
                let (position, indices) = &menu_map[m];
                for &(_, h) in menu_pairs {
                    outcome[i * pairs.columns + h.column] =
                        self.menu_mean(r, *position, indices[h.first], indices[h.second]);
                }
            }
        }
        let propensity = log
            .feedback
            .iter()
            .map(|f| self.propensity[rows[f.context] * catalogue_menus + menu_map[f.menu].0])
            .collect();
        Ok(Nuisances {
            propensity,
            outcome: Outcomes::Columns(outcome),
        })
    }
}

/// A face's fit of `request`: the oracle variant from the simulation in `truth`
/// ([`fit_oracle`]), every other through the product's [`fit_request`] (which refuses
/// the oracle without a simulation, naming `truth`). A `truth` beside another variant
/// is not read.
///
/// # Errors
/// As [`fit_oracle`] or [`fit_request`].
pub fn fit_with_truth(
    request: &FitRequest,
    truth: Option<&std::path::Path>,
    warn: &dyn Fn(&str),
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, VerdictError> {
    match truth {
        Some(dir) if request.options.variant == Variant::Oracle => {
            fit_oracle(request, dir, warn, progress)
        }
        _ => fit_request(request, warn, progress),
    }
}

/// NashEval's oracle variant of a fit request: the surface regressed on the true
/// nuisances of the simulation in `dir` at the training contexts
/// ([`Truth::nuisances_for`]) instead of cross-fitted ones — the request's log and
/// settings read as the product reads them ([`fit_inputs`]), the truth made into the
/// fit's start ([`Prepared::oracle`]) and the product's fit made from it
/// ([`fit_prepared`]). Only a simulation knows its truth, so only the lab fits this.
///
/// # Errors
/// As [`fit_inputs`]; a simulation that cannot be read or does not hold the log's
/// contexts; the fit's.
pub fn fit_oracle(
    request: &FitRequest,
    dir: &std::path::Path,
    warn: &dyn Fn(&str),
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, VerdictError> {
    let inputs = fit_inputs(request, warn)?;
    let checked = inputs.options.check(&inputs.log)?;
    let truth = Truth::open(dir, Split::Training)?.nuisances_for(&inputs.log)?;
    let prepared = Prepared::oracle(&inputs.log, &checked, &truth)?;
    Ok(fit_prepared(
        &inputs.log,
        &checked,
        &prepared,
        inputs.featurizer,
        progress,
    )?)
}

/// Mean accuracy of a policy over a split (NashEval Appendix I.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct PolicyScore {
    /// Mean unregularized exploitability (Eq. 69).
    pub exploitability: f64,
    /// Mean support F1 at τ = 1e-3 (Eq. 70).
    pub support_f1: f64,
    /// Mean game value against the true equilibrium (Eq. 71).
    pub game_value: f64,
    /// Contexts scored.
    pub contexts: usize,
    /// Contexts whose true game has a Condorcet winner (an agent `j` with
    /// `A_jk(x) > 0` against every other `k`), where the equilibrium is that agent
    /// alone (at `rho = 0`).
    pub condorcet_contexts: usize,
    /// Root mean squared error of the model's payoff surface against the truth,
    /// `sqrt(mean over contexts and pairs j < k of (Â_jk(x) − A_jk(x))²)`: what the
    /// held-out selection of surface estimates up to a shared constant. `None` for a
    /// policy without a surface (a lottery).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payoff_rmse: Option<f64>,
}

impl PolicyScore {
    /// This score as a row of a NashEval page, under the name `policy`.
    pub fn page_row(&self, policy: String) -> verdict::report::PolicyScoreRow {
        verdict::report::PolicyScoreRow {
            policy,
            exploitability: self.exploitability,
            support_f1: self.support_f1,
            game_value: self.game_value,
        }
    }
}

/// The agents of a model or board in the truth's order: `order[j]` is the truth's
/// index of `agents[j]`.
fn truth_order(agents: &[String], truth: &Truth) -> Result<Vec<usize>, VerdictError> {
    let known = truth.agents();
    let order = agents
        .iter()
        .map(|a| {
            known
                .iter()
                .position(|t| t == a)
                .ok_or_else(|| data(format!("agent {a:?} of the model is not in the simulation")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if order.len() != known.len() {
        return Err(data(format!(
            "the model knows {} agents, the simulation {}",
            order.len(),
            known.len()
        )));
    }
    Ok(order)
}

/// The true equilibria `π*(x)` (contexts × K) with agents in `agents` order.
///
/// # Errors
/// As [`score`].
pub fn equilibria_in(agents: &[String], truth: &Truth) -> Result<Vec<f64>, VerdictError> {
    let order = truth_order(agents, truth)?;
    let k = order.len();
    Ok(truth
        .equilibrium
        .chunks(k)
        .flat_map(|star| order.iter().map(move |&t| star[t]))
        .collect())
}

/// `sqrt(mean over contexts and pairs j < k of (Â_jk − A_jk)²)` of `payoffs`
/// (`contexts × K × K`, agents in `agents` order) against the truth.
///
/// # Errors
/// As [`score`].
pub fn payoff_rmse(agents: &[String], payoffs: &[f64], truth: &Truth) -> Result<f64, VerdictError> {
    let order = truth_order(agents, truth)?;
    let k = order.len();
    if payoffs.len() != truth.ids.len() * k * k {
        return Err(data(format!(
            "{} payoff values for {} contexts of {k} agents",
            payoffs.len(),
            truth.ids.len()
        )));
    }
    let mut squared = 0.0;
    for (i, a) in payoffs.chunks(k * k).enumerate() {
        let true_a = &truth.payoff[i * k * k..(i + 1) * k * k];
        for j in 0..k {
            for l in j + 1..k {
                let diff = a[j * k + l] - true_a[order[j] * k + order[l]];
                squared += diff * diff;
            }
        }
    }
    let cells = (truth.ids.len() * k * k.saturating_sub(1) / 2).max(1) as f64;
    Ok((squared / cells).sqrt())
}

/// The head-to-head game value of NashEval Eq. 71, `mean_x π(x)ᵀ A(x) q(x)`, of
/// policies `pi` against `q` (contexts × K, agents in `agents` order) in the true games:
/// positive when `pi` wins.
///
/// # Errors
/// As [`score`].
pub fn head_to_head(
    agents: &[String],
    pi: &[f64],
    q: &[f64],
    truth: &Truth,
) -> Result<f64, VerdictError> {
    let order = truth_order(agents, truth)?;
    let k = order.len();
    if pi.len() != truth.ids.len() * k || q.len() != pi.len() {
        return Err(data(format!(
            "{} and {} policy values for {} contexts of {k} agents",
            pi.len(),
            q.len(),
            truth.ids.len()
        )));
    }
    let mut total = 0.0;
    for (i, (p, r)) in pi.chunks(k).zip(q.chunks(k)).enumerate() {
        let a = &truth.payoff[i * k * k..(i + 1) * k * k];
        for j in 0..k {
            for l in 0..k {
                total += p[j] * a[order[j] * k + order[l]] * r[l];
            }
        }
    }
    Ok(total / truth.ids.len().max(1) as f64)
}

/// Scores `policies` (contexts × K, agents in `agents` order, contexts in the truth's
/// order) against `truth`.
///
/// # Errors
/// [`VerdictError::Data`] when the agents differ from the simulation's or the policy
/// rows do not match its contexts.
pub fn score(
    agents: &[String],
    policies: &[f64],
    truth: &Truth,
) -> Result<PolicyScore, VerdictError> {
    // Agent j of the policies is truth agent order[j].
    let order = truth_order(agents, truth)?;
    let k = order.len();
    if policies.len() != truth.ids.len() * k {
        return Err(data(format!(
            "{} policy values for {} contexts of {k} agents",
            policies.len(),
            truth.ids.len()
        )));
    }
    let (mut expl, mut f1, mut value, mut condorcet) = (0.0, 0.0, 0.0, 0);
    for (i, pi_model) in policies.chunks(k).enumerate() {
        let mut pi = vec![0.0; k];
        for (j, &t) in order.iter().enumerate() {
            pi[t] = pi_model[j];
        }
        let a = PayoffMatrix::from_row_major(&truth.payoff[i * k * k..(i + 1) * k * k], k)?;
        condorcet += usize::from(condorcet_winner(&a).is_some());
        let star = &truth.equilibrium[i * k..(i + 1) * k];
        expl += exploitability(&a, &pi);
        f1 += support_f1(&pi, star, SUPPORT_THRESHOLD);
        value += game_value(&a, &pi, star);
    }
    let n = truth.ids.len().max(1) as f64;
    Ok(PolicyScore {
        exploitability: expl / n,
        support_f1: f1 / n,
        game_value: value / n,
        contexts: truth.ids.len(),
        condorcet_contexts: condorcet,
        payoff_rmse: None,
    })
}
