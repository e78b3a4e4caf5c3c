//! Aggregated battle counts: per unordered pair, the wins of each side and the ties.
//! Everything Bradley–Terry reads (the tutorial's `W_i` and `n_ij`) is here.

use std::collections::HashMap;
use std::sync::Arc;

use crate::{BattleLog, Outcome};
use serde::Serialize;

/// Battles of one unordered pair `i < j`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairTally {
    /// The smaller model index.
    pub i: u32,
    /// The larger model index.
    pub j: u32,
    /// Battles won by `i`.
    pub wins_i: f64,
    /// Battles won by `j`.
    pub wins_j: f64,
    /// Ties of either kind.
    pub ties: f64,
}

impl PairTally {
    /// All battles of the pair.
    pub fn total(&self) -> f64 {
        self.wins_i + self.wins_j + self.ties
    }

    /// The three outcome counts `[wins_i, wins_j, ties]`.
    pub fn cells(&self) -> [f64; 3] {
        [self.wins_i, self.wins_j, self.ties]
    }

    /// The same pair with other counts.
    pub fn with_cells(&self, cells: [f64; 3]) -> Self {
        Self {
            wins_i: cells[0],
            wins_j: cells[1],
            ties: cells[2],
            ..*self
        }
    }
}

/// One model's record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ModelTally {
    /// Battles won.
    pub wins: u64,
    /// Battles lost.
    pub losses: u64,
    /// Battles tied (either kind).
    pub ties: u64,
}

impl ModelTally {
    /// All battles of the model.
    pub fn battles(&self) -> u64 {
        self.wins + self.losses + self.ties
    }
}

/// The per-pair counts of a battle log over `models` models, pairs sorted by
/// `(i, j)`. Reading a log costs one pass; resampling and fitting then cost a
/// function of the number of pairs only, not of the log's length.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairCounts {
    models: usize,
    pairs: Vec<PairTally>,
    /// The battles behind each weighted cell (weighted logs only).
    #[serde(skip)]
    bins: Option<Arc<[WeightBin]>>,
}

/// The battles of one weight in one (pair, outcome) cell of a weighted log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeightBin {
    /// The pair, an index into [`PairCounts::pairs`].
    pub pair: u32,
    /// The outcome: 0 the smaller index won, 1 the larger, 2 a tie.
    pub cell: u8,
    /// The weight of each of these battles.
    pub weight: f64,
    /// How many battles.
    pub battles: f64,
}

/// Bins in (pair, cell, weight) order, so that resampling draws them in the same
/// order whatever the order of the log.
fn sorted_bins(mut bins: Vec<WeightBin>) -> Arc<[WeightBin]> {
    bins.sort_unstable_by(|x, y| {
        (x.pair, x.cell)
            .cmp(&(y.pair, y.cell))
            .then(x.weight.total_cmp(&y.weight))
    });
    bins.into()
}

/// Largest model count for which pairs are found through a dense K×K index.
const DENSE_INDEX_MAX_MODELS: usize = 4096;

impl PairCounts {
    /// Counts of `log`, every model of its interner included.
    pub fn from_log(log: &BattleLog) -> Self {
        Self::tally(log, None)
    }

    /// Counts of `log` with battle `r` weighing `weights[r]` (an inverse-propensity
    /// weight, say): each cell holds the sum of its battles' weights, which is what a
    /// weighted likelihood `sum_r w_r l_r` reads, and [`Self::weight_bins`] keeps how
    /// many battles of each weight fell in each cell, for the sandwich's `sum w^2` and
    /// for a bootstrap that resamples battles, not weight. Integer weights give the
    /// counts of the log with each battle repeated that often.
    ///
    /// # Panics
    /// When `weights` does not hold one finite, non-negative weight per battle (the
    /// readers check this at the row that breaks it).
    pub fn from_weighted_log(log: &BattleLog, weights: &[f64]) -> Self {
        assert_eq!(weights.len(), log.len(), "one weight per battle");
        assert!(
            weights.iter().all(|w| w.is_finite() && *w >= 0.0),
            "weights are finite and non-negative"
        );
        Self::tally(log, Some(weights))
    }

