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
    /// A recorded call of this pair was replayed from a ledger instead of made; pools
    /// whose answers depend on how often a pair was asked (simulators) move on.
    fn skip(&mut self, _item: usize, _judge: usize) {}
}

/// Simulated judges: Beta-distributed scores with the instance's mean and variance
/// (the paper's synthetic experiments, Section 7), scaled to `[0, R]`. The n-th score
/// of a pair is drawn from its own seeded stream, so it does not depend on the order
/// of calls: a run resumed from a ledger gets exactly the scores an uninterrupted run
/// would have.
pub struct SimulatedJudges {
    instance: Instance,
    distributions: Vec<Beta<f64>>,
    seed: u64,
    calls: Vec<u64>,
}

impl SimulatedJudges {
    /// Judges for `instance`, drawing with `seed`.
    pub fn new(instance: Instance, seed: u64) -> Self {
        let r = instance.range();
        let judges = instance.judges();
        let distributions: Vec<Beta<f64>> = instance
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
        let calls = vec![0; distributions.len()];
        Self {
            instance,
            distributions,
            seed,
            calls,
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

    fn skip(&mut self, item: usize, judge: usize) {
        self.calls[item * self.instance.judges() + judge] += 1;
    }

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let pair = item * self.instance.judges() + judge;
        let n = self.calls[pair];
        self.calls[pair] += 1;
        let mut rng = pair_stream(self.seed, pair, n);
        Ok(self.instance.range() * self.distributions[pair].sample(&mut rng))
    }
}

/// The random stream of the n-th call of a pair: seeded by (seed, pair, n) alone, so a
/// draw does not depend on the order of calls and a run resumed from a ledger draws
/// exactly what an uninterrupted run would.
pub(crate) fn pair_stream(seed: u64, pair: usize, n: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(
        seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n.rotate_left(32),
    )
}
