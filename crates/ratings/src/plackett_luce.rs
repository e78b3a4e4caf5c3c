//! Plackett–Luce by maximum likelihood: the classic global model of rankings (Luce
//! 1959, Plackett 1975). A ranking is built best first, each next choice made from
//! the models not yet placed with probability proportional to their strengths
//! `p_i = exp(beta_i)`:
//!
//! `P(σ) = ∏_t p_{σ_t} / Σ_{s ≥ t} p_{σ_s}`.
//!
//! On a menu of two this is Bradley–Terry; the first stage alone is the choice of a
//! winner from a subset (NashEval's winner-of-three feedback).
//!
//! **Blocks whose order is not observed** — ties in a weak ranking, the unordered top
//! set of a top-r answer, the middle of a best–worst answer — enter through Breslow's
//! approximation (as ties do in Cox's partial likelihood): a block `B` chosen when `R`
//! remain contributes `∏_{i∈B} p_i / (Σ_{s∈R} p_s)^{|B|}`, exact when `|B| = 1`. The
//! last block contributes nothing (once only it remains, its order is never asked),
//! so a declared tie between two models, a ranking of one block, carries no
//! information and is counted but ignored.
//!
//! Fitted by Newton's method on the concave log-likelihood (the shared damped Newton
//! of the strength models: exact Hessian, backtracking, the common shift removed),
//! stopping at `‖∇‖∞ ≤ tol · rankings`. Where the MLE does not exist — the "ranked
//! above" graph is not strongly connected (Hunter 2004, Assumption 1; checked with
//! the Bradley–Terry test on the implied pairwise wins) — the same weak Gaussian prior
//! as Bradley–Terry keeps every strength finite, and the fit says so.

use nalgebra::{DMatrix, DVector};
use rand::Rng;

use crate::bootstrap::replicate_penalty;
use crate::bradley_terry::{DEFAULT_NEWTON_MAX_ITER, DEFAULT_TOLERANCE, LN10_SQUARED};
use crate::method::{RatingKind, RatingMethod, Replicate, Resample};
use crate::newton::{Evaluation, Objective};
use crate::{
    mle_obstacles, EloScale, FitStatus, PairCounts, PairTally, RatingsError, Regularization,
    TieModel, DEFAULT_PRIOR_L2,
};

/// One ranking: blocks of model indices, best first. A block of several models is a
/// set whose internal order was not observed.
pub type Ranking = Vec<Vec<usize>>;

/// Rankings over a fixed set of models.
#[derive(Debug, Clone, PartialEq)]
pub struct Rankings {
    models: usize,
    rankings: Vec<Ranking>,
}

impl Rankings {
    /// Checks and wraps `rankings` of models `0..models`.
    ///
    /// # Errors
    /// [`RatingsError::NotEnoughData`] naming the ranking (from 1) with an empty block,
    /// an index out of range or a model listed twice.
    pub fn new(models: usize, rankings: Vec<Ranking>) -> Result<Self, RatingsError> {
        for (r, ranking) in rankings.iter().enumerate() {
            let mut seen = vec![false; models];
            for block in ranking {
                if block.is_empty() {
                    return Err(RatingsError::NotEnoughData(format!(
                        "ranking {} has an empty block",
                        r + 1
                    )));
                }
                for &m in block {
                    if m >= models || std::mem::replace(&mut seen[m], true) {
                        return Err(RatingsError::NotEnoughData(format!(
                            "ranking {} lists model {m} twice or out of range (models 0..{models})",
                            r + 1
                        )));
                    }
                }
            }
        }
        Ok(Self { models, rankings })
    }

    /// Number of models.
    pub fn models(&self) -> usize {
        self.models
    }

    /// The rankings.
    pub fn rankings(&self) -> &[Ranking] {
        &self.rankings
    }

    /// Number of rankings.
    pub fn len(&self) -> usize {
        self.rankings.len()
    }

    /// Whether there are no rankings.
    pub fn is_empty(&self) -> bool {
        self.rankings.is_empty()
    }

    /// The same models with the rankings `picks` (indices, repeats allowed: a
    /// bootstrap resample).
    pub fn resampled(&self, picks: impl Iterator<Item = usize>) -> Self {
        Self {
            models: self.models,
            rankings: picks.map(|r| self.rankings[r].clone()).collect(),
        }
    }

