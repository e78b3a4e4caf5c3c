//! How precisely each estimated score is known, and the intervals built from it.
//!
//! **Construction.** Every strategy scores item k by a combination, with weights fixed
//! before the calls it combines were made, of means of calls:
//! `s_hat_k = sum_t a_t m_t`, `sum_t a_t = 1`, where `m_t` is the mean of `n_t` calls of
//! one judge (IVWE: `a_j ∝ N_kj / w_kj` over the judges, `w` the variances the weights
//! were built from — true, estimated or optimistic; `adaptive`: `a_s` the stage
//! shares). Given the allocation, the calls' variance is that of independent draws:
//!
//! ```text
//! Var(s_hat_k) = sum_t a_t^2 sigma^2_t / n_t
//! ```
//!
//! — the sandwich form, right whatever weights were used, so Est-IVWE's optimistic
//! weights do not shrink the interval. `sigma^2_t` is the sample variance of the
//! (item, judge) pair's calls — all of them for the uniform allocation; for Est-IVWE's
//! Phase II only the calls made after the choice, since the Phase-I calls that chose a
//! judge are biased towards agreeing (module `target`); the chosen judge's calls for
//! `adaptive` — and the oracle uses the true one.
//! The interval is `s_hat_k ± t_q · sqrt(Var)`, `t_q` the Student-t quantile at the
//! Welch–Satterthwaite degrees of freedom `(sum_t u_t)^2 / sum_t (u_t^2 / d_t)`,
//! `u_t = a_t^2 sigma_hat^2_t / n_t`, `d_t = ` calls − 1 (normal when the variances are
//! known), cut to the score range `[0, R]` where the true score lies.
//!
//! Two edge cases of bounded scores: `n` calls that all agree give a sample variance of
//! 0 that says nothing — a judge that gives another score with probability `q` agrees
//! with itself `n` times with probability `(1 - q)^n`, which stays above 5% for every
//! `q < 3/n` (the "rule of three", Hanley and Lippman-Hand 1983) — so the variance is
//! bounded by that of such a two-valued law, `R^2 q (1 - q)` at `q = min(3/n, 1/2)`,
//! and used as known; a pair with a single call has no sample variance, and `R^2 / 4` —
//! the largest a law on `[0, R]` can have (Popoviciu) — is used, as a bound. (Binary
//! judges, a preference of 0 or 1, agree with themselves often; with continuous scores
//! agreement is rare and the bound seldom applies.)
//!
//! The mean over items, `m_hat = (1/K) sum_k s_hat_k`, estimates the mean of *these*
//! K items' true scores (no sampling of items): `Var(m_hat) = (1/K^2) sum_k Var(s_hat_k)`,
//! with Welch–Satterthwaite degrees of freedom over the items.
//!
//! **Assumptions.** The judges' calls are independent given the item and unbiased for
//! one true score `s_k` (the budget paper's model): the interval covers what the judges
//! agree on, not a gold label — `--gold` measures and corrects the gap. The normal
//! approximation of a mean of few bounded calls, and choices made on the same calls
//! (`adaptive` reuses the calls that chose the judge; a target error stops on estimated
//! variances), are the approximations; the experiments measure their coverage.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::{JudgeError, Norm, PairStats};

/// The variance of one estimated score, given the allocation, and the degrees of
/// freedom it is estimated on (infinite when known).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScoreUncertainty {
    /// `Var(s_hat_k) = sum_t a_t^2 sigma^2_t / n_t`.
    pub variance: f64,
    /// Welch–Satterthwaite degrees of freedom of the variance estimate.
    pub degrees_of_freedom: f64,
}

impl ScoreUncertainty {
    /// The standard error `sqrt(Var)`.
    pub fn std_error(&self) -> f64 {
        self.variance.sqrt()
    }
}

/// A sample variance at most this times `R^2` comes from calls that all agree (the
/// rest is the rounding of sums of squares).
const AGREEMENT: f64 = 1e-12;

/// A score's variance per call and the degrees of freedom it is known on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CallVariance {
    value: f64,
    degrees_of_freedom: f64,
}

