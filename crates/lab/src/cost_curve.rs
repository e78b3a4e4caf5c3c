//! The paper's cost analysis (NashEval Section 6 and Appendix B.3) on the Appendix G
//! simulator with per-agent costs: each method's realized mean expected cost against
//! its exploitability (Eq. 69) and its average strict win rate (Eq. 72) over the test
//! contexts, as the price weight or the budget moves.
//!
//! - NashEval-debiased and NashEval-plug-in: the equilibrium of `Â(x)` under
//!   `Ω_β(π) = ρ/2 ‖π‖² + β c̃ᵀπ` (Eq. 20; `ρ = 0.01`, `c̃` the costs scaled to
//!   `[0, 1]`), for each `β` of Eq. 21.
//! - The maximal lottery of the pooled training margins (Eq. 78) under the same `Ω_β`.
//! - NashEval-budget: the regularized equilibrium of the debiased `Â(x)` with both
//!   players held to `cᵀπ ≤ C` (Eq. 54–55) at BT-cost's budgets — what `verdict
//!   serve` routes by under a request's `max_cost`.
//! - Each agent alone (`single`, its index as the parameter): the routers' reference.
//! - BT-cost (Eq. 77) at 31 budgets evenly spaced from the cheapest to the dearest
//!   agent's cost and at every agent's cost.
//!
//! Strict win rate: `WR(π) = 1/(n K) Σ_i Σ_j Σ_k π_j(x_i) W_i,jk` with `W_jk` the true
//! probability that `j` strictly beats `k`; the simulator's pairwise verdicts have no
//! ties, so `W_jk = (1 + A_jk)/2` for `j ≠ k` and self-comparisons get zero credit.

use verdict::game::{
    budgeted_regularized_equilibrium, exploitability, regularized_equilibrium, HardBudget,
    PayoffMatrix, Regularizer,
};
use verdict::io::{read_contexts, read_contextual_log, ContextualOptions, Source};
use verdict::nasheval::baselines::pooled_margins;
use verdict::nasheval::gap::payoff_matrices;
use verdict::nasheval::{prepare, FitOptions, NashEvalModel, PolicyKind, PolicyRule, Variant};

use crate::experiment::fit_on;
use crate::simulation::{write_appendix_g, AppendixGSimulation, Split, Truth};
use verdict::VerdictError;

/// `ρ` of the priced regularizer (Appendix B.3).
pub const PRICE_RHO: f64 = 0.01;

/// The price weights `β` of Eq. 21.
pub fn price_weights() -> Vec<f64> {
    (0..=12)
        .map(|t| f64::from(t) / 40.0)
        .chain([0.35, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0])
        .collect()
}

/// BT-cost's budgets: 31 evenly spaced from the cheapest to the dearest cost, and
/// every agent's cost (37 for five distinct costs, as in the paper's ten agents).
pub fn budgets(costs: &[f64]) -> Vec<f64> {
    let low = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let high = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out: Vec<f64> = (0..31)
        .map(|t| low + (high - low) * f64::from(t) / 30.0)
        .chain(costs.iter().copied())
        .collect();
    out.sort_by(f64::total_cmp);
    out.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    out
}

/// One point of a method's curve.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CostPoint {
    /// `NashEval-debiased`, `NashEval-plugin`, `lottery` or `bt-cost`.
    pub method: String,
    /// The price weight `β` (equilibrium methods), the budget `C` (BT-cost,
    /// NashEval-budget), or the agent's index in the simulator's (or the data's) order
    /// (`single`).
    pub parameter: f64,
    /// Mean over test contexts of `cᵀπ(x)`.
    pub cost: f64,
    /// Mean unregularized exploitability against the true games.
    pub exploitability: f64,
    /// Mean strict win rate against the equally weighted single agents (Eq. 72).
    pub win_rate: f64,
}

