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
    /// Interior-point iterations.
    pub iterations: u32,
    /// Proved to be the only maximal lottery (then canonical under any criterion).
    /// `false` means not proved: several may exist and this is the canonical one of
    /// the function that returned it.
    pub unique: bool,
}