impl CallVariance {
    /// A known variance.
    pub(crate) fn known(value: f64) -> Self {
        Self {
            value,
            degrees_of_freedom: f64::INFINITY,
        }
    }

    /// The variance per call.
    pub(crate) fn value(self) -> f64 {
        self.value
    }

    /// The sample variance of `stats`, with the module's bounds for agreeing calls
    /// (`R^2 q (1 - q)`, `q = min(3/n, 1/2)`) and a single call (`R^2 / 4`).
    pub(crate) fn estimated(stats: &PairStats, range: f64) -> Self {
        let n = stats.count;
        if n < 2 {
            return Self::known(range * range / 4.0);
        }
        if calls_agree(stats, range) {
            let q = (3.0 / n as f64).min(0.5);
            return Self::known(range * range * q * (1.0 - q));
        }
        Self {
            value: stats.sample_variance(),
            degrees_of_freedom: (n - 1) as f64,
        }
    }
}

/// Whether two or more calls of a pair all gave one score, up to the rounding of the
/// running sums (a sample variance at most `AGREEMENT · R^2`).
pub(crate) fn calls_agree(stats: &PairStats, range: f64) -> bool {
    stats.count >= 2 && stats.sample_variance() <= AGREEMENT * range * range
}

/// `Var(sum_t a_t m_t)` built one mean at a time, with its Welch–Satterthwaite
/// degrees of freedom.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Combination {
    variance: f64,
    welch: f64,
}

impl Combination {
    /// Adds `weight · m` with `m` the mean of `calls` calls of variance `per_call`.
    pub(crate) fn add(&mut self, weight: f64, calls: f64, per_call: CallVariance) {
        let part = weight * weight * per_call.value / calls;
        self.variance += part;
        if per_call.degrees_of_freedom.is_finite() {
            self.welch += part * part / per_call.degrees_of_freedom;
        }
    }

    /// The combination's variance and degrees of freedom.
    pub(crate) fn finish(self) -> ScoreUncertainty {
        ScoreUncertainty {
            variance: self.variance,
            degrees_of_freedom: if self.welch > 0.0 {
                self.variance * self.variance / self.welch
            } else {
                f64::INFINITY
            },
        }
    }
}

/// The uncertainty of IVWE scores from `fresh` calls (row-major K×J) weighted by
/// `weights` (`a_kj ∝ N_kj / w_kj`), each pair's variance per call from `per_call`.
pub(crate) fn ivwe_uncertainty(
    fresh: &[PairStats],
    weights: &[f64],
    judges: usize,
    per_call: impl Fn(usize) -> CallVariance,
) -> Vec<ScoreUncertainty> {
    fresh
        .chunks(judges)
        .enumerate()
        .map(|(k, pairs)| {
            let pair = |j: usize| k * judges + j;
            let information: f64 = (0..judges)
                .filter(|&j| pairs[j].count > 0)
                .map(|j| pairs[j].count as f64 / weights[pair(j)])
                .sum();
            // An item without a single score (its only calls lost or failed) is not
            // known to any precision: infinite variance, so its interval is the whole
            // range and the error it adds to every norm is infinite — not the 0 that
            // an empty sum gives.
            if information == 0.0 {
                return ScoreUncertainty {
                    variance: f64::INFINITY,
                    degrees_of_freedom: f64::INFINITY,
                };
            }
            let mut combination = Combination::default();
            for j in (0..judges).filter(|&j| pairs[j].count > 0) {
                let n = pairs[j].count as f64;
                combination.add(n / weights[pair(j)] / information, n, per_call(pair(j)));
            }
            combination.finish()
        })
        .collect()
}

/// The estimated `l_p` error `||se||_p` of scores with these uncertainties — the
/// quantity the allocation minimises (the square root of `A_p`, Section 3).
pub fn estimated_error(uncertainty: &[ScoreUncertainty], p: Norm) -> f64 {
    let errors: Vec<f64> = uncertainty
        .iter()
        .map(ScoreUncertainty::std_error)
        .collect();
    p.length(&errors)
}

