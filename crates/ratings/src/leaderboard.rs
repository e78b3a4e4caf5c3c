//! A leaderboard: models sorted by score, with intervals and ranks.
//!
//! `rank` is 1 + the number of models with a strictly higher score; `rank_ub` (LMArena's
//! "rank (UB)") is 1 + the number of models whose interval lies wholly above this
//! model's: whose lower bound exceeds this model's upper bound.

use serde::{Deserialize, Serialize};

use crate::{ModelTally, RatingKind};

/// How intervals were made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Percentile bootstrap.
    Bootstrap {
        /// Resamples.
        rounds: usize,
        /// Seed.
        seed: u64,
    },
    /// Normal intervals from the sandwich covariance.
    Sandwich,
}

/// The intervals of a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// How they were made.
    pub method: IntervalMethod,
    /// Coverage, e.g. 0.95.
    pub confidence: f64,
}

/// One model's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Model name.
    pub name: String,
    /// Score on the method's scale.
    pub score: f64,
    /// Lower interval bound.
    pub ci_low: Option<f64>,
    /// Upper interval bound.
    pub ci_high: Option<f64>,
    /// 1 + models scoring strictly higher.
    pub rank: usize,
    /// 1 + models whose lower bound is above this model's upper bound.
    pub rank_ub: Option<usize>,
    /// Battles won.
    pub wins: u64,
    /// Battles lost.
    pub losses: u64,
    /// Battles tied.
    pub ties: u64,
    /// All battles.
    pub battles: u64,
    /// Equilibrium probability (maximal lottery only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// Exploitability of this model played alone, `max_j A_jm` (maximal lottery only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploitability: Option<f64>,
    /// Share of bootstrap replicates whose lottery gives this model positive
    /// probability (maximal lottery with bootstrap only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_share: Option<f64>,
    /// Rank on the plain Bradley–Terry board minus rank on this one: how many places
    /// the model gains (positive) or loses once the covariates are controlled for
    /// (Bradley–Terry with covariates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_change: Option<i64>,
    /// Expected log-odds against the maximum-entropy equilibrium, `(L p*)_m`: 0 on the
    /// equilibrium's support, below 0 off it (Nash averaging only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nash_average: Option<f64>,
    /// The fewest battles found whose removal puts the next model level with or above
    /// this one ([`crate::fragility`]; Bradley–Terry with fragility asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flip: Option<crate::Flip>,
    /// The chance of beating the ground, `pi_i / (1 + pi_i)`: the model's absolute
    /// usable level (the grounded Rao–Kupper model only, [`crate::GroundedFit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usable: Option<f64>,
}

/// What a leaderboard's scores are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PointEstimate {
    /// The method applied to the whole log once: the maximum-likelihood scores, the
    /// replay of the battles, the equilibrium.
    #[default]
    Fit,
    /// The median of the bootstrap replicates' scores. Elo reports it when bootstrap
    /// intervals are asked for (as FastChat's leaderboards did): a replay in log order
    /// depends on that order, the replicates replay resamples in drawn order, and the
    /// one can fall outside the other's percentile interval; the median is always
    /// inside it.
    BootstrapMedian,
}

/// Models sorted by descending score (ties in score by name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The method that made it.
    pub method: RatingKind,
    /// What the scores are (a result saved before this field read as a fit).
    #[serde(default)]
    pub point: PointEstimate,
    /// The intervals, if any.
    pub interval: Option<Interval>,
    /// The models, best first.
    pub models: Vec<Standing>,
}

/// The best rank a model whose interval ends at `high` may hold: 1 plus the models
/// whose interval begins above it (`lows`), LMArena's `rank_ub`.
fn rank_upper_bound(lows: &[f64], high: f64) -> usize {
    1 + lows.iter().filter(|&&low| low > high).count()
}

impl Leaderboard {
    /// Marks the models named in `names` as known to no precision — their intervals
    /// become `(-inf, inf)` — and takes every model's `rank_ub` again from the
    /// intervals. For models the maximum-likelihood estimate does not place (one that
    /// never lost, say): a finite interval there comes from the prior that keeps the
    /// fit finite, not from the data. Without intervals it changes nothing.
    pub fn without_certainty_for(&mut self, names: &[&str]) {
        if self.interval.is_none() {
            return;
        }
        for standing in &mut self.models {
            if names.contains(&standing.name.as_str()) {
                standing.ci_low = Some(f64::NEG_INFINITY);
                standing.ci_high = Some(f64::INFINITY);
            }
        }
        let lows: Vec<f64> = self
            .models
            .iter()
            .map(|s| s.ci_low.unwrap_or(f64::NEG_INFINITY))
            .collect();
        for standing in &mut self.models {
            let high = standing.ci_high.unwrap_or(f64::INFINITY);
            standing.rank_ub = Some(rank_upper_bound(&lows, high));
        }
    }

    /// Builds and sorts a leaderboard; `intervals[m]` is model m's `(low, high)`.
    pub fn new(
        method: RatingKind,
        names: &[String],
        scores: &[f64],
        intervals: Option<(Interval, Vec<(f64, f64)>)>,
        tallies: &[ModelTally],
    ) -> Self {
        let (interval, bounds) = match intervals {
            Some((interval, bounds)) => (Some(interval), Some(bounds)),
            None => (None, None),
        };
        let lows: Option<Vec<f64>> = bounds
            .as_ref()
            .map(|b| b.iter().map(|&(low, _)| low).collect());
        let mut models: Vec<Standing> = (0..names.len())
            .map(|m| {
                let bound = bounds.as_ref().map(|b| b[m]);
                let rank = 1 + scores.iter().filter(|&&s| s > scores[m]).count();
                let rank_ub = bounds
                    .as_ref()
                    .zip(lows.as_ref())
                    .map(|(b, lows)| rank_upper_bound(lows, b[m].1));
                Standing {
                    name: names[m].clone(),
                    score: scores[m],
                    ci_low: bound.map(|b| b.0),
                    ci_high: bound.map(|b| b.1),
                    rank,
                    rank_ub,
                    wins: tallies[m].wins,
                    losses: tallies[m].losses,
                    ties: tallies[m].ties,
                    battles: tallies[m].battles(),
                    probability: None,
                    exploitability: None,
                    support_share: None,
                    rank_change: None,
                    flip: None,
                    nash_average: None,
                    usable: None,
                }
            })
            .collect();
        models.sort_by(|x, y| {
            y.score
                .total_cmp(&x.score)
                .then_with(|| x.name.cmp(&y.name))
        });
        Self {
            method,
            point: PointEstimate::Fit,
            interval,
            models,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_upper_bound_ranks() {
        let names = ["a", "b", "c"].map(String::from);
        let tallies = [ModelTally::default(); 3];
        let interval = Interval {
            method: IntervalMethod::Sandwich,
            confidence: 0.95,
        };
        // a is clearly above c; b overlaps both.
        let bounds = vec![(1100.0, 1200.0), (1000.0, 1150.0), (900.0, 1050.0)];
        let board = Leaderboard::new(
            RatingKind::BradleyTerry,
            &names,
            &[1150.0, 1080.0, 980.0],
            Some((interval, bounds)),
            &tallies,
        );
        let order: Vec<_> = board
            .models
            .iter()
            .map(|s| (s.name.as_str(), s.rank, s.rank_ub))
            .collect();
        assert_eq!(
            order,
            vec![("a", 1, Some(1)), ("b", 2, Some(1)), ("c", 3, Some(2))]
        );
    }
}