    /// The pairwise comparisons the rankings imply: `i` beats `j` once for every
    /// ranking that places `i` in an earlier block than `j`; models in one block tie.
    /// For the existence check and the win/loss/tie tallies of a leaderboard.
    pub fn implied_pairs(&self) -> PairCounts {
        let k = self.models;
        let mut cells = vec![[0.0f64; 3]; k * k];
        for ranking in &self.rankings {
            for (b, block) in ranking.iter().enumerate() {
                for (a, &i) in block.iter().enumerate() {
                    for &j in &block[a + 1..] {
                        cells[i.min(j) * k + i.max(j)][2] += 1.0;
                    }
                    for later in &ranking[b + 1..] {
                        for &j in later {
                            let slot = usize::from(i > j);
                            cells[i.min(j) * k + i.max(j)][slot] += 1.0;
                        }
                    }
                }
            }
        }
        let pairs = (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .filter_map(|(i, j)| {
                let [wins_i, wins_j, ties] = cells[i * k + j];
                (wins_i + wins_j + ties > 0.0).then_some(PairTally {
                    i: i as u32,
                    j: j as u32,
                    wins_i,
                    wins_j,
                    ties,
                })
            })
            .collect();
        PairCounts::from_pairs(k, pairs)
    }
}

/// Plackett–Luce settings.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `tol` | 1e-12 | stop at `‖∇‖∞ ≤ tol · rankings` | > 0 |
/// | `max_iter` | 100 | Newton iterations | ≥ 1 |
/// | `l2` | none | ridge `l2/2 Σ (beta_i / ln 10)²`, as Bradley–Terry's | ≥ 0 |
#[derive(Debug, Clone, PartialEq)]
pub struct PlackettLuce {
    /// Stopping tolerance on the gradient per ranking.
    pub tol: f64,
    /// Iteration cap.
    pub max_iter: usize,
    /// Ridge weight in log10-strength units; `None` for the plain MLE (with the
    /// fallback prior where it does not exist).
    pub l2: Option<f64>,
}

impl Default for PlackettLuce {
    fn default() -> Self {
        Self {
            tol: DEFAULT_TOLERANCE,
            max_iter: DEFAULT_NEWTON_MAX_ITER,
            l2: None,
        }
    }
}

/// A fitted Plackett–Luce model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlFit {
    /// Log-strengths `beta_i = ln p_i`, mean zero (unless a penalty pins them).
    pub beta: Vec<f64>,
    /// Newton iterations.
    pub iterations: usize,
    /// `‖∇‖∞` of the penalised negative log-likelihood at the result.
    pub gradient_norm: f64,
    /// Converged or stopped at the cap.
    pub status: FitStatus,
    /// The penalty carried (and why, for the fallback prior).
    pub regularization: Regularization,
    /// Log-likelihood at the result (Breslow's for unordered blocks), no penalty.
    pub log_likelihood: f64,
    /// Rankings that carry no information (a single block).
    pub uninformative: usize,
}

impl PlackettLuce {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a tolerance that is not positive, a zero cap, a
    /// negative or non-finite `l2`.
    pub fn validate(&self) -> Result<(), RatingsError> {
        crate::newton::check_stopping(self.tol, self.max_iter)?;
        if let Some(l2) = self.l2 {
            if !(l2.is_finite() && l2 >= 0.0) {
                return Err(RatingsError::setting("l2", l2, "a non-negative number"));
            }
        }
        Ok(())
    }

    /// The penalty a fit of `rankings` carries.
    pub fn regularization(&self, rankings: &Rankings) -> Regularization {
        match self.l2 {
            Some(l2) if l2 > 0.0 => Regularization::L2 { l2 },
            _ => {
                let obstacles = mle_obstacles(&rankings.implied_pairs(), TieModel::Drop);
                if obstacles.is_empty() {
                    Regularization::None
                } else {
                    Regularization::Prior {
                        l2: DEFAULT_PRIOR_L2,
                        obstacles,
                    }
                }
            }
        }
    }

    /// Fits the model to `rankings` from equal strengths.
    ///
    /// # Errors
    /// Bad settings; fewer than two models; no informative ranking.
    pub fn fit(&self, rankings: &Rankings) -> Result<PlFit, RatingsError> {
        self.validate()?;
        if rankings.models() < 2 {
            return Err(RatingsError::NotEnoughData(format!(
                "Plackett–Luce needs at least 2 models, found {}",
                rankings.models()
            )));
        }
        let regularization = self.regularization(rankings);
        let start = DVector::zeros(rankings.models());
        let fit = self.fit_from(rankings, start, regularization);
        if fit.uninformative == rankings.len() {
            return Err(RatingsError::NotEnoughData(
                "no ranking orders any model above another (every one is a single block)".into(),
            ));
        }
        Ok(fit)
    }