/// One score with its standard error and interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScoreInterval {
    /// The estimate.
    pub score: f64,
    /// Its standard error.
    pub std_error: f64,
    /// Lower end, at least 0.
    pub low: f64,
    /// Upper end, at most `R`.
    pub high: f64,
}

/// Each item's interval and the interval of their mean, at one confidence level.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Intervals {
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// One per item.
    pub items: Vec<ScoreInterval>,
    /// The mean over the items of the scores, with its interval.
    pub mean: ScoreInterval,
}

/// Checks a confidence level: a number in (0, 1).
///
/// # Errors
/// [`JudgeError::Setting`] naming the level and an example.
pub fn check_level(level: f64) -> Result<(), JudgeError> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(JudgeError::Setting(format!(
            "confidence level {level} must be in (0, 1), e.g. 0.95"
        )))
    }
}

/// Intervals at `level` for `scores` with their `uncertainty` in the range `[0, range]`
/// (module docs).
///
/// # Errors
/// [`JudgeError::Setting`] for a level outside (0, 1) or mismatched lengths.
pub fn intervals(
    scores: &[f64],
    uncertainty: &[ScoreUncertainty],
    level: f64,
    range: f64,
) -> Result<Intervals, JudgeError> {
    check_level(level)?;
    if scores.len() != uncertainty.len() || scores.is_empty() {
        return Err(JudgeError::Setting(format!(
            "{} scores with {} uncertainties",
            scores.len(),
            uncertainty.len()
        )));
    }
    let interval = |score: f64, u: &ScoreUncertainty| {
        let half = quantile(level, u.degrees_of_freedom) * u.std_error();
        ScoreInterval {
            score,
            std_error: u.std_error(),
            low: (score - half).max(0.0),
            high: (score + half).min(range),
        }
    };
    let items = scores
        .iter()
        .zip(uncertainty)
        .map(|(&s, u)| interval(s, u))
        .collect();
    let count = scores.len() as f64;
    let mut mean = Combination::default();
    for u in uncertainty {
        let per_call = CallVariance {
            value: u.variance,
            degrees_of_freedom: u.degrees_of_freedom,
        };
        mean.add(1.0 / count, 1.0, per_call);
    }
    let mean_score = scores.iter().sum::<f64>() / count;
    Ok(Intervals {
        level,
        items,
        mean: interval(mean_score, &mean.finish()),
    })
}

