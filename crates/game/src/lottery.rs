//! The maximal lottery: an equilibrium `pi` of the symmetric zero-sum game, i.e.
//! `pi` on the simplex with `(A pi)_j <= 0` for every agent j (no agent beats it in
//! expectation; the game's value is 0). The set of maximal lotteries is a polytope;
//! when it has more than one point we return the canonical one of minimum Euclidean
//! norm (as in NashEval's LMArena analysis), the unique solution of the QP
//!
//! ```text
//! minimise 1/2 ||pi||^2  subject to  A pi <= 0,  1^T pi = 1,  pi >= 0,
//! ```
//!
//! When the maximal lottery is unique — the generic case — it is found by the dense
//! interior-point path of [`crate::interior`], which also proves the uniqueness.
//! Otherwise the QP is solved with Clarabel's interior-point method, then polished: on
//! the support found, the minimum-norm solution of `A_SS x = 0, 1^T x = 1` (by SVD)
//! replaces the interior-point answer when it is feasible for the whole game, which
//! brings the gap to rounding level. The result is certified by its exploitability
//! `max_j (A pi)_j`.

use nalgebra::{DMatrix, DVector};

pub use crate::certificate::{
    merge_near_ties, Lottery, LotteryStatus, GAP_TOLERANCE, TIE_TOLERANCE,
};
use crate::interior::unique_maximal_lottery;
use crate::payoff::check_costs;
use crate::qp::Qp;
use crate::{exploitability, GameError, PayoffMatrix};

/// Entries below this are treated as outside the support when polishing.
const SUPPORT_CUTOFF: f64 = 1e-7;

/// A hard budget `c^T pi <= C` imposed on both players (NashEval Eq. 54–55).
#[derive(Debug, Clone, PartialEq)]
pub struct HardBudget {
    /// Cost of each agent.
    pub costs: Vec<f64>,
    /// The limit `C`, at least the cheapest agent's cost.
    pub limit: f64,
}

impl HardBudget {
    pub(crate) fn validate(&self, agents: usize) -> Result<(), GameError> {
        check_costs(&self.costs, agents)?;
        if !self.limit.is_finite() {
            return Err(GameError::Solver(format!(
                "budget limit {} is not finite",
                self.limit
            )));
        }
        let cheapest = self.costs.iter().copied().fold(f64::INFINITY, f64::min);
        if self.limit < cheapest {
            return Err(GameError::InfeasibleBudget {
                limit: self.limit,
                cheapest,
            });
        }
        Ok(())
    }

    /// `max_{q in Delta(C)} g^T q`: over the vertices of the simplex cut by the budget,
    /// the affordable agents and, for each affordable–unaffordable pair, the mix that
    /// spends exactly `C`.
    pub(crate) fn best_payoff(&self, g: &[f64]) -> f64 {
        let c = &self.costs;
        let mut best = f64::NEG_INFINITY;
        for j in 0..g.len() {
            if c[j] > self.limit {
                continue;
            }
            best = best.max(g[j]);
            for l in 0..g.len() {
                if c[l] > self.limit {
                    let theta = (c[l] - self.limit) / (c[l] - c[j]);
                    best = best.max(theta * g[j] + (1.0 - theta) * g[l]);
                }
            }
        }
        best
    }
}

/// The canonical (minimum-norm) maximal lottery of `a`.
///
/// # Errors
/// [`GameError::Solver`] if the interior-point method fails outright (it should not:
/// the problem is always feasible).
pub fn maximal_lottery(a: &PayoffMatrix) -> Result<Lottery, GameError> {
    if let Some(unique) = unique_maximal_lottery(a) {
        return Ok(unique);
    }
    solve_lottery(a, Side::None)
}

