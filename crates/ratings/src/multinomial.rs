//! Multinomial draws over many cells, for the count bootstrap: `Multinomial(N, m_c / M)`
//! over cells of masses `m_c` (sum `M`), drawn the same way many times.
//!
//! Two exact samplers; [`MultinomialSampler`] picks one.
//!
//! **Poissonized** (the usual case). Draw each cell independently as
//! `X_c ~ Poisson(lambda m_c / M)` with `lambda = N - 3 sqrt(N)`, then fix the total `T`:
//! add `N - T` independent categorical draws when `T < N`, or remove `T - N` of the `T`
//! drawn items uniformly at random when `T > N` (about one round in 700). Exact: given
//! `T = t`, independent Poissons are `Multinomial(t, m / M)` (the Poisson–multinomial
//! conditioning identity), adding independent draws of the same categorical to a
//! multinomial gives a multinomial, and a uniformly random `N` of `t` exchangeable
//! categorical draws are `N` such draws. What makes it fast: a cell's Poisson depends
//! only on its mass, which is a battle count shared by many cells, so one Walker alias
//! table ([`AliasTable`]) per distinct mass (over the support where the probability
//! exceeds about 1e-20: beyond double precision's reach of any uniform) turns each cell
//! into one random word and a lookup, with no logarithm, square root or rejection.
//!
//! **Binary splits** (when the alias tables would be too large: many distinct or huge
//! masses). Down a binary tree over the cells, a node holding `n` draws sends
//! `Binomial(n, M_L / M_node)` of them left and the rest right (the splitting property
//! of the multinomial). The splits sit where they halve the mass, so most binomials
//! have a small `n` drawn bit by bit or `p` near 1/2, and a subtree that receives no
//! draws costs nothing.
//!
//! Cells of zero mass always draw zero.

use rand::Rng;
use statrs::function::gamma::ln_gamma;

use crate::binomial::sample_binomial;

/// A child of a split: another split, or a cell.
#[derive(Debug, Clone, Copy)]
enum Child {
    Split(u32),
    Cell(u32),
}

/// An internal node: the share of its mass on the left, and its two children.
#[derive(Debug, Clone, Copy)]
struct Split {
    left_share: f64,
    left: Child,
    right: Child,
}

/// The splitting tree of a fixed set of cell masses, built once and drawn from many
/// times.
#[derive(Debug, Clone)]
pub(crate) struct MultinomialTree {
    cells: usize,
    splits: Vec<Split>,
    /// The root when at least two cells have mass; the single cell otherwise.
    root: Option<Child>,
}

impl MultinomialTree {
    /// The tree of `masses` (non-negative; zero cells are never drawn).
    pub(crate) fn new(masses: &[f64]) -> Self {
        let positive: Vec<u32> = (0..masses.len() as u32)
            .filter(|&c| masses[c as usize] > 0.0)
            .collect();
        // prefix[k] = mass of positive[..k].
        let mut prefix = Vec::with_capacity(positive.len() + 1);
        prefix.push(0.0);
        for &c in &positive {
            prefix.push(prefix.last().copied().unwrap_or(0.0) + masses[c as usize]);
        }
        let mut tree = Self {
            cells: masses.len(),
            splits: Vec::with_capacity(positive.len().saturating_sub(1)),
            root: None,
        };
        if !positive.is_empty() {
            tree.root = Some(tree.build(&positive, &prefix, 0, positive.len()));
        }
        tree
    }

    /// The subtree over `positive[lo..hi]` (non-empty), split where the prefix mass
    /// crosses half the range's mass (never leaving a side empty).
    fn build(&mut self, positive: &[u32], prefix: &[f64], lo: usize, hi: usize) -> Child {
        if hi - lo == 1 {
            return Child::Cell(positive[lo]);
        }
        let half = 0.5 * (prefix[lo] + prefix[hi]);
        let crossing = lo + prefix[lo..hi].partition_point(|&m| m < half);
        let mid = crossing.clamp(lo + 1, hi - 1);
        let index = self.splits.len();
        self.splits.push(Split {
            left_share: 0.0,
            left: Child::Cell(0),
            right: Child::Cell(0),
        });
        let left = self.build(positive, prefix, lo, mid);
        let right = self.build(positive, prefix, mid, hi);
        let left_mass = prefix[mid] - prefix[lo];
        let total = prefix[hi] - prefix[lo];
        self.splits[index] = Split {
            left_share: (left_mass / total).clamp(0.0, 1.0),
            left,
            right,
        };
        Child::Split(index as u32)
    }

