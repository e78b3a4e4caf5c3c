//! Bradley–Terry by maximum likelihood (arena tutorial, BT section):
//! `P(i beats j) = p_i / (p_i + p_j)`, `p_i = exp(beta_i)`, fitted to the pair counts
//! alone, so the result never depends on the order of the log.
//!
//! Two solvers reach the same fixed point (they agree to 1e-9 in `p`):
//! - Newton: minimises `f(beta) = -l(beta) + l2/2 * sum_i (beta_i / ln 10)^2` with the
//!   exact Hessian, a backtracking line search, and the null direction `1` (strengths
//!   are defined up to a common shift) handled by adding `c 1 1^T` to the Hessian.
//! - MM, the tutorial's Zermelo iteration `p_i <- W_i / sum_j n_ij / (p_i + p_j)`,
//!   then `p <- p / sum(p)` (Hunter 2004); for the unregularized `half`/`drop` models.
//!
//! Both stop when `||grad f||_inf <= tol * max(1, N)` (N battles) and report the
//! iterations and the final gradient norm; reaching `max_iter` first is reported as
//! [`FitStatus::MaxIterations`], never silently.
//!
//! Where the MLE does not exist (see [`crate::mle_obstacles`]) and no `l2` is given,
//! the fit adds the weak Gaussian prior `l2 = DEFAULT_PRIOR_L2`, which keeps every
//! strength finite, and says so in [`BtFit::regularization`].

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use serde::{Deserialize, Serialize};
use verdict_settings::Setting;

use crate::likelihood::TieModel;
use crate::newton::{Evaluation, Objective};
use crate::{mle_obstacles, MleObstacle, PairCounts, RatingsError};

/// Precision of the Gaussian prior used when the MLE does not exist, in the `l2`
/// units of [`BradleyTerry::l2`]: standard deviation 10 in log10-strength (4000 rating
/// points), far weaker than any data it meets.
pub const DEFAULT_PRIOR_L2: f64 = 0.01;

/// Default stopping tolerance on `||grad||_inf / max(1, N)`.
pub const DEFAULT_TOLERANCE: f64 = 1e-12;

/// Widest spread of log-strengths for which [`Problem::gradient`] takes win
/// probabilities as ratios of `exp(beta - max beta)`: `exp(-700)` is still a normal
/// double, so no strength underflows to zero.
const EXP_SPREAD: f64 = 700.0;

/// Default iteration cap for Newton.
pub const DEFAULT_NEWTON_MAX_ITER: usize = 100;

/// Default iteration cap for MM, whose convergence is linear.
pub const DEFAULT_MM_MAX_ITER: usize = 100_000;

/// The solver used for a fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum Solver {
    /// Newton's method with line search (default).
    #[default]
    Newton,
    /// The MM (Zermelo) iteration of the tutorial.
    Mm,
}

/// Bradley–Terry settings.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `ties` | `Half` | how ties enter the likelihood | `Half`, `Drop`, `Davidson` |
/// | `solver` | `Newton` | Newton or MM (Zermelo) | |
/// | `tol` | 1e-12 | stop when `‖∇f‖∞ ≤ tol·max(1, N)` | > 0 |
/// | `max_iter` | 100 (Newton), 100000 (MM) | iteration cap, reported when hit | ≥ 1 |
/// | `l2` | none | ridge `l2/2 Σ (β_i/ln 10)²`; GenAI-Arena's recipe is 0.5 | ≥ 0 |
///
/// `l2` is in log10-strength units (rating / 400): `l2 = 0.5` is what
/// scikit-learn's `LogisticRegression(C=1.0)` on battles duplicated as in FastChat's
/// `compute_elo_mle_with_tie` minimises (its objective is `2C` times ours).
///
/// # Errors
/// [`BradleyTerry::fit`] rejects bad settings, fewer than two models, an empty log,
/// Davidson without ties, and MM where it does not apply.
///
/// ```
/// use verdict_feedback::{BattleLog, Outcome};
/// use verdict_ratings::{BradleyTerry, PairCounts};
/// let mut log = BattleLog::new();
/// log.push("a", "b", Outcome::WinA)?;
/// log.push("b", "a", Outcome::Tie)?;
/// let fit = BradleyTerry::default().fit(&PairCounts::from_log(&log))?;
/// assert!(fit.beta[0] > fit.beta[1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The settings read by name too (serde, each missing one at its default), so a
/// settings document of `ties`, `solver`, `tol`, `max_iter`, `l2` makes a fit.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BradleyTerry {
    /// How ties enter the likelihood.
    pub ties: TieModel,
    /// Which solver.
    pub solver: Solver,
    /// Stopping tolerance on the gradient per battle.
    pub tol: f64,
    /// Iteration cap; `None` takes the solver's default.
    pub max_iter: Option<usize>,
    /// Ridge penalty in log10-strength units; `None` is the plain MLE (with the
    /// fallback prior where it does not exist).
    pub l2: Option<f64>,
}