    /// Fits from `start` with a given penalty (a bootstrap replicate starts from the
    /// full-data estimate).
    pub(crate) fn fit_from(
        &self,
        rankings: &Rankings,
        start: DVector<f64>,
        regularization: Regularization,
    ) -> PlFit {
        let problem = Likelihood {
            rankings,
            lambda: regularization.weight() / LN10_SQUARED,
        };
        let threshold = self.tol * (rankings.len().max(1) as f64);
        let (x, evaluation, iterations) = problem.newton(start, threshold, self.max_iter);
        let gradient_norm = evaluation.gradient.amax();
        PlFit {
            beta: x.iter().copied().collect(),
            iterations,
            gradient_norm,
            status: FitStatus::of(gradient_norm, threshold),
            regularization,
            log_likelihood: evaluation.log_likelihood,
            uninformative: rankings.rankings().iter().filter(|r| r.len() < 2).count(),
        }
    }
}

/// The penalised negative log-likelihood of [`PlackettLuce`].
struct Likelihood<'a> {
    rankings: &'a Rankings,
    /// Ridge weight in natural-log units.
    lambda: f64,
}

impl RatingMethod for PlackettLuce {
    type Data = Rankings;
    type Fit = PlFit;

    const KIND: RatingKind = RatingKind::PlackettLuce;

    fn fit(&self, rankings: &Rankings) -> Result<PlFit, RatingsError> {
        PlackettLuce::fit(self, rankings)
    }

    fn scores(&self, fit: &PlFit, scale: &EloScale) -> Vec<f64> {
        scale.scores(&fit.beta)
    }

    /// `P(i ranked above j | menu {i, j}) = 1 / (1 + exp(β_j − β_i))`.
    fn win_probability(&self, fit: &PlFit, i: usize, j: usize) -> f64 {
        1.0 / (1.0 + (fit.beta[j] - fit.beta[i]).exp())
    }

    /// N rankings drawn with replacement, refitted from the full-data estimate with its
    /// penalty (or, for a replicate whose MLE does not exist, the fallback prior).
    fn resample<'a>(
        &'a self,
        rankings: &'a Rankings,
        fit: &'a PlFit,
        scale: &'a EloScale,
    ) -> Result<Resample<'a>, RatingsError> {
        let n = rankings.len();
        let start = DVector::from_vec(fit.beta.clone());
        Ok(Box::new(move |rng| {
            let resampled = rankings.resampled((0..n).map(|_| rng.random_range(0..n)));
            let (regularization, used_prior) =
                replicate_penalty(&fit.regularization, || self.regularization(&resampled));
            let refit = self.fit_from(&resampled, start.clone(), regularization);
            Replicate {
                scores: scale.scores(&refit.beta),
                used_prior,
                converged: refit.status == crate::FitStatus::Converged,
            }
        }))
    }
}

