//! Judges behind one trait, so that every strategy runs the same way against a
//! simulator, recorded scores or live judges.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Beta, Distribution};

use crate::{Instance, JudgeError};

/// Inside `impl JudgePool for W`, where `W` wraps another pool in its field
/// `$inner`: the pool's shape (`items`, `costs`, `range`) passed through unchanged.
#[macro_export]
macro_rules! pool_shape_of {
    ($inner:ident) => {
        fn items(&self) -> usize {
            self.$inner.items()
        }
        fn costs(&self) -> &[f64] {
            self.$inner.costs()
        }
        fn range(&self) -> f64 {
            self.$inner.range()
        }
        fn content_digest(&self) -> Option<String> {
            self.$inner.content_digest()
        }
    };
}

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
    /// SHA-256 (hex) of what decides a call's answer beyond the item ids and judge
    /// names: the items' content and each judge's definition (its program, endpoint,
    /// model, prompts, recorded scores or simulated variance). A ledger resumes only
    /// under the same digest, so changing an item's text or a judge's prompt under the
    /// same name never replays scores given to the old ones. `None` (the default) for
    /// pools that have nothing beyond their shape.
    fn content_digest(&self) -> Option<String> {
        None
    }
    /// A recorded call of this pair was replayed from a ledger instead of made; pools
    /// whose answers depend on how often a pair was asked (simulators) move on.
    fn skip(&mut self, _item: usize, _judge: usize) {}
    /// Whether asking `judge` again for a call that was in flight when a run stopped
    /// costs nothing extra: true for simulators and recorded scores, and for judges
    /// that honour an idempotency key (see [`JudgePool::label_calls`]). A ledger
    /// settles an in-flight call of any other judge as lost rather than pay twice.
    fn repeatable(&self, _judge: usize) -> bool {
        false
    }
    /// The idempotency keys of the next calls this pool makes, in the order they are
    /// started; judges that accept one get it (a program as the `VERDICT_CALL_KEY`
    /// environment variable, an HTTP endpoint as the `Idempotency-Key` header).
    fn label_calls(&mut self, _keys: &[String]) {}
    /// Asked before each wave of calls starts (and, in a ledger, before it is written
    /// ahead): `Some(reason)` stops the run there with [`JudgeError::Stopped`], so no
    /// call is left in flight — how an interpreter's Ctrl-C reaches a run.
    fn stop_requested(&mut self) -> Option<String> {
        None
    }
    /// Most calls of `judge` this pool makes at once in [`JudgePool::score_pair`]
    /// (1 unless it calls concurrently).
    fn concurrency(&self, _judge: usize) -> u64 {
        1
    }
    /// `count` scores of `item` by `judge`, each handed to `take` as its call ends (in
    /// the order the calls end); stops at the first error `take` returns. Pools that
    /// can call a judge concurrently (HTTP) override this; by default the calls are
    /// made one after another with [`JudgePool::score`].
    ///
    /// # Errors
    /// The first error of `take`, or a failure of the pool itself.
    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        one_by_one(self, item, judge, count, take)
    }
}

/// One call through [`JudgePool::score_pair`]: the way pools that make their calls
/// there (HTTP judges, the ledger) answer [`JudgePool::score`]. A failure of the pool
/// itself and the call's own outcome come back alike.
pub(crate) fn one_call<P: JudgePool + ?Sized>(
    pool: &mut P,
    item: usize,
    judge: usize,
) -> Result<f64, JudgeError> {
    let mut outcome = None;
    pool.score_pair(item, judge, 1, &mut |result| {
        outcome = Some(result);
        Ok(())
    })?;
    outcome.expect("one call was made")
}

/// `count` calls of [`JudgePool::score`], one after another, each handed to `take`:
/// the default [`JudgePool::score_pair`], for pools that override it only for some
/// judges.
pub(crate) fn one_by_one<P: JudgePool + ?Sized>(
    pool: &mut P,
    item: usize,
    judge: usize,
    count: u64,
    take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
) -> Result<(), JudgeError> {
    for _ in 0..count {
        take(pool.score(item, judge))?;
    }
    Ok(())
}

