//! The inverse-variance weighted estimator (Section 3):
//!
//! ```text
//! s_hat_k = ( sum_j N_kj / sigma^2_kj )^-1 · sum_j (N_kj / sigma^2_kj) · s_hat_kj,
//! ```
//!
//! where `s_hat_kj` is the mean of the `N_kj` scores judge j gave item k.

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
