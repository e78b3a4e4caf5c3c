//! Damped Newton for the penalised negative log-likelihoods of the strength models
//! (Bradley–Terry, Plackett–Luce). Both are convex in the log-strengths and, without a
//! penalty, flat along the common shift `1` (strengths are defined up to a factor):
//! the Hessian is made definite by adding `c 1 1ᵀ` on the strength block, which leaves
//! the Newton step unchanged because the gradient is orthogonal to `1`, and the
//! iterate is centred to mean zero after every step.

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// Armijo constant of the backtracking line search.
const ARMIJO: f64 = 1e-4;

/// Relative size of objective changes that floating point still resolves.
const RESOLUTION: f64 = 1e-13;

/// Halvings tried by the line search before a step is taken anyway.
const MAX_HALVINGS: usize = 60;

/// Refuses a stopping tolerance that is not positive and finite, and a zero iteration
/// cap.
pub(crate) fn check_stopping(tol: f64, max_iter: usize) -> Result<(), crate::RatingsError> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(crate::RatingsError::setting(
            "tol",
            tol,
            "a positive number",
        ));
    }
    if max_iter == 0 {
        return Err(crate::RatingsError::setting("max_iter", 0, "at least 1"));
    }
    Ok(())
}

/// Value, gradient and (optionally) Hessian of the objective at one point.
pub(crate) struct Evaluation {
    pub value: f64,
    pub gradient: DVector<f64>,
    pub hessian: Option<DMatrix<f64>>,
    pub log_likelihood: f64,
}

/// A smooth convex objective over `models` log-strengths (the first coordinates) and
/// possibly further parameters (Davidson's tie parameter).
pub(crate) trait Objective {
    /// Value, gradient and, when asked, Hessian at `x`.
    fn evaluate(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation;
    /// Number of log-strength coordinates.
    fn models(&self) -> usize;
    /// Ridge weight in natural-log units; 0 leaves the common shift a null direction.
    fn lambda(&self) -> f64;

    /// Factor of the Hessian made definite: without a penalty the null direction is
    /// removed by adding `c 1 1ᵀ` on the strength block. Falls back to Levenberg
    /// damping if the matrix is still not numerically definite.
    fn factor(&self, mut hessian: DMatrix<f64>) -> Option<Cholesky<f64, Dyn>> {
        let models = self.models();
        let scale = (0..models).map(|m| hessian[(m, m)]).sum::<f64>() / models as f64;
        let scale = if scale > 0.0 { scale } else { 1.0 };
        if self.lambda() == 0.0 {
            let shift = scale / models as f64;
            for r in 0..models {
                for c in 0..models {
                    hessian[(r, c)] += shift;
                }
            }
        }
        let dims = hessian.nrows();
        let mut damping = 0.0;
        for _ in 0..20 {
            let mut attempt = hessian.clone();
            for d in 0..dims {
                attempt[(d, d)] += damping;
            }
            if let Some(factor) = Cholesky::new(attempt) {
                return Some(factor);
            }
            damping = if damping == 0.0 {
                1e-10 * scale
            } else {
                damping * 100.0
            };
        }
        None
    }

    /// Centres the strengths to mean zero when no penalty pins them.
    fn centre(&self, x: &mut DVector<f64>) {
        if self.lambda() == 0.0 {
            let models = self.models();
            let mean = x.rows(0, models).sum() / models as f64;
            for m in 0..models {
                x[m] -= mean;
            }
        }
    }

    /// Damped Newton from `x` until `‖∇f‖∞ ≤ threshold` or `max_iter` steps; returns
    /// the point, its evaluation and the steps taken (callers read the value and the
    /// gradient; the Hessian is absent when a factorization failed).
    fn newton(
        &self,
        mut x: DVector<f64>,
        threshold: f64,
        max_iter: usize,
    ) -> (DVector<f64>, Evaluation, usize) {
        let mut evaluation = self.evaluate(&x, true);
        let mut iterations = 0;
        while evaluation.gradient.amax() > threshold && iterations < max_iter {
            iterations += 1;
            let hessian = evaluation.hessian.take().expect("requested");
            let Some(factor) = self.factor(hessian) else {
                break;
            };
            let step = -factor.solve(&evaluation.gradient);
            let slope = evaluation.gradient.dot(&step);
            let mut t = 1.0;
            let mut candidate = &x + &step;
            let mut next = self.evaluate(&candidate, true);
            // Near the optimum the predicted decrease falls below the resolution of f
            // and Armijo cannot tell progress from noise: take the full Newton step,
            // which converges quadratically there.
            let resolvable = -slope > RESOLUTION * (1.0 + evaluation.value.abs());
            for _ in 0..MAX_HALVINGS {
                if !resolvable || next.value <= evaluation.value + ARMIJO * t * slope {
                    break;
                }
                t *= 0.5;
                candidate = &x + &step * t;
                next = self.evaluate(&candidate, true);
            }
            if next.value > evaluation.value && step.amax() * t < 1e-15 {
                break; // No progress is possible in floating point.
            }
            x = candidate;
            self.centre(&mut x);
            evaluation = self.evaluate(&x, true);
        }
        (x, evaluation, iterations)
    }
}