impl Default for BradleyTerry {
    fn default() -> Self {
        Self {
            ties: TieModel::Half,
            solver: Solver::Newton,
            tol: DEFAULT_TOLERANCE,
            max_iter: None,
            l2: None,
        }
    }
}

/// Whether an iterative fit met its tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitStatus {
    /// The gradient met the tolerance.
    Converged,
    /// The iteration cap came first; the result is the last iterate.
    MaxIterations,
}

impl FitStatus {
    /// Converged when the final `‖∇‖∞` is within the stopping `threshold`.
    pub fn of(gradient_norm: f64, threshold: f64) -> Self {
        if gradient_norm <= threshold {
            Self::Converged
        } else {
            Self::MaxIterations
        }
    }
}

/// The penalty a fit carried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Regularization {
    /// The plain maximum-likelihood estimate.
    None,
    /// A ridge penalty the user asked for.
    L2 {
        /// Its weight.
        l2: f64,
    },
    /// The fallback prior, because the MLE does not exist.
    Prior {
        /// Its weight ([`DEFAULT_PRIOR_L2`]).
        l2: f64,
        /// Why the MLE does not exist.
        obstacles: Vec<MleObstacle>,
    },
}

impl Regularization {
    /// The ridge weight in log10-strength units (0 for none).
    pub fn weight(&self) -> f64 {
        match self {
            Regularization::None => 0.0,
            Regularization::L2 { l2 } | Regularization::Prior { l2, .. } => *l2,
        }
    }
}

/// A fitted Bradley–Terry model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BtFit {
    /// Log-strengths `beta_i = ln p_i`, centred to mean zero.
    pub beta: Vec<f64>,
    /// Davidson's `theta = ln nu`, for the Davidson tie model.
    pub theta: Option<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// `‖∇f‖∞` at the result.
    pub gradient_norm: f64,
    /// Converged or stopped at the cap.
    pub status: FitStatus,
    /// The penalty carried.
    pub regularization: Regularization,
    /// Log-likelihood at the result (without the penalty).
    pub log_likelihood: f64,
    /// The tie model.
    pub ties: TieModel,
    /// The solver.
    pub solver: Solver,
}

impl BtFit {
    /// `P(i beats j)` under the fit (for Davidson, excluding ties).
    pub fn win_probability(&self, i: usize, j: usize) -> f64 {
        self.ties
            .probabilities(self.beta[i] - self.beta[j], self.theta.unwrap_or(0.0))
            .0
    }

    /// Strengths `p_i = exp(beta_i)` normalised to sum to one.
    pub fn strengths(&self) -> Vec<f64> {
        let max = self.beta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let raw: Vec<f64> = self.beta.iter().map(|b| (b - max).exp()).collect();
        let total: f64 = raw.iter().sum();
        raw.iter().map(|p| p / total).collect()
    }
}

/// `ln(10)^2`: converts `l2` from log10-strength to natural-log units.
pub(crate) const LN10_SQUARED: f64 = std::f64::consts::LN_10 * std::f64::consts::LN_10;

