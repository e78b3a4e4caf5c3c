//! The empirical gap loss of NashEval Eq. 17,
//! `L_n(theta) = (1/n) sum_i G_Omega(pi_theta(X_i); Â(X_i))`, with the Danskin gradient
//! of Eq. 33 (`-A T(pi) + grad Omega(pi)`: no derivative through the best response)
//! taken through a softmax output layer, for the linear price of Eq. 20 or the soft
//! budget of Eq. 52–53.

use verdict_game::{PayoffMatrix, Regularizer, SoftRegularizer};

/// Reusable buffers for [`GapLoss::softmax_gradient`].
#[derive(Debug, Default)]
pub struct GapScratch {
    sort: Vec<f64>,
    response: Vec<f64>,
    gradient: Vec<f64>,
}

/// The per-context gap and its gradient for the fit's regularizer `Omega`.
#[derive(Debug, Clone, PartialEq)]
pub enum GapLoss {
    /// `rho/2 ||pi - 1/K||^2 + c^T pi` (Eq. 74 with the linear price of Eq. 20).
    Priced(Regularizer),
    /// `rho/2 ||pi - 1/K||^2 + phi(c^T pi)` (the soft budget, Eq. 52–53).
    SoftBudget(SoftRegularizer),
}

impl GapLoss {
    /// `G_Omega(pi; A)` (Eq. 30).
    pub fn value(&self, a: &PayoffMatrix, pi: &[f64], scratch: &mut GapScratch) -> f64 {
        scratch.response.resize(pi.len(), 0.0);
        let (sort, response) = (&mut scratch.sort, &mut scratch.response);
        match self {
            Self::Priced(regularizer) => regularizer.gap(a, pi, sort, response),
            Self::SoftBudget(regularizer) => regularizer.gap(a, pi, sort, response),
        }
    }

    /// `G_Omega(softmax(z); A)` and its gradient with respect to the logits `z`,
    /// written into `logit_gradient`: with `g = grad_pi G` (Eq. 33),
    /// `dG/dz = pi ⊙ (g - <pi, g>)` (the softmax Jacobian).
    pub fn softmax_gradient(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut GapScratch,
        logit_gradient: &mut [f64],
    ) -> f64 {
        let gap = self.value(a, pi, scratch);
        scratch.gradient.resize(pi.len(), 0.0);
        let (response, gradient) = (&scratch.response, &mut scratch.gradient);
        match self {
            Self::Priced(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
            Self::SoftBudget(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
        }
        let mean: f64 = pi.iter().zip(&scratch.gradient).map(|(p, g)| p * g).sum();
        for ((out, p), g) in logit_gradient.iter_mut().zip(pi).zip(&scratch.gradient) {
            *out = p * (g - mean);
        }
        gap
    }

    /// The mean gap of `policies` (`contexts × K`) on `games`.
    pub fn mean(&self, games: &[PayoffMatrix], policies: &[f64]) -> f64 {
        let mut scratch = GapScratch::default();
        let k = games.first().map_or(1, PayoffMatrix::agents);
        let total: f64 = games
            .iter()
            .zip(policies.chunks(k))
            .map(|(a, pi)| self.value(a, pi, &mut scratch))
            .sum();
        total / games.len().max(1) as f64
    }
}

/// `K × K` row-major matrices as [`PayoffMatrix`] values.
///
/// # Panics
/// When a matrix is not a valid payoff matrix (the payoff surfaces build them
/// clipped and antisymmetric, so this is a bug).
pub fn payoff_matrices(values: &[f64], agents: usize) -> Vec<PayoffMatrix> {
    values
        .chunks(agents * agents)
        .map(|m| {
            PayoffMatrix::from_row_major(m, agents).expect("a clipped antisymmetric payoff matrix")
        })
        .collect()
}
