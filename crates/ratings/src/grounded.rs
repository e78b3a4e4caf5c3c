//! The grounded Rao–Kupper model of Prompt-to-Leaderboard (Frick et al. 2025, P2L's
//! "bag" loss): "both bad" as an outcome of its own, against a ground of strength 1.
//!
//! With strengths `pi_i = exp(beta_i)` and a tie parameter `theta = 1 + exp(eta) > 1`,
//! a battle of `i` against `j` ends
//!
//! ```text
//! i wins     pi_i / (pi_i + theta pi_j + 1)
//! j wins     pi_j / (pi_j + theta pi_i + 1)
//! both bad   1 / (1 + pi_i + pi_j)
//! tie        1 - the three above          (>= 0 because theta >= 1)
//! ```
//!
//! The ground fixes the scale's origin, so `beta` is absolute: `pi_i / (1 + pi_i)` is
//! the chance that model `i` beats "bad" in a Bradley–Terry sense — its usable level.
//! The fit maximises the log-likelihood over the pair counts by Newton's method on
//! `(beta, eta)` with exact second derivatives (each pair's terms depend on
//! `beta_i, beta_j, eta` only), a Levenberg damping that keeps each step uphill, and
//! sandwich standard errors (`H^-1 M H^-1`, LMArena's choice for Bradley–Terry). Written by hand:
//! no crate fits this model.

use std::collections::BTreeMap;

use nalgebra::{DMatrix, DVector};
use verdict_feedback::{BattleLog, Outcome};

use crate::RatingsError;

/// How a "both bad" verdict (LMArena's `tie (bothbad)`) enters a ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum BothBad {
    /// A tie like any other (LMArena's leaderboards).
    #[default]
    Tie,
    /// Left out before the fit.
    Drop,
    /// An outcome of its own: the grounded Rao–Kupper model (Bradley–Terry only).
    Bad,
}

/// The counts of one unordered pair `(i, j)`, `i < j`: `[i wins, j wins, ties, both bad]`.
pub type GroundedCell = [f64; 4];

/// Each pair's four outcome counts, from a battle log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroundedCounts {
    /// Number of models.
    pub models: usize,
    /// The models' names, for messages.
    pub names: Vec<String>,
    /// `(i, j)` with `i < j` and their counts.
    pub pairs: BTreeMap<(usize, usize), GroundedCell>,
}

impl GroundedCounts {
    /// Counts every battle of `log` (a tie is `Outcome::Tie`, both bad
    /// `Outcome::TieBothBad`).
    pub fn from_log(log: &BattleLog) -> Self {
        let mut pairs = BTreeMap::new();
        for (a, b, outcome) in log.iter() {
            let (a, b) = (a.0 as usize, b.0 as usize);
            let (i, j, outcome) = if a < b {
                (a, b, outcome)
            } else {
                (b, a, outcome.swapped())
            };
            let cell = match outcome {
                Outcome::WinA => 0,
                Outcome::WinB => 1,
                Outcome::Tie => 2,
                Outcome::TieBothBad => 3,
            };
            pairs.entry((i, j)).or_insert([0.0; 4])[cell] += 1.0;
        }
        Self {
            models: log.models().len(),
            names: log.models().names().to_vec(),
            pairs,
        }
    }

    /// All "both bad" verdicts.
    pub fn both_bad(&self) -> f64 {
        self.pairs.values().map(|c| c[3]).sum()
    }
}

/// The fit's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundedRaoKupper {
    /// Newton iterations at most.
    pub max_iter: usize,
    /// Stop when the largest gradient entry is below this.
    pub tol: f64,
}

impl Default for GroundedRaoKupper {
    fn default() -> Self {
        Self {
            max_iter: 200,
            tol: 1e-10,
        }
    }
}

/// A fitted grounded Rao–Kupper model.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundedFit {
    /// `beta_i = ln pi_i`, against the ground's 0.
    pub beta: Vec<f64>,
    /// Sandwich standard errors of `beta`: `H^-1 (sum_battles s s^T) H^-1` with `H`
    /// the log-likelihood's Hessian, as LMArena's Bradley–Terry intervals.
    pub beta_se: Vec<f64>,
    /// The tie parameter `theta > 1`.
    pub theta: f64,
    /// The maximised log-likelihood.
    pub loglik: f64,
    /// Newton iterations used.
    pub iterations: usize,
}

impl GroundedFit {
    /// Model `i`'s usable level `pi_i / (1 + pi_i)`.
    pub fn usable(&self, i: usize) -> f64 {
        1.0 / (1.0 + (-self.beta[i]).exp())
    }

    /// The four outcome probabilities of `i` against `j` (module docs).
    pub fn probabilities(&self, i: usize, j: usize) -> [f64; 4] {
        outcome_probabilities(self.beta[i], self.beta[j], self.theta)
    }
}

