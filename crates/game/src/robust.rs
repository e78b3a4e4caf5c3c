//! The robust maximal lottery over groups (NashEval Appendix I.3, Eq. 79–81, after
//! Khalaf et al.): with per-group margin matrices `M^(g)` and empirical group weights
//! `w0`, the ambiguity set is `W(w0, tau) = {w in simplex : 1/2 ||w - w0||_1 <= tau}`
//! (Eq. 79) and the robust lottery maximises the worst case over it:
//!
//! ```text
//! max_pi  min_{w in W}  min_j  pi^T (sum_g w_g M^(g)) e_j          (Eq. 81)
//! ```
//!
//! For each column j the inner minimum over `W` is an LP in `w`; writing it through
//! its dual (free `alpha_j`, `beta_jg, gamma_jg, delta_j >= 0` with
//! `alpha_j - beta_jg + gamma_jg <= (pi^T M^(g))_j` and `beta_jg + gamma_jg <= delta_j / 2`,
//! value `alpha_j + sum_g w0_g (gamma_jg - beta_jg) - tau delta_j`) turns the whole
//! problem into one LP, solved exactly by Clarabel.

use crate::lottery::normalized;
use crate::qp::Qp;
use crate::{GameError, PayoffMatrix};

/// Default confidence of the radius (Eq. 80).
pub const RADIUS_CONFIDENCE: f64 = 0.05;

/// The default radius of Eq. 80 for `groups` groups and `n` observations, read as
/// `tau_n = min{1, sqrt(|G| / n) + sqrt(2 / n * ln(2 / delta))}`, `delta = 0.05`.
pub fn default_radius(groups: usize, n: usize) -> f64 {
    let n = n.max(1) as f64;
    ((groups as f64 / n).sqrt() + (2.0 / n * (2.0 / RADIUS_CONFIDENCE).ln()).sqrt()).min(1.0)
}

/// A robust lottery and its guaranteed worst-case payoff.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RobustLottery {
    /// Probability of each agent.
    pub probabilities: Vec<f64>,
    /// `min_{w in W} min_j pi^T M_w e_j` at the answer (≤ 0; 0 when one lottery is
    /// unbeaten under every admissible mixture).
    pub worst_case: f64,
}

/// The worst case of `pi` over the ambiguity set, computed directly (for checks and
/// reports): for each column the adversary moves up to `tau` of weight from the
/// groups where `pi` does best to the one where it does worst.
pub fn worst_case_payoff(groups: &[PayoffMatrix], weights: &[f64], tau: f64, pi: &[f64]) -> f64 {
    let k = pi.len();
    (0..k)
        .map(|j| {
            let values: Vec<f64> = groups
                .iter()
                .map(|m| (0..k).map(|i| pi[i] * m.get(i, j)).sum())
                .collect();
            let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
            let mut order: Vec<usize> = (0..values.len()).collect();
            order.sort_by(|&x, &y| values[y].total_cmp(&values[x]));
            let mut budget = tau;
            let mut total: f64 = weights.iter().zip(&values).map(|(w, v)| w * v).sum();
            for g in order {
                if budget <= 0.0 {
                    break;
                }
                let moved = weights[g].min(budget);
                total -= moved * (values[g] - lowest);
                budget -= moved;
            }
            total
        })
        .fold(f64::INFINITY, f64::min)
}

