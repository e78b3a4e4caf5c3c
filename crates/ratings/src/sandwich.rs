//! Robust (sandwich) covariance of the Bradley–Terry estimate, the intervals LMArena
//! publishes by default: `V = H^-1 M H^-1`, with `H` the Hessian of the penalised
//! negative log-likelihood at the fit and `M = sum_battles s s^T` the outer products
//! of the per-battle scores. A battle's score depends only on its pair and outcome,
//! so `M` is summed over the (pair, outcome) cells, weighted by their counts.
//!
//! A weighted log (battle `r` weighing `w_r`, [`PairCounts::from_weighted_log`]) fits
//! `sum_r w_r l_r`: `H` is its Hessian, and battle `r`'s score is `w_r s_r`, so the
//! middle is `M = sum_r w_r^2 s_r s_r^T` — each cell weighted by its `sum w^2`
//! ([`PairCounts::squared_weights`]), as arena-rank's `BradleyTerry` computes it.

use nalgebra::DMatrix;

use crate::bradley_terry::Problem;
use crate::newton::Objective;
use crate::{BtFit, PairCounts, RatingsError};

/// Sandwich covariance of the log-strengths `beta` (K×K, rows of a `Vec`), with the
/// common-shift direction projected out when the fit is unpenalised.
///
/// # Errors
/// [`RatingsError::Numerical`] if the Hessian cannot be factored.
pub fn sandwich_covariance(
    counts: &PairCounts,
    fit: &BtFit,
) -> Result<Vec<Vec<f64>>, RatingsError> {
    let k = counts.models();
    let problem = Problem::new(counts, fit.ties, fit.regularization.weight());
    let mut x: Vec<f64> = fit.beta.clone();
    x.extend(fit.theta);
    let x = nalgebra::DVector::from_vec(x);
    let dims = x.len();
    let hessian = problem.evaluate(&x, true).hessian.expect("requested");
    let factor = problem
        .factor(hessian)
        .ok_or_else(|| RatingsError::Numerical("the Hessian of the sandwich".into()))?;
    let theta = fit.theta.unwrap_or(0.0);
    let mut meat = DMatrix::<f64>::zeros(dims, dims);
    for (pair, squares) in counts.pairs().iter().zip(counts.squared_weights()) {
        let (i, j) = (pair.i as usize, pair.j as usize);
        let d = x[i] - x[j];
        for (cell, &count) in squares.iter().enumerate() {
            if count == 0.0 {
                continue;
            }
            let mut unit = [0.0; 3];
            unit[cell] = 1.0;
            let terms = fit.ties.pair_terms(d, theta, unit);
            let mut score = vec![(i, terms.d), (j, -terms.d)];
            if fit.theta.is_some() {
                score.push((k, terms.theta));
            }
            for &(r, sr) in &score {
                for &(c, sc) in &score {
                    meat[(r, c)] += count * sr * sc;
                }
            }
        }
    }
    let bread = factor.inverse();
    let mut covariance = &bread * meat * &bread;
    if fit.regularization.weight() == 0.0 {
        // Project the strength block onto sum-zero vectors: P V P, P = I - 11^T/K.
        let mut projection = DMatrix::<f64>::identity(dims, dims);
        for r in 0..k {
            for c in 0..k {
                projection[(r, c)] -= 1.0 / k as f64;
            }
        }
        covariance = &projection * covariance * projection.transpose();
    }
    Ok((0..k)
        .map(|r| (0..k).map(|c| covariance[(r, c)]).collect())
        .collect())
}
