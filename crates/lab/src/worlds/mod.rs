//! Data-generating processes with known ground truth: a synthetic arena (below), the
//! contextual agent-evaluation simulator of NashEval Appendix G ([`nasheval`]) and an
//! arena-shaped contextual world ([`arena_world`]).
//!
//! [`ArenaSimulation`] draws an LMArena-like battle log: model log-strengths
//! `beta_m ~ N(0, spread^2)`, pairs drawn with probability proportional to the product
//! of the two models' popularity weights `w_m = (m + 1)^(-popularity_exponent)` (a few
//! models battle far more often than the rest, as in real arenas), outcomes from
//! Bradley–Terry with ties: `P(tie) = tie_rate`, a tie being "both bad" with
//! probability `bothbad_share`, otherwise `P(a wins) = 1 / (1 + exp(beta_b - beta_a))`.

pub mod arena_world;
pub mod nasheval;

use rand::distr::weighted::WeightedIndex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use verdict::feedback::{BattleLog, ModelId, Outcome};

/// Settings of a synthetic arena.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `models` | 200 | number of models | ≥ 2 |
/// | `battles` | 5,000,000 | number of battles | ≥ 1 |
/// | `spread` | 1.0 | standard deviation of log-strengths | ≥ 0 |
/// | `tie_rate` | 0.25 | probability of a tie | [0, 1) |
/// | `bothbad_share` | 0.4 | share of ties that are "both bad" | [0, 1] |
/// | `popularity_exponent` | 0.5 | how unevenly models are sampled | ≥ 0 |
/// | `seed` | 0 | seed | any |
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaSimulation {
    /// Number of models.
    pub models: usize,
    /// Number of battles.
    pub battles: usize,
    /// Standard deviation of the log-strengths.
    pub spread: f64,
    /// Probability of a tie.
    pub tie_rate: f64,
    /// Share of ties that are "both bad".
    pub bothbad_share: f64,
    /// Exponent of the popularity weights.
    pub popularity_exponent: f64,
    /// Seed.
    pub seed: u64,
}

impl Default for ArenaSimulation {
    fn default() -> Self {
        Self {
            models: 200,
            battles: 5_000_000,
            spread: 1.0,
            tie_rate: 0.25,
            bothbad_share: 0.4,
            popularity_exponent: 0.5,
            seed: 0,
        }
    }
}

/// A setting outside its range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "invalid simulation setting {} {value}: expected {expected}",
    verdict::settings::Setting(name)
)]
pub struct SimulationError {
    /// The setting.
    pub name: &'static str,
    /// Its value.
    pub value: String,
    /// The accepted range.
    pub expected: &'static str,
}

impl From<SimulationError> for verdict::VerdictError {
    /// A simulation setting is a pipeline setting outside its range; the message names it.
    fn from(e: SimulationError) -> Self {
        Self::Settings(e.to_string())
    }
}

/// A simulated log with the strengths that generated it.
#[derive(Debug, Clone)]
pub struct SimulatedArena {
    /// The battles.
    pub log: BattleLog,
    /// True log-strength of each model (by model id).
    pub beta: Vec<f64>,
}

impl ArenaSimulation {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`SimulationError`] naming the first setting out of range.
    pub fn validate(&self) -> Result<(), SimulationError> {
        let fail = |name, value: f64, expected| {
            Err(SimulationError {
                name,
                value: value.to_string(),
                expected,
            })
        };
        if self.models < 2 {
            return fail("models", self.models as f64, "at least 2");
        }
        if self.battles == 0 {
            return fail("battles", 0.0, "at least 1");
        }
        if !(self.spread.is_finite() && self.spread >= 0.0) {
            return fail("spread", self.spread, "a non-negative number");
        }
        if !(0.0..1.0).contains(&self.tie_rate) {
            return fail("tie_rate", self.tie_rate, "a probability below 1");
        }
        if !(0.0..=1.0).contains(&self.bothbad_share) {
            return fail("bothbad_share", self.bothbad_share, "a probability");
        }
        if !(self.popularity_exponent.is_finite() && self.popularity_exponent >= 0.0) {
            return fail(
                "popularity_exponent",
                self.popularity_exponent,
                "a non-negative number",
            );
        }
        Ok(())
    }

    /// Draws the arena.
    ///
    /// # Errors
    /// [`SimulationError`] for bad settings.
    pub fn simulate(&self) -> Result<SimulatedArena, SimulationError> {
        self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let normal = Normal::new(0.0, self.spread).expect("validated spread");
        let beta: Vec<f64> = (0..self.models).map(|_| normal.sample(&mut rng)).collect();
        let weights: Vec<f64> = (0..self.models)
            .map(|m| ((m + 1) as f64).powf(-self.popularity_exponent))
            .collect();
        let pick = WeightedIndex::new(&weights).expect("positive weights");
        let mut log = BattleLog::new();
        let width = (self.models - 1).to_string().len();
        for m in 0..self.models {
            log.models_mut().intern(&format!("model-{m:0width$}"));
        }
        for _ in 0..self.battles {
            let a = pick.sample(&mut rng);
            let mut b = pick.sample(&mut rng);
            while b == a {
                b = pick.sample(&mut rng);
            }
            let outcome = if rng.random::<f64>() < self.tie_rate {
                if rng.random::<f64>() < self.bothbad_share {
                    Outcome::TieBothBad
                } else {
                    Outcome::Tie
                }
            } else if rng.random::<f64>() < 1.0 / (1.0 + (beta[b] - beta[a]).exp()) {
                Outcome::WinA
            } else {
                Outcome::WinB
            };
            log.push_ids(ModelId(a as u32), ModelId(b as u32), outcome);
        }
        Ok(SimulatedArena { log, beta })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulation_is_seeded_and_respects_the_tie_rate() {
        let settings = ArenaSimulation {
            models: 10,
            battles: 20_000,
            seed: 3,
            ..ArenaSimulation::default()
        };
        let first = settings.simulate().unwrap();
        let second = settings.simulate().unwrap();
        assert_eq!(first.beta, second.beta);
        let ties = first.log.iter().filter(|b| b.2.is_tie()).count() as f64;
        // Binomial(20000, 0.25): sd = 61; allow 5 sd.
        assert!((ties - 5000.0).abs() < 5.0 * 61.3, "{ties}");
        assert!(first.log.iter().all(|(a, b, _)| a != b));
    }

    #[test]
    fn bad_settings_are_named() {
        let err = ArenaSimulation {
            tie_rate: 1.5,
            ..ArenaSimulation::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.to_string().contains("`tie_rate` 1.5"), "{err}");
    }
}