    fn tally(log: &BattleLog, weights: Option<&[f64]>) -> Self {
        let models = log.models().len();
        let mut pairs: Vec<PairTally> = Vec::new();
        let mut dense = (models <= DENSE_INDEX_MAX_MODELS).then(|| vec![u32::MAX; models * models]);
        let mut sparse: HashMap<(u32, u32), u32> = HashMap::new();
        let mut bins: HashMap<(u32, u8, u64), f64> = HashMap::new();
        for (r, (a, b, outcome)) in log.iter().enumerate() {
            let (i, j, outcome) = if a < b {
                (a.0, b.0, outcome)
            } else {
                (b.0, a.0, outcome.swapped())
            };
            let slot = match dense.as_mut() {
                Some(index) => &mut index[i as usize * models + j as usize],
                None => sparse.entry((i, j)).or_insert(u32::MAX),
            };
            if *slot == u32::MAX {
                *slot = pairs.len() as u32;
                pairs.push(PairTally {
                    i,
                    j,
                    wins_i: 0.0,
                    wins_j: 0.0,
                    ties: 0.0,
                });
            }
            let weight = weights.map_or(1.0, |w| w[r]);
            let tally = &mut pairs[*slot as usize];
            let cell = match outcome {
                Outcome::WinA => &mut tally.wins_i,
                Outcome::WinB => &mut tally.wins_j,
                Outcome::Tie | Outcome::TieBothBad => &mut tally.ties,
            };
            *cell += weight;
            if weights.is_some() {
                let cell = match outcome {
                    Outcome::WinA => 0,
                    Outcome::WinB => 1,
                    Outcome::Tie | Outcome::TieBothBad => 2,
                };
                *bins.entry((*slot, cell, weight.to_bits())).or_insert(0.0) += 1.0;
            }
        }
        // Pairs in (i, j) order, not order of appearance: every later sum then runs in
        // the same order whatever the order of the log, so fits are bit-identical.
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_unstable_by_key(|&slot| (pairs[slot].i, pairs[slot].j));
        let mut new_index = vec![0u32; pairs.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new as u32;
        }
        let sorted = order.iter().map(|&old| pairs[old]).collect();
        let bins = weights.map(|_| {
            let bins = bins
                .into_iter()
                .map(|((slot, cell, bits), battles)| WeightBin {
                    pair: new_index[slot as usize],
                    cell,
                    weight: f64::from_bits(bits),
                    battles,
                });
            sorted_bins(bins.collect())
        });
        Self {
            models,
            pairs: sorted,
            bins,
        }
    }

    /// Counts given pair by pair (`i < j < models`).
    pub fn from_pairs(models: usize, pairs: Vec<PairTally>) -> Self {
        assert!(pairs.iter().all(|p| p.i < p.j && (p.j as usize) < models));
        Self {
            models,
            pairs,
            bins: None,
        }
    }

    /// The same counts with models renumbered in name order (`names[i]` is model i's
    /// name), and the sorted names: two sources holding the same battles — a log in any
    /// order, a counts table, a dataset read file by file — then get the same ids, the
    /// same pair order and so bit-identical fits and bootstrap draws.
    pub fn with_models_by_name(&self, names: &[String]) -> (Vec<String>, PairCounts) {
        assert_eq!(names.len(), self.models, "one name per model");
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_unstable_by(|&x, &y| names[x].cmp(&names[y]));
        let mut new_id = vec![0u32; names.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = new as u32;
        }
        let mut builder = PairCountsBuilder::default();
        for p in &self.pairs {
            builder.add(new_id[p.i as usize], new_id[p.j as usize], p.cells());
        }
        let sorted = order.iter().map(|&old| names[old].clone()).collect();
        let mut renamed = builder.finish(self.models);
        renamed.bins = self.bins.as_ref().map(|bins| {
            let moved = bins.iter().map(|bin| {
                let old = self.pairs[bin.pair as usize];
                let (a, b) = (new_id[old.i as usize], new_id[old.j as usize]);
                let ((i, j), cell) = match (a < b, bin.cell) {
                    (true, cell) => ((a, b), cell),
                    (false, 2) => ((b, a), 2),
                    (false, cell) => ((b, a), 1 - cell),
                };
                let pair = renamed
                    .pairs
                    .binary_search_by_key(&(i, j), |p| (p.i, p.j))
                    .expect("every pair was added") as u32;
                WeightBin { pair, cell, ..*bin }
            });
            sorted_bins(moved.collect())
        });
        (sorted, renamed)
    }

    /// Number of models.
    pub fn models(&self) -> usize {
        self.models
    }

    /// The observed pairs.
    pub fn pairs(&self) -> &[PairTally] {
        &self.pairs
    }

    /// The same pairs with counts replaced (same length and order as [`Self::pairs`]),
    /// unweighted: a bootstrap replicate's counts, say.
    pub fn with_pairs(&self, pairs: Vec<PairTally>) -> Self {
        debug_assert_eq!(pairs.len(), self.pairs.len());
        Self {
            models: self.models,
            pairs,
            bins: None,
        }
    }

    /// For counts of a weighted log ([`Self::from_weighted_log`]), how many battles of
    /// each weight each (pair, outcome) cell holds, sorted by pair, cell and weight;
    /// `None` when every battle weighs 1.
    pub fn weight_bins(&self) -> Option<&[WeightBin]> {
        self.bins.as_deref()
    }

