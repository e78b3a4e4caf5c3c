//! Nuisance learners behind two small traits, so backbones can be swapped (NashEval
//! Algorithm 1 fits outcome regressions, selection classifiers and the payoff
//! regression with the same interface), and the linear backbone: ridge regression and
//! L2-regularized logistic regression, both with an unpenalized intercept and features
//! standardized internally.
//!
//! Features are dense, row-major `rows × columns`. The two estimators are written
//! here over `nalgebra` (its Cholesky and LU do the solving) rather than taken from
//! `linfa-linear`/`linfa-logistic`, which would bring a second matrix stack
//! (`ndarray`, `argmin`) into the workspace for two textbook estimators of a few lines.

use nalgebra::{DMatrix, DVector};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A regressor of a real target: its settings, or its settings with a fit.
pub trait Regressor: Sized {
    /// These settings fitted on `features` (`rows × columns`, row-major) and
    /// `targets`: a fitted learner, returned trained (`self` is left as it was).
    ///
    /// # Errors
    /// [`LearnerError`] for mismatched sizes, no rows, or non-finite values.
    #[must_use = "the fitted learner is what comes back; `self` stays unfitted"]
    fn fit(&self, features: &[f64], columns: usize, targets: &[f64]) -> Result<Self, LearnerError>;
    /// Predictions for `features` (`rows × columns`).
    fn predict(&self, features: &[f64]) -> Vec<f64>;
}

/// A classifier of a binary label, predicting probabilities: its settings, or its
/// settings with a fit.
pub trait Classifier: Sized {
    /// These settings fitted on `features` and 0/1 `labels`, returned trained.
    ///
    /// # Errors
    /// [`LearnerError`] for mismatched sizes, no rows, non-finite values, or labels
    /// that are not 0/1.
    #[must_use = "the fitted learner is what comes back; `self` stays unfitted"]
    fn fit(&self, features: &[f64], columns: usize, labels: &[f64]) -> Result<Self, LearnerError>;
    /// `P(label = 1 | x)` for `features`.
    fn predict_probability(&self, features: &[f64]) -> Vec<f64>;
}

/// A learner that cannot fit the data it was given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct LearnerError(pub String);

/// Checks sizes and values; returns the number of rows.
pub(crate) fn check(
    features: &[f64],
    columns: usize,
    targets: &[f64],
) -> Result<usize, LearnerError> {
    if features.len().checked_rem(columns) != Some(0) {
        return Err(LearnerError(format!(
            "{} feature values do not fill rows of {columns} columns",
            features.len()
        )));
    }
    let rows = features.len() / columns;
    if rows == 0 || rows != targets.len() {
        return Err(LearnerError(format!(
            "{rows} feature rows for {} targets; need one target per row and at least one row",
            targets.len()
        )));
    }
    if let Some(i) = features.iter().position(|v| !v.is_finite()) {
        return Err(LearnerError(format!(
            "feature value {} at row {}, column {} is not finite",
            features[i],
            i / columns,
            i % columns
        )));
    }
    if let Some(i) = targets.iter().position(|v| !v.is_finite()) {
        return Err(LearnerError(format!(
            "target {} at row {i} is not finite",
            targets[i]
        )));
    }
    Ok(rows)
}

/// Checks that every label is 0 or 1.
pub(crate) fn check_labels(labels: &[f64]) -> Result<(), LearnerError> {
    match labels.iter().position(|&l| l != 0.0 && l != 1.0) {
        Some(i) => Err(LearnerError(format!(
            "label {} at row {i} is not 0 or 1",
            labels[i]
        ))),
        None => Ok(()),
    }
}

/// Column means and standard deviations (1 for a constant column).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Scaling {
    pub(crate) mean: Vec<f64>,
    pub(crate) scale: Vec<f64>,
}

impl Scaling {
    /// One finite mean and positive finite scale per each of `inputs` features.
    pub(crate) fn check(&self, inputs: usize) -> Result<(), String> {
        if self.mean.len() != inputs || self.scale.len() != inputs {
            return Err(format!(
                "scaling of {} means and {} scales for {inputs} features",
                self.mean.len(),
                self.scale.len()
            ));
        }
        let finite = self.mean.iter().all(|m| m.is_finite());
        if !finite || !self.scale.iter().all(|s| s.is_finite() && *s > 0.0) {
            return Err("a feature's mean or scale is not a finite (positive) number".into());
        }
        Ok(())
    }

    pub(crate) fn fit(features: &[f64], columns: usize) -> Self {
        let rows = (features.len() / columns) as f64;
        let mut mean = vec![0.0; columns];
        let mut square = vec![0.0; columns];
        for row in features.chunks(columns) {
            for (c, &v) in row.iter().enumerate() {
                mean[c] += v / rows;
                square[c] += v * v / rows;
            }
        }
        let scale = mean
            .iter()
            .zip(&square)
            .map(|(m, s)| {
                let sd = (s - m * m).max(0.0).sqrt();
                if sd > 1e-12 {
                    sd
                } else {
                    1.0
                }
            })
            .collect();
        Self { mean, scale }
    }

