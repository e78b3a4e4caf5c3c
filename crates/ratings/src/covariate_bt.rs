//! Bradley–Terry with battle covariates: LMArena's "style control" (FastChat
//! `compute_style_control`, 2024; arena-rank `ContextualBradleyTerry`, 2025).
//!
//! `P(a beats b | z) = σ(β_a − β_b + zᵀθ)`, with `z` the battle's covariates (signed
//! from `a`'s side: the normalized length difference of the two answers, say) and `θ`
//! their coefficients. The model scores `β` are the ratings with the covariates held
//! at zero: "style-controlled" when the covariates are style.
//!
//! The fit minimises arena-rank's objective
//!
//! `f(β, θ) = −(1/n) Σ_i c_i w_i [y_i s_i − softplus(s_i)] + (reg/2) ‖θ‖²`,
//! `s_i = β_a − β_b + z_iᵀθ`,
//!
//! with `y = 1, 0, ½` for a win of `a`, of `b`, a tie of either kind; `c_i` the times
//! battle `i` is counted (1, or its bootstrap multiplicity, `Σ c_i = n`); `w_i` an
//! optional pair weight `1 / max(n_pair, m)` normalized to mean 1 (arena-rank's
//! `reweighted`, `m = min_pair_count`); and `z` standardized to mean 0 and population
//! standard deviation 1 (a constant column is left at 0), as both references do. Only
//! the coefficients are penalized; the ratings are centred to mean zero. Solved by
//! damped Newton with the exact Hessian (a convex problem: the optimum, not an
//! approximation of it).

use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;
use verdict_feedback::BattleLog;

use crate::bootstrap::replicate_penalty;
use crate::bradley_terry::{DEFAULT_NEWTON_MAX_ITER, LN10_SQUARED};
use crate::method::round_rng;
use crate::newton::{check_stopping, Evaluation, Objective};
use crate::{
    Bootstrap, BootstrapDraws, EloScale, FitStatus, PairCounts, RatingsError, Regularization,
};

/// Default stopping tolerance on `‖∇f‖∞` (the objective is a mean over battles).
pub const DEFAULT_COVARIATE_TOLERANCE: f64 = 1e-12;

/// arena-rank's default `min_pair_count` for pair weights.
pub const DEFAULT_MIN_PAIR_COUNT: f64 = 50.0;

/// Battles with numeric covariates, one row per battle.
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateBattles {
    models: usize,
    a: Vec<u32>,
    b: Vec<u32>,
    outcome: Vec<f64>,
    names: Vec<String>,
    /// Battles × covariates, row-major, as given.
    values: Vec<f64>,
}

impl CovariateBattles {
    /// The battles of `log` with covariate `names[j]` taking `columns[j][r]` at battle
    /// `r`.
    ///
    /// # Errors
    /// [`RatingsError::NotEnoughData`] for no covariate, a column whose length is not
    /// the log's, or a value that is not finite (named by covariate and battle).
    pub fn new(
        log: &BattleLog,
        names: Vec<String>,
        columns: &[Vec<f64>],
    ) -> Result<Self, RatingsError> {
        if names.is_empty() || names.len() != columns.len() {
            return Err(RatingsError::NotEnoughData(
                "covariates need at least one named column".into(),
            ));
        }
        let n = log.len();
        for (name, column) in names.iter().zip(columns) {
            if column.len() != n {
                return Err(RatingsError::NotEnoughData(format!(
                    "covariate {name} has {} values for {n} battles",
                    column.len()
                )));
            }
            if let Some(r) = column.iter().position(|v| !v.is_finite()) {
                return Err(RatingsError::NotEnoughData(format!(
                    "covariate {name} is {} at battle {}; every value must be a finite number",
                    column[r],
                    r + 1
                )));
            }
        }
        let p = names.len();
        let mut values = vec![0.0; n * p];
        for (j, column) in columns.iter().enumerate() {
            for (r, &v) in column.iter().enumerate() {
                values[r * p + j] = v;
            }
        }
        let (mut a, mut b, mut outcome) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (ma, mb, result) in log.iter() {
            a.push(ma.index() as u32);
            b.push(mb.index() as u32);
            outcome.push(result.score_a());
        }
        Ok(Self {
            models: log.models().len(),
            a,
            b,
            outcome,
            names,
            values,
        })
    }

    /// Number of battles.
    pub fn len(&self) -> usize {
        self.outcome.len()
    }

    /// True when there is no battle.
    pub fn is_empty(&self) -> bool {
        self.outcome.is_empty()
    }