    /// `Multinomial(draws, m_c / M)` counts, one per cell (zero-mass cells zero), with
    /// `rng`'s variates taken in the tree's depth-first order.
    pub(crate) fn draw<R: Rng + ?Sized>(&self, draws: u64, rng: &mut R) -> Vec<f64> {
        let mut out = vec![0.0; self.cells];
        let Some(root) = self.root else {
            return out;
        };
        let mut pending = Vec::with_capacity(64);
        pending.push((root, draws));
        while let Some((child, n)) = pending.pop() {
            match child {
                Child::Cell(cell) => out[cell as usize] = n as f64,
                Child::Split(index) => {
                    let split = self.splits[index as usize];
                    let left = sample_binomial(n, split.left_share, rng);
                    for (side, count) in [(split.right, n - left), (split.left, left)] {
                        if count > 0 {
                            pending.push((side, count));
                        }
                    }
                }
            }
        }
        out
    }
}

/// At most this many entries, padding included, in all the Poisson alias tables
/// together (32 MiB at 16 bytes each); beyond, [`MultinomialSampler`] splits
/// binomially instead.
const MAX_TABLE_ENTRIES: usize = 1 << 21;

/// Standard deviations kept on each side of a Poisson mean in its table (plus a margin
/// for small means): the probability left out is below 1e-20.
const TABLE_SPAN_SDS: f64 = 10.0;

/// Exact `Multinomial(N, m_c / M)` draws by the cheaper of the module's two samplers.
#[derive(Debug, Clone)]
pub(crate) enum MultinomialSampler {
    /// Poisson per cell from alias tables, then the total fixed.
    Poissonized(Poissonized),
    /// Binomial splits down a tree, of this many draws.
    Splits(MultinomialTree, u64),
}

impl MultinomialSampler {
    /// The sampler of `draws` draws over `masses` (non-negative).
    pub(crate) fn new(masses: &[f64], draws: u64) -> Self {
        match Poissonized::new(masses, draws) {
            Some(poissonized) => Self::Poissonized(poissonized),
            None => Self::Splits(MultinomialTree::new(masses), draws),
        }
    }

    /// One draw: a count per cell.
    pub(crate) fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        match self {
            Self::Poissonized(poissonized) => poissonized.draw(rng),
            Self::Splits(tree, draws) => tree.draw(*draws, rng),
        }
    }
}

/// Walker's alias table (Vose's construction, "A linear algorithm for generating
/// random numbers with a given distribution", IEEE TSE 17, 1991): entry `k` keeps `k`
/// with probability `odds_k` and gives `alias_k` otherwise. By hand because the
/// bootstrap draws one per cell per round, tens of millions in all, and
/// `rand_distr::WeightedAliasIndex` (two `Uniform` samplers and a call that is not
/// inlined per draw) made a bootstrap of 1M arena battles about 10% slower.
///
/// The table is padded with entries of weight zero to `2^bits` entries, so one random
/// word is a whole draw: its top `bits` bits pick the entry (exactly uniform) and the
/// other `64 - bits` bits, as an integer, are the coin against `odds_k` held as a
/// multiple of `2^-(64 - bits)`. That rounding moves a probability by at most
/// `2^-(64 - bits)` — `2^-43` for the largest table [`MAX_TABLE_ENTRIES`] allows, below
/// double precision for tables of up to 2,048 entries, the usual size here.
#[derive(Debug, Clone)]
struct AliasTable {
    /// `(odds_k 2^shift, alias_k)`; odds of one are `2^shift`, above every coin.
    entries: Vec<(u64, u32)>,
    /// `64 - bits`: the coin's width.
    shift: u32,
}