    /// `(x - mean) / scale` for every row, as a `rows × columns` matrix.
    pub(crate) fn standardized(&self, features: &[f64]) -> DMatrix<f64> {
        let columns = self.mean.len();
        let rows = features.len() / columns.max(1);
        DMatrix::from_fn(rows, columns, |r, c| {
            (features[r * columns + c] - self.mean[c]) / self.scale[c]
        })
    }

    /// The design matrix `[1, (x - mean) / scale]`.
    fn design(&self, features: &[f64]) -> DMatrix<f64> {
        self.standardized(features).insert_column(0, 1.0)
    }
}

/// What a fitted linear model keeps: the standardization and the intercept and
/// coefficients on the standardized features (shared by ridge and logistic).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct LinearFit {
    scaling: Scaling,
    coefficients: Vec<f64>,
}

impl LinearFit {
    /// Checks a loaded fit against `inputs` features: one mean, scale and coefficient
    /// per feature (and the intercept), all finite, scales positive.
    fn check(&self, inputs: usize) -> Result<(), String> {
        self.scaling.check(inputs)?;
        if self.coefficients.len() != inputs + 1 {
            return Err(format!(
                "{} coefficients for {inputs} features (expected {})",
                self.coefficients.len(),
                inputs + 1
            ));
        }
        if self.coefficients.iter().any(|c| !c.is_finite()) {
            return Err("a coefficient is not a finite number".into());
        }
        Ok(())
    }

    /// `b0 + z^T b` for every row of `features`.
    fn linear_predictor(&self, features: &[f64]) -> Vec<f64> {
        let x = self.scaling.design(features);
        (x * DVector::from_column_slice(&self.coefficients))
            .iter()
            .copied()
            .collect()
    }
}

/// Solves `matrix · v = rhs` for a symmetric positive (semi)definite `matrix`:
/// Cholesky, or LU when it is only semidefinite; `None` when singular.
pub(crate) fn solve_symmetric(matrix: DMatrix<f64>, rhs: &DVector<f64>) -> Option<DVector<f64>> {
    matrix
        .clone()
        .cholesky()
        .map(|ch| ch.solve(rhs))
        .or_else(|| matrix.lu().solve(rhs))
}

/// Ridge regression: minimizes `sum (y - b0 - z^T b)^2 + lambda ||b||^2` on
/// standardized features `z` (intercept not penalized), solved in closed form by a
/// Cholesky factorization of the normal equations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ridge {
    /// Penalty `lambda >= 0`.
    pub lambda: f64,
    fitted: LinearFit,
}

impl Ridge {
    /// Checks a loaded fit against `inputs` features.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, inputs: usize) -> Result<(), String> {
        self.fitted.check(inputs)
    }

    /// An unfitted ridge regressor with penalty `lambda`.
    pub fn new(lambda: f64) -> Self {
        Self {
            lambda,
            fitted: LinearFit::default(),
        }
    }

    /// Intercept and coefficients on the standardized features.
    pub fn coefficients(&self) -> &[f64] {
        &self.fitted.coefficients
    }
}

impl Ridge {
    /// Minimizes `sum w_i (y_i - b0 - z_i^T b)^2 + lambda ||b||^2` (`w = 1` when
    /// `weights` is `None`).
    ///
    /// # Errors
    /// [`LearnerError`] for mismatched sizes or singular normal equations.
    pub fn fit_weighted(
        &self,
        features: &[f64],
        columns: usize,
        targets: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self, LearnerError> {
        check(features, columns, targets)?;
        check_weights(weights, targets.len())?;
        let scaling = Scaling::fit(features, columns);
        let x = scaling.design(features);
        let (gram, rhs) = match weights {
            None => (
                x.transpose() * &x,
                x.transpose() * DVector::from_column_slice(targets),
            ),
            Some(w) => {
                let mut weighted = x.clone();
                for (r, mut row) in weighted.row_iter_mut().enumerate() {
                    row *= w[r];
                }
                (
                    weighted.transpose() * &x,
                    weighted.transpose() * DVector::from_column_slice(targets),
                )
            }
        };
        let mut gram = gram;
        for c in 1..=columns {
            gram[(c, c)] += self.lambda.max(0.0);
        }
        let solution = solve_symmetric(gram, &rhs).ok_or_else(|| {
            LearnerError("the normal equations are singular; raise the ridge penalty".into())
        })?;
        Ok(Self {
            lambda: self.lambda,
            fitted: LinearFit {
                scaling,
                coefficients: solution.iter().copied().collect(),
            },
        })
    }
}

impl Regressor for Ridge {
    fn fit(&self, features: &[f64], columns: usize, targets: &[f64]) -> Result<Self, LearnerError> {
        self.fit_weighted(features, columns, targets, None)
    }