/// `[i wins, j wins, tie, both bad]` for log-strengths `bi`, `bj` and `theta`.
pub fn outcome_probabilities(bi: f64, bj: f64, theta: f64) -> [f64; 4] {
    let (a, b) = (bi.exp(), bj.exp());
    let win_i = a / (a + theta * b + 1.0);
    let win_j = b / (b + theta * a + 1.0);
    let bad = 1.0 / (1.0 + a + b);
    [win_i, win_j, (1.0 - win_i - win_j - bad).max(0.0), bad]
}

/// A value, its gradient and its Hessian in `(beta_i, beta_j, eta)`.
#[derive(Debug, Clone, Copy, Default)]
struct Local {
    value: f64,
    grad: [f64; 3],
    hess: [[f64; 3]; 3],
}

impl Local {
    /// `ln D` from `D`, its gradient and its Hessian.
    fn log_of(d: f64, grad: [f64; 3], hess: [[f64; 3]; 3]) -> Self {
        let g = grad.map(|x| x / d);
        let mut h = [[0.0; 3]; 3];
        for r in 0..3 {
            for c in 0..3 {
                h[r][c] = hess[r][c] / d - g[r] * g[c];
            }
        }
        Self {
            value: d.ln(),
            grad: g,
            hess: h,
        }
    }
}

/// `ln P` of each outcome `[i wins, j wins, tie, both bad]` of one battle, with its
/// gradient and Hessian in `(beta_i, beta_j, eta)` (module docs).
fn outcome_terms(bi: f64, bj: f64, eta: f64) -> [Local; 4] {
    let (a, b, e) = (bi.exp(), bj.exp(), eta.exp());
    let theta = 1.0 + e;
    // ln of the three denominators.
    let d_i = Local::log_of(
        a + theta * b + 1.0,
        [a, theta * b, b * e],
        [[a, 0.0, 0.0], [0.0, theta * b, b * e], [0.0, b * e, b * e]],
    );
    let d_j = Local::log_of(
        b + theta * a + 1.0,
        [theta * a, b, a * e],
        [[theta * a, 0.0, a * e], [0.0, b, 0.0], [a * e, 0.0, a * e]],
    );
    let d_bad = Local::log_of(
        1.0 + a + b,
        [a, b, 0.0],
        [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, 0.0]],
    );
    // ln q = ln N - ln D with ln N = beta_i, beta_j or 0 (linear).
    let log_q = |numerator: [f64; 3], value: f64, d: &Local| Local {
        value: value - d.value,
        grad: [0, 1, 2].map(|r| numerator[r] - d.grad[r]),
        hess: d.hess.map(|row| row.map(|x| -x)),
    };
    let win_i = log_q([1.0, 0.0, 0.0], bi, &d_i);
    let win_j = log_q([0.0, 1.0, 0.0], bj, &d_j);
    let bad = log_q([0.0, 0.0, 0.0], 0.0, &d_bad);
    // The tie: T = 1 - sum q, with q's gradient q g and Hessian q (g g^T + H).
    let mut tie = Local {
        value: 1.0,
        ..Local::default()
    };
    for term in [&win_i, &win_j, &bad] {
        let q = term.value.exp();
        tie.value -= q;
        for r in 0..3 {
            tie.grad[r] -= q * term.grad[r];
            for c in 0..3 {
                tie.hess[r][c] -= q * (term.grad[r] * term.grad[c] + term.hess[r][c]);
            }
        }
    }
    let tie = Local::log_of(tie.value.max(f64::MIN_POSITIVE), tie.grad, tie.hess);
    [win_i, win_j, tie, bad]
}

/// The log-likelihood of one pair's counts and its derivatives.
fn pair_terms(bi: f64, bj: f64, eta: f64, counts: &GroundedCell) -> Local {
    let mut total = Local::default();
    for (term, &weight) in outcome_terms(bi, bj, eta).iter().zip(counts) {
        if weight == 0.0 {
            continue;
        }
        total.value += weight * term.value;
        for r in 0..3 {
            total.grad[r] += weight * term.grad[r];
            for c in 0..3 {
                total.hess[r][c] += weight * term.hess[r][c];
            }
        }
    }
    total
}

/// The middle of the sandwich, `sum_battles s s^T` over `(beta, eta)`, each battle's
/// score `s` the gradient of its outcome's log-probability.
fn score_outer_products(params: &DVector<f64>, counts: &GroundedCounts) -> DMatrix<f64> {
    let k = counts.models;
    let mut meat = DMatrix::zeros(k + 1, k + 1);
    for (&(i, j), cell) in &counts.pairs {
        let index = [i, j, k];
        for (term, &n) in outcome_terms(params[i], params[j], params[k])
            .iter()
            .zip(cell)
        {
            for r in 0..3 {
                for c in 0..3 {
                    meat[(index[r], index[c])] += n * term.grad[r] * term.grad[c];
                }
            }
        }
    }
    meat
}

