//! Judges behind one trait, so that every strategy runs the same way against a
//! simulator, recorded scores or live judges.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Beta, Distribution};

use crate::{Instance, JudgeError};

/// A pool of J judges that score K items; each call costs the judge's price.
pub trait JudgePool {
    /// Number of items K.
    fn items(&self) -> usize;
    /// Cost of one call to each judge.
    fn costs(&self) -> &[f64];
    /// Score range R: every score must lie in `[0, R]`.
    fn range(&self) -> f64;
    /// One score of `item` by `judge`.
    ///
    /// # Errors
    /// [`JudgeError::Call`] when the judge fails; a failed call is not charged.
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError>;
}

/// Simulated judges: Beta-distributed scores with the instance's mean and variance
/// (the paper's synthetic experiments, Section 7), scaled to `[0, R]`.
pub struct SimulatedJudges {
    instance: Instance,
    distributions: Vec<Beta<f64>>,
    rng: ChaCha8Rng,
}

impl SimulatedJudges {
    /// Judges for `instance`, drawing with `seed`.
    pub fn new(instance: Instance, seed: u64) -> Self {
        let r = instance.range();
        let judges = instance.judges();
        let distributions = instance
            .variances()
            .iter()
            .enumerate()
            .map(|(i, &variance)| {
                // Beta(a, b) with mean m and variance v: a + b = m (1 - m) / v - 1.
                let m = instance.scores()[i / judges] / r;
                let v = variance / (r * r);
                let total = m * (1.0 - m) / v - 1.0;
                Beta::new(m * total, (1.0 - m) * total).expect("valid instance gives a valid Beta")
            })
            .collect();
        Self {
            instance,
            distributions,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The instance simulated.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }
}

impl JudgePool for SimulatedJudges {
    fn items(&self) -> usize {
        self.instance.items()
    }

    fn costs(&self) -> &[f64] {
        self.instance.costs()
    }

    fn range(&self) -> f64 {
        self.instance.range()
    }

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let d = &self.distributions[item * self.instance.judges() + judge];
        Ok(self.instance.range() * d.sample(&mut self.rng))
    }
}