    /// Per pair, `sum_r w_r^2` over the battles of each cell `[wins_i, wins_j, ties]`:
    /// the weight of the cell's score in the sandwich's middle `M = sum_r w_r^2 s_r
    /// s_r^T`. Equal to [`PairTally::cells`] when every battle weighs 1.
    pub fn squared_weights(&self) -> Vec<[f64; 3]> {
        match &self.bins {
            None => self.pairs.iter().map(PairTally::cells).collect(),
            Some(bins) => {
                let mut squares = vec![[0.0; 3]; self.pairs.len()];
                for bin in bins.iter() {
                    squares[bin.pair as usize][bin.cell as usize] +=
                        bin.weight * bin.weight * bin.battles;
                }
                squares
            }
        }
    }

    /// Total weight of the battles: their number when every battle weighs 1.
    pub fn battles(&self) -> f64 {
        self.pairs.iter().map(PairTally::total).sum()
    }

    /// Total number of ties.
    pub fn ties(&self) -> f64 {
        self.pairs.iter().map(|p| p.ties).sum()
    }

    /// Each model's wins, losses and ties, in battles (not weight).
    pub fn tallies(&self) -> Vec<ModelTally> {
        let battle_cells = match &self.bins {
            None => self.pairs.iter().map(PairTally::cells).collect(),
            Some(bins) => {
                let mut cells = vec![[0.0; 3]; self.pairs.len()];
                for bin in bins.iter() {
                    cells[bin.pair as usize][bin.cell as usize] += bin.battles;
                }
                cells
            }
        };
        let mut tallies = vec![ModelTally::default(); self.models];
        for (p, cells) in self.pairs.iter().zip(battle_cells) {
            let [wi, wj, t] = cells.map(|c| c as u64);
            let ti = &mut tallies[p.i as usize];
            ti.wins += wi;
            ti.losses += wj;
            ti.ties += t;
            let tj = &mut tallies[p.j as usize];
            tj.wins += wj;
            tj.losses += wi;
            tj.ties += t;
        }
        tallies
    }

    /// The win matrix: entry (r, c) is how often r beat c (ties not counted).
    pub fn win_matrix(&self) -> Vec<Vec<f64>> {
        let mut matrix = vec![vec![0.0; self.models]; self.models];
        for p in &self.pairs {
            matrix[p.i as usize][p.j as usize] += p.wins_i;
            matrix[p.j as usize][p.i as usize] += p.wins_j;
        }
        matrix
    }

    /// The tie matrix: entry (r, c) is how often r and c tied (symmetric).
    pub fn tie_matrix(&self) -> Vec<Vec<f64>> {
        let mut matrix = vec![vec![0.0; self.models]; self.models];
        for p in &self.pairs {
            matrix[p.i as usize][p.j as usize] += p.ties;
            matrix[p.j as usize][p.i as usize] += p.ties;
        }
        matrix
    }
}

/// Per-pair counts added in any order and orientation: the merge of counts read piece
/// by piece (a counts table's rows, the chunks of a log streamed from many files).
#[derive(Debug, Clone, Default)]
pub struct PairCountsBuilder {
    slot: HashMap<(u32, u32), usize>,
    pairs: Vec<PairTally>,
}

impl PairCountsBuilder {
    /// Adds `[wins of a, wins of b, ties]` to the pair of models `a != b`.
    pub fn add(&mut self, a: u32, b: u32, cells: [f64; 3]) {
        assert_ne!(a, b, "a pair holds two models");
        let (i, j, [wins_i, wins_j, ties]) = if a < b {
            (a, b, cells)
        } else {
            (b, a, [cells[1], cells[0], cells[2]])
        };
        let next = self.pairs.len();
        let slot = *self.slot.entry((i, j)).or_insert(next);
        if slot == next {
            self.pairs.push(PairTally {
                i,
                j,
                wins_i: 0.0,
                wins_j: 0.0,
                ties: 0.0,
            });
        }
        let tally = &mut self.pairs[slot];
        tally.wins_i += wins_i;
        tally.wins_j += wins_j;
        tally.ties += ties;
    }

