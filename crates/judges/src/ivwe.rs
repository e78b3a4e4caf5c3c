//! The inverse-variance weighted estimator (Section 3):
//!
//! ```text
//! s_hat_k = ( sum_j N_kj / sigma^2_kj )^-1 · sum_j (N_kj / sigma^2_kj) · s_hat_kj,
//! ```
//!
//! where `s_hat_kj` is the mean of the `N_kj` scores judge j gave item k.

use crate::JudgeError;

/// Running count, sum and sum of squares of one (item, judge) pair's scores.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairStats {
    /// Number of scores.
    pub count: u64,
    /// Sum of scores.
    pub sum: f64,
    /// Sum of squared scores.
    pub sum_squares: f64,
    /// Sum of cubed scores.
    pub sum_cubes: f64,
    /// Sum of fourth powers.
    pub sum_fourths: f64,
}

impl PairStats {
    /// Adds one score.
    pub fn push(&mut self, score: f64) {
        self.count += 1;
        self.sum += score;
        let square = score * score;
        self.sum_squares += square;
        self.sum_cubes += square * score;
        self.sum_fourths += square * square;
    }

    /// Adds every score of `other`.
    pub fn merge(&mut self, other: &PairStats) {
        self.count += other.count;
        self.sum += other.sum;
        self.sum_squares += other.sum_squares;
        self.sum_cubes += other.sum_cubes;
        self.sum_fourths += other.sum_fourths;
    }

    /// Fourth central moment `E[(X - mean)^4]` of the scores (plug-in), from the
    /// power sums.
    pub fn fourth_central_moment(&self) -> f64 {
        let n = self.count as f64;
        let (m, m2, m3, m4) = (
            self.mean(),
            self.sum_squares / n,
            self.sum_cubes / n,
            self.sum_fourths / n,
        );
        (m4 - 4.0 * m * m3 + 6.0 * m * m * m2 - 3.0 * m.powi(4)).max(0.0)
    }

    /// Mean score (NaN without scores).
    pub fn mean(&self) -> f64 {
        self.sum / self.count as f64
    }

    /// Unbiased sample variance (`N - 1` denominator), clamped at 0; NaN below two
    /// scores.
    pub fn sample_variance(&self) -> f64 {
        let n = self.count as f64;
        ((self.sum_squares - self.sum * self.sum / n) / (n - 1.0)).max(0.0)
    }
}

/// IVWE of every item from per-pair `stats` (row-major K×J) weighted by `variances`
/// (true or estimated; row-major K×J). Pairs without scores get no weight; an item
/// without any score gets NaN.
pub fn ivwe(stats: &[PairStats], variances: &[f64], judges: usize) -> Vec<f64> {
    stats
        .chunks(judges)
        .zip(variances.chunks(judges))
        .map(|(pairs, v)| {
            let (weighted, weight) = pairs.iter().zip(v).filter(|(s, _)| s.count > 0).fold(
                (0.0, 0.0),
                |(num, den), (s, &var)| {
                    let w = s.count as f64 / var;
                    (num + w * s.mean(), den + w)
                },
            );
            weighted / weight
        })
        .collect()
}