/// The canonical maximal lottery of the game restricted to `Delta(C)` for both
/// players (NashEval Eq. 55 with `Omega_0 = 0`): the minimum-norm `pi` in `Delta(C)`
/// with `min_{q in Delta(C)} pi^T A q >= 0`. The inner minimum is written through its
/// LP dual (`alpha - nu C` with `alpha - nu c_j <= -(A pi)_j`, `nu >= 0`), so the whole
/// problem is one QP. Certified by the constrained exploitability
/// `max_{q in Delta(C)} q^T A pi`.
///
/// # Errors
/// [`GameError::InfeasibleBudget`] when `C` is below the cheapest agent's cost; costs
/// of the wrong length; solver failures.
pub fn budgeted_lottery(a: &PayoffMatrix, budget: &HardBudget) -> Result<Lottery, GameError> {
    budget.validate(a.agents())?;
    solve_lottery(a, Side::Budget(budget))
}

/// The canonical equilibrium of the game with a linear price and no quadratic term,
/// `Omega(q) = c^T q` (NashEval Eq. 20 with `rho = 0`): the minimum-norm `pi` with
/// `min_j (c_j - (A pi)_j) >= c^T pi`, the variational inequality of Lemma 1 for
/// `F(pi) = -A pi + c`. Certified by its gap `c^T pi - min_j (c_j - (A pi)_j)`.
///
/// # Errors
/// Costs of the wrong length or not finite; solver failures.
pub fn priced_lottery(a: &PayoffMatrix, costs: &[f64]) -> Result<Lottery, GameError> {
    check_costs(costs, a.agents())?;
    solve_lottery(a, Side::Price(costs))
}

/// The maximal lottery of maximum entropy `-sum_j pi_j ln pi_j`: another canonical
/// choice when several maximal lotteries exist (it spreads probability over every
/// agent that can carry some). Entropy is concave, so the answer is unique; it is
/// computed with one exponential cone per agent, `(t_j, pi_j, 1)` with
/// `pi_j e^(t_j / pi_j) <= 1`, maximising `sum_j t_j`. Certified by its
/// exploitability.
///
/// # Errors
/// Solver failures.
pub fn max_entropy_lottery(a: &PayoffMatrix) -> Result<Lottery, GameError> {
    if let Some(unique) = unique_maximal_lottery(a) {
        return Ok(unique);
    }
    let k = a.agents();
    // Variables: pi (0..k), t (k..2k). Rows: 1^T pi = 1; A pi <= 0; then per agent
    // the exponential cone rows s = (t_j, pi_j, 1).
    let mut constraints: Vec<(usize, usize, f64)> = (0..k).map(|j| (0, j, 1.0)).collect();
    let mut bounds = vec![1.0];
    for j in 0..k {
        constraints.extend(
            (0..k)
                .filter(|&l| a.get(j, l) != 0.0)
                .map(|l| (1 + j, l, a.get(j, l))),
        );
        bounds.push(0.0);
    }
    for j in 0..k {
        let row = 1 + k + 3 * j;
        constraints.push((row, k + j, -1.0));
        constraints.push((row + 1, j, -1.0));
        bounds.extend([0.0, 0.0, 1.0]);
    }
    let mut linear = vec![0.0; 2 * k];
    linear[k..].iter_mut().for_each(|x| *x = -1.0);
    let qp = Qp {
        variables: 2 * k,
        quadratic: Vec::new(),
        linear,
        constraints,
        bounds,
        equalities: 1,
        exponential_cones: k,
    };
    let (x, iterations) = qp.solve()?;
    let pi = normalized(&x[..k]);
    let polished = polish_if_unique(a, &pi).or_else(|| polish_entropy(a, &pi));
    Ok(Lottery::best_of(
        pi,
        polished,
        |p| exploitability(a, p),
        iterations,
    ))
}

