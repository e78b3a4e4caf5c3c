//! The regularized equilibrium (NashEval Eq. 29–33 with Eq. 74 and Eq. 20): the unique
//! `pi*` with `G_Omega(pi*) = 0`, i.e. the solution of the variational inequality
//! `<F(pi*), q - pi*> >= 0` for all q in the simplex, `F(pi) = -A pi + rho (pi - 1/K) + c`
//! (Lemma 1). For `rho > 0`, `F` is strongly monotone and `pi*` is unique.
//!
//! Without a hard budget it is first solved by block principal pivoting on its
//! support ([`crate::active_set`]: a few small dense solves), kept when its gap is
//! certified. Otherwise, and with a budget, it is solved as one convex QP
//! (Clarabel): writing the inner best response of the maximising player through its
//! Lagrange dual,
//!
//! ```text
//! minimise  rho/2 ||q - u||^2 + c^T q + lambda + u^T w + ||w||^2 / (2 rho)
//! s.t.      w = A q - c - lambda 1 + mu,  1^T q = 1,  q >= 0,  mu >= 0,
//! ```
//!
//! whose optimal `q` is `pi*` (u = 1/K). The answer is then polished on its support:
//! `F(pi)_S = lambda 1, 1^T pi_S = 1` is a nonsingular linear system (its matrix
//! `-A_SS + rho I` is positive definite), solved exactly and kept when it satisfies
//! the complementarity conditions; the result is certified by the gap `G_Omega`.

use crate::active_set::{pivoted_equilibrium, slack, solve_on_support};
use crate::certificate::{Lottery, GAP_TOLERANCE};
use crate::payoff::check_costs;
use crate::qp::Qp;
use crate::{GameError, HardBudget, PayoffMatrix, Regularizer};

/// Entries below this are outside the support when polishing.
const SUPPORT_CUTOFF: f64 = 1e-9;

/// The regularized equilibrium of `a` under `regularizer` (`rho > 0`).
///
/// # Errors
/// [`GameError::Solver`] for `rho <= 0` (use [`crate::maximal_lottery`]), costs of
/// the wrong length or not finite, or a solver failure.
pub fn regularized_equilibrium(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
) -> Result<Lottery, GameError> {
    solve_regularized(a, regularizer, None)
}

/// The regularized equilibrium with a hard budget on both players (NashEval Eq. 55,
/// `Omega_0 = rho/2 ||pi - 1/K||^2`, no price term): the budget row `c^T pi <= C`
/// enters the inner best response through one more multiplier `nu >= 0`
/// (`w = A q - lambda 1 + mu - nu c`, objective `+ nu C`) and constrains `q` directly.
/// Certified by the variational-inequality gap `max_{q in Delta(C)} <F(pi), pi - q>`,
/// `F(pi) = -A pi + rho (pi - 1/K)`, evaluated exactly on the vertices of
/// `Delta(C)`.
///
/// # Errors
/// As [`regularized_equilibrium`], and [`GameError::InfeasibleBudget`].
pub fn budgeted_regularized_equilibrium(
    a: &PayoffMatrix,
    rho: f64,
    budget: &HardBudget,
) -> Result<Lottery, GameError> {
    budget.validate(a.agents())?;
    let regularizer = Regularizer {
        rho,
        costs: Vec::new(),
    };
    solve_regularized(a, &regularizer, Some(budget))
}

fn solve_regularized(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
    budget: Option<&HardBudget>,
) -> Result<Lottery, GameError> {
    let k = a.agents();
    let rho = regularizer.rho;
    if !(rho.is_finite() && rho > 0.0) {
        return Err(GameError::Solver(format!(
            "the regularized equilibrium needs rho > 0, found {rho}; rho = 0 is the maximal lottery"
        )));
    }
    if !regularizer.costs.is_empty() {
        check_costs(&regularizer.costs, k)?;
    }
    if budget.is_none() {
        if let Some((pi, pivots)) = pivoted_equilibrium(a, regularizer) {
            let pi = crate::lottery::normalized(&pi);
            let gap = regularized_gap(a, regularizer, &pi);
            if gap <= GAP_TOLERANCE {
                return Ok(Lottery::with_gap(pi, gap, pivots));
            }
        }
    }
    solve_by_qp(a, regularizer, budget)
}