/// The simulation and fit of one seed's curves.
#[derive(Debug, Clone, PartialEq)]
pub struct CostSettings {
    /// Per-agent costs, in the simulator's agent order.
    pub costs: Vec<f64>,
    /// Simulation seed (and the fits').
    pub seed: u64,
    /// Voters `N_v`.
    pub voters: usize,
    /// Training contexts.
    pub contexts: usize,
    /// Test contexts.
    pub test_contexts: usize,
}

/// Mean cost, exploitability and strict win rate of `policies` (`n × K`) on `games`.
fn measure(policies: &[f64], games: &[PayoffMatrix], costs: &[f64]) -> (f64, f64, f64) {
    let k = costs.len();
    let n = games.len().max(1) as f64;
    let (mut cost, mut expl, mut win) = (0.0, 0.0, 0.0);
    for (pi, a) in policies.chunks(k).zip(games) {
        cost += pi.iter().zip(costs).map(|(p, c)| p * c).sum::<f64>();
        expl += exploitability(a, pi);
        for (j, p) in pi.iter().enumerate() {
            let strict: f64 = (0..k)
                .filter(|&l| l != j)
                .map(|l| (1.0 + a.get(j, l)) / 2.0)
                .sum();
            win += p * strict / k as f64;
        }
    }
    (cost / n, expl / n, win / n)
}

/// The cheapest and the dearest of `costs`.
pub(crate) fn cost_range(costs: &[f64]) -> (f64, f64) {
    costs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &c| {
            (l.min(c), h.max(c))
        })
}

/// `costs` scaled to `[0, 1]` over their range (all 0 when they are equal): the costs
/// the price weights `β` multiply.
pub(crate) fn scaled_costs(costs: &[f64]) -> Vec<f64> {
    let (low, high) = cost_range(costs);
    costs
        .iter()
        .map(|c| {
            if high > low {
                (c - low) / (high - low)
            } else {
                0.0
            }
        })
        .collect()
}

/// `Ω_β`'s equilibrium of each game.
fn priced(games: &[PayoffMatrix], scaled: &[f64], beta: f64) -> Result<Vec<f64>, VerdictError> {
    let regularizer = Regularizer {
        rho: PRICE_RHO,
        costs: scaled.iter().map(|c| beta * c).collect(),
    };
    let mut out = Vec::new();
    for game in games {
        out.extend(regularized_equilibrium(game, &regularizer)?.probabilities);
    }
    Ok(out)
}