    /// Number of models.
    pub fn models(&self) -> usize {
        self.models
    }

    /// The covariates' names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The (pair, outcome) counts of the battles, as the plain Bradley–Terry fit
    /// reads them.
    pub fn pair_counts(&self) -> PairCounts {
        self.counts_of(None)
    }

    /// The pair counts with battle `r` counted `multiplicity[r]` times.
    fn counts_of(&self, multiplicity: Option<&[u32]>) -> PairCounts {
        let mut builder = verdict_feedback::PairCountsBuilder::default();
        for r in 0..self.len() {
            let times = multiplicity.map_or(1.0, |m| f64::from(m[r]));
            if times == 0.0 {
                continue;
            }
            let y = self.outcome[r];
            let cells = if y == 1.0 {
                [1.0, 0.0, 0.0]
            } else if y == 0.0 {
                [0.0, 1.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            };
            builder.add(self.a[r], self.b[r], cells.map(|c| c * times));
        }
        builder.finish(self.models)
    }
}

/// Settings of the covariate fit.
///
/// | Name | Default | Meaning | arena-rank |
/// |---|---|---|---|
/// | `reg` | 0 | L2 penalty on the coefficients, `(reg/2)‖θ‖²` on the mean loss | `reg` = 1.0 |
/// | `standardize` | true | covariates to mean 0, sd 1 before the fit | `normalize_features` = True |
/// | `pair_weights` | none | weight `1/max(n_pair, m)`, normalized to mean 1 | `reweighted` = True, `m` = 50 |
/// | `tol` | 1e-12 | stop when `‖∇f‖∞ ≤ tol` | `gtol` = 1e-9 |
/// | `max_iter` | 100 | Newton iterations, reported when hit | |
///
/// The defaults give the maximum-likelihood estimate, which recovers the generating
/// coefficients as battles grow; arena-rank's `reg = 1` on a mean loss shrinks the
/// coefficients by a factor of about `1 + 4·reg` for standardized covariates however
/// many battles there are. `reg = 1` with pair weights of `m = 50` reproduces
/// arena-rank's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateBradleyTerry {
    /// Penalty on the coefficients.
    pub reg: f64,
    /// Standardize the covariates.
    pub standardize: bool,
    /// Pair weights with this minimum pair count, or none.
    pub pair_weights: Option<f64>,
    /// Stopping tolerance on the gradient.
    pub tol: f64,
    /// Iteration cap.
    pub max_iter: usize,
}

impl Default for CovariateBradleyTerry {
    fn default() -> Self {
        Self {
            reg: 0.0,
            standardize: true,
            pair_weights: None,
            tol: DEFAULT_COVARIATE_TOLERANCE,
            max_iter: DEFAULT_NEWTON_MAX_ITER,
        }
    }
}

/// A fitted covariate model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CovariateFit {
    /// Model log-strengths, centred to mean zero.
    pub beta: Vec<f64>,
    /// Coefficients per standard deviation of each covariate (per unit when not
    /// standardized).
    pub theta: Vec<f64>,
    /// Each covariate's mean and standard deviation as used (0 and 1 when not
    /// standardized).
    pub standardization: Vec<(f64, f64)>,
    /// Iterations run.
    pub iterations: usize,
    /// `‖∇f‖∞` at the result.
    pub gradient_norm: f64,
    /// Converged or stopped at the cap.
    pub status: FitStatus,
    /// The fallback prior on the ratings where their MLE does not exist.
    pub regularization: Regularization,
    /// Mean weighted log-likelihood per battle at the result.
    pub log_likelihood: f64,
}

/// Sandwich variances of a covariate fit (arena-rank's `ci_method="sandwich"`).
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateVariances {
    /// Variance of each model's log-strength.
    pub ratings: Vec<f64>,
    /// Variance of each coefficient.
    pub coefficients: Vec<f64>,
}

/// Bootstrap replicates of a covariate fit.
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateDraws {
    /// Model scores (on the rating scale) of every replicate.
    pub ratings: BootstrapDraws,
    /// `coefficients[r][j]`: coefficient j in replicate r.
    pub coefficients: Vec<Vec<f64>>,
}

