//! The empirical gap loss of NashEval Eq. 17,
//! `L_n(theta) = (1/n) sum_i G_Omega(pi_theta(X_i); Â(X_i))`, with the Danskin gradient
//! of Eq. 33 (`-A T(pi) + grad Omega(pi)`: no derivative through the best response)
//! taken through a softmax output layer, for the linear price of Eq. 20 or the soft
//! budget of Eq. 52–53.

use std::borrow::Cow;

use rayon::prelude::*;

use verdict_game::{PayoffMatrix, Regularizer, SoftRegularizer};

use crate::structured::HeadTable;

/// The payoff games a policy is trained and scored on, one per context, read one
/// at a time: held as matrices, or built when read from a structured surface's head
/// rows, which are linear in the agents where the matrices are quadratic.
pub trait GameSet: Sync {
    /// Contexts.
    fn len(&self) -> usize;
    /// Whether there is no game.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Agents K (0 without a game).
    fn agents(&self) -> usize;
    /// The game of context `i`.
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix>;
    /// The games of contexts `range`, held (for the solver, a chunk at a time).
    fn games(&self, range: std::ops::Range<usize>) -> Vec<PayoffMatrix> {
        range.map(|i| self.game(i).into_owned()).collect()
    }
    /// Numbers held.
    fn values_held(&self) -> usize;
}

/// The games of a fit's training contexts: matrices held, or a structured surface's
/// head rows (held by the fit or borrowed from the cross-fit) built into a game when
/// read.
#[derive(Debug)]
pub enum Games<'a> {
    /// One matrix per context.
    Matrices(Vec<PayoffMatrix>),
    /// One head row per context.
    Heads(Cow<'a, HeadTable>),
}

impl Games<'_> {
    fn set(&self) -> &dyn GameSet {
        match self {
            Self::Matrices(games) => games,
            Self::Heads(table) => table.as_ref(),
        }
    }
}

impl GameSet for Games<'_> {
    fn len(&self) -> usize {
        self.set().len()
    }
    fn agents(&self) -> usize {
        self.set().agents()
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        self.set().game(i)
    }
    /// Numbers held by the games themselves (a borrowed table is held by its
    /// owner).
    fn values_held(&self) -> usize {
        match self {
            Self::Heads(Cow::Borrowed(_)) => 0,
            _ => self.set().values_held(),
        }
    }
}

impl GameSet for [PayoffMatrix] {
    fn len(&self) -> usize {
        <[PayoffMatrix]>::len(self)
    }
    fn agents(&self) -> usize {
        self.first().map_or(0, PayoffMatrix::agents)
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Borrowed(&self[i])
    }
    fn values_held(&self) -> usize {
        self.iter().map(|a| a.agents() * a.agents()).sum()
    }
}

impl GameSet for Vec<PayoffMatrix> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn agents(&self) -> usize {
        GameSet::agents(self.as_slice())
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Borrowed(&self[i])
    }
    fn values_held(&self) -> usize {
        GameSet::values_held(self.as_slice())
    }
}

impl GameSet for HeadTable {
    fn len(&self) -> usize {
        self.contexts()
    }
    fn agents(&self) -> usize {
        HeadTable::agents(self)
    }
    fn game(&self, i: usize) -> Cow<'_, PayoffMatrix> {
        Cow::Owned(HeadTable::game(self, i))
    }
    fn values_held(&self) -> usize {
        HeadTable::values_held(self)
    }
}

/// Reusable buffers for [`GapLoss::softmax_gradient`].
#[derive(Debug, Default)]
pub struct GapScratch {
    sort: Vec<f64>,
    response: Vec<f64>,
    gradient: Vec<f64>,
}

/// The per-context gap and its gradient for the fit's regularizer `Omega`.
#[derive(Debug, Clone, PartialEq)]
pub enum GapLoss {
    /// `rho/2 ||pi - 1/K||^2 + c^T pi` (Eq. 74 with the linear price of Eq. 20).
    Priced(Regularizer),
    /// `rho/2 ||pi - 1/K||^2 + phi(c^T pi)` (the soft budget, Eq. 52–53).
    SoftBudget(SoftRegularizer),
}

impl GapLoss {
    /// `G_Omega(pi; A)` (Eq. 30).
    pub fn value(&self, a: &PayoffMatrix, pi: &[f64], scratch: &mut GapScratch) -> f64 {
        scratch.response.resize(pi.len(), 0.0);
        let (sort, response) = (&mut scratch.sort, &mut scratch.response);
        match self {
            Self::Priced(regularizer) => regularizer.gap(a, pi, sort, response),
            Self::SoftBudget(regularizer) => regularizer.gap(a, pi, sort, response),
        }
    }

