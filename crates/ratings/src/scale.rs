//! The LMArena rating scale: `score_i = scale / ln(base) * beta_i + c`, i.e.
//! `400 * log10(p_i) + c` with the defaults, where `c` puts the mean score at a chosen
//! value (1000) or pins one anchor model at a chosen rating (LMArena pins
//! `mixtral-8x7b-instruct-v0.1` at 1114).

use crate::RatingsError;

/// Where the scale's free constant `c` comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Center {
    /// The mean score equals this value.
    Mean(f64),
    /// Model `model` (an index) scores exactly `rating`.
    Anchor {
        /// Model index.
        model: usize,
        /// Its rating.
        rating: f64,
    },
}

/// Conversion from log-strengths to ratings.
#[derive(Debug, Clone, PartialEq)]
pub struct EloScale {
    /// Points per factor `base` in odds (400).
    pub scale: f64,
    /// The odds base (10).
    pub base: f64,
    /// How the constant is set.
    pub center: Center,
}

impl Default for EloScale {
    fn default() -> Self {
        Self {
            scale: 400.0,
            base: 10.0,
            center: Center::Mean(1000.0),
        }
    }
}

impl EloScale {
    /// Checks scale and base.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a non-positive scale or a base not above 1.
    pub fn validate(&self) -> Result<(), RatingsError> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(RatingsError::setting(
                "scale",
                self.scale,
                "a positive number",
            ));
        }
        if !(self.base.is_finite() && self.base > 1.0) {
            return Err(RatingsError::setting("base", self.base, "a number above 1"));
        }
        Ok(())
    }

    /// Rating points per unit of `beta`: `scale / ln(base)`.
    pub fn factor(&self) -> f64 {
        self.scale / self.base.ln()
    }

    /// Ratings of log-strengths `beta`.
    pub fn scores(&self, beta: &[f64]) -> Vec<f64> {
        let factor = self.factor();
        let offset = match self.center {
            Center::Mean(mean) => mean - factor * beta.iter().sum::<f64>() / beta.len() as f64,
            Center::Anchor { model, rating } => rating - factor * beta[model],
        };
        beta.iter().map(|b| factor * b + offset).collect()
    }

    /// Variances of the ratings given the covariance `cov` of `beta` (row-major K×K).
    pub fn score_variances(&self, cov: &[Vec<f64>]) -> Vec<f64> {
        let k = cov.len();
        let f2 = self.factor() * self.factor();
        match self.center {
            Center::Mean(_) => {
                // Var(b_i - mean b) = C_ii - 2/K sum_j C_ij + 1/K^2 sum_jl C_jl.
                let row_means: Vec<f64> = cov
                    .iter()
                    .map(|r| r.iter().sum::<f64>() / k as f64)
                    .collect();
                let grand = row_means.iter().sum::<f64>() / k as f64;
                (0..k)
                    .map(|i| f2 * (cov[i][i] - 2.0 * row_means[i] + grand).max(0.0))
                    .collect()
            }
            Center::Anchor { model: m, .. } => (0..k)
                .map(|i| f2 * (cov[i][i] + cov[m][m] - 2.0 * cov[i][m]).max(0.0))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_400_log10_of_strength_plus_constant() {
        let beta = [0.0, std::f64::consts::LN_10];
        let mean = EloScale::default().scores(&beta);
        assert!((mean[1] - mean[0] - 400.0).abs() < 1e-12);
        assert!(((mean[0] + mean[1]) / 2.0 - 1000.0).abs() < 1e-12);
        let anchored = EloScale {
            center: Center::Anchor {
                model: 0,
                rating: 1114.0,
            },
            ..EloScale::default()
        };
        assert_eq!(anchored.scores(&beta)[0], 1114.0);
    }
}
