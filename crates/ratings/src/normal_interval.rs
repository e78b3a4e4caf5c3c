//! Normal (Wald) intervals: `estimate ± z · se` with `z = Φ⁻¹(1/2 + level/2)`, the
//! standard normal quantile — the intervals of a sandwich covariance (LMArena's
//! default boards, the grounded Rao–Kupper model, style control's coefficients).

use statrs::distribution::{ContinuousCDF, Normal};

/// `Φ⁻¹(1/2 + level/2)`: the half-width of a two-sided normal interval at `level`,
/// in standard errors (1.959963984540054 at 0.95).
pub fn normal_quantile(level: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("the standard normal")
        .inverse_cdf(0.5 + level / 2.0)
}

/// `1 − Φ(z)`: the one-sided upper tail of the standard normal (a z-test's p-value).
pub fn normal_upper_tail(z: f64) -> f64 {
    Normal::new(0.0, 1.0).expect("the standard normal").sf(z)
}

/// The two-sided normal interval `estimate ± z · se` at `level` of each estimate with
/// its standard error.
pub fn normal_intervals(
    estimates: &[f64],
    standard_errors: impl IntoIterator<Item = f64>,
    level: f64,
) -> Vec<(f64, f64)> {
    let z = normal_quantile(level);
    estimates
        .iter()
        .zip(standard_errors)
        .map(|(estimate, se)| (estimate - z * se, estimate + z * se))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy.stats.norm.ppf(0.975) = 1.959963984540054 and norm.ppf(0.95) =
    /// 1.6448536269514722: the quantiles statistics tables print.
    #[test]
    fn quantiles_match_the_standard_normal() {
        assert!((normal_quantile(0.95) - 1.959963984540054).abs() < 1e-12);
        assert!((normal_quantile(0.90) - 1.6448536269514722).abs() < 1e-12);
    }

    #[test]
    fn an_interval_is_the_estimate_plus_and_minus_z_standard_errors() {
        let bounds = normal_intervals(&[10.0, -1.0], [2.0, 0.0], 0.95);
        let half = 2.0 * 1.959963984540054;
        assert!((bounds[0].0 - (10.0 - half)).abs() < 1e-12);
        assert!((bounds[0].1 - (10.0 + half)).abs() < 1e-12);
        assert_eq!(bounds[1], (-1.0, -1.0));
    }
}