/// The two-sided quantile `q` with `P(|T| <= q) = level` for Student's t at
/// `degrees_of_freedom` (the normal's when infinite).
pub(crate) fn quantile(level: f64, degrees_of_freedom: f64) -> f64 {
    let upper = 0.5 + level / 2.0;
    match StudentsT::new(0.0, 1.0, degrees_of_freedom) {
        Ok(t) if degrees_of_freedom.is_finite() && degrees_of_freedom < 1e7 => t.inverse_cdf(upper),
        _ => Normal::standard().inverse_cdf(upper),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An item none of whose calls gave a score has an infinite standard error and
    /// the whole range as its interval, and so has the mean; before, it was reported
    /// with standard error 0 and an l2 error of 0.
    #[test]
    fn an_item_without_a_score_is_not_known_to_any_precision() {
        let mut scored = PairStats::default();
        for s in [0.2, 0.4, 0.3] {
            scored.push(s);
        }
        let fresh = [scored, PairStats::default()];
        let uncertainty = ivwe_uncertainty(&fresh, &[0.01, 0.01], 1, |_| CallVariance::known(0.01));
        assert!((uncertainty[0].variance - 0.01 / 3.0).abs() < 1e-15);
        assert_eq!(uncertainty[1].std_error(), f64::INFINITY);
        assert_eq!(estimated_error(&uncertainty, Norm::P(2.0)), f64::INFINITY);
        let found = intervals(&[0.3, f64::NAN], &uncertainty, 0.95, 1.0).unwrap();
        assert_eq!((found.items[1].low, found.items[1].high), (0.0, 1.0));
        assert_eq!((found.mean.low, found.mean.high), (0.0, 1.0));
    }

    #[test]
    fn quantiles_are_students_and_the_normals() {
        // scipy.stats.t.ppf(0.975, 3) = 3.182446305284263,
        // scipy.stats.norm.ppf(0.975) = 1.959963984540054.
        assert!((quantile(0.95, 3.0) - 3.182446305284263).abs() < 1e-9);
        assert!((quantile(0.95, f64::INFINITY) - 1.959963984540054).abs() < 1e-12);
    }

    #[test]
    fn the_sandwich_variance_of_a_two_judge_combination() {
        // Judge 0: 4 calls 0.2, 0.4, 0.2, 0.4 (sample variance 4/300 = 0.01333),
        // judge 1: 2 calls 0.5, 0.7 (0.02); weights from w = (0.01, 0.04): a ∝ 400, 50,
        // so a = (8/9, 1/9). Var = (64/81)·(0.04/3)/4 + (1/81)·0.02/2, by hand.
        let mut first = PairStats::default();
        for s in [0.2, 0.4, 0.2, 0.4] {
            first.push(s);
        }
        let mut second = PairStats::default();
        for s in [0.5, 0.7] {
            second.push(s);
        }
        let fresh = [first, second];
        let u = ivwe_uncertainty(&fresh, &[0.01, 0.04], 2, |i| {
            CallVariance::estimated(&fresh[i], 1.0)
        });
        let (v0, v1) = (0.04 / 3.0, 0.02);
        let (t0, t1) = (64.0 / 81.0 * v0 / 4.0, 1.0 / 81.0 * v1 / 2.0);
        assert!((u[0].variance - (t0 + t1)).abs() < 1e-15);
        let welch = (t0 + t1).powi(2) / (t0 * t0 / 3.0 + t1 * t1 / 1.0);
        assert!((u[0].degrees_of_freedom - welch).abs() < 1e-9);
    }

    #[test]
    fn agreeing_calls_and_a_single_call_get_the_bounded_floors() {
        let mut same = PairStats::default();
        for _ in 0..10 {
            same.push(0.3);
        }
        // Ten agreeing calls: q = 3/10, R^2 q (1 - q) = 4 · 0.21.
        assert_eq!(
            CallVariance::estimated(&same, 2.0),
            CallVariance::known(0.84)
        );
        for _ in 0..50 {
            same.push(0.3);
        }
        let sixty = CallVariance::estimated(&same, 2.0).value;
        assert!((sixty - 4.0 * 0.05 * 0.95).abs() < 1e-12, "{sixty}");
        let mut five = PairStats::default();
        for _ in 0..5 {
            five.push(1.0);
        }
        assert_eq!(
            CallVariance::estimated(&five, 2.0),
            CallVariance::known(1.0)
        );
        let mut one = PairStats::default();
        one.push(0.3);
        assert_eq!(CallVariance::estimated(&one, 2.0), CallVariance::known(1.0));
    }

    #[test]
    fn intervals_are_cut_to_the_range_and_the_mean_pools_the_items() {
        let u = [
            ScoreUncertainty {
                variance: 0.01,
                degrees_of_freedom: f64::INFINITY,
            },
            ScoreUncertainty {
                variance: 0.04,
                degrees_of_freedom: f64::INFINITY,
            },
        ];
        let found = intervals(&[0.95, 0.5], &u, 0.95, 1.0).unwrap();
        assert_eq!(found.items[0].high, 1.0);
        let z = 1.959963984540054;
        assert!((found.items[0].low - (0.95 - z * 0.1)).abs() < 1e-12);
        // Mean 0.725, Var = (0.01 + 0.04) / 4.
        assert!((found.mean.score - 0.725).abs() < 1e-15);
        assert!((found.mean.std_error - (0.05f64 / 4.0).sqrt()).abs() < 1e-15);
        assert!(intervals(&[0.5], &u[..1], 1.0, 1.0).is_err());
    }
}