impl Objective for Likelihood<'_> {
    fn models(&self) -> usize {
        self.rankings.models()
    }

    fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Each non-last block `B` with `R` remaining adds `Σ_{i∈B} β_i − |B| log Σ_{s∈R}
    /// e^{β_s}` to the log-likelihood: gradient `1_B − |B| π_R`, Hessian
    /// `−|B| (diag π_R − π_R π_Rᵀ)`, `π_R` the softmax of `β` over `R`.
    fn evaluate(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation {
        let k = self.models();
        let mut gradient = DVector::zeros(k);
        let mut hessian = with_hessian.then(|| DMatrix::zeros(k, k));
        let mut log_likelihood = 0.0;
        let mut remaining: Vec<usize> = Vec::new();
        let mut weights: Vec<f64> = Vec::new();
        for ranking in self.rankings.rankings() {
            let Some((_, chosen_blocks)) = ranking.split_last() else {
                continue;
            };
            remaining.clear();
            remaining.extend(ranking.iter().flatten());
            let mut start = 0;
            for block in chosen_blocks {
                let candidates = &remaining[start..];
                let top = candidates
                    .iter()
                    .map(|&s| x[s])
                    .fold(f64::NEG_INFINITY, f64::max);
                weights.clear();
                weights.extend(candidates.iter().map(|&s| (x[s] - top).exp()));
                let total: f64 = weights.iter().sum();
                let size = block.len() as f64;
                log_likelihood +=
                    block.iter().map(|&i| x[i]).sum::<f64>() - size * (top + total.ln());
                for &i in block {
                    gradient[i] += 1.0;
                }
                for (a, &s) in candidates.iter().enumerate() {
                    let pa = weights[a] / total;
                    gradient[s] -= size * pa;
                    if let Some(h) = hessian.as_mut() {
                        h[(s, s)] -= size * pa;
                        for (b, &u) in candidates.iter().enumerate() {
                            h[(s, u)] += size * pa * weights[b] / total;
                        }
                    }
                }
                start += block.len();
            }
        }
        // Minimise the negative: flip signs, then add the ridge.
        let mut value = -log_likelihood;
        gradient.neg_mut();
        if let Some(h) = hessian.as_mut() {
            h.neg_mut();
        }
        if self.lambda > 0.0 {
            for m in 0..k {
                value += 0.5 * self.lambda * x[m] * x[m];
                gradient[m] += self.lambda * x[m];
                if let Some(h) = hessian.as_mut() {
                    h[(m, m)] += self.lambda;
                }
            }
        }
        Evaluation {
            value,
            gradient,
            hessian,
            log_likelihood,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rankings(models: usize, list: &[&[&[usize]]]) -> Rankings {
        Rankings::new(
            models,
            list.iter()
                .map(|r| r.iter().map(|b| b.to_vec()).collect())
                .collect(),
        )
        .unwrap()
    }

    /// Rankings of two models are Bradley–Terry: 3 wins of a over b and 1 of b over
    /// a give `beta_a − beta_b = ln 3` (closed form of the two-model MLE).
    #[test]
    fn two_model_rankings_are_bradley_terry() {
        let data = rankings(
            2,
            &[&[&[0], &[1]], &[&[0], &[1]], &[&[0], &[1]], &[&[1], &[0]]],
        );
        let fit = PlackettLuce::default().fit(&data).unwrap();
        assert_eq!(fit.status, FitStatus::Converged);
        assert!((fit.beta[0] - fit.beta[1] - 3f64.ln()).abs() < 1e-12);
        assert!(fit.beta.iter().sum::<f64>().abs() < 1e-12);
    }

    /// The log-likelihood of one full ranking (a, b, c) with strengths (1, 2, 3)/6:
    /// `ln(1/6) + ln(2/5)`, the third choice being certain.
    #[test]
    fn log_likelihood_of_a_full_ranking() {
        let data = rankings(3, &[&[&[0], &[1], &[2]]]);
        let x = DVector::from_vec(vec![1f64.ln(), 2f64.ln(), 3f64.ln()]);
        let problem = Likelihood {
            rankings: &data,
            lambda: 0.0,
        };
        let value = problem.evaluate(&x, false).log_likelihood;
        assert!((value - ((1.0f64 / 6.0).ln() + (2.0f64 / 5.0).ln())).abs() < 1e-14);
    }

    /// Gradient and Hessian agree with central differences of the value (a tied
    /// middle block and an uninformative last block included).
    #[test]
    fn derivatives_match_finite_differences() {
        let data = rankings(
            4,
            &[
                &[&[0, 2], &[1], &[3]],
                &[&[3], &[0], &[1, 2]],
                &[&[1], &[2, 3]],
            ],
        );
        let problem = Likelihood {
            rankings: &data,
            lambda: 0.3,
        };
        let x = DVector::from_vec(vec![0.2, -0.4, 0.7, 0.1]);
        let at = problem.evaluate(&x, true);
        let h = 1e-6;
        for i in 0..4 {
            let mut up = x.clone();
            up[i] += h;
            let mut down = x.clone();
            down[i] -= h;
            let (fu, fd) = (problem.evaluate(&up, true), problem.evaluate(&down, true));
            let numeric = (fu.value - fd.value) / (2.0 * h);
            assert!((numeric - at.gradient[i]).abs() < 1e-7, "gradient {i}");
            for j in 0..4 {
                let numeric = (fu.gradient[j] - fd.gradient[j]) / (2.0 * h);
                let exact = at.hessian.as_ref().unwrap()[(i, j)];
                assert!((numeric - exact).abs() < 1e-6, "hessian {i} {j}");
            }
        }
    }

    /// A model never ranked above another has no MLE: the fallback prior is carried
    /// and named; ties and single-block rankings are counted as uninformative.
    #[test]
    fn a_model_that_never_wins_gets_the_prior_and_single_blocks_are_ignored() {
        let data = rankings(3, &[&[&[0], &[1], &[2]], &[&[1], &[0], &[2]], &[&[0, 2]]]);
        let fit = PlackettLuce::default().fit(&data).unwrap();
        assert!(matches!(fit.regularization, Regularization::Prior { .. }));
        assert_eq!(fit.uninformative, 1);
        assert!(fit.beta[2] < fit.beta[0] && fit.beta[2] < fit.beta[1]);
        let tally = data.implied_pairs();
        assert_eq!(tally.battles(), 7.0); // 3 + 3 pairs from the rankings, 1 tie
        assert_eq!(tally.ties(), 1.0);
        let e = Rankings::new(2, vec![vec![vec![0], vec![0]]]).unwrap_err();
        assert!(
            e.to_string().contains("ranking 1 lists model 0 twice"),
            "{e}"
        );
    }
}
