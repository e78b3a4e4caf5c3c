//! Online Elo (arena tutorial, Elo section): expected score
//! `E_A = 1 / (1 + base^((R_B - R_A) / scale))`, update `R_A' = R_A + K (S_A - E_A)`,
//! `R_B' = R_B - K (S_A - E_A)`, with `S_A` = 1, 0, or 1/2 for a tie. The total rating
//! is conserved; the result depends on the order of the battles.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use verdict_feedback::BattleLog;

use crate::method::{RatingKind, RatingMethod, Replicate, Resample};
use crate::{EloScale, RatingsError};

/// Elo settings.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `initial` | 1000 | every model's starting rating | finite |
/// | `k` | 32 | largest change one battle can cause | > 0 |
/// | `base` | 10 | odds base of the expected score | > 1 |
/// | `scale` | 400 | rating difference for odds `base` : 1 | > 0 |
///
/// The settings read by name too (serde, each missing one at its default).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Elo {
    /// Starting rating.
    pub initial: f64,
    /// The K-factor.
    pub k: f64,
    /// Odds base.
    pub base: f64,
    /// Rating scale.
    pub scale: f64,
}

impl Default for Elo {
    fn default() -> Self {
        Self {
            initial: 1000.0,
            k: 32.0,
            base: 10.0,
            scale: 400.0,
        }
    }
}

/// The ratings after replaying a log.
pub type EloRun = Vec<f64>;

impl Elo {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a value outside its range (see the table).
    pub fn validate(&self) -> Result<(), RatingsError> {
        if !self.initial.is_finite() {
            return Err(RatingsError::setting(
                "initial",
                self.initial,
                "a finite number",
            ));
        }
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(RatingsError::setting("k", self.k, "a positive number"));
        }
        if !(self.base.is_finite() && self.base > 1.0) {
            return Err(RatingsError::setting("base", self.base, "a number above 1"));
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(RatingsError::setting(
                "scale",
                self.scale,
                "a positive number",
            ));
        }
        Ok(())
    }

    /// Expected score of a player rated `r_a` against one rated `r_b`.
    pub fn expected(&self, r_a: f64, r_b: f64) -> f64 {
        1.0 / (1.0 + self.base.powf((r_b - r_a) / self.scale))
    }

    /// Replays the battles `order` (row indices of `log`, repeats allowed) and returns
    /// every model's final rating.
    pub fn replay(&self, log: &BattleLog, order: impl IntoIterator<Item = usize>) -> EloRun {
        let mut ratings = vec![self.initial; log.models().len()];
        for row in order {
            let (a, b, outcome) = log.battle(row);
            let (a, b) = (a.index(), b.index());
            let delta = self.k * (outcome.score_a() - self.expected(ratings[a], ratings[b]));
            ratings[a] += delta;
            ratings[b] -= delta;
        }
        ratings
    }

    /// Replays the whole log in its order.
    ///
    /// # Errors
    /// Bad settings, or an empty log.
    pub fn run(&self, log: &BattleLog) -> Result<EloRun, RatingsError> {
        self.validate()?;
        if log.is_empty() {
            return Err(RatingsError::NotEnoughData(
                "the log holds no battles".into(),
            ));
        }
        Ok(self.replay(log, 0..log.len()))
    }
}

impl RatingMethod for Elo {
    type Data = BattleLog;
    type Fit = EloRun;

    const KIND: RatingKind = RatingKind::Elo;

    fn fit(&self, log: &BattleLog) -> Result<EloRun, RatingsError> {
        self.run(log)
    }

    fn scores(&self, ratings: &EloRun, _scale: &EloScale) -> Vec<f64> {
        ratings.clone()
    }

    /// The expected score of `i` against `j` (a tie counts one half).
    fn win_probability(&self, ratings: &EloRun, i: usize, j: usize) -> f64 {
        self.expected(ratings[i], ratings[j])
    }

    /// N battles drawn with replacement, replayed in the order drawn (as FastChat's
    /// `get_bootstrap_result` did): O(N) a round.
    fn resample<'a>(
        &'a self,
        log: &'a BattleLog,
        _fit: &'a EloRun,
        _scale: &'a EloScale,
    ) -> Result<Resample<'a>, RatingsError> {
        self.validate()?;
        if log.is_empty() {
            return Err(RatingsError::NotEnoughData(
                "the log holds no battles".into(),
            ));
        }
        let n = log.len();
        Ok(Box::new(move |rng| Replicate {
            scores: self.replay(log, (0..n).map(|_| rng.random_range(0..n))),
            used_prior: false,
            converged: true,
        }))
    }
}

/// The row order `0..n` permuted by a ChaCha8 stream seeded with `seed`
/// (Fisher–Yates), for replaying Elo in a reproducible shuffled order.
pub fn shuffled_order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_feedback::Outcome;

    /// The tutorial's hand update: from 1000/1000 a win moves 16 points (K = 32).
    #[test]
    fn first_update_matches_the_tutorial() {
        let mut log = BattleLog::new();
        log.push("A", "B", Outcome::WinA).unwrap();
        let ratings = Elo::default().run(&log).unwrap();
        assert_eq!(ratings, vec![1016.0, 984.0]);
    }

    #[test]
    fn a_tie_between_equals_moves_nothing() {
        let mut log = BattleLog::new();
        log.push("A", "B", Outcome::Tie).unwrap();
        assert_eq!(Elo::default().run(&log).unwrap(), vec![1000.0, 1000.0]);
    }

    #[test]
    fn bad_settings_are_rejected() {
        let elo = Elo {
            k: -1.0,
            ..Elo::default()
        };
        assert!(elo.validate().unwrap_err().to_string().contains("`k` = -1"));
    }
}
