//! Choosing the payoff pipeline with data rather than faith.
//!
//! The cross-fitted pseudo-outcomes `Γ_i,jk` (Eq. 42) are doubly robust: with either a
//! correct propensity or a correct outcome model, `E[Γ | X] = A(X)`. So for a candidate
//! surface `â` fitted without context `i`'s fold,
//! `E[(Γ - â(X))²] = E[(A(X) - â(X))²] + E[Var(Γ | X)]`: the held-out squared error
//! against the pseudo-outcomes ranks candidates by their true mean squared error
//! against `A`, up to a constant shared by all candidates. The plug-in candidate is the
//! out-of-fold outcome models themselves; a regressed candidate is refitted fold by
//! fold on the other folds' pseudo-outcomes.

use serde::{Deserialize, Serialize};

use crate::backbone::Backbone;
use crate::crossfit::gather;
use crate::learner::LearnerError;
use crate::pairs::PairMap;
use crate::payoff::{PayoffRegression, PayoffSurface};

/// One candidate's held-out risk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateRisk {
    /// `plugin`, `debiased-shared` or `debiased-per-pair`.
    pub name: String,
    /// Mean over contexts and pairs of `(Γ - clip(â))²`.
    pub risk: f64,
    /// Its standard error over contexts.
    pub standard_error: f64,
}

/// `(Γ - clip(â))²` averaged over pairs, per context, then mean and standard error.
pub fn held_out_risk(
    name: &str,
    gamma: &[f64],
    predictions: &[f64],
    pairs: usize,
) -> CandidateRisk {
    let per_context: Vec<f64> = gamma
        .chunks(pairs)
        .zip(predictions.chunks(pairs))
        .map(|(g, a)| {
            g.iter()
                .zip(a)
                .map(|(g, a)| (g - a.clamp(-1.0, 1.0)).powi(2))
                .sum::<f64>()
                / pairs as f64
        })
        .collect();
    let n = per_context.len().max(1) as f64;
    let risk = per_context.iter().sum::<f64>() / n;
    let variance = per_context.iter().map(|r| (r - risk).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    CandidateRisk {
        name: name.to_string(),
        risk,
        standard_error: (variance / n).sqrt(),
    }
}

/// Out-of-fold predictions of a payoff regression: for every fold, the surface
/// regressed on the other folds' `gamma` predicts the fold's contexts
/// (`contexts × pairs`, unclipped).
///
/// # Errors
/// [`LearnerError`] from the backbone.
pub fn out_of_fold_regression(
    features: &[f64],
    columns: usize,
    pairs: &PairMap,
    gamma: &[f64],
    folds: &[usize],
    regression: PayoffRegression,
    backbone: &Backbone,
) -> Result<Vec<f64>, LearnerError> {
    let npairs = pairs.pairs.len();
    let fold_count = folds.iter().max().map_or(0, |f| f + 1);
    let mut out = vec![0.0; gamma.len()];
    for fold in 0..fold_count {
        let (held, train): (Vec<usize>, Vec<usize>) =
            (0..folds.len()).partition(|&i| folds[i] == fold);
        let train_targets = gather(gamma, npairs, &train);
        let surface = PayoffSurface::regress(
            &gather(features, columns, &train),
            columns,
            pairs,
            &train_targets,
            regression,
            backbone,
        )?;
        let predicted = surface.pair_values(&gather(features, columns, &held), columns, pairs);
        for (r, &i) in held.iter().enumerate() {
            out[i * npairs..(i + 1) * npairs]
                .copy_from_slice(&predicted[r * npairs..(r + 1) * npairs]);
        }
    }
    Ok(out)
}