impl AliasTable {
    /// The table of `weights` (non-negative, not all zero).
    fn new(weights: &[f64]) -> Self {
        let len = weights.len().max(2).next_power_of_two();
        let shift = 64 - len.trailing_zeros();
        let total: f64 = weights.iter().sum();
        let mut scaled: Vec<f64> = (0..len)
            .map(|k| weights.get(k).map_or(0.0, |w| w * len as f64 / total))
            .collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..len).partition(|&k| scaled[k] < 1.0);
        let one = 1u64 << shift;
        let mut entries: Vec<(u64, u32)> = (0..len as u32).map(|k| (one, k)).collect();
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            entries[s] = ((scaled[s] * one as f64).round() as u64, l as u32);
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left is 1 up to rounding: kept whole.
        Self { entries, shift }
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let word = rng.next_u64();
        let index = (word >> self.shift) as usize;
        let coin = word & ((1u64 << self.shift) - 1);
        let (odds, alias) = self.entries[index];
        if coin < odds {
            index
        } else {
            alias as usize
        }
    }
}

/// `Poisson(mu)` on `lo..lo + len` by a Walker alias table.
#[derive(Debug, Clone)]
struct PoissonTable {
    lo: u64,
    alias: AliasTable,
}

impl PoissonTable {
    /// The values the table of `Poisson(mu)` holds, `lo..=hi`: [`TABLE_SPAN_SDS`]
    /// standard deviations each side, and 10 below and 20 above for small means.
    fn support(mu: f64) -> (u64, u64) {
        let span = TABLE_SPAN_SDS * mu.sqrt();
        let lo = (mu - span - 10.0).floor().max(0.0) as u64;
        let hi = (mu + span + 20.0).ceil() as u64;
        (lo, hi)
    }

    fn new(mu: f64) -> Self {
        let (lo, hi) = Self::support(mu);
        let ln_mu = mu.ln();
        let weights: Vec<f64> = (lo..=hi)
            .map(|k| (k as f64 * ln_mu - mu - ln_gamma(k as f64 + 1.0)).exp())
            .collect();
        Self {
            lo,
            alias: AliasTable::new(&weights),
        }
    }

    /// Entries of the table of `Poisson(mu)`, padding included.
    fn len(mu: f64) -> usize {
        let (lo, hi) = Self::support(mu);
        ((hi - lo) as usize + 1).next_power_of_two()
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        self.lo + self.alias.sample(rng) as u64
    }
}

/// The Poissonized sampler (module docs).
#[derive(Debug, Clone)]
pub(crate) struct Poissonized {
    draws: u64,
    cells: usize,
    /// Cells of positive mass, those of one mass together (in the order of `tables`).
    positive: Vec<u32>,
    /// A table per distinct mass, with the end of its cells in `positive`.
    tables: Vec<(PoissonTable, usize)>,
    /// One categorical draw over the positive cells (indices into `positive`).
    categorical: AliasTable,
}

impl Poissonized {
    /// `None` when there are fewer than two cells of mass, fewer draws than twice
    /// the cells (splitting is as cheap), or the tables would pass
    /// [`MAX_TABLE_ENTRIES`].
    fn new(masses: &[f64], draws: u64) -> Option<Self> {
        let cells_with_mass = masses.iter().filter(|&&m| m > 0.0).count();
        if cells_with_mass < 2 || draws < 2 * cells_with_mass as u64 {
            return None;
        }
        Self::with_expected_total(masses, draws, draws as f64 - 3.0 * (draws as f64).sqrt())
    }

