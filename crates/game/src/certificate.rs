//! An equilibrium with its certificate: what every solver of this crate returns.

/// Largest exploitability of a certified equilibrium.
pub const GAP_TOLERANCE: f64 = 1e-9;

/// Whether a lottery met [`GAP_TOLERANCE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LotteryStatus {
    /// Gap ≤ [`GAP_TOLERANCE`].
    Certified,
    /// The solver's best answer misses the tolerance; its exploitability is reported.
    Uncertified,
}

/// A maximal lottery with its certificate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Lottery {
    /// Probability of each agent.
    pub probabilities: Vec<f64>,
    /// The certificate: the gap `G_Omega(pi)` (Eq. 30), which for the maximal lottery
    /// (`rho = 0`, no costs) is the exploitability `max_j (A pi)_j` (Eq. 69).
    pub gap: f64,
    /// Certified or not.
    pub status: LotteryStatus,
    /// Solver iterations: interior-point steps, or the pivots of the regularized
    /// equilibrium's fast path.
    pub iterations: u32,
    /// Proved to be the only maximal lottery (then canonical under any criterion).
    /// `false` means not proved: several may exist and this is the canonical one of
    /// the function that returned it.
    pub unique: bool,
}

/// How close two probabilities of one equilibrium may be and still be told apart: the
/// solver's certified tolerance. Closer ones are the same number up to the solver's
/// rounding (a symmetric game's 1/7 comes out as 0.14285714285714296, …288, …282).
pub const TIE_TOLERANCE: f64 = GAP_TOLERANCE;

/// `probabilities` with every group of near-equal values ([`TIE_TOLERANCE`]) replaced
/// by the group's mean, so that ranks and orders follow the equilibrium rather than
/// floating-point noise. Groups are formed from the largest value down, each holding
/// the values within `tolerance` of its first (largest) member; the sum is kept up to
/// rounding, and each value moves by at most `tolerance`.
pub fn merge_near_ties(probabilities: &[f64], tolerance: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..probabilities.len()).collect();
    order.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
    let mut merged = probabilities.to_vec();
    let mut start = 0;
    while start < order.len() {
        let first = probabilities[order[start]];
        let end = start
            + order[start..]
                .iter()
                .take_while(|&&m| first - probabilities[m] <= tolerance)
                .count();
        let group = &order[start..end];
        let mean = group.iter().map(|&m| probabilities[m]).sum::<f64>() / group.len() as f64;
        for &m in group {
            merged[m] = mean;
        }
        start = end;
    }
    merged
}

#[cfg(test)]
mod tie_tests {
    use super::*;

    #[test]
    fn rounding_noise_merges_and_real_differences_stay() {
        let noisy = [
            0.142_857_142_857_142_96,
            0.142_857_142_857_142_88,
            0.142_857_142_857_142_82,
        ];
        let merged = merge_near_ties(&noisy, TIE_TOLERANCE);
        assert!(merged.iter().all(|&p| p == merged[0]), "{merged:?}");
        assert!((merged[0] - noisy.iter().sum::<f64>() / 3.0).abs() < 1e-17);
        let distinct = [0.5, 0.3, 0.2, 0.0];
        assert_eq!(merge_near_ties(&distinct, TIE_TOLERANCE), distinct);
    }

    #[test]
    fn a_chain_of_small_steps_does_not_merge_beyond_the_tolerance() {
        // Each step is below the tolerance, the whole chain is not.
        let chain: Vec<f64> = (0..5).map(|i| 0.5 - f64::from(i) * 0.6e-9).collect();
        let merged = merge_near_ties(&chain, TIE_TOLERANCE);
        assert_eq!(merged[0], merged[1]);
        assert_ne!(merged[0], merged[4]);
    }
}