    fn predict(&self, features: &[f64]) -> Vec<f64> {
        self.fitted.linear_predictor(features)
    }
}

/// Row weights, when given, are one finite non-negative number per row.
pub(crate) fn check_weights(weights: Option<&[f64]>, rows: usize) -> Result<(), LearnerError> {
    match weights {
        Some(w) if w.len() != rows => {
            Err(LearnerError(format!("{} weights for {rows} rows", w.len())))
        }
        Some(w) if w.iter().any(|v| !(v.is_finite() && *v >= 0.0)) => Err(LearnerError(
            "a row weight is not a finite non-negative number".into(),
        )),
        _ => Ok(()),
    }
}

/// L2-regularized logistic regression by Newton's method (iteratively reweighted
/// least squares) on standardized features, intercept not penalized; stops when the
/// step's largest change is below 1e-10 or after 100 iterations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    /// Penalty `lambda >= 0` on the coefficients (not the intercept).
    pub lambda: f64,
    fitted: LinearFit,
}

impl Logistic {
    /// Checks a loaded fit against `inputs` features.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, inputs: usize) -> Result<(), String> {
        self.fitted.check(inputs)
    }

    /// An unfitted classifier with penalty `lambda`.
    pub fn new(lambda: f64) -> Self {
        Self {
            lambda,
            fitted: LinearFit::default(),
        }
    }

    /// Intercept and coefficients on the standardized features.
    pub fn coefficients(&self) -> &[f64] {
        &self.fitted.coefficients
    }
}

/// The logistic function `1 / (1 + e^-z)`, shared by every logistic model of the
/// crate.
pub(crate) fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl Logistic {
    /// Maximizes `sum w_i log p(y_i | x_i) - lambda/2 ||b||^2` (`w = 1` when
    /// `weights` is `None`).
    ///
    /// # Errors
    /// [`LearnerError`] for mismatched sizes, labels that are not 0/1, or separable
    /// classes.
    pub fn fit_weighted(
        &self,
        features: &[f64],
        columns: usize,
        labels: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self, LearnerError> {
        check(features, columns, labels)?;
        check_labels(labels)?;
        check_weights(weights, labels.len())?;
        let scaling = Scaling::fit(features, columns);
        let x = scaling.design(features);
        let y = DVector::from_column_slice(labels);
        let row_weight = |r: usize| weights.map_or(1.0, |w| w[r]);
        let mut beta = DVector::zeros(columns + 1);
        for _ in 0..100 {
            let p = (&x * &beta).map(sigmoid);
            let residual = DVector::from_fn(labels.len(), |r, _| row_weight(r) * (y[r] - p[r]));
            let mut gradient = x.transpose() * residual;
            // X^T W X as (W^1/2 X)^T (W^1/2 X).
            let mut weighted = x.clone();
            for (r, mut row) in weighted.row_iter_mut().enumerate() {
                row *= (row_weight(r) * p[r] * (1.0 - p[r])).max(1e-12).sqrt();
            }
            let mut hessian = weighted.transpose() * &weighted;
            for c in 1..=columns {
                gradient[c] -= self.lambda * beta[c];
                hessian[(c, c)] += self.lambda;
            }
            let step = solve_symmetric(hessian, &gradient).ok_or_else(|| {
                LearnerError(
                    "the classes are separable or a feature is constant; raise the penalty".into(),
                )
            })?;
            beta += &step;
            if step.amax() < 1e-10 {
                break;
            }
        }
        Ok(Self {
            lambda: self.lambda,
            fitted: LinearFit {
                scaling,
                coefficients: beta.iter().copied().collect(),
            },
        })
    }
}

impl Classifier for Logistic {
    fn fit(&self, features: &[f64], columns: usize, labels: &[f64]) -> Result<Self, LearnerError> {
        self.fit_weighted(features, columns, labels, None)
    }

    fn predict_probability(&self, features: &[f64]) -> Vec<f64> {
        self.fitted
            .linear_predictor(features)
            .into_iter()
            .map(sigmoid)
            .collect()
    }
}

/// Cross-fitting folds that keep every record of a context in one fold: contexts are
/// shuffled with a seeded generator and dealt round-robin into `folds`, so fold sizes
/// differ by at most one.
///
/// # Errors
/// [`LearnerError`] unless `2 <= folds <= contexts`.
pub fn context_folds(contexts: usize, folds: usize, seed: u64) -> Result<Vec<usize>, LearnerError> {
    if folds < 2 || folds > contexts {
        return Err(LearnerError(format!(
            "{folds} folds for {contexts} contexts; need at least 2 folds and no more folds than contexts"
        )));
    }
    let mut order: Vec<usize> = (0..contexts).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut fold = vec![0; contexts];
    for (rank, &i) in order.iter().enumerate() {
        fold[i] = rank % folds;
    }
    Ok(fold)
}