/// Every method's curve on one simulation.
///
/// # Errors
/// [`VerdictError`] from the simulation, the fits or a solver.
pub fn cost_curves(settings: &CostSettings) -> Result<Vec<CostPoint>, VerdictError> {
    let dir = tempfile::tempdir()
        .map_err(|e| VerdictError::Data(format!("cannot make a temporary directory: {e}")))?;
    let sim = dir.path().join("sim");
    write_appendix_g(
        &AppendixGSimulation {
            voters: settings.voters,
            contexts: settings.contexts,
            test_contexts: settings.test_contexts,
            seed: settings.seed,
            rho: PRICE_RHO,
            ..AppendixGSimulation::default()
        },
        &sim,
    )?;
    let reading = ContextualOptions::default();
    let log = read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &reading,
    )?;
    if settings.costs.len() != log.agents.len() {
        return Err(VerdictError::Data(format!(
            "{} costs for {} agents",
            settings.costs.len(),
            log.agents.len()
        )));
    }
    let test = read_contexts(&Source::File(sim.join("test_contexts.parquet")), &reading)?;
    let truth = Truth::open(&sim, Split::Test)?;
    let k = log.agents.len();
    // The true games in the log's agent order.
    let order = log
        .agents
        .iter()
        .map(|a| {
            truth.agents().iter().position(|t| t == a).ok_or_else(|| {
                VerdictError::Data(format!("agent {a:?} of the log is not in the simulation"))
            })
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let true_games = truth
        .payoff
        .chunks(k * k)
        .map(|a| {
            let rows: Vec<Vec<f64>> = order
                .iter()
                .map(|&j| order.iter().map(|&l| a[j * k + l]).collect())
                .collect();
            PayoffMatrix::new(&rows)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let base = FitOptions {
        policy: PolicyKind::Solver,
        rho: PRICE_RHO,
        seed: settings.seed,
        ..FitOptions::default()
    };
    let prepared = prepare(&log, &base.check(&log)?, &|_, _, _| {})?;
    let surface = |variant: Variant| {
        let options = FitOptions {
            variant,
            ..base.clone()
        };
        fit_on(&log, options, &prepared, serde_json::Value::Null)
    };
    let pooled = PayoffMatrix::from_row_major(&pooled_margins(&log), k)?;
    // The costs are given in the simulator's agent order; the log lists its agents as
    // first met, which differs between seeds.
    let costs: Vec<f64> = order.iter().map(|&t| settings.costs[t]).collect();
    let mut points = router_curves(
        &Surfaces {
            true_games: &true_games,
            costs: &costs,
            debiased: &surface(Variant::Debiased)?,
            pooled: &pooled,
            features: &test.features,
        },
        surface(Variant::Plugin)?,
    )?;
    // Each agent alone by its simulator index, the same agent in every seed.
    for p in points.iter_mut().filter(|p| p.method == "single") {
        p.parameter = order[p.parameter as usize] as f64;
    }
    Ok(points)
}

/// What every curve is drawn from: the true games at the held-out contexts, the
/// agents' costs, the debiased surface (solver policy), the pooled training margins
/// and the held-out contexts' features in the surfaces' order.
pub(crate) struct Surfaces<'a> {
    pub true_games: &'a [PayoffMatrix],
    pub costs: &'a [f64],
    pub debiased: &'a NashEvalModel,
    pub pooled: &'a PayoffMatrix,
    pub features: &'a [f64],
}

/// Every method's points (see the module's list) on the held-out contexts of
/// `surfaces`, with the plug-in surface `plugin` (BT-cost's, changed in place).
///
/// # Errors
/// [`VerdictError`] from a solver.
pub(crate) fn router_curves(
    surfaces: &Surfaces,
    mut plugin: NashEvalModel,
) -> Result<Vec<CostPoint>, VerdictError> {
    let Surfaces {
        true_games,
        costs,
        debiased,
        pooled,
        features,
    } = *surfaces;
    let k = costs.len();
    let scaled = scaled_costs(costs);
    let mut points = Vec::new();
    let mut add = |method: &str, parameter: f64, policies: &[f64]| {
        let (cost, exploitability, win_rate) = measure(policies, true_games, costs);
        points.push(CostPoint {
            method: method.into(),
            parameter,
            cost,
            exploitability,
            win_rate,
        });
    };
    for (name, model) in [
        ("NashEval-debiased", debiased),
        ("NashEval-plugin", &plugin),
    ] {
        let games = payoff_matrices(&model.payoffs(features), k);
        for beta in price_weights() {
            add(name, beta, &priced(&games, &scaled, beta)?);
        }
    }
    let debiased_games = payoff_matrices(&debiased.payoffs(features), k);
    for limit in budgets(costs) {
        let budget = HardBudget {
            costs: costs.to_vec(),
            limit,
        };
        let mut policies = Vec::with_capacity(debiased_games.len() * k);
        for game in &debiased_games {
            policies
                .extend(budgeted_regularized_equilibrium(game, PRICE_RHO, &budget)?.probabilities);
        }
        add("NashEval-budget", limit, &policies);
    }
    for j in 0..k {
        let alone: Vec<f64> = (0..true_games.len())
            .flat_map(|_| (0..k).map(move |l| f64::from(u8::from(l == j))))
            .collect();
        add("single", j as f64, &alone);
    }
    for beta in price_weights() {
        let pi = priced(std::slice::from_ref(pooled), &scaled, beta)?;
        let everywhere: Vec<f64> = (0..true_games.len())
            .flat_map(|_| pi.iter().copied())
            .collect();
        add("lottery", beta, &everywhere);
    }
    plugin.options.costs = costs.to_vec();
    for budget in budgets(costs) {
        plugin.options.budget = Some(budget);
        let policies = plugin.baseline_policies(PolicyRule::BtCost, features)?;
        add("bt-cost", budget, &policies);
    }
    Ok(points)
}

/// The mean over seeds of each (method, parameter) point, in the order first met.
pub fn mean_points(points: &[CostPoint]) -> Vec<CostPoint> {
    let mut out: Vec<(CostPoint, usize)> = Vec::new();
    for p in points {
        match out
            .iter_mut()
            .find(|(q, _)| q.method == p.method && q.parameter == p.parameter)
        {
            Some((q, n)) => {
                q.cost += p.cost;
                q.exploitability += p.exploitability;
                q.win_rate += p.win_rate;
                *n += 1;
            }
            None => out.push((p.clone(), 1)),
        }
    }
    out.into_iter()
        .map(|(mut q, n)| {
            let n = n as f64;
            q.cost /= n;
            q.exploitability /= n;
            q.win_rate /= n;
            q
        })
        .collect()
}

/// Two panels, cost against exploitability and against strict win rate, a line per
/// method through its points in order of cost.
#[cfg(feature = "plots")]
pub fn figure(points: &[CostPoint]) -> Vec<verdict::report::Curves> {
    use verdict::report::{Curves, Series};
    let methods = crate::experiment_summary::first_met(points.iter().map(|p| p.method.as_str()));
    type Measure = fn(&CostPoint) -> f64;
    let measures: [(&str, Measure); 2] = [
        ("exploitability", |p| p.exploitability),
        ("strict win rate", |p| p.win_rate),
    ];
    measures
        .iter()
        .map(|(name, value)| Curves {
            title: format!("mean expected cost against {name}"),
            x_label: "mean expected cost per context".into(),
            y_label: format!("mean {name}"),
            series: methods
                .iter()
                .map(|m| {
                    let mut line: Vec<(f64, f64)> = points
                        .iter()
                        .filter(|p| p.method == *m)
                        .map(|p| (p.cost, value(p)))
                        .collect();
                    line.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Series {
                        name: (*m).to_string(),
                        points: line,
                    }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 72 by hand on two agents: `A_01 = 0.5` gives `W_01 = 0.75`, `W_10 = 0.25`.
    #[test]
    fn strict_win_rate_and_cost_by_hand() {
        let a = PayoffMatrix::new(&[vec![0.0, 0.5], vec![-0.5, 0.0]]).unwrap();
        let games = [a.clone(), a];
        let (cost, expl, win) = measure(&[1.0, 0.0, 0.0, 1.0], &games, &[2.0, 6.0]);
        assert!((cost - 4.0).abs() < 1e-15);
        // (1/2)(0.75/2 + 0.25/2): each context divides by K = 2.
        assert!((win - 0.25).abs() < 1e-15);
        // Exploitability of agent 0 alone is 0, of agent 1 alone 0.5.
        assert!((expl - 0.25).abs() < 1e-15);
    }

    #[test]
    fn budgets_and_price_weights_follow_the_paper() {
        let weights = price_weights();
        assert_eq!(weights.len(), 24);
        assert_eq!((weights[0], weights[12], weights[23]), (0.0, 0.3, 20.0));
        let costs = [10.0, 1.0, 2.45, 4.0, 7.2];
        let b = budgets(&costs);
        assert_eq!((b[0], *b.last().unwrap()), (1.0, 10.0));
        assert!(costs.iter().all(|c| b.contains(c)));
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        // 31 grid points (steps of 0.3 from 1) and five costs, of which 1, 4 and 10 lie on it.
        assert_eq!(b.len(), 33);
    }
}