impl CovariateBradleyTerry {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a negative or non-finite `reg`, a tolerance that
    /// is not positive, a zero iteration cap, or a minimum pair count below 1.
    pub fn validate(&self) -> Result<(), RatingsError> {
        if !(self.reg.is_finite() && self.reg >= 0.0) {
            return Err(RatingsError::setting(
                "reg",
                self.reg,
                "a non-negative number",
            ));
        }
        check_stopping(self.tol, self.max_iter)?;
        if let Some(m) = self.pair_weights {
            if !(m.is_finite() && m >= 1.0) {
                return Err(RatingsError::setting(
                    "min_pair_count",
                    m,
                    "a number of at least 1",
                ));
            }
        }
        Ok(())
    }

    /// Fits the model to `battles`.
    ///
    /// # Errors
    /// Bad settings, fewer than two models, no battle, or a Hessian that cannot be
    /// factored (covariates that are collinear with each other or with the models).
    pub fn fit(&self, battles: &CovariateBattles) -> Result<CovariateFit, RatingsError> {
        self.validate()?;
        if battles.models < 2 || battles.is_empty() {
            return Err(RatingsError::NotEnoughData(format!(
                "a leaderboard needs at least 2 models and a battle, found {} models and {} battles",
                battles.models,
                battles.len()
            )));
        }
        let design = Design::new(battles, self);
        let regularization = ratings_penalty(&battles.pair_counts());
        let problem = design.problem(None, &regularization, self.reg);
        let start = DVector::zeros(battles.models + design.p);
        let fit = problem.solve(start, self, regularization.clone());
        problem.check_factor(&fit)?;
        Ok(fit)
    }

    /// Sandwich variances `diag(H⁻¹ M H⁻¹)/n` at `fit`: `H` the Hessian of the mean
    /// loss, `M` the covariance of the per-battle gradients (centred by the penalty's
    /// gradient, which arena-rank divides by `n` once more), the common shift of the
    /// ratings projected out.
    ///
    /// # Errors
    /// [`RatingsError::Numerical`] if the Hessian cannot be factored.
    pub fn sandwich(
        &self,
        battles: &CovariateBattles,
        fit: &CovariateFit,
    ) -> Result<CovariateVariances, RatingsError> {
        let design = Design::new(battles, self);
        let problem = design.problem(None, &fit.regularization, self.reg);
        let x = fit.point();
        let factor = problem
            .factor(problem.evaluate(&x, true).hessian.expect("requested"))
            .ok_or_else(|| RatingsError::Numerical("the Hessian of the sandwich".into()))?;
        let k = battles.models;
        let dims = k + design.p;
        let n = battles.len() as f64;
        let mut meat = DMatrix::<f64>::zeros(dims, dims);
        let mut row = Vec::with_capacity(2 + design.p);
        for r in 0..battles.len() {
            let (s, z) = design.logit(r, x.as_slice());
            let g = design.weight[r] * (battles.outcome[r] - sigmoid(s));
            row.clear();
            row.push((battles.a[r] as usize, g));
            row.push((battles.b[r] as usize, -g));
            row.extend(z.iter().enumerate().map(|(j, zj)| (k + j, g * zj)));
            for &(i, gi) in &row {
                for &(c, gc) in &row {
                    meat[(i, c)] += gi * gc / n;
                }
            }
        }
        let penalty = problem.penalty_gradient(&x);
        meat -= &penalty * penalty.transpose();
        let bread = factor.inverse();
        let mut covariance = &bread * meat * &bread / n;
        let mut projection = DMatrix::<f64>::identity(dims, dims);
        for r in 0..k {
            for c in 0..k {
                projection[(r, c)] -= 1.0 / k as f64;
            }
        }
        covariance = &projection * covariance * projection.transpose();
        let diagonal: Vec<f64> = (0..dims).map(|d| covariance[(d, d)].max(0.0)).collect();
        Ok(CovariateVariances {
            ratings: diagonal[..k].to_vec(),
            coefficients: diagonal[k..].to_vec(),
        })
    }

