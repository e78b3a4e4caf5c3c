//! The EIF-based pseudo-outcome of one pair's payoff (NashEval Eq. 42):
//!
//! ```text
//! Gamma_jk(O; eta) = f_jk((mu^m_jk(X))_m)                                  (plug-in)
//!                  + sum_m ∂f_jk/∂u_m((mu^m'_jk(X))_m') · S^m / e^m(X) · (Z^m_jk − mu^m_jk(X))
//! ```
//!
//! over the menus `m ∈ Q_jk` holding the pair; the correction counts only observed
//! menus (`S^m = 1`). With the true nuisances its conditional mean is `A_jk(x)`
//! (Theorem 1 (i)), and its mean is first-order insensitive to errors in `mu` and `e`
//! (Neyman orthogonality, Theorem 1 (ii)).

use crate::aggregator::Aggregator;

/// What one context shows about one pair in one menu holding it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MenuObservation {
    /// Outcome model `mu^m_jk(x)`.
    pub outcome: f64,
    /// Selection propensity `e^m(x)` (clipped away from zero by the caller).
    pub propensity: f64,
    /// The verdict `Z^m_jk` when the menu was selected (`S^m = 1`), else `None`.
    pub verdict: Option<f64>,
}

/// The plug-in payoff `f_jk((mu^m_jk(x))_m)` (Eq. 8).
pub fn plugin_payoff(aggregator: &Aggregator, menus: &[MenuObservation]) -> f64 {
    let u: Vec<f64> = menus.iter().map(|m| m.outcome).collect();
    aggregator.value(&u)
}

/// `Gamma_jk(O; eta)` of Eq. 42 for one context and pair, its menus in the
/// aggregator's order.
pub fn pseudo_outcome(aggregator: &Aggregator, menus: &[MenuObservation]) -> f64 {
    let u: Vec<f64> = menus.iter().map(|m| m.outcome).collect();
    let gradient = aggregator.gradient(&u);
    let correction: f64 = menus
        .iter()
        .zip(&gradient)
        .filter_map(|(m, d)| m.verdict.map(|z| d * (z - m.outcome) / m.propensity))
        .sum();
    aggregator.value(&u) + correction
}