/// Simulated judges: Beta-distributed scores with the instance's mean and variance
/// (the paper's synthetic experiments, Section 7), scaled to `[0, R]`. The n-th score
/// of a pair is drawn from its own seeded stream, so it does not depend on the order
/// of calls: a run resumed from a ledger gets exactly the scores an uninterrupted run
/// would have.
pub struct SimulatedJudges {
    instance: Instance,
    distributions: Vec<Beta<f64>>,
    streams: PairStreams,
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
                beta_with(instance.scores()[i / judges] / r, variance / (r * r))
                    .expect("valid instance gives a valid Beta")
            })
            .collect();
        Self::from_laws(instance, distributions, seed)
    }

    /// Judges that share their mistakes: judge j's calls on item k centre on
    /// `s_k + b_kj` (`biases`, row-major K×J, e.g. [`crate::BiasWorld::draw`]) instead
    /// of `s_k`, kept within `[0.01 R, 0.99 R]`, with the instance's variance where
    /// that centre allows it (at most `0.9 m (R - m)`, as the instances draw it).
    ///
    /// # Panics
    /// When `biases` is not K×J.
    pub fn with_item_bias(instance: Instance, biases: &[f64], seed: u64) -> Self {
        let r = instance.range();
        let judges = instance.judges();
        assert_eq!(
            biases.len(),
            instance.variances().len(),
            "one bias per pair"
        );
        let distributions: Vec<Beta<f64>> = instance
            .variances()
            .iter()
            .zip(biases)
            .enumerate()
            .map(|(i, (&variance, &bias))| {
                let centre = ((instance.scores()[i / judges] + bias) / r).clamp(0.01, 0.99);
                let spread = variance / (r * r);
                beta_with(centre, spread.min(0.9 * centre * (1.0 - centre)))
                    .expect("a centre inside (0, 1) with a smaller variance gives a valid Beta")
            })
            .collect();
        Self::from_laws(instance, distributions, seed)
    }

    fn from_laws(instance: Instance, distributions: Vec<Beta<f64>>, seed: u64) -> Self {
        let streams = PairStreams::new(seed, distributions.len());
        Self {
            instance,
            distributions,
            streams,
        }
    }

    /// Starts the draws afresh with `seed`, as a new pool for the same instance would.
    pub fn restart(&mut self, seed: u64) {
        self.streams = PairStreams::new(seed, self.distributions.len());
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
        self.streams.skip(item * self.instance.judges() + judge);
    }

    fn repeatable(&self, _judge: usize) -> bool {
        true
    }

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let pair = item * self.instance.judges() + judge;
        let mut rng = self.streams.next(pair);
        Ok(self.instance.range() * self.distributions[pair].sample(&mut rng))
    }
}

/// The Beta law on `[0, 1]` with `mean` and `variance`: `Beta(m t, (1 - m) t)` with
/// `t = m (1 - m) / v - 1`.
pub(crate) fn beta_with(mean: f64, variance: f64) -> Result<Beta<f64>, rand_distr::BetaError> {
    let total = mean * (1.0 - mean) / variance - 1.0;
    Beta::new(mean * total, (1.0 - mean) * total)
}

/// One random stream per call of each pair: the n-th call of a pair draws from a
/// stream seeded by (seed, pair, n) alone, so a draw does not depend on the order of
/// calls and a run resumed from a ledger draws exactly what an uninterrupted run would.
pub(crate) struct PairStreams {
    seed: u64,
    calls: Vec<u64>,
}

impl PairStreams {
    /// Streams for `pairs` pairs.
    pub(crate) fn new(seed: u64, pairs: usize) -> Self {
        Self {
            seed,
            calls: vec![0; pairs],
        }
    }

    /// The stream of the pair's next call.
    pub(crate) fn next(&mut self, pair: usize) -> ChaCha8Rng {
        let n = self.calls[pair];
        self.calls[pair] += 1;
        ChaCha8Rng::seed_from_u64(
            self.seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n.rotate_left(32),
        )
    }

    /// A call of the pair was replayed from a ledger instead of made: its stream is
    /// used up all the same.
    pub(crate) fn skip(&mut self, pair: usize) {
        self.calls[pair] += 1;
    }
}