    /// Bootstrap replicates: each resamples the n battles with replacement (their
    /// covariates and weights with them, the standardization kept, as arena-rank
    /// does) and refits from `fit`. Round `r` draws from its own stream `(seed, r)`;
    /// `on_round` is called once per replicate.
    ///
    /// # Errors
    /// Zero rounds.
    pub fn bootstrap(
        &self,
        battles: &CovariateBattles,
        fit: &CovariateFit,
        scale: &EloScale,
        bootstrap: &Bootstrap,
        on_round: &(dyn Fn() + Sync),
    ) -> Result<CovariateDraws, RatingsError> {
        bootstrap.check()?;
        let design = Design::new(battles, self);
        let n = battles.len();
        let replicates: Vec<(CovariateFit, bool)> = (0..bootstrap.rounds)
            .into_par_iter()
            .map(|round| {
                let mut rng = round_rng(bootstrap.seed, round);
                let mut multiplicity = vec![0u32; n];
                for _ in 0..n {
                    multiplicity[rng.random_range(0..n)] += 1;
                }
                let (regularization, used_prior) = replicate_penalty(&fit.regularization, || {
                    ratings_penalty(&battles.counts_of(Some(&multiplicity)))
                });
                let problem = design.problem(Some(&multiplicity), &regularization, self.reg);
                let refit = problem.solve(fit.point(), self, regularization);
                on_round();
                (refit, used_prior)
            })
            .collect();
        let mut draws = CovariateDraws {
            ratings: BootstrapDraws {
                scores: Vec::with_capacity(replicates.len()),
                prior_rounds: 0,
                unconverged_rounds: 0,
            },
            coefficients: Vec::with_capacity(replicates.len()),
        };
        for (refit, used_prior) in replicates {
            draws.ratings.prior_rounds += usize::from(used_prior);
            draws.ratings.unconverged_rounds += usize::from(refit.status != FitStatus::Converged);
            draws.ratings.scores.push(scale.scores(&refit.beta));
            draws.coefficients.push(refit.theta);
        }
        Ok(draws)
    }
}

/// The fallback prior on the ratings where the counts leave their MLE undefined (a
/// model that never lost, say), as the plain fit carries it; else none.
fn ratings_penalty(counts: &PairCounts) -> Regularization {
    crate::BradleyTerry::default().regularization(counts)
}

impl CovariateFit {
    /// `P(i beats j)` with the covariates at their mean (zero after standardizing).
    pub fn win_probability(&self, i: usize, j: usize) -> f64 {
        sigmoid(self.beta[i] - self.beta[j])
    }

    fn point(&self) -> DVector<f64> {
        DVector::from_iterator(
            self.beta.len() + self.theta.len(),
            self.beta.iter().chain(&self.theta).copied(),
        )
    }
}

fn sigmoid(s: f64) -> f64 {
    1.0 / (1.0 + (-s).exp())
}

/// `ln(1 + e^s)` without overflow.
fn softplus(s: f64) -> f64 {
    if s > 0.0 {
        s + (-s).exp().ln_1p()
    } else {
        s.exp().ln_1p()
    }
}

/// The battles prepared for fitting: standardized covariates and weights.
struct Design<'a> {
    battles: &'a CovariateBattles,
    p: usize,
    /// Battles × covariates, standardized.
    z: Vec<f64>,
    standardization: Vec<(f64, f64)>,
    weight: Vec<f64>,
}

impl<'a> Design<'a> {
    fn new(battles: &'a CovariateBattles, settings: &CovariateBradleyTerry) -> Self {
        let (n, p) = (battles.len(), battles.names.len());
        let mut z = battles.values.clone();
        let mut standardization = vec![(0.0, 1.0); p];
        if settings.standardize {
            for (j, scale) in standardization.iter_mut().enumerate() {
                let column = || (0..n).map(|r| battles.values[r * p + j]);
                let mean = column().sum::<f64>() / n as f64;
                let variance = column().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
                let sd = if variance > 0.0 { variance.sqrt() } else { 1.0 };
                *scale = (mean, sd);
                for r in 0..n {
                    z[r * p + j] = (battles.values[r * p + j] - mean) / sd;
                }
            }
        }
        let weight = match settings.pair_weights {
            None => vec![1.0; n],
            Some(minimum) => pair_weights(battles, minimum),
        };
        Self {
            battles,
            p,
            z,
            standardization,
            weight,
        }
    }

    /// Battle `r`'s logit at parameters `x` (ratings then coefficients) and its
    /// standardized covariates.
    fn logit(&self, r: usize, x: &[f64]) -> (f64, &[f64]) {
        let k = self.battles.models;
        let z = &self.z[r * self.p..(r + 1) * self.p];
        let a = self.battles.a[r] as usize;
        let b = self.battles.b[r] as usize;
        let s = x[a] - x[b] + z.iter().zip(&x[k..]).map(|(v, t)| v * t).sum::<f64>();
        (s, z)
    }

    fn problem<'d>(
        &'d self,
        multiplicity: Option<&'d [u32]>,
        regularization: &Regularization,
        reg: f64,
    ) -> CovariateProblem<'d, 'a> {
        let n = self.battles.len() as f64;
        CovariateProblem {
            design: self,
            multiplicity,
            reg,
            // The ratings prior of the plain fit is a sum over battles; the objective
            // here is a mean.
            ratings_ridge: regularization.weight() / LN10_SQUARED / n,
        }
    }
}