/// IVWE of `items` items from scores given one call at a time — `(item, judge, score)`
/// with indices below `items` and `judges` — weighted by `variances` (row-major K×J,
/// known), or, when `None`, by each pair's sample variance (Est-IVWE's plug-in; every
/// pair with scores then needs two of them and some spread):
/// `ŝ_k = Σ_j (N_kj / σ²_kj) m_kj / Σ_j (N_kj / σ²_kj)` (multi-judge budget paper, Section 3).
///
/// # Errors
/// [`JudgeError::Instance`] naming the call or pair at fault: an index out of range,
/// a score that is not finite, variances of the wrong size or not positive, an item
/// without any score, or (estimated) a pair with fewer than two scores or none apart.
pub fn ivwe_from_scores(
    items: usize,
    judges: usize,
    calls: &[(usize, usize, f64)],
    variances: Option<&[f64]>,
) -> Result<Vec<f64>, JudgeError> {
    let bad = |message: String| Err(JudgeError::Instance(message));
    let mut stats = vec![PairStats::default(); items * judges];
    for (i, &(item, judge, score)) in calls.iter().enumerate() {
        if item >= items || judge >= judges || !score.is_finite() {
            return bad(format!(
                "call {i}: item {item}, judge {judge}, score {score} (indices below {items} and {judges}, a finite score)"
            ));
        }
        stats[item * judges + judge].push(score);
    }
    let estimated: Vec<f64>;
    let variances = match variances {
        Some(given) => {
            if given.len() != items * judges {
                return bad(format!(
                    "{} variances for {items} items × {judges} judges",
                    given.len()
                ));
            }
            check_variances(given, judges)?;
            given
        }
        None => {
            estimated = stats
                .iter()
                .map(|s| {
                    if s.count == 0 {
                        1.0
                    } else {
                        s.sample_variance()
                    }
                })
                .collect();
            let unusable = stats
                .iter()
                .zip(&estimated)
                .position(|(s, v)| s.count > 0 && (s.count < 2 || *v <= 0.0));
            if let Some(i) = unusable {
                return bad(format!(
                    "item {}, judge {}: {} scores with sample variance {}; estimating a variance needs two scores that differ (or give the variances)",
                    i / judges,
                    i % judges,
                    stats[i].count,
                    estimated[i]
                ));
            }
            &estimated
        }
    };
    if let Some(k) = (0..items).find(|&k| {
        stats[k * judges..(k + 1) * judges]
            .iter()
            .all(|s| s.count == 0)
    }) {
        return bad(format!("item {k} has no score"));
    }
    Ok(ivwe(&stats, variances, judges))
}

/// Every variance of a row-major K×`judges` matrix is positive and finite.
///
/// # Errors
/// [`JudgeError::Instance`] naming the first item and judge that is not.
pub(crate) fn check_variances(variances: &[f64], judges: usize) -> Result<(), JudgeError> {
    match variances.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        Some(i) => Err(JudgeError::Instance(format!(
            "variance {} of item {}, judge {} must be positive and finite",
            variances[i],
            i / judges,
            i % judges
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod scores_tests {
    use super::*;

    #[test]
    fn ivwe_from_scores_is_the_inverse_variance_weighted_mean() {
        // Item 0: judge 0 gives 0.2 and 0.4 (mean 0.3, N 2, sigma² 0.01), judge 1
        // gives 0.6 (N 1, sigma² 0.04): weights 200 and 25, so
        // (200·0.3 + 25·0.6) / 225 = 75 / 225 = 1/3. Item 1: judge 1 only, 0.9.
        let calls = [(0, 0, 0.2), (0, 0, 0.4), (0, 1, 0.6), (1, 1, 0.9)];
        let known = ivwe_from_scores(2, 2, &calls, Some(&[0.01, 0.04, 0.01, 0.04])).unwrap();
        assert!((known[0] - 1.0 / 3.0).abs() < 1e-15);
        assert!((known[1] - 0.9).abs() < 1e-15);
        // Estimated: judge 0's sample variance is 0.02; judge 1 has one score only.
        let error = ivwe_from_scores(2, 2, &calls, None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("item 0, judge 1"), "{error}");
        let calls = [(0, 0, 0.2), (0, 0, 0.4), (0, 1, 0.5), (0, 1, 0.7)];
        let estimated = ivwe_from_scores(1, 2, &calls, None).unwrap();
        // Equal sample variances (0.02) and counts: the plain mean of 0.3 and 0.6.
        assert!((estimated[0] - 0.45).abs() < 1e-12);
        assert!(ivwe_from_scores(2, 2, &calls, None)
            .unwrap_err()
            .to_string()
            .contains("item 1 has no score"));
        assert!(ivwe_from_scores(1, 2, &[(0, 2, 0.5)], None).is_err());
    }
}