/// The log-likelihood, gradient and Hessian over `(beta, eta)`.
fn assemble(params: &DVector<f64>, counts: &GroundedCounts) -> (f64, DVector<f64>, DMatrix<f64>) {
    let k = counts.models;
    let mut value = 0.0;
    let mut grad = DVector::zeros(k + 1);
    let mut hess = DMatrix::zeros(k + 1, k + 1);
    for (&(i, j), cell) in &counts.pairs {
        let local = pair_terms(params[i], params[j], params[k], cell);
        value += local.value;
        let index = [i, j, k];
        for r in 0..3 {
            grad[index[r]] += local.grad[r];
            for c in 0..3 {
                hess[(index[r], index[c])] += local.hess[r][c];
            }
        }
    }
    (value, grad, hess)
}

impl GroundedRaoKupper {
    /// The maximum-likelihood fit to `counts`.
    ///
    /// # Errors
    /// [`RatingsError::NotEnoughData`] without a "both bad" verdict (the ground is then
    /// unbounded: every strength grows without limit) or when the strengths diverge (a
    /// model that never loses, ties or is judged bad); [`RatingsError::Numerical`]
    /// when Newton's method stalls.
    pub fn fit(&self, counts: &GroundedCounts) -> Result<GroundedFit, RatingsError> {
        if counts.both_bad() == 0.0 {
            return Err(RatingsError::NotEnoughData(
                "no battle was judged \"both bad\": the grounded model's absolute level is then unbounded; count both bad as a tie or drop it".into(),
            ));
        }
        let k = counts.models;
        let mut params = DVector::zeros(k + 1);
        let (mut value, mut grad, mut hess) = assemble(&params, counts);
        let mut damping = 0.0;
        for iteration in 0..self.max_iter {
            if grad.amax() < self.tol {
                return self.finish(params, value, hess, counts, iteration);
            }
            let mut accepted = false;
            for _ in 0..60 {
                let mut system = -&hess;
                for d in 0..=k {
                    system[(d, d)] += damping;
                }
                let Some(cholesky) = system.cholesky() else {
                    damping = (damping * 10.0).max(1e-6);
                    continue;
                };
                let step = cholesky.solve(&grad);
                let trial = &params + &step;
                let (trial_value, trial_grad, trial_hess) = assemble(&trial, counts);
                if trial_value.is_finite() && trial_value >= value - 1e-12 * value.abs() {
                    params = trial;
                    value = trial_value;
                    grad = trial_grad;
                    hess = trial_hess;
                    damping /= 10.0;
                    if damping < 1e-12 {
                        damping = 0.0;
                    }
                    accepted = true;
                    break;
                }
                damping = (damping * 10.0).max(1e-6);
            }
            if !accepted {
                break;
            }
            if let Some(model) = (0..k).find(|&m| params[m].abs() > 30.0) {
                return Err(RatingsError::NotEnoughData(format!(
                    "model {:?}'s grounded strength diverges (it never loses, ties or is judged bad, or always does): the grounded model has no finite fit",
                    counts.names[model]
                )));
            }
        }
        if grad.amax() < self.tol.max(1e-7) {
            return self.finish(params, value, hess, counts, self.max_iter);
        }
        Err(RatingsError::Numerical(format!(
            "the grounded Rao–Kupper fit (stopped at gradient {:.2e})",
            grad.amax()
        )))
    }

    fn finish(
        &self,
        params: DVector<f64>,
        loglik: f64,
        hess: DMatrix<f64>,
        counts: &GroundedCounts,
        iterations: usize,
    ) -> Result<GroundedFit, RatingsError> {
        let k = params.len() - 1;
        let bread = (-hess).try_inverse().ok_or_else(|| {
            RatingsError::NotEnoughData(
                "the grounded fit's information is singular (a model apart from the rest?)".into(),
            )
        })?;
        let covariance = &bread * score_outer_products(&params, counts) * &bread;
        Ok(GroundedFit {
            beta: params.as_slice()[..k].to_vec(),
            beta_se: (0..k).map(|m| covariance[(m, m)].max(0.0).sqrt()).collect(),
            theta: 1.0 + params[k].exp(),
            loglik,
            iterations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analytic gradient and Hessian agree with central differences of the
    /// log-likelihood and gradient.
    #[test]
    fn derivatives_match_finite_differences() {
        let cell = [3.0, 2.0, 4.0, 5.0];
        let point = [0.3, -0.7, 0.4];
        let at = |p: [f64; 3]| pair_terms(p[0], p[1], p[2], &cell);
        let base = at(point);
        let h = 1e-5;
        for r in 0..3 {
            let mut up = point;
            let mut down = point;
            up[r] += h;
            down[r] -= h;
            let (u, d) = (at(up), at(down));
            let slope = (u.value - d.value) / (2.0 * h);
            assert!((slope - base.grad[r]).abs() < 1e-6, "grad {r}");
            for c in 0..3 {
                let curve = (u.grad[c] - d.grad[c]) / (2.0 * h);
                assert!((curve - base.hess[r][c]).abs() < 1e-5, "hess {r} {c}");
            }
        }
    }

    /// The four probabilities sum to 1, and theta = 1 leaves no ties.
    #[test]
    fn probabilities_sum_to_one() {
        let p = outcome_probabilities(0.5, -0.2, 1.8);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let p = outcome_probabilities(0.5, -0.2, 1.0);
        assert!(p[2].abs() < 1e-12);
    }
}