    /// `G_Omega(softmax(z); A)` and its gradient with respect to the logits `z`,
    /// written into `logit_gradient`: with `g = grad_pi G` (Eq. 33),
    /// `dG/dz = pi ⊙ (g - <pi, g>)` (the softmax Jacobian).
    pub fn softmax_gradient(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut GapScratch,
        logit_gradient: &mut [f64],
    ) -> f64 {
        let gap = self.value(a, pi, scratch);
        scratch.gradient.resize(pi.len(), 0.0);
        let (response, gradient) = (&scratch.response, &mut scratch.gradient);
        match self {
            Self::Priced(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
            Self::SoftBudget(regularizer) => regularizer.gap_gradient(a, pi, response, gradient),
        }
        let mean: f64 = pi.iter().zip(&scratch.gradient).map(|(p, g)| p * g).sum();
        for ((out, p), g) in logit_gradient.iter_mut().zip(pi).zip(&scratch.gradient) {
            *out = p * (g - mean);
        }
        gap
    }

    /// The mean gap of `policies` (`contexts × K`) on `games`.
    pub fn mean<G: GameSet + ?Sized>(&self, games: &G, policies: &[f64]) -> f64 {
        let k = games.agents().max(1);
        let contexts = games.len().min(policies.len() / k);
        let rows: Vec<usize> = (0..contexts).collect();
        let total = self.totals(games, &rows, 1, |r, _, pi| {
            pi.copy_from_slice(&policies[r * k..(r + 1) * k]);
        })[0];
        total / games.len().max(1) as f64
    }

    /// `sum_r G_Omega(pi_c(r); A(rows[r]))` for each of `policies` policies `c`,
    /// where `policy(r, c, pi)` writes `pi_c(r)` into `pi` (K values).
    ///
    /// Each game is built once for all its policies, and the games are spread over
    /// threads [`GAP_CHUNK`] at a time; the sums are still taken in `rows`' order,
    /// so they are the same on any number of threads as one thread's loop.
    pub fn totals<G: GameSet + ?Sized>(
        &self,
        games: &G,
        rows: &[usize],
        policies: usize,
        policy: impl Fn(usize, usize, &mut [f64]) + Sync,
    ) -> Vec<f64> {
        let agents = games.agents();
        let mut totals = vec![0.0; policies];
        for (chunk_index, chunk) in rows.chunks(GAP_CHUNK).enumerate() {
            let first = chunk_index * GAP_CHUNK;
            let gaps: Vec<Vec<f64>> = chunk
                .par_iter()
                .enumerate()
                .map_init(
                    || (GapScratch::default(), vec![0.0; agents]),
                    |(scratch, pi), (r, &i)| {
                        let game = games.game(i);
                        (0..policies)
                            .map(|c| {
                                policy(first + r, c, pi);
                                self.value(&game, pi, scratch)
                            })
                            .collect()
                    },
                )
                .collect();
            for row in gaps {
                totals.iter_mut().zip(row).for_each(|(t, g)| *t += g);
            }
        }
        totals
    }
}

/// Contexts whose gaps [`GapLoss::totals`] holds at once.
const GAP_CHUNK: usize = 4096;

/// `K × K` row-major matrices as [`PayoffMatrix`] values.
///
/// # Panics
/// When a matrix is not a valid payoff matrix (the payoff surfaces build them
/// clipped and antisymmetric, so this is a bug).
pub fn payoff_matrices(values: &[f64], agents: usize) -> Vec<PayoffMatrix> {
    values
        .chunks(agents * agents)
        .map(|m| {
            PayoffMatrix::from_row_major(m, agents).expect("a clipped antisymmetric payoff matrix")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Random games and policies, and rows that revisit contexts out of order across
    /// more than one [`GAP_CHUNK`].
    fn problem() -> (Vec<PayoffMatrix>, Vec<f64>, Vec<usize>, GapLoss) {
        let (contexts, agents) = (300, 5);
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let games: Vec<PayoffMatrix> = (0..contexts)
            .map(|_| PayoffMatrix::from_upper(agents, |_, _| rng.random_range(-1.0..1.0)).unwrap())
            .collect();
        let policies: Vec<f64> = (0..contexts)
            .flat_map(|_| {
                let raw: Vec<f64> = (0..agents).map(|_| rng.random_range(0.01..1.0)).collect();
                let sum: f64 = raw.iter().sum();
                raw.into_iter().map(move |p| p / sum)
            })
            .collect();
        let rows: Vec<usize> = (0..GAP_CHUNK + 900)
            .map(|_| rng.random_range(0..contexts))
            .collect();
        let loss = GapLoss::Priced(Regularizer {
            rho: 0.3,
            costs: vec![0.0, 0.02, 0.0, 0.05, 0.0],
        });
        (games, policies, rows, loss)
    }

    #[test]
    fn totals_are_one_thread_s_loop_on_any_number_of_threads() {
        let (games, policies, rows, loss) = problem();
        let k = games[0].agents();
        // Policy 0 is the context's own, policy 1 the uniform mix.
        let policy = |r: usize, c: usize, pi: &mut [f64]| match c {
            0 => pi.copy_from_slice(&policies[rows[r] * k..(rows[r] + 1) * k]),
            _ => pi.fill(1.0 / k as f64),
        };
        // The reference: one loop, one policy at a time, as a reader would write it.
        let mut scratch = GapScratch::default();
        let mut pi = vec![0.0; k];
        let expected: Vec<f64> = (0..2)
            .map(|c| {
                let mut total = 0.0;
                for (r, &i) in rows.iter().enumerate() {
                    policy(r, c, &mut pi);
                    total += loss.value(&games[i], &pi, &mut scratch);
                }
                total
            })
            .collect();
        assert!(expected.iter().all(|t| *t > 0.0));
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let totals = pool.install(|| loss.totals(&games, &rows, 2, policy));
            assert_eq!(totals, expected, "{threads} threads");
        }
    }

    #[test]
    fn the_mean_gap_is_the_total_over_the_contexts() {
        let (games, policies, _, loss) = problem();
        let mut scratch = GapScratch::default();
        let k = games[0].agents();
        let expected = games
            .iter()
            .zip(policies.chunks(k))
            .map(|(game, pi)| loss.value(game, pi, &mut scratch))
            .sum::<f64>()
            / games.len() as f64;
        assert!((loss.mean(&games, &policies) - expected).abs() < 1e-15);
    }
}
