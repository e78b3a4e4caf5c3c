//! Aggregated battle counts: per unordered pair, the wins of each side and the ties.
//! Everything Bradley–Terry reads (the tutorial's `W_i` and `n_ij`) is here.

use std::collections::HashMap;

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
}

/// Largest model count for which pairs are found through a dense K×K index.
const DENSE_INDEX_MAX_MODELS: usize = 4096;

impl PairCounts {
    /// Counts of `log`, every model of its interner included.
    pub fn from_log(log: &BattleLog) -> Self {
        let models = log.models().len();
        let mut pairs: Vec<PairTally> = Vec::new();
        let mut dense = (models <= DENSE_INDEX_MAX_MODELS).then(|| vec![u32::MAX; models * models]);
        let mut sparse: HashMap<(u32, u32), u32> = HashMap::new();
        for (a, b, outcome) in log.iter() {
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
            let tally = &mut pairs[*slot as usize];
            match outcome {
                Outcome::WinA => tally.wins_i += 1.0,
                Outcome::WinB => tally.wins_j += 1.0,
                Outcome::Tie | Outcome::TieBothBad => tally.ties += 1.0,
            }
        }
        // Pairs in (i, j) order, not order of appearance: every later sum then runs in
        // the same order whatever the order of the log, so fits are bit-identical.
        pairs.sort_unstable_by_key(|p| (p.i, p.j));
        Self { models, pairs }
    }

    /// Counts given pair by pair (`i < j < models`).
    pub fn from_pairs(models: usize, pairs: Vec<PairTally>) -> Self {
        assert!(pairs.iter().all(|p| p.i < p.j && (p.j as usize) < models));
        Self { models, pairs }
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
        (sorted, builder.finish(self.models))
    }

    /// Number of models.
    pub fn models(&self) -> usize {
        self.models
    }

    /// The observed pairs.
    pub fn pairs(&self) -> &[PairTally] {
        &self.pairs
    }

    /// The same pairs with counts replaced (same length and order as [`Self::pairs`]).
    pub fn with_pairs(&self, pairs: Vec<PairTally>) -> Self {
        debug_assert_eq!(pairs.len(), self.pairs.len());
        Self {
            models: self.models,
            pairs,
        }
    }

    /// Total number of battles.
    pub fn battles(&self) -> f64 {
        self.pairs.iter().map(PairTally::total).sum()
    }

    /// Total number of ties.
    pub fn ties(&self) -> f64 {
        self.pairs.iter().map(|p| p.ties).sum()
    }

    /// Each model's wins, losses and ties.
    pub fn tallies(&self) -> Vec<ModelTally> {
        let mut tallies = vec![ModelTally::default(); self.models];
        for p in &self.pairs {
            let (wi, wj, t) = (p.wins_i as u64, p.wins_j as u64, p.ties as u64);
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
}