    /// The counts over `models` models (every id added must be below it), pairs in
    /// `(i, j)` order.
    pub fn finish(self, models: usize) -> PairCounts {
        let mut pairs = self.pairs;
        pairs.sort_unstable_by_key(|p| (p.i, p.j));
        PairCounts::from_pairs(models, pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_fold_both_orientations_into_one_pair() {
        let mut log = BattleLog::new();
        log.push("x", "y", Outcome::WinA).unwrap();
        log.push("y", "x", Outcome::WinA).unwrap();
        log.push("y", "x", Outcome::TieBothBad).unwrap();
        log.push("z", "x", Outcome::WinB).unwrap();
        let counts = PairCounts::from_log(&log);
        assert_eq!(counts.pairs().len(), 2);
        let xy = counts.pairs()[0];
        assert_eq!((xy.wins_i, xy.wins_j, xy.ties), (1.0, 1.0, 1.0));
        let xz = counts.pairs()[1];
        assert_eq!((xz.i, xz.j, xz.wins_i, xz.wins_j), (0, 2, 1.0, 0.0));
        let tallies = counts.tallies();
        assert_eq!(
            (tallies[0].wins, tallies[0].losses, tallies[0].ties),
            (2, 1, 1)
        );
        assert_eq!(counts.win_matrix()[1][0], 1.0);
        assert_eq!(counts.battles(), 4.0);
    }

    #[test]
    fn renumbering_by_name_keeps_every_count() {
        let mut log = BattleLog::new();
        log.push("zeta", "alpha", Outcome::WinA).unwrap();
        log.push("alpha", "mid", Outcome::Tie).unwrap();
        log.push("mid", "zeta", Outcome::WinB).unwrap();
        let counts = PairCounts::from_log(&log);
        let (names, renamed) = counts.with_models_by_name(log.models().names());
        assert_eq!(names, ["alpha", "mid", "zeta"]);
        // The same log read with its models numbered by name gives the same counts.
        assert_eq!(renamed, PairCounts::from_log(&log.with_models_by_name()));
        assert_eq!(renamed.pairs()[1].wins_j, 1.0); // alpha lost to zeta
    }

    #[test]
    fn builder_folds_orientations_like_a_log() {
        let mut builder = PairCountsBuilder::default();
        builder.add(1, 0, [2.0, 1.0, 0.0]);
        builder.add(0, 1, [0.0, 3.0, 4.0]);
        let counts = builder.finish(2);
        assert_eq!(counts.pairs()[0].cells(), [1.0, 5.0, 4.0]);
    }

    fn small_log() -> BattleLog {
        let mut log = BattleLog::new();
        log.push("y", "x", Outcome::WinA).unwrap();
        log.push("x", "y", Outcome::WinA).unwrap();
        log.push("x", "y", Outcome::WinB).unwrap();
        log.push("z", "x", Outcome::Tie).unwrap();
        log
    }

    #[test]
    fn integer_weights_count_like_repeated_battles() {
        let log = small_log();
        let weights = [2.0, 1.0, 3.0, 0.0];
        let repeated: Vec<usize> = weights
            .iter()
            .enumerate()
            .flat_map(|(r, &w)| std::iter::repeat_n(r, w as usize))
            .collect();
        let weighted = PairCounts::from_weighted_log(&log, &weights);
        // The pair whose only battle weighs 0 is kept, with nothing in it.
        assert_eq!(weighted.pairs()[1].total(), 0.0);
        assert_eq!(
            weighted.pairs()[..1],
            *PairCounts::from_log(&log.reordered(&repeated)).pairs()
        );
        // The zero-weight tie is still a battle z and x played.
        assert_eq!(weighted.tallies()[2].ties, 1);
        assert_eq!(weighted.tallies()[1].battles(), 4);
    }

    #[test]
    fn weight_bins_keep_battles_per_weight_and_squares() {
        let mut log = small_log();
        log.push("y", "x", Outcome::WinA).unwrap();
        let weights = [0.5, 1.0, 2.0, 1.0, 0.5];
        let counts = PairCounts::from_weighted_log(&log, &weights);
        // Pair (y=0, x=1): y won twice at 0.5, x won once at 1; y won once at 2.
        let bins: Vec<(u32, u8, f64, f64)> = counts
            .weight_bins()
            .unwrap()
            .iter()
            .map(|b| (b.pair, b.cell, b.weight, b.battles))
            .collect();
        assert_eq!(
            bins,
            [
                (0, 0, 0.5, 2.0),
                (0, 0, 2.0, 1.0),
                (0, 1, 1.0, 1.0),
                (1, 2, 1.0, 1.0)
            ]
        );
        assert_eq!(counts.pairs()[0].cells(), [3.0, 1.0, 0.0]);
        assert_eq!(counts.squared_weights()[0], [0.25 * 2.0 + 4.0, 1.0, 0.0]);
        assert!(PairCounts::from_log(&log).weight_bins().is_none());
    }

    #[test]
    fn renumbering_by_name_moves_the_weight_bins() {
        let log = small_log();
        let weights = [0.5, 1.0, 2.0, 3.0];
        let counts = PairCounts::from_weighted_log(&log, &weights);
        let (_, renamed) = counts.with_models_by_name(log.models().names());
        let by_name = log.with_models_by_name();
        let direct = PairCounts::from_weighted_log(&by_name, &weights);
        assert_eq!(renamed.pairs(), direct.pairs());
        assert_eq!(renamed.weight_bins(), direct.weight_bins());
    }
}