/// The robust maximal lottery of Eq. 81.
///
/// # Errors
/// No groups, groups of different sizes, weights that are not a probability vector of
/// the right length, a radius outside `[0, 1]`, solver failures.
pub fn robust_lottery(
    groups: &[PayoffMatrix],
    weights: &[f64],
    tau: f64,
) -> Result<RobustLottery, GameError> {
    let Some(first) = groups.first() else {
        return Err(GameError::Solver(
            "the robust lottery needs at least one group".into(),
        ));
    };
    let k = first.agents();
    let g_count = groups.len();
    if groups.iter().any(|m| m.agents() != k) {
        return Err(GameError::Solver(
            "every group's matrix must cover the same agents".into(),
        ));
    }
    let total: f64 = weights.iter().sum();
    if weights.len() != g_count
        || weights.iter().any(|w| !(w.is_finite() && *w >= 0.0))
        || (total - 1.0).abs() > 1e-9
    {
        return Err(GameError::Solver(format!(
            "{} group weights for {g_count} groups, or weights that are not a probability vector",
            weights.len()
        )));
    }
    if !(0.0..=1.0).contains(&tau) {
        return Err(GameError::Solver(format!(
            "the radius must lie in [0, 1], found {tau}"
        )));
    }
    // Variables: pi (0..k), t (k), then per column j: alpha, delta, beta_g.., gamma_g..
    let t = k;
    let block = 2 + 2 * g_count;
    let alpha = |j: usize| k + 1 + j * block;
    let delta = |j: usize| alpha(j) + 1;
    let beta = |j: usize, g: usize| alpha(j) + 2 + g;
    let gamma = |j: usize, g: usize| alpha(j) + 2 + g_count + g;
    let variables = k + 1 + k * block;
    let mut constraints = Vec::new();
    let mut bounds = vec![1.0];
    constraints.extend((0..k).map(|i| (0, i, 1.0)));
    let mut row = 1;
    let mut push = |entries: Vec<(usize, f64)>,
                    bound: f64,
                    constraints: &mut Vec<(usize, usize, f64)>,
                    bounds: &mut Vec<f64>| {
        constraints.extend(entries.into_iter().map(|(c, v)| (row, c, v)));
        bounds.push(bound);
        row += 1;
    };
    for j in 0..k {
        // t - alpha_j - sum_g w0_g (gamma_jg - beta_jg) + tau delta_j <= 0
        let mut entries = vec![(t, 1.0), (alpha(j), -1.0), (delta(j), tau)];
        for (g, &weight) in weights.iter().enumerate() {
            entries.push((gamma(j, g), -weight));
            entries.push((beta(j, g), weight));
        }
        push(entries, 0.0, &mut constraints, &mut bounds);
        for (g, m) in groups.iter().enumerate() {
            // alpha_j - beta_jg + gamma_jg - sum_i pi_i M^(g)_ij <= 0
            let mut entries = vec![(alpha(j), 1.0), (beta(j, g), -1.0), (gamma(j, g), 1.0)];
            entries.extend(
                (0..k)
                    .filter(|&i| m.get(i, j) != 0.0)
                    .map(|i| (i, -m.get(i, j))),
            );
            push(entries, 0.0, &mut constraints, &mut bounds);
            // beta_jg + gamma_jg - delta_j / 2 <= 0
            push(
                vec![(beta(j, g), 1.0), (gamma(j, g), 1.0), (delta(j), -0.5)],
                0.0,
                &mut constraints,
                &mut bounds,
            );
            push(vec![(beta(j, g), -1.0)], 0.0, &mut constraints, &mut bounds);
            push(
                vec![(gamma(j, g), -1.0)],
                0.0,
                &mut constraints,
                &mut bounds,
            );
        }
        push(vec![(delta(j), -1.0)], 0.0, &mut constraints, &mut bounds);
    }
    for i in 0..k {
        push(vec![(i, -1.0)], 0.0, &mut constraints, &mut bounds);
    }
    let mut linear = vec![0.0; variables];
    linear[t] = -1.0;
    let qp = Qp {
        variables,
        quadratic: Vec::new(),
        linear,
        constraints,
        bounds,
        equalities: 1,
        exponential_cones: 0,
    };
    let (x, _) = qp.solve()?;
    let probabilities = normalized(&x[..k]);
    let worst_case = worst_case_payoff(groups, weights, tau, &probabilities);
    Ok(RobustLottery {
        probabilities,
        worst_case,
    })
}
