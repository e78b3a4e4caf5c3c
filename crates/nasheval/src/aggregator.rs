//! Menu aggregators `f_jk` (NashEval Definition 1, Appendix F.2): how the mean
//! verdicts `u_m = g^m_jk(x)` of the menus holding a pair combine into its payoff
//! `A_jk(x) = f_jk((u_m)_m)`, with the partial derivatives the debiasing term needs.

/// An invalid aggregator.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct AggregatorError(pub String);

/// A smooth, odd, idempotent aggregator over the menus holding one pair.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Aggregator {
    /// Pairwise logs: the pair's single menu, `f(u) = u` (Eq. 48).
    Identity,
    /// `f(u) = sum_m w_m u_m` with fixed weights summing to one (Eq. 49); uniform
    /// weights give the mean of Section 4.
    Linear {
        /// Menu weights `w_m >= 0`, summing to one.
        weights: Vec<f64>,
    },
    /// `f(u) = phi_alpha^-1(sum_m w_m phi_alpha(u_m))` with the cubic link
    /// `phi_alpha(u) = (u + alpha u^3) / (1 + alpha)` (Eq. 50–51).
    Cubic {
        /// Link curvature `alpha >= 0` (0 is linear).
        alpha: f64,
        /// Menu weights, as for `Linear`.
        weights: Vec<f64>,
    },
}

impl Aggregator {
    /// The mean over `menus` menus (uniform linear weights).
    pub fn uniform(menus: usize) -> Self {
        Self::Linear {
            weights: vec![1.0 / menus as f64; menus],
        }
    }

    /// Checks weights (non-negative, finite, summing to one) and `alpha >= 0`.
    ///
    /// # Errors
    /// [`AggregatorError`] saying what to fix.
    pub fn validate(&self) -> Result<(), AggregatorError> {
        let weights = match self {
            Self::Identity => return Ok(()),
            Self::Linear { weights } => weights,
            Self::Cubic { alpha, weights } => {
                if !(alpha.is_finite() && *alpha >= 0.0) {
                    return Err(AggregatorError(format!(
                        "cubic link alpha = {alpha} must be a number >= 0"
                    )));
                }
                weights
            }
        };
        if weights.is_empty() || weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(AggregatorError(format!(
                "menu weights {weights:?} must be non-negative numbers, at least one"
            )));
        }
        let total: f64 = weights.iter().sum();
        if (total - 1.0).abs() > 1e-9 {
            return Err(AggregatorError(format!(
                "menu weights sum to {total}; they must sum to 1 (idempotence)"
            )));
        }
        Ok(())
    }

    /// `f((u_m)_m)`.
    pub fn value(&self, u: &[f64]) -> f64 {
        match self {
            Self::Identity => u[0],
            Self::Linear { weights } => dot(weights, u),
            Self::Cubic { alpha, weights } => {
                let inner: f64 = weights
                    .iter()
                    .zip(u)
                    .map(|(w, &x)| w * link(*alpha, x))
                    .sum();
                inverse_link(*alpha, inner)
            }
        }
    }

    /// `∂f/∂u_m` for every menu at `u`. For the cubic link,
    /// `w_m phi'(u_m) / phi'(f(u))` with `phi'(u) = (1 + 3 alpha u^2) / (1 + alpha)`.
    pub fn gradient(&self, u: &[f64]) -> Vec<f64> {
        match self {
            Self::Identity => vec![1.0],
            Self::Linear { weights } => weights.clone(),
            Self::Cubic { alpha, weights } => {
                let slope = |x: f64| (1.0 + 3.0 * alpha * x * x) / (1.0 + alpha);
                let at = slope(self.value(u));
                weights
                    .iter()
                    .zip(u)
                    .map(|(w, &x)| w * slope(x) / at)
                    .collect()
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// `phi_alpha(u) = (u + alpha u^3) / (1 + alpha)` (Eq. 50).
fn link(alpha: f64, u: f64) -> f64 {
    (u + alpha * u * u * u) / (1.0 + alpha)
}

/// The inverse of the strictly increasing cubic link: the real root of
/// `alpha u^3 + u - (1 + alpha) y = 0`, by Cardano's formula (one real root, since the
/// cubic is increasing), polished by one Newton step.
fn inverse_link(alpha: f64, y: f64) -> f64 {
    if alpha == 0.0 {
        return y;
    }
    // u^3 + p u + q = 0 with p = 1/alpha, q = -(1 + alpha) y / alpha.
    let p = 1.0 / alpha;
    let q = -(1.0 + alpha) * y / alpha;
    let root = (q * q / 4.0 + p * p * p / 27.0).sqrt();
    let mut u = (-q / 2.0 + root).cbrt() + (-q / 2.0 - root).cbrt();
    let slope = (1.0 + 3.0 * alpha * u * u) / (1.0 + alpha);
    u -= (link(alpha, u) - y) / slope;
    u
}