/// The QP of the module docs, polished on its support and certified.
pub(crate) fn solve_by_qp(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
    budget: Option<&HardBudget>,
) -> Result<Lottery, GameError> {
    let k = a.agents();
    let rho = regularizer.rho;
    let cost = |j: usize| regularizer.cost(j);
    let u = 1.0 / k as f64;
    // Variables: q (0..k), lambda (k), mu (k+1..2k+1), w (2k+1..3k+1), and with a
    // budget nu (3k+1).
    let n = 3 * k + 1 + usize::from(budget.is_some());
    let (lambda, mu, w, nu) = (k, k + 1, 2 * k + 1, 3 * k + 1);
    let mut quadratic = Vec::new();
    for j in 0..k {
        quadratic.push((j, j, rho));
        quadratic.push((w + j, w + j, 1.0 / rho));
    }
    let mut linear = vec![0.0; n];
    for j in 0..k {
        linear[j] = cost(j) - rho * u;
        linear[w + j] = u;
    }
    linear[lambda] = 1.0;
    // Rows 0..k: w_j - (A q)_j + lambda - mu_j = -c_j; row k: 1^T q = 1;
    // rows k+1..: -q <= 0, -mu <= 0.
    let mut constraints = Vec::new();
    let mut bounds: Vec<f64> = (0..k).map(|j| -cost(j)).collect();
    bounds.push(1.0);
    bounds.resize(1 + 3 * k, 0.0);
    for j in 0..k {
        constraints.push((j, w + j, 1.0));
        for l in 0..k {
            let value = a.get(j, l);
            if value != 0.0 {
                constraints.push((j, l, -value));
            }
        }
        constraints.push((j, lambda, 1.0));
        constraints.push((j, mu + j, -1.0));
        constraints.push((k, j, 1.0));
        constraints.push((k + 1 + j, j, -1.0));
        constraints.push((2 * k + 1 + j, mu + j, -1.0));
    }
    if let Some(budget) = budget {
        linear[nu] = budget.limit;
        for j in 0..k {
            constraints.push((j, nu, budget.costs[j]));
        }
        // c^T q <= C and -nu <= 0.
        let row = bounds.len();
        constraints.extend((0..k).map(|j| (row, j, budget.costs[j])));
        constraints.push((row + 1, nu, -1.0));
        bounds.extend([budget.limit, 0.0]);
    }
    let qp = Qp {
        variables: n,
        quadratic,
        linear,
        constraints,
        bounds,
        equalities: k + 1,
        exponential_cones: 0,
    };
    let (x, iterations) = qp.solve()?;
    let pi = crate::lottery::normalized(&x[..k]);
    let Some(budget) = budget else {
        let polished = polish(a, regularizer, &pi);
        let certificate = |p: &[f64]| regularized_gap(a, regularizer, p);
        return Ok(Lottery::best_of(pi, polished, certificate, iterations));
    };
    let certificate = |p: &[f64]| {
        let mut field = vec![0.0; k];
        regularizer.operator_into(a, p, &mut field);
        let at_p: f64 = field.iter().zip(p).map(|(f, x)| f * x).sum();
        let negated: Vec<f64> = field.iter().map(|f| -f).collect();
        (at_p + budget.best_payoff(&negated)).max(0.0)
    };
    Ok(Lottery::best_of(pi, None, certificate, iterations))
}

/// The certificate of a regularized equilibrium without a budget: the gap
/// `G_Omega(p)` (Eq. 30).
fn regularized_gap(a: &PayoffMatrix, regularizer: &Regularizer, p: &[f64]) -> f64 {
    let (mut scratch, mut response) = (Vec::new(), vec![0.0; p.len()]);
    regularizer.gap(a, p, &mut scratch, &mut response)
}

/// Exact solve of the equilibrium conditions on the support of `pi`, if the result
/// is nonnegative and no agent outside the support has `F_j < lambda`.
fn polish(a: &PayoffMatrix, regularizer: &Regularizer, pi: &[f64]) -> Option<Vec<f64>> {
    let k = pi.len();
    let support: Vec<usize> = (0..k).filter(|&j| pi[j] > SUPPORT_CUTOFF).collect();
    let (full, lambda) = solve_on_support(a, regularizer, &support)?;
    if full.iter().any(|&x| x < 0.0) {
        return None;
    }
    let w = slack(a, regularizer, &full, lambda);
    let complementary = (0..k)
        .filter(|j| !support.contains(j))
        .all(|j| w[j] >= -GAP_TOLERANCE);
    complementary.then(|| crate::lottery::normalized(&full))
}
