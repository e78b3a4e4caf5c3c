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

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::crossfit::gather;
use crate::learner::LearnerError;
use crate::pairs::PairMap;
use crate::payoff::{
    PairTargets, PayoffLearners, PayoffSurface, SharedRows, TargetRows, TargetTable,
};
use crate::pooled::sampled_cells;
use crate::settings::PayoffRegression;

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

/// The (context, pair) cells a held-out risk is measured on, with Horvitz–Thompson
/// weights, sorted by context. For a large catalogue every cell whose pseudo-outcome
/// carries a correction (weight 1) and a sample of the others (kept with probability
/// `r`, weight `1/r`): the others' pseudo-outcome is the plug-in alone, so their
/// squared errors vary little and a sample estimates their sum without bias, while
/// the candidates are predicted at about `1 + SAMPLED_PAIRS_PER_CONTEXT` cells per
/// context instead of `K(K−1)/2`.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskCells {
    /// `(context, pair)` of each cell.
    pub at: Vec<(usize, usize)>,
    /// Its weight.
    pub weights: Vec<f64>,
    /// Contexts.
    pub contexts: usize,
    /// Pairs per context.
    pub pairs: usize,
}

impl RiskCells {
    /// Every cell of `contexts × pairs`, weight 1.
    pub fn all(contexts: usize, pairs: usize) -> Self {
        Self {
            at: (0..contexts)
                .flat_map(|i| (0..pairs).map(move |p| (i, p)))
                .collect(),
            weights: vec![1.0; contexts * pairs],
            contexts,
            pairs,
        }
    }

    /// Every cell where `carries(context, pair)` and about `per_context` of the others
    /// per context, weighted as [`RiskCells`] says.
    pub fn sampled(
        contexts: usize,
        pairs: usize,
        carries: &dyn Fn(usize, usize) -> bool,
        per_context: usize,
        seed: u64,
    ) -> Self {
        let (at, weights) = sampled_cells(0..contexts, pairs, carries, per_context, seed);
        Self {
            at,
            weights,
            contexts,
            pairs,
        }
    }

    /// `values` (`contexts × pairs`) at the cells.
    pub fn pick(&self, values: &[f64]) -> Vec<f64> {
        self.read(&TargetTable {
            values,
            pairs: self.pairs,
        })
    }

    /// `targets` at the cells.
    pub fn read(&self, targets: &dyn PairTargets) -> Vec<f64> {
        self.at.iter().map(|&(i, p)| targets.value(i, p)).collect()
    }
}

/// `(Γ - clip(â))²` averaged over pairs, for each context: `gamma` and
/// `predictions` one value per cell of `cells` (`gamma` read by [`RiskCells::read`]).
pub fn risk_per_context(gamma: &[f64], predictions: &[f64], cells: &RiskCells) -> Vec<f64> {
    let mut risks = vec![0.0; cells.contexts];
    for (((&(i, _), w), a), g) in cells
        .at
        .iter()
        .zip(&cells.weights)
        .zip(predictions)
        .zip(gamma)
    {
        risks[i] += w * (g - a.clamp(-1.0, 1.0)).powi(2);
    }
    risks.iter_mut().for_each(|r| *r /= cells.pairs as f64);
    risks
}

/// Mean and standard error of `values`.
pub(crate) fn mean_and_error(values: impl ExactSizeIterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.clone().sum::<f64>() / n;
    let variance = values.map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, (variance / n).sqrt())
}

/// `(Γ - clip(â))²` averaged over pairs, per context, then mean and standard error
/// (`gamma` and `predictions` one value per cell of `cells`).
pub fn held_out_risk(
    name: &str,
    gamma: &[f64],
    predictions: &[f64],
    cells: &RiskCells,
) -> CandidateRisk {
    let per_context = risk_per_context(gamma, predictions, cells);
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

/// Out-of-fold predictions of a payoff regression at `cells`: for every fold, the
/// surface regressed on the other folds' pseudo-outcomes `gamma` predicts the fold's
/// cells (unclipped, one value per cell).
///
/// # Errors
/// [`LearnerError`] from the backbone.
// The regression's own inputs plus the folds and cells: grouping them would only
// rename them.
#[allow(clippy::too_many_arguments)]
pub fn out_of_fold_regression(
    features: &[f64],
    columns: usize,
    pairs: &PairMap,
    gamma: &dyn PairTargets,
    folds: &[usize],
    cells: &RiskCells,
    regression: PayoffRegression,
    learners: PayoffLearners<'_>,
    rows: &SharedRows<'_>,
) -> Result<Vec<f64>, LearnerError> {
    let fold_count = folds.iter().max().map_or(0, |f| f + 1);
    let one_fold = |fold: usize| -> Result<Vec<(usize, f64)>, LearnerError> {
        let train: Vec<usize> = (0..folds.len()).filter(|&i| folds[i] != fold).collect();
        let train_targets = TargetRows {
            targets: gamma,
            rows: &train,
        };
        let carries = |r: usize, p: usize| (rows.carries)(train[r], p);
        let surface = PayoffSurface::regress(
            &gather(features, columns, &train),
            columns,
            pairs,
            &train_targets,
            regression,
            learners,
            &SharedRows {
                carries: &carries,
                seed: rows.seed ^ fold as u64,
            },
        )?;
        let held: Vec<usize> = (0..cells.at.len())
            .filter(|&c| folds[cells.at[c].0] == fold)
            .collect();
        let at: Vec<(usize, usize)> = held.iter().map(|&c| cells.at[c]).collect();
        Ok(held
            .into_iter()
            .zip(surface.values_at(features, columns, pairs, &at))
            .collect())
    };
    // The structured regression's perceptron is single-threaded, so its folds run
    // in parallel; LightGBM already uses every core itself.
    let per_fold: Vec<Result<Vec<(usize, f64)>, LearnerError>> =
        if regression == PayoffRegression::Structured {
            (0..fold_count).into_par_iter().map(one_fold).collect()
        } else {
            (0..fold_count).map(one_fold).collect()
        };
    let mut out = vec![0.0; cells.at.len()];
    for values in per_fold {
        for (c, v) in values? {
            out[c] = v;
        }
    }
    Ok(out)
}