/// What the plain maximal lottery is extended with.
#[derive(Clone, Copy)]
enum Side<'a> {
    None,
    Budget(&'a HardBudget),
    Price(&'a [f64]),
}

fn solve_lottery(a: &PayoffMatrix, side: Side<'_>) -> Result<Lottery, GameError> {
    let k = a.agents();
    // Variables: pi (0..k); a budget adds alpha (k) and nu (k + 1); a price adds t (k).
    let (alpha, nu, t) = (k, k + 1, k);
    let variables = match side {
        Side::None => k,
        Side::Budget(_) => k + 2,
        Side::Price(_) => k + 1,
    };
    let mut constraints = Vec::new();
    let mut bounds = vec![1.0];
    // Row 0: 1^T pi = 1.
    constraints.extend((0..k).map(|j| (0, j, 1.0)));
    // Rows 1..=k: (A pi)_j [+ alpha - nu c_j | + t] <= [0 | c_j].
    for j in 0..k {
        constraints.extend(
            (0..k)
                .filter(|&l| a.get(j, l) != 0.0)
                .map(|l| (1 + j, l, a.get(j, l))),
        );
        match side {
            Side::None => bounds.push(0.0),
            Side::Budget(budget) => {
                constraints.push((1 + j, alpha, 1.0));
                constraints.push((1 + j, nu, -budget.costs[j]));
                bounds.push(0.0);
            }
            Side::Price(costs) => {
                constraints.push((1 + j, t, 1.0));
                bounds.push(costs[j]);
            }
        }
    }
    // -pi <= 0.
    for j in 0..k {
        constraints.push((1 + k + j, j, -1.0));
        bounds.push(0.0);
    }
    let row = bounds.len();
    match side {
        Side::None => {}
        Side::Budget(budget) => {
            // -alpha + nu C <= 0 (value at least zero), c^T pi <= C, -nu <= 0.
            constraints.push((row, alpha, -1.0));
            constraints.push((row, nu, budget.limit));
            constraints.extend((0..k).map(|j| (row + 1, j, budget.costs[j])));
            constraints.push((row + 2, nu, -1.0));
            bounds.extend([0.0, budget.limit, 0.0]);
        }
        Side::Price(costs) => {
            // c^T pi - t <= 0.
            constraints.extend((0..k).map(|j| (row, j, costs[j])));
            constraints.push((row, t, -1.0));
            bounds.push(0.0);
        }
    }
    let qp = Qp {
        variables,
        quadratic: (0..k).map(|j| (j, j, 1.0)).collect(),
        linear: vec![0.0; variables],
        constraints,
        bounds,
        equalities: 1,
        exponential_cones: 0,
    };
    let (x, iterations) = qp.solve()?;
    let pi = normalized(&x[..k]);
    let certificate = |p: &[f64]| match side {
        Side::None => exploitability(a, p),
        Side::Budget(b) => b.best_payoff(&a.apply(p)).max(0.0),
        Side::Price(costs) => {
            let a_p = a.apply(p);
            let spend: f64 = p.iter().zip(costs).map(|(x, c)| x * c).sum();
            let best = (0..k)
                .map(|j| costs[j] - a_p[j])
                .fold(f64::INFINITY, f64::min);
            (spend - best).max(0.0)
        }
    };
    let polished = match side {
        Side::None => polish(a, &pi),
        _ => None,
    };
    Ok(Lottery::best_of(pi, polished, certificate, iterations))
}

impl Lottery {
    /// A lottery whose status follows its gap.
    pub fn with_gap(probabilities: Vec<f64>, gap: f64, iterations: u32) -> Self {
        let status = if gap <= GAP_TOLERANCE {
            LotteryStatus::Certified
        } else {
            LotteryStatus::Uncertified
        };
        Self {
            probabilities,
            gap,
            status,
            iterations,
            unique: false,
        }
    }

    /// The interior-point answer, or its polished version when that is certified or
    /// no worse by `certificate`.
    pub(crate) fn best_of(
        solved: Vec<f64>,
        polished: Option<Vec<f64>>,
        certificate: impl Fn(&[f64]) -> f64,
        iterations: u32,
    ) -> Self {
        let gap = certificate(&solved);
        match polished {
            Some(p) if certificate(&p) <= gap.max(GAP_TOLERANCE) => {
                let polished_gap = certificate(&p);
                Self::with_gap(p, polished_gap, iterations)
            }
            _ => Self::with_gap(solved, gap, iterations),
        }
    }
}

/// Clips negatives and rescales to sum one.
pub(crate) fn normalized(x: &[f64]) -> Vec<f64> {
    let clipped: Vec<f64> = x.iter().map(|&v| v.max(0.0)).collect();
    let total: f64 = clipped.iter().sum();
    clipped.iter().map(|v| v / total).collect()
}

/// Minimum-norm solution of `A_SS x = 0, 1^T x = 1` on the support of `pi`, if it is
/// a feasible lottery for the whole game.
fn polish(a: &PayoffMatrix, pi: &[f64]) -> Option<Vec<f64>> {
    polish_on_support(a, pi, false)
}

/// Like [`polish`], only when the equilibrium on the support is unique (the system
/// has full column rank), so any canonical choice — entropy included — is that point.
fn polish_if_unique(a: &PayoffMatrix, pi: &[f64]) -> Option<Vec<f64>> {
    polish_on_support(a, pi, true)
}

/// The maximum-entropy point of the face of equilibria the interior-point answer `pi`
/// lies on: on its support S and the rows B that bind there (`(A pi)_k` within
/// [`SUPPORT_CUTOFF`] of 0), the maximiser of the entropy over `x` on S with
/// `A_BS x = 0, 1^T x = 1` is `x ∝ exp(-A_BS^T mu)` at the minimum of the convex dual
/// `ln sum_i exp(-(A_BS^T mu)_i)`, found by Newton's method (the Hessian
/// `A_BS (diag x - x x^T) A_BS^T` pseudo-inverted: the binding rows are often
/// dependent). Kept only when it is an equilibrium of the whole game within
/// [`GAP_TOLERANCE`]: then the rows left out are slack and it satisfies the KKT
/// conditions of the whole problem.
fn polish_entropy(a: &PayoffMatrix, pi: &[f64]) -> Option<Vec<f64>> {
    let support: Vec<usize> = (0..pi.len()).filter(|&j| pi[j] > SUPPORT_CUTOFF).collect();
    let payoffs = a.apply(pi);
    let binding: Vec<usize> = (0..pi.len())
        .filter(|&k| payoffs[k] > -SUPPORT_CUTOFF)
        .collect();
    let m = DMatrix::from_fn(binding.len(), support.len(), |r, c| {
        a.get(binding[r], support[c])
    });
    let softmax = |mu: &DVector<f64>| -> (DVector<f64>, f64) {
        let z = -(m.transpose() * mu);
        let top = z.max();
        let weights = z.map(|v| (v - top).exp());
        let total = weights.sum();
        (weights / total, top + total.ln())
    };
    let mut mu = DVector::zeros(binding.len());
    for _ in 0..100 {
        let (x, objective) = softmax(&mu);
        let gradient = -(&m * &x);
        if gradient.amax() < 1e-15 {
            break;
        }
        let spread = DMatrix::from_diagonal(&x) - &x * x.transpose();
        let hessian = &m * spread * m.transpose();
        let step = hessian.svd(true, true).solve(&gradient, 1e-13).ok()?;
        let mut length = 1.0;
        while length > 1e-10 && softmax(&(&mu - length * &step)).1 > objective + 1e-16 {
            length /= 2.0;
        }
        mu -= length * &step;
    }
    let (x, _) = softmax(&mu);
    let mut full = vec![0.0; pi.len()];
    for (i, &j) in support.iter().enumerate() {
        full[j] = x[i];
    }
    (exploitability(a, &full) <= GAP_TOLERANCE).then_some(full)
}

fn polish_on_support(a: &PayoffMatrix, pi: &[f64], require_unique: bool) -> Option<Vec<f64>> {
    let support: Vec<usize> = (0..pi.len()).filter(|&j| pi[j] > SUPPORT_CUTOFF).collect();
    let s = support.len();
    let system = DMatrix::from_fn(s + 1, s, |r, c| {
        if r < s {
            a.get(support[r], support[c])
        } else {
            1.0
        }
    });
    let mut rhs = DVector::zeros(s + 1);
    rhs[s] = 1.0;
    let svd = system.svd(true, true);
    if require_unique && svd.rank(1e-10) < s {
        return None;
    }
    let solution = svd.solve(&rhs, 1e-12).ok()?;
    if solution.iter().any(|&x| x < 0.0) {
        return None;
    }
    let mut full = vec![0.0; pi.len()];
    for (i, &j) in support.iter().enumerate() {
        full[j] = solution[i];
    }
    let full = normalized(&full);
    (exploitability(a, &full) <= GAP_TOLERANCE).then_some(full)
}