impl BradleyTerry {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a tolerance that is not positive and finite, a
    /// zero iteration cap, or a negative or non-finite `l2`.
    pub fn validate(&self) -> Result<(), RatingsError> {
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(RatingsError::setting("tol", self.tol, "a positive number"));
        }
        if self.max_iter == Some(0) {
            return Err(RatingsError::setting("max_iter", 0, "at least 1"));
        }
        if let Some(l2) = self.l2 {
            if !(l2.is_finite() && l2 >= 0.0) {
                return Err(RatingsError::setting("l2", l2, "a non-negative number"));
            }
        }
        Ok(())
    }

    fn max_iter(&self) -> usize {
        self.max_iter.unwrap_or(match self.solver {
            Solver::Newton => DEFAULT_NEWTON_MAX_ITER,
            Solver::Mm => DEFAULT_MM_MAX_ITER,
        })
    }

    /// The penalty this fit will carry on `counts`.
    pub fn regularization(&self, counts: &PairCounts) -> Regularization {
        match self.l2 {
            Some(l2) if l2 > 0.0 => Regularization::L2 { l2 },
            _ => {
                let obstacles = mle_obstacles(counts, self.ties);
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

    /// Fits the model to `counts`.
    ///
    /// # Errors
    /// See [`BradleyTerry`].
    pub fn fit(&self, counts: &PairCounts) -> Result<BtFit, RatingsError> {
        self.validate()?;
        check_data(counts, self.ties)?;
        let regularization = self.regularization(counts);
        match self.solver {
            Solver::Newton => {
                let problem = Problem::new(counts, self.ties, regularization.weight());
                let start = problem.start();
                Ok(problem.newton(start, self.tol, self.max_iter(), regularization))
            }
            Solver::Mm => {
                if self.ties == TieModel::Davidson {
                    return Err(RatingsError::Unsupported(
                        "the MM solver fits the half and drop tie models; use the Newton solver for Davidson ties".into(),
                    ));
                }
                if regularization != Regularization::None {
                    return Err(RatingsError::Unsupported(
                        "the MM solver fits the plain MLE only; use the Newton solver with an L2 penalty or where the MLE does not exist".into(),
                    ));
                }
                Ok(minorize_maximize(
                    counts,
                    self.ties,
                    self.tol,
                    self.max_iter(),
                ))
            }
        }
    }
}

fn check_data(counts: &PairCounts, ties: TieModel) -> Result<(), RatingsError> {
    if counts.models() < 2 {
        return Err(RatingsError::NotEnoughData(format!(
            "a leaderboard needs at least 2 models, found {}",
            counts.models()
        )));
    }
    let battles = counts.battles();
    if battles == 0.0 {
        return Err(RatingsError::NotEnoughData(
            "the log holds no battles".into(),
        ));
    }
    if ties == TieModel::Drop && counts.ties() == battles {
        return Err(RatingsError::NotEnoughData(format!(
            "every battle is a tie, and {ties} drop leaves nothing to fit; use {ties} half",
            ties = Setting("ties")
        )));
    }
    if ties == TieModel::Davidson {
        let ties_seen = counts.ties();
        if ties_seen == 0.0 || ties_seen == battles {
            return Err(RatingsError::NotEnoughData(format!(
                "Davidson's tie model needs both ties and decisive battles, found {ties_seen} ties in {battles} battles; use {ties} half or drop", ties = Setting("ties")
            )));
        }
    }
    Ok(())
}

/// The penalised negative log-likelihood over `beta` (and `theta` for Davidson).
pub(crate) struct Problem<'a> {
    counts: &'a PairCounts,
    /// For the logistic tie models, each pair's `(i, j, a, n)` (effective wins of `i`
    /// and battles, [`TieModel::logistic_counts`]), read by [`Problem::gradient`];
    /// empty for Davidson.
    logistic: Vec<(u32, u32, f64, f64)>,
    ties: TieModel,
    /// Ridge weight in natural-log units.
    lambda: f64,
    models: usize,
    dims: usize,
    threshold_scale: f64,
}

impl Objective for Problem<'_> {
    fn evaluate(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation {
        self.value_and_derivatives(x, with_hessian)
    }

    fn models(&self) -> usize {
        self.models
    }

    fn lambda(&self) -> f64 {
        self.lambda
    }
}

impl<'a> Problem<'a> {
    pub(crate) fn new(counts: &'a PairCounts, ties: TieModel, l2: f64) -> Self {
        let models = counts.models();
        let dims = models + usize::from(ties == TieModel::Davidson);
        let logistic = if ties == TieModel::Davidson {
            Vec::new()
        } else {
            counts
                .pairs()
                .iter()
                .map(|p| {
                    let (a, n) = ties.logistic_counts(p.cells());
                    (p.i, p.j, a, n)
                })
                .collect()
        };
        Self {
            counts,
            logistic,
            ties,
            lambda: l2 / LN10_SQUARED,
            models,
            dims,
            threshold_scale: counts.battles().max(1.0),
        }
    }

    /// Equal strengths; for Davidson, `nu` matching the observed tie rate at `d = 0`.
    pub(crate) fn start(&self) -> DVector<f64> {
        let mut x = DVector::zeros(self.dims);
        if self.ties == TieModel::Davidson {
            let (ties, battles) = (self.counts.ties(), self.counts.battles());
            x[self.models] = (2.0 * ties / (battles - ties)).ln();
        }
        x
    }

    fn theta(&self, x: &DVector<f64>) -> f64 {
        if self.ties == TieModel::Davidson {
            x[self.models]
        } else {
            0.0
        }
    }

    fn value_and_derivatives(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation {
        let theta = self.theta(x);
        let mut gradient = DVector::zeros(self.dims);
        let mut hessian = with_hessian.then(|| DMatrix::zeros(self.dims, self.dims));
        let mut log_likelihood = 0.0;
        let t_index = self.models;
        for pair in self.counts.pairs() {
            let (i, j) = (pair.i as usize, pair.j as usize);
            let terms = self.ties.pair_terms(x[i] - x[j], theta, pair.cells());
            log_likelihood += terms.loglik;
            gradient[i] -= terms.d;
            gradient[j] += terms.d;
            if let Some(h) = hessian.as_mut() {
                h[(i, i)] -= terms.dd;
                h[(j, j)] -= terms.dd;
                h[(i, j)] += terms.dd;
                h[(j, i)] += terms.dd;
            }
            if self.ties == TieModel::Davidson {
                gradient[t_index] -= terms.theta;
                if let Some(h) = hessian.as_mut() {
                    h[(i, t_index)] -= terms.d_theta;
                    h[(t_index, i)] -= terms.d_theta;
                    h[(j, t_index)] += terms.d_theta;
                    h[(t_index, j)] += terms.d_theta;
                    h[(t_index, t_index)] -= terms.theta_theta;
                }
            }
        }
        let mut penalty = 0.0;
        if self.lambda > 0.0 {
            for m in 0..self.models {
                penalty += 0.5 * self.lambda * x[m] * x[m];
                gradient[m] += self.lambda * x[m];
                if let Some(h) = hessian.as_mut() {
                    h[(m, m)] += self.lambda;
                }
            }
        }
        Evaluation {
            value: -log_likelihood + penalty,
            gradient,
            hessian,
            log_likelihood,
        }
    }

    /// The gradient alone, without the logarithms of the value (the chord iterations
    /// of the bootstrap need nothing else): one exponential per model, and per pair
    /// `P(i beats j) = p_i / (p_i + p_j)` with `p_m = exp(beta_m - max beta)` — a
    /// division instead of an exponential. Strengths more than [`EXP_SPREAD`] apart
    /// (where `p_m` could underflow to zero for both sides) take the logistic per pair.
    pub(crate) fn gradient(&self, x: &DVector<f64>) -> DVector<f64> {
        if self.ties == TieModel::Davidson {
            return self.evaluate(x, false).gradient;
        }
        let beta = &x.as_slice()[..self.models];
        let (low, high) = beta
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &b| {
                (lo.min(b), hi.max(b))
            });
        let mut gradient = DVector::zeros(self.dims);
        if high - low <= EXP_SPREAD {
            let strengths: Vec<f64> = beta.iter().map(|&b| (b - high).exp()).collect();
            self.add_logistic_gradient(&mut gradient, |i, j| {
                strengths[i] / (strengths[i] + strengths[j])
            });
        } else {
            self.add_logistic_gradient(&mut gradient, |i, j| {
                crate::likelihood::logistic(beta[i] - beta[j])
            });
        }
        if self.lambda > 0.0 {
            for m in 0..self.models {
                gradient[m] += self.lambda * x[m];
            }
        }
        gradient
    }

    /// Adds `-(a - n P(i beats j))` to `gradient[i]` and its negative to
    /// `gradient[j]` for every pair. Counts list pairs grouped by `i`, so `gradient[i]` is
    /// summed in a register and stored once per group, not read and written per pair
    /// (any order gives the same sums; grouped is only faster).
    fn add_logistic_gradient(
        &self,
        gradient: &mut DVector<f64>,
        win_probability: impl Fn(usize, usize) -> f64,
    ) {
        let mut row = None;
        let mut row_sum = 0.0;
        for &(i, j, a, n) in &self.logistic {
            let (i, j) = (i as usize, j as usize);
            if row != Some(i) {
                if let Some(previous) = row {
                    gradient[previous] += row_sum;
                }
                row = Some(i);
                row_sum = 0.0;
            }
            let d = a - n * win_probability(i, j);
            row_sum -= d;
            gradient[j] += d;
        }
        if let Some(previous) = row {
            gradient[previous] += row_sum;
        }
    }

    /// Gradient threshold for convergence.
    pub(crate) fn threshold(&self, tol: f64) -> f64 {
        tol * self.threshold_scale
    }

    /// Damped Newton from `x` ([`Objective::newton`]), as a fit.
    pub(crate) fn newton(
        &self,
        x: DVector<f64>,
        tol: f64,
        max_iter: usize,
        regularization: Regularization,
    ) -> BtFit {
        let threshold = self.threshold(tol);
        let (x, evaluation, iterations) = Objective::newton(self, x, threshold, max_iter);
        self.finish(
            x,
            evaluation,
            iterations,
            threshold,
            regularization,
            Solver::Newton,
        )
    }

    /// Chord iterations `x <- x - F^{-1} grad(x)` with a fixed factor `F` (of the
    /// Hessian at a nearby point), returning the converged point; `None` when the
    /// gradient stops shrinking or `max_iter` passes, so the caller can fall back to
    /// [`Problem::newton`].
    pub(crate) fn chord(
        &self,
        mut x: DVector<f64>,
        factor: &Cholesky<f64, Dyn>,
        tol: f64,
        max_iter: usize,
    ) -> Option<DVector<f64>> {
        let threshold = self.threshold(tol);
        let mut gradient = self.gradient(&x);
        for _ in 0..=max_iter {
            let norm = gradient.amax();
            if norm <= threshold {
                return Some(x);
            }
            x -= factor.solve(&gradient);
            // Centring changes neither value nor gradient (only differences matter
            // without a penalty), so the gradient need not be recomputed after it.
            self.centre(&mut x);
            gradient = self.gradient(&x);
            // The chord contracts the gradient when F is close to the Hessian; if it
            // does not, leave the point to full Newton.
            let shrinking = gradient.amax() < norm; // false for NaN too
            if !shrinking {
                return None;
            }
        }
        None
    }

    fn finish(
        &self,
        x: DVector<f64>,
        evaluation: Evaluation,
        iterations: usize,
        threshold: f64,
        regularization: Regularization,
        solver: Solver,
    ) -> BtFit {
        let gradient_norm = evaluation.gradient.amax();
        BtFit {
            beta: x.rows(0, self.models).iter().copied().collect(),
            theta: (self.ties == TieModel::Davidson).then(|| x[self.models]),
            iterations,
            gradient_norm,
            status: FitStatus::of(gradient_norm, threshold),
            regularization,
            log_likelihood: evaluation.log_likelihood,
            ties: self.ties,
            solver,
        }
    }
}

/// Effective wins `W_i` and battles `n_ij` (ties as half wins, or dropped).
fn effective_counts(counts: &PairCounts, ties: TieModel) -> (Vec<f64>, Vec<(usize, usize, f64)>) {
    let mut wins = vec![0.0; counts.models()];
    let mut battles = Vec::with_capacity(counts.pairs().len());
    for p in counts.pairs() {
        let (i, j) = (p.i as usize, p.j as usize);
        let (a, n) = ties.logistic_counts(p.cells());
        wins[i] += a;
        wins[j] += n - a;
        battles.push((i, j, n));
    }
    (wins, battles)
}

/// One MM (Zermelo) step `p_i <- W_i / sum_j n_ij / (p_i + p_j)`, renormalised to sum
/// one (arena tutorial, BT section). Returns the gradient `‖∇‖∞` in `beta` at the
/// input `p`, which costs nothing extra: `g_i = W_i - p_i sum_j n_ij/(p_i+p_j)`.
fn mm_step(
    p: &mut [f64],
    wins: &[f64],
    battles: &[(usize, usize, f64)],
    denominators: &mut [f64],
) -> f64 {
    denominators.iter_mut().for_each(|d| *d = 0.0);
    for &(i, j, n) in battles {
        let share = n / (p[i] + p[j]);
        denominators[i] += share;
        denominators[j] += share;
    }
    let mut gradient_norm: f64 = 0.0;
    for m in 0..p.len() {
        gradient_norm = gradient_norm.max((wins[m] - p[m] * denominators[m]).abs());
        p[m] = wins[m] / denominators[m];
    }
    let total: f64 = p.iter().sum();
    p.iter_mut().for_each(|x| *x /= total);
    gradient_norm
}

/// The first `iterations` MM iterates from `p = 1/K` (the tutorial's table), each
/// normalised to sum one. Models without a battle keep `p = 0` from iterate 1 on.
pub fn mm_iterates(counts: &PairCounts, ties: TieModel, iterations: usize) -> Vec<Vec<f64>> {
    let (wins, battles) = effective_counts(counts, ties);
    let k = counts.models();
    let mut p = vec![1.0 / k as f64; k];
    let mut denominators = vec![0.0; k];
    (0..iterations)
        .map(|_| {
            mm_step(&mut p, &wins, &battles, &mut denominators);
            p.clone()
        })
        .collect()
}

fn minorize_maximize(counts: &PairCounts, ties: TieModel, tol: f64, max_iter: usize) -> BtFit {
    let (wins, battles) = effective_counts(counts, ties);
    let k = counts.models();
    let problem = Problem::new(counts, ties, 0.0);
    let threshold = problem.threshold(tol);
    let mut p = vec![1.0 / k as f64; k];
    let mut denominators = vec![0.0; k];
    let mut iterations = 0;
    loop {
        // mm_step reports the gradient at its input: keep that input once it converged.
        let before = p.clone();
        let gradient_norm = mm_step(&mut p, &wins, &battles, &mut denominators);
        if gradient_norm <= threshold || iterations >= max_iter {
            p = before;
            break;
        }
        iterations += 1;
    }
    let mut x = DVector::from_iterator(k, p.iter().map(|v| v.ln()));
    problem.centre(&mut x);
    let evaluation = problem.evaluate(&x, false);
    problem.finish(
        x,
        evaluation,
        iterations,
        threshold,
        Regularization::None,
        Solver::Mm,
    )
}
