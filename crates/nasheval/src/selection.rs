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
use crate::payoff::{PayoffRegression, PayoffSurface, SharedRows};

/// One candidate's held-out risk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateRisk {
    /// `plugin`, `debiased-shared` or `debiased-per-pair`.
    pub name: String,
    /// Mean over contexts and pairs of `(Γ - clip(â))²`.
    pub risk: f64,
    /// Its standard error over contexts.
    pub standard_error: f64,
    /// The mean per-context difference of this candidate's risk from the first
    /// candidate's (the plug-in) and its standard error. The candidates share the
    /// pseudo-outcomes, whose variance dominates each risk, so the paired difference
    /// is far more precise than the two risks' own standard errors suggest.
    #[serde(default)]
    pub difference: Option<(f64, f64)>,
}

/// `(Γ - clip(â))²` averaged over pairs, for each context.
pub fn risk_per_context(gamma: &[f64], predictions: &[f64], pairs: usize) -> Vec<f64> {
    gamma
        .chunks(pairs)
        .zip(predictions.chunks(pairs))
        .map(|(g, a)| {
            g.iter()
                .zip(a)
                .map(|(g, a)| (g - a.clamp(-1.0, 1.0)).powi(2))
                .sum::<f64>()
                / pairs as f64
        })
        .collect()
}

/// Mean and standard error of `values`.
fn mean_and_error(values: impl ExactSizeIterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.clone().sum::<f64>() / n;
    let variance = values.map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, (variance / n).sqrt())
}

/// `(Γ - clip(â))²` averaged over pairs, per context, then mean and standard error.
pub fn held_out_risk(
    name: &str,
    gamma: &[f64],
    predictions: &[f64],
    pairs: usize,
) -> CandidateRisk {
    let per_context = risk_per_context(gamma, predictions, pairs);
    let (risk, standard_error) = mean_and_error(per_context.iter().copied());
    CandidateRisk {
        name: name.to_string(),
        risk,
        standard_error,
        difference: None,
    }
}

/// The paired difference `candidate − reference` of per-context risks: mean and
/// standard error.
pub fn paired_difference(candidate: &[f64], reference: &[f64]) -> (f64, f64) {
    mean_and_error(candidate.iter().zip(reference).map(|(c, r)| c - r))
}

/// Out-of-fold predictions of a payoff regression: for every fold, the surface
/// regressed on the other folds' `gamma` predicts the fold's contexts
/// (`contexts × pairs`, unclipped).
///
/// # Errors
/// [`LearnerError`] from the backbone.
// The regression's own inputs plus the folds: grouping them would only rename them.
#[allow(clippy::too_many_arguments)]
pub fn out_of_fold_regression(
    features: &[f64],
    columns: usize,
    pairs: &PairMap,
    gamma: &[f64],
    folds: &[usize],
    regression: PayoffRegression,
    backbone: &Backbone,
    rows: &SharedRows<'_>,
) -> Result<Vec<f64>, LearnerError> {
    let npairs = pairs.pairs.len();
    let fold_count = folds.iter().max().map_or(0, |f| f + 1);
    let mut out = vec![0.0; gamma.len()];
    for fold in 0..fold_count {
        let (held, train): (Vec<usize>, Vec<usize>) =
            (0..folds.len()).partition(|&i| folds[i] == fold);
        let train_targets = gather(gamma, npairs, &train);
        let carries = |r: usize, p: usize| (rows.carries)(train[r], p);
        let surface = PayoffSurface::regress(
            &gather(features, columns, &train),
            columns,
            pairs,
            &train_targets,
            regression,
            backbone,
            &SharedRows {
                carries: &carries,
                seed: rows.seed ^ fold as u64,
            },
        )?;
        let predicted = surface.pair_values(&gather(features, columns, &held), columns, pairs);
        for (r, &i) in held.iter().enumerate() {
            out[i * npairs..(i + 1) * npairs]
                .copy_from_slice(&predicted[r * npairs..(r + 1) * npairs]);
        }
    }
    Ok(out)
}