    /// The sampler whose Poissons add up to `lambda` on average (any `lambda > 0` gives
    /// the same distribution; it sets how often the total is topped up or cut back).
    fn with_expected_total(masses: &[f64], draws: u64, lambda: f64) -> Option<Self> {
        let total: f64 = masses.iter().sum();
        let mut distinct: Vec<u64> = masses
            .iter()
            .filter(|&&m| m > 0.0)
            .map(|m| m.to_bits())
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mean = |bits: u64| lambda * f64::from_bits(bits) / total;
        let entries: usize = distinct.iter().map(|&b| PoissonTable::len(mean(b))).sum();
        if entries > MAX_TABLE_ENTRIES {
            return None;
        }
        let mut positive: Vec<(u32, usize)> = (0..masses.len())
            .filter(|&c| masses[c] > 0.0)
            .map(|c| {
                let table = distinct
                    .binary_search(&masses[c].to_bits())
                    .expect("listed");
                (c as u32, table)
            })
            .collect();
        // Cells of one mass drawn one after another: each table stays in cache, and its
        // fields in registers, while it is used.
        positive.sort_unstable_by_key(|&(cell, table)| (table, cell));
        let tables = distinct
            .iter()
            .enumerate()
            .map(|(t, &b)| {
                let end = positive.partition_point(|&(_, table)| table <= t);
                (PoissonTable::new(mean(b)), end)
            })
            .collect();
        let positive: Vec<u32> = positive.into_iter().map(|(cell, _)| cell).collect();
        let weights: Vec<f64> = positive.iter().map(|&c| masses[c as usize]).collect();
        let categorical = AliasTable::new(&weights);
        Some(Self {
            draws,
            cells: masses.len(),
            positive,
            tables,
            categorical,
        })
    }

    fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        let mut out = vec![0.0; self.cells];
        let mut drawn = 0u64;
        let mut start = 0;
        for (table, end) in &self.tables {
            for &cell in &self.positive[start..*end] {
                let count = table.sample(rng);
                out[cell as usize] = count as f64;
                drawn += count;
            }
            start = *end;
        }
        for _ in drawn..self.draws {
            out[self.positive[self.categorical.sample(rng)] as usize] += 1.0;
        }
        // Too many: take away uniformly chosen items, one at a time (rare, and few).
        for left in (self.draws + 1..=drawn).rev() {
            let mut item = rng.random_range(0..left) as f64;
            for &cell in &self.positive {
                let count = &mut out[cell as usize];
                if item < *count {
                    *count -= 1.0;
                    break;
                }
                item -= *count;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn draws_keep_the_total_and_leave_empty_cells_empty() {
        let tree = MultinomialTree::new(&[5.0, 0.0, 10.0, 85.0, 0.0, 3.0]);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for draws in [0, 1, 103, 1_000_000] {
            let out = tree.draw(draws, &mut rng);
            assert_eq!(out.iter().sum::<f64>(), draws as f64);
            assert_eq!((out[1], out[4]), (0.0, 0.0));
        }
        assert_eq!(
            MultinomialTree::new(&[0.0, 7.0]).draw(9, &mut rng),
            [0.0, 9.0]
        );
        assert_eq!(
            MultinomialTree::new(&[0.0, 0.0]).draw(9, &mut rng),
            [0.0, 0.0]
        );
    }

    /// Pearson's chi-square of `rounds` draws of 4 cells against the exact multinomial
    /// probabilities `n! / prod k_c! prod p_c^k_c` of every outcome, outcomes expected
    /// fewer than 5 times pooled into one bin; with the 0.999 quantile (statrs) of
    /// chi-square on the bins less one.
    fn joint_chi_square(
        masses: [f64; 4],
        n: u64,
        rounds: usize,
        mut draw: impl FnMut() -> Vec<f64>,
    ) -> (f64, f64) {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let total: f64 = masses.iter().sum();
        let mut observed = std::collections::HashMap::<Vec<u64>, f64>::new();
        for _ in 0..rounds {
            let key = draw().iter().map(|&c| c as u64).collect();
            *observed.entry(key).or_default() += 1.0;
        }
        let ln_factorial = |k: u64| ln_gamma(k as f64 + 1.0);
        let (mut statistic, mut bins, mut outcomes) = (0.0, 0, 0);
        let (mut pooled_seen, mut pooled_expected) = (0.0, 0.0);
        for a in 0..=n {
            for b in 0..=n - a {
                for c in 0..=n - a - b {
                    let counts = [a, b, c, n - a - b - c];
                    let ln_probability = counts
                        .iter()
                        .zip(&masses)
                        .fold(ln_factorial(n), |acc, (&k, &m)| {
                            acc + k as f64 * (m / total).ln() - ln_factorial(k)
                        });
                    let expected = ln_probability.exp() * rounds as f64;
                    let seen = observed.remove(counts.as_slice()).unwrap_or(0.0);
                    outcomes += 1;
                    if expected < 5.0 {
                        pooled_seen += seen;
                        pooled_expected += expected;
                    } else {
                        statistic += (seen - expected).powi(2) / expected;
                        bins += 1;
                    }
                }
            }
        }
        assert!(observed.is_empty(), "outcomes that do not add up to {n}");
        assert_eq!(outcomes, (n + 1) * (n + 2) * (n + 3) / 6);
        statistic += (pooled_seen - pooled_expected).powi(2) / pooled_expected;
        bins += 1;
        let bound = ChiSquared::new((bins - 1) as f64)
            .unwrap()
            .inverse_cdf(0.999);
        (statistic, bound)
    }

    /// Both samplers draw the multinomial's joint distribution: the splits, and the
    /// Poissonized sampler with its total topped up (the usual expected total), cut
    /// back (an expected total of twice the draws) or either. The seeds are fixed, so
    /// the test is deterministic.
    #[test]
    fn every_sampler_draws_the_multinomials_joint_distribution() {
        let masses = [1.0, 2.0, 3.0, 4.0];
        let rounds = 100_000;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let tree = MultinomialTree::new(&masses);
        let (statistic, bound) = joint_chi_square(masses, 6, rounds, || tree.draw(6, &mut rng));
        assert!(statistic < bound, "splits: {statistic:.1} >= {bound:.1}");
        let n = 10;
        for lambda in [n as f64 - 3.0 * (n as f64).sqrt(), 2.0 * n as f64, n as f64] {
            let sampler = Poissonized::with_expected_total(&masses, n, lambda).unwrap();
            let (statistic, bound) = joint_chi_square(masses, n, rounds, || sampler.draw(&mut rng));
            assert!(
                statistic < bound,
                "lambda {lambda}: {statistic:.1} >= {bound:.1}"
            );
        }
    }

    /// The alias table draws each index with its weight's share: chi-square over 200,000
    /// draws against statrs's 0.999 quantile, and a zero weight is never drawn.
    #[test]
    fn the_alias_table_draws_each_index_with_its_share() {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let weights = [0.0, 1.0, 2.0, 3.5, 0.25, 7.0, 0.001];
        let table = AliasTable::new(&weights);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let rounds = 200_000;
        let mut seen = [0.0; 7];
        for _ in 0..rounds {
            seen[table.sample(&mut rng)] += 1.0;
        }
        assert_eq!(seen[0], 0.0);
        let total: f64 = weights.iter().sum();
        let statistic: f64 = (1..7)
            .map(|k| {
                let expected = rounds as f64 * weights[k] / total;
                (seen[k] - expected).powi(2) / expected
            })
            .sum();
        let bound = ChiSquared::new(5.0).unwrap().inverse_cdf(0.999);
        assert!(statistic < bound, "{statistic:.1} >= {bound:.1}");
    }

    #[test]
    fn the_poissonized_sampler_is_used_where_its_tables_are_small() {
        let arena_like: Vec<f64> = (0..3000).map(|c| f64::from(1 + c % 40)).collect();
        let draws = arena_like.iter().sum::<f64>() as u64;
        let sampler = MultinomialSampler::new(&arena_like, draws);
        assert!(matches!(sampler, MultinomialSampler::Poissonized(_)));
        let counts = sampler.draw(&mut ChaCha8Rng::seed_from_u64(1));
        assert_eq!(counts.iter().sum::<f64>(), draws as f64);
        // Fewer draws than twice the cells: splits.
        let few = MultinomialSampler::new(&[1.0, 1.0, 1.0], 4);
        assert!(matches!(few, MultinomialSampler::Splits(..)));
        // A hundred thousand distinct masses of a million battles each: splits.
        let huge: Vec<f64> = (0..100_000).map(|c| 1e6 + f64::from(c)).collect();
        let huge_draws = huge.iter().sum::<f64>() as u64;
        assert!(matches!(
            MultinomialSampler::new(&huge, huge_draws),
            MultinomialSampler::Splits(..)
        ));
    }
}
