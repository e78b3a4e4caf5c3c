//! Whether the learned policy depends on the context at all: its distance, over the
//! training contexts (at most [`MEASURED_CONTEXTS`], evenly spaced), from one global
//! policy — the equilibrium of the mean game `Ā = (1/n) Σ_i Â(X_i)` of the model's own
//! surface under the fit's own settings — with `pi(X_i)` the model's policy as
//! `predict` and `serve` give it. A router whose every context
//! plays the global policy ignores the prompt, however many features it was given;
//! the fit's summary says so instead of leaving it to be found in production.

use serde::{Deserialize, Serialize};
use verdict_game::PayoffMatrix;

use crate::gap::{payoff_matrices, GameSet};
use crate::{FitError, NashEvalModel};

/// Most training contexts the dependence is measured on (evenly spaced), so that it
/// costs a fit of any size at most this many policy evaluations.
pub const MEASURED_CONTEXTS: usize = 5000;

/// The dependence of `model`'s policy on the context over the training `features`
/// (`contexts × features`); `None` with no context.
///
/// # Errors
/// The policy's errors.
pub fn measure(
    model: &NashEvalModel,
    features: &[f64],
) -> Result<Option<ContextDependence>, FitError> {
    let width = model.feature_names.len().max(1);
    let n = features.len() / width;
    if n == 0 {
        return Ok(None);
    }
    let step = n.div_ceil(MEASURED_CONTEXTS).max(1);
    let sample: Vec<f64> = features
        .chunks(width)
        .step_by(step)
        .flatten()
        .copied()
        .collect();
    let policies = model.policy(&sample)?;
    let games = payoff_matrices(&model.payoffs(&sample), model.agents.len());
    let Some(mean) = mean_game(&games) else {
        return Ok(None);
    };
    Ok(model
        .equilibrium()
        .solve(&mean)
        .ok()
        .map(|global| context_dependence(&policies, model.agents.len(), global.probabilities)))
}

/// How far a policy strays from the global one over a set of contexts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextDependence {
    /// Contexts measured.
    pub contexts: usize,
    /// The global policy: the equilibrium of the mean game, in agent order.
    pub global: Vec<f64>,
    /// Share of contexts whose most probable agent is not the global policy's (the
    /// first in agent order among equals, on both sides).
    pub argmax_differs: f64,
    /// Mean total-variation distance `½ Σ_j |pi_j(X_i) − pī_j|` to the global policy.
    pub mean_total_variation: f64,
}

/// The mean game of `games`, summed a chunk at a time.
pub(crate) fn mean_game<G: GameSet + ?Sized>(games: &G) -> Option<PayoffMatrix> {
    let (n, k) = (games.len(), games.agents());
    if n == 0 || k == 0 {
        return None;
    }
    let mut sum = vec![0.0; k * k];
    for start in (0..n).step_by(1024) {
        for game in games.games(start..n.min(start + 1024)) {
            for j in 0..k {
                for l in 0..k {
                    sum[j * k + l] += game.get(j, l);
                }
            }
        }
    }
    sum.iter_mut().for_each(|v| *v /= n as f64);
    PayoffMatrix::from_row_major(&sum, k).ok()
}

/// The dependence of `policies` (`contexts × k`, row-major) on the context, against
/// `global`.
pub fn context_dependence(policies: &[f64], k: usize, global: Vec<f64>) -> ContextDependence {
    let argmax = |p: &[f64]| {
        p.iter()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (j, &v)| {
                if v > best.1 {
                    (j, v)
                } else {
                    best
                }
            })
            .0
    };
    let global_best = argmax(&global);
    let rows: Vec<&[f64]> = policies.chunks(k.max(1)).collect();
    let n = rows.len().max(1) as f64;
    let differs = rows.iter().filter(|p| argmax(p) != global_best).count() as f64;
    let tv: f64 = rows
        .iter()
        .map(|p| {
            0.5 * p
                .iter()
                .zip(&global)
                .map(|(a, b)| (a - b).abs())
                .sum::<f64>()
        })
        .sum();
    ContextDependence {
        contexts: rows.len(),
        global,
        argmax_differs: differs / n,
        mean_total_variation: tv / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_policy_does_not_depend_and_a_split_one_does() {
        let global = vec![0.5, 0.5, 0.0];
        let same = [0.5, 0.5, 0.0, 0.5, 0.5, 0.0];
        let none = context_dependence(&same, 3, global.clone());
        assert_eq!((none.argmax_differs, none.mean_total_variation), (0.0, 0.0));
        // Context 1 plays agent 2 alone: its argmax differs, at distance 1; context 0
        // plays agent 0 alone: same argmax (agent 0 first among the global's equals),
        // distance ½(0.5 + 0.5) = 0.5.
        let split = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let d = context_dependence(&split, 3, global);
        assert_eq!(d.contexts, 2);
        assert!((d.argmax_differs - 0.5).abs() < 1e-15);
        assert!((d.mean_total_variation - 0.75).abs() < 1e-15);
    }
}