/// arena-rank's pair weights: `1 / max(n_pair, minimum)` per battle, `n_pair` the
/// battles of its unordered pair, normalized to mean 1.
fn pair_weights(battles: &CovariateBattles, minimum: f64) -> Vec<f64> {
    let k = battles.models;
    let key = |r: usize| {
        let (a, b) = (battles.a[r] as usize, battles.b[r] as usize);
        a.min(b) * k + a.max(b)
    };
    let mut per_pair = std::collections::HashMap::<usize, f64>::new();
    for r in 0..battles.len() {
        *per_pair.entry(key(r)).or_default() += 1.0;
    }
    let raw: Vec<f64> = (0..battles.len())
        .map(|r| 1.0 / per_pair[&key(r)].max(minimum))
        .collect();
    let mean = raw.iter().sum::<f64>() / raw.len() as f64;
    raw.into_iter().map(|w| w / mean).collect()
}

/// The objective of one fit: the design, bootstrap multiplicities if any, penalties.
struct CovariateProblem<'d, 'a> {
    design: &'d Design<'a>,
    multiplicity: Option<&'d [u32]>,
    reg: f64,
    /// Ridge on the ratings in natural-log units per battle (the fallback prior).
    ratings_ridge: f64,
}

impl CovariateProblem<'_, '_> {
    fn solve(
        &self,
        start: DVector<f64>,
        settings: &CovariateBradleyTerry,
        regularization: Regularization,
    ) -> CovariateFit {
        let (x, evaluation, iterations) =
            Objective::newton(self, start, settings.tol, settings.max_iter);
        let k = self.design.battles.models;
        let gradient_norm = evaluation.gradient.amax();
        CovariateFit {
            beta: x.rows(0, k).iter().copied().collect(),
            theta: x.rows(k, self.design.p).iter().copied().collect(),
            standardization: self.design.standardization.clone(),
            iterations,
            gradient_norm,
            status: FitStatus::of(gradient_norm, settings.tol),
            regularization,
            log_likelihood: evaluation.log_likelihood,
        }
    }

    /// The error for a fit whose Hessian is singular: collinear covariates.
    fn check_factor(&self, fit: &CovariateFit) -> Result<(), RatingsError> {
        let hessian = self
            .evaluate(&fit.point(), true)
            .hessian
            .expect("requested");
        let k = self.design.battles.models;
        let scale = (0..hessian.nrows())
            .map(|d| hessian[(d, d)])
            .fold(0.0, f64::max);
        // The coefficient block's smallest eigenvalue, relative to the largest
        // diagonal entry: zero when a covariate is constant or a combination of
        // others (or of the models).
        let mut shifted = hessian.clone();
        for r in 0..k {
            for c in 0..k {
                shifted[(r, c)] += scale / k as f64;
            }
        }
        let smallest = shifted.symmetric_eigenvalues().min();
        if smallest <= 1e-10 * scale {
            return Err(RatingsError::Numerical(format!(
                "the covariates ({}) are constant or collinear with each other or with the models; drop the redundant ones",
                self.design.battles.names.join(", ")
            )));
        }
        Ok(())
    }

    /// The gradient of the penalties at `x`.
    fn penalty_gradient(&self, x: &DVector<f64>) -> DVector<f64> {
        let k = self.design.battles.models;
        DVector::from_iterator(
            x.len(),
            x.iter().enumerate().map(|(d, v)| {
                if d < k {
                    self.ratings_ridge * v
                } else {
                    self.reg * v
                }
            }),
        )
    }
}

