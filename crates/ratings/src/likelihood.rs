//! The Bradley–Terry log-likelihood of one pair and its first and second derivatives,
//! for each way of treating ties. With `d = beta_i - beta_j`:
//!
//! - `Half`: a tie is half a win for each side (the tutorial's and LMArena's reading):
//!   `l = a log s(d) + b log s(-d)`, `a = w_i + t/2`, `b = w_j + t/2`, `s` the logistic.
//! - `Drop`: ties ignored, `a = w_i`, `b = w_j`.
//! - `Davidson` (Davidson 1970): `P(i) = e^{d/2}/D`, `P(j) = e^{-d/2}/D`,
//!   `P(tie) = nu/D`, `D = e^{d/2} + e^{-d/2} + nu`, with `theta = ln nu` fitted too.

use serde::{Deserialize, Serialize};

/// How ties enter the Bradley–Terry likelihood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum TieModel {
    /// Half a win for each side (default).
    #[default]
    Half,
    /// Ties ignored.
    Drop,
    /// Davidson's tie model with a fitted tie parameter `nu`.
    Davidson,
}

/// Log-likelihood of one pair's counts and its derivatives in `d = beta_i - beta_j`
/// and `theta = ln nu` (the theta terms are zero except for Davidson).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PairTerms {
    pub loglik: f64,
    pub d: f64,
    pub theta: f64,
    pub dd: f64,
    pub d_theta: f64,
    pub theta_theta: f64,
}

/// `ln s(x)` for the logistic `s(x) = 1 / (1 + e^-x)`, stable for large `|x|`.
pub(crate) fn log_logistic(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// The logistic function `1 / (1 + e^-x)`.
pub(crate) fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Davidson's outcome probabilities `(P(i), P(j), P(tie))` and `ln D`.
fn davidson(d: f64, theta: f64) -> (f64, f64, f64, f64) {
    let m = 0.5 * d.abs();
    let nu = theta.exp();
    // D = e^m (1 + e^{-2m} + nu e^{-m}); the larger of e^{±d/2} is e^m.
    let rest = 1.0 + (-2.0 * m).exp() + nu * (-m).exp();
    let log_d = m + rest.ln();
    let hi = 1.0 / rest;
    let lo = (-2.0 * m).exp() / rest;
    let tie = nu * (-m).exp() / rest;
    let (p_i, p_j) = if d >= 0.0 { (hi, lo) } else { (lo, hi) };
    (p_i, p_j, tie, log_d)
}

impl TieModel {
    /// `(P(i beats j), P(tie))` for strengths differing by `d` (tie parameter `theta`).
    pub fn probabilities(self, d: f64, theta: f64) -> (f64, f64) {
        match self {
            TieModel::Half | TieModel::Drop => (logistic(d), 0.0),
            TieModel::Davidson => {
                let (p_i, _, tie, _) = davidson(d, theta);
                (p_i, tie)
            }
        }
    }

    /// For the logistic models (`Half`, `Drop`), the pair's effective wins of `i` and
    /// effective battles `(a, n)`: `l = a log s(d) + (n - a) log s(-d)`, so
    /// `dl/dd = a - n s(d)`.
    pub(crate) fn logistic_counts(self, cells: [f64; 3]) -> (f64, f64) {
        debug_assert!(self != TieModel::Davidson);
        let [w_i, w_j, ties] = cells;
        let counted_ties = if self == TieModel::Half {
            0.5 * ties
        } else {
            0.0
        };
        (w_i + counted_ties, w_i + w_j + 2.0 * counted_ties)
    }

    /// Log-likelihood terms of a pair with counts `[w_i, w_j, ties]`.
    pub(crate) fn pair_terms(self, d: f64, theta: f64, cells: [f64; 3]) -> PairTerms {
        let [w_i, w_j, ties] = cells;
        match self {
            TieModel::Half | TieModel::Drop => {
                let counted_ties = if self == TieModel::Half {
                    0.5 * ties
                } else {
                    0.0
                };
                let (a, b) = (w_i + counted_ties, w_j + counted_ties);
                let n = a + b;
                let p = logistic(d);
                PairTerms {
                    loglik: a * log_logistic(d) + b * log_logistic(-d),
                    d: a - n * p,
                    dd: -n * p * (1.0 - p),
                    ..PairTerms::default()
                }
            }
            TieModel::Davidson => {
                let (p_i, p_j, p_t, log_d) = davidson(d, theta);
                let n = w_i + w_j + ties;
                let diff = p_i - p_j;
                PairTerms {
                    loglik: w_i * (0.5 * d - log_d)
                        + w_j * (-0.5 * d - log_d)
                        + ties * (theta - log_d),
                    d: 0.5 * (w_i - w_j) - 0.5 * n * diff,
                    theta: ties - n * p_t,
                    dd: -n * (0.25 * (p_i + p_j) - 0.25 * diff * diff),
                    d_theta: 0.5 * n * diff * p_t,
                    theta_theta: -n * (p_t - p_t * p_t),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central finite differences check the analytic derivatives; the step 1e-5 and
    /// tolerance 1e-6 suit second differences of smooth functions of order-one inputs.
    #[test]
    fn derivatives_match_finite_differences() {
        let cells = [3.0, 2.0, 4.0];
        for model in [TieModel::Half, TieModel::Drop, TieModel::Davidson] {
            for &(d, theta) in &[(0.3, -0.4), (-1.7, 0.5), (4.0, -2.0)] {
                let h = 1e-5;
                let t = model.pair_terms(d, theta, cells);
                let f = |d, th| model.pair_terms(d, th, cells);
                let num_d = (f(d + h, theta).loglik - f(d - h, theta).loglik) / (2.0 * h);
                let num_dd = (f(d + h, theta).d - f(d - h, theta).d) / (2.0 * h);
                assert!((t.d - num_d).abs() < 1e-6, "{model:?} d");
                assert!((t.dd - num_dd).abs() < 1e-6, "{model:?} dd");
                if model == TieModel::Davidson {
                    let num_t = (f(d, theta + h).loglik - f(d, theta - h).loglik) / (2.0 * h);
                    let num_tt = (f(d, theta + h).theta - f(d, theta - h).theta) / (2.0 * h);
                    let num_dt = (f(d, theta + h).d - f(d, theta - h).d) / (2.0 * h);
                    assert!((t.theta - num_t).abs() < 1e-6);
                    assert!((t.theta_theta - num_tt).abs() < 1e-6);
                    assert!((t.d_theta - num_dt).abs() < 1e-6);
                }
            }
        }
    }

    #[test]
    fn davidson_probabilities_sum_to_one() {
        for &d in &[-30.0, -1.0, 0.0, 2.5, 40.0] {
            let (p_i, tie) = TieModel::Davidson.probabilities(d, 0.2);
            let (p_j, _) = TieModel::Davidson.probabilities(-d, 0.2);
            assert!((p_i + p_j + tie - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn logistic_is_stable_far_out() {
        assert_eq!(logistic(-800.0), 0.0);
        assert!(log_logistic(-800.0).is_finite());
        assert!((log_logistic(0.0) + std::f64::consts::LN_2).abs() < 1e-15);
    }
}