impl Objective for CovariateProblem<'_, '_> {
    fn evaluate(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation {
        let design = self.design;
        let battles = design.battles;
        let (k, p) = (battles.models, design.p);
        let dims = k + p;
        let n = battles.len() as f64;
        let mut gradient = self.penalty_gradient(x);
        let mut hessian = with_hessian.then(|| DMatrix::<f64>::zeros(dims, dims));
        let mut log_likelihood = 0.0;
        for r in 0..battles.len() {
            let count = self.multiplicity.map_or(1.0, |m| f64::from(m[r]));
            if count == 0.0 {
                continue;
            }
            let (s, z) = design.logit(r, x.as_slice());
            let w = count * design.weight[r] / n;
            let y = battles.outcome[r];
            let prob = sigmoid(s);
            log_likelihood += w * (y * s - softplus(s));
            let g = w * (y - prob);
            let (a, b) = (battles.a[r] as usize, battles.b[r] as usize);
            gradient[a] -= g;
            gradient[b] += g;
            for (j, zj) in z.iter().enumerate() {
                gradient[k + j] -= g * zj;
            }
            if let Some(h) = hessian.as_mut() {
                let curvature = w * prob * (1.0 - prob);
                h[(a, a)] += curvature;
                h[(b, b)] += curvature;
                h[(a, b)] -= curvature;
                h[(b, a)] -= curvature;
                for (j, zj) in z.iter().enumerate() {
                    let cross = curvature * zj;
                    h[(a, k + j)] += cross;
                    h[(k + j, a)] += cross;
                    h[(b, k + j)] -= cross;
                    h[(k + j, b)] -= cross;
                    for (l, zl) in z.iter().enumerate() {
                        h[(k + j, k + l)] += cross * zl;
                    }
                }
            }
        }
        if let Some(h) = hessian.as_mut() {
            for d in 0..dims {
                h[(d, d)] += if d < k { self.ratings_ridge } else { self.reg };
            }
        }
        let penalty = 0.5
            * x.iter()
                .enumerate()
                .map(|(d, v)| {
                    let weight = if d < k { self.ratings_ridge } else { self.reg };
                    weight * v * v
                })
                .sum::<f64>();
        Evaluation {
            value: -log_likelihood + penalty,
            gradient,
            hessian,
            log_likelihood,
        }
    }

    fn models(&self) -> usize {
        self.design.battles.models
    }

    fn lambda(&self) -> f64 {
        self.ratings_ridge
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BradleyTerry;
    use verdict_feedback::Outcome;

    fn log_of(rows: &[(&str, &str, Outcome)]) -> BattleLog {
        let mut log = BattleLog::new();
        for &(a, b, outcome) in rows {
            log.push(a, b, outcome).unwrap();
        }
        log
    }

    #[test]
    fn a_covariate_that_is_pure_noise_around_zero_leaves_plain_bradley_terry() {
        // With a covariate whose coefficient the data pin at exactly zero (it takes
        // +1 and -1 on mirrored copies of every battle), the ratings are the plain
        // Bradley–Terry MLE with ties as half a win.
        let base = [
            ("a", "b", Outcome::WinA),
            ("a", "b", Outcome::WinB),
            ("a", "b", Outcome::WinA),
            ("b", "c", Outcome::WinA),
            ("c", "b", Outcome::Tie),
            ("c", "a", Outcome::WinA),
            ("a", "c", Outcome::WinA),
        ];
        let rows: Vec<_> = base.iter().chain(base.iter()).copied().collect();
        let log = log_of(&rows);
        let column: Vec<f64> = (0..rows.len())
            .map(|r| if r < base.len() { 1.0 } else { -1.0 })
            .collect();
        let battles = CovariateBattles::new(&log, vec!["noise".into()], &[column]).unwrap();
        let fit = CovariateBradleyTerry::default().fit(&battles).unwrap();
        assert_eq!(fit.status, FitStatus::Converged);
        assert!(fit.theta[0].abs() < 1e-12, "{:?}", fit.theta);
        let plain = BradleyTerry::default()
            .fit(&PairCounts::from_log(&log))
            .unwrap();
        for (x, y) in fit.beta.iter().zip(&plain.beta) {
            assert!((x - y).abs() < 1e-9, "{:?} vs {:?}", fit.beta, plain.beta);
        }
    }

    #[test]
    fn a_constant_covariate_is_refused_by_name() {
        let log = log_of(&[
            ("a", "b", Outcome::WinA),
            ("b", "a", Outcome::WinA),
            ("a", "b", Outcome::Tie),
        ]);
        let battles = CovariateBattles::new(&log, vec!["flat".into()], &[vec![2.0; 3]]).unwrap();
        let error = CovariateBradleyTerry::default().fit(&battles).unwrap_err();
        assert!(error.to_string().contains("flat"), "{error}");
    }

    #[test]
    fn a_value_that_is_not_finite_is_named() {
        let log = log_of(&[("a", "b", Outcome::WinA), ("b", "a", Outcome::WinA)]);
        let error =
            CovariateBattles::new(&log, vec!["len".into()], &[vec![1.0, f64::NAN]]).unwrap_err();
        assert!(
            error.to_string().contains("len is NaN at battle 2"),
            "{error}"
        );
    }
}
