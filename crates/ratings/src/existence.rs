//! When does the Bradley–Terry maximum-likelihood estimate exist? Exactly when the
//! directed graph "i beat j at least once" is strongly connected (Ford 1957; Hunter
//! 2004, Assumption 1): otherwise some group of models beat every outsider it met and
//! the likelihood keeps rising as the group's strengths go to infinity.

use serde::{Deserialize, Serialize};

use crate::{PairCounts, PairTally, TieModel};

/// One reason the maximum-likelihood estimate does not exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MleObstacle {
    /// These models never won (nor tied, where a tie counts as half a win).
    NeverWins {
        /// Model indices.
        models: Vec<u32>,
    },
    /// These models never lost (nor tied).
    NeverLoses {
        /// Model indices.
        models: Vec<u32>,
    },
    /// The comparison graph falls apart into this many groups that never met.
    Disconnected {
        /// Number of connected groups.
        groups: usize,
    },
    /// Some group of models beat every outsider it met (no single model to blame).
    Dominant {
        /// Number of strongly connected groups.
        groups: usize,
    },
}

impl MleObstacle {
    /// A sentence naming the models involved.
    pub fn describe(&self, names: &[String]) -> String {
        let list = |models: &[u32]| {
            models
                .iter()
                .map(|&m| names[m as usize].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            MleObstacle::NeverWins { models } => format!("never won: {}", list(models)),
            MleObstacle::NeverLoses { models } => format!("never lost: {}", list(models)),
            MleObstacle::Disconnected { groups } => {
                format!("the comparison graph has {groups} groups that never met")
            }
            MleObstacle::Dominant { groups } => {
                format!("{groups} groups of models where one beat every outsider it met")
            }
        }
    }
}

/// The reasons the MLE of `counts` under `ties` does not exist; empty when it exists.
pub fn mle_obstacles(counts: &PairCounts, ties: TieModel) -> Vec<MleObstacle> {
    if beat_graph_is_strongly_connected(counts, ties) == Some(true) {
        return Vec::new();
    }
    let k = counts.models();
    let (beats, undirected) = comparison_graphs(counts, ties);
    let strong = strongly_connected_components(&beats);
    if strong <= 1 {
        return Vec::new();
    }
    let mut obstacles = Vec::new();
    let never_wins: Vec<u32> = (0..k as u32)
        .filter(|&m| beats[m as usize].is_empty())
        .collect();
    let mut has_in = vec![false; k];
    beats
        .iter()
        .flatten()
        .for_each(|&j| has_in[j as usize] = true);
    let never_loses: Vec<u32> = (0..k as u32).filter(|&m| !has_in[m as usize]).collect();
    if !never_wins.is_empty() {
        obstacles.push(MleObstacle::NeverWins { models: never_wins });
    }
    if !never_loses.is_empty() {
        obstacles.push(MleObstacle::NeverLoses {
            models: never_loses,
        });
    }
    let groups = connected_components(&undirected);
    if groups > 1 {
        obstacles.push(MleObstacle::Disconnected { groups });
    }
    if obstacles.is_empty() {
        obstacles.push(MleObstacle::Dominant { groups: strong });
    }
    obstacles
}

/// A pair's "beat" edges `(i beat j, j beat i)`: a win, or a tie unless ties are
/// dropped (a tie is half a win each way).
pub(crate) fn beat_edges(pair: &PairTally, ties: TieModel) -> (bool, bool) {
    let tied = ties != TieModel::Drop && pair.ties > 0.0;
    (pair.wins_i > 0.0 || tied, pair.wins_j > 0.0 || tied)
}

/// The "i beat j" lists ([`beat_edges`]) and the "i met j" lists of `counts`.
fn comparison_graphs(counts: &PairCounts, ties: TieModel) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let k = counts.models();
    let mut beats: Vec<Vec<u32>> = vec![Vec::new(); k];
    let mut undirected: Vec<Vec<u32>> = vec![Vec::new(); k];
    for p in counts.pairs() {
        let (i_beat_j, j_beat_i) = beat_edges(p, ties);
        if i_beat_j {
            beats[p.i as usize].push(p.j);
        }
        if j_beat_i {
            beats[p.j as usize].push(p.i);
        }
        if p.total() > 0.0 {
            undirected[p.i as usize].push(p.j);
            undirected[p.j as usize].push(p.i);
        }
    }
    (beats, undirected)
}

/// Above this many models the quick check below is skipped (its bit matrices hold
/// `models^2 / 4` bytes).
const BITSET_MAX_MODELS: usize = 4096;

/// Whether "i beat j" ([`beat_edges`]) is strongly connected ([`BeatBits`]); `None`
/// above [`BITSET_MAX_MODELS`] models.
fn beat_graph_is_strongly_connected(counts: &PairCounts, ties: TieModel) -> Option<bool> {
    BeatBits::new(counts, ties).map(|bits| bits.is_strongly_connected())
}

/// The "i beat j" graph ([`beat_edges`]) as rows of bits, both ways, for a quick
/// strong-connectivity check: each step of its two searches is a few word-wide ORs.
/// The bootstrap builds it once from the full log and asks it, for a replicate that
/// lost some beat edges, whether the graph without them is still strongly connected.
#[derive(Debug, Clone)]
pub(crate) struct BeatBits {
    models: usize,
    words: usize,
    /// Row `i`: the models `i` beat.
    beats: Vec<u64>,
    /// Row `j`: the models that beat `j`.
    beaten_by: Vec<u64>,
}

impl BeatBits {
    /// The beat graph of `counts`; `None` above [`BITSET_MAX_MODELS`] models.
    pub(crate) fn new(counts: &PairCounts, ties: TieModel) -> Option<Self> {
        let models = counts.models();
        if models > BITSET_MAX_MODELS {
            return None;
        }
        let words = models.div_ceil(64);
        let mut bits = Self {
            models,
            words,
            beats: vec![0; models * words],
            beaten_by: vec![0; models * words],
        };
        for p in counts.pairs() {
            let (i_beat_j, j_beat_i) = beat_edges(p, ties);
            if i_beat_j {
                bits.set(p.i as usize, p.j as usize, true);
            }
            if j_beat_i {
                bits.set(p.j as usize, p.i as usize, true);
            }
        }
        Some(bits)
    }

    /// Adds (`present`) or removes the edge "`from` beat `to`".
    pub(crate) fn set(&mut self, from: usize, to: usize, present: bool) {
        let words = self.words;
        for (word, bit) in [
            (&mut self.beats[from * words + to / 64], to % 64),
            (&mut self.beaten_by[to * words + from / 64], from % 64),
        ] {
            if present {
                *word |= 1 << bit;
            } else {
                *word &= !(1 << bit);
            }
        }
    }

    /// Everything model 0 reaches, and everything that reaches model 0, is every model.
    pub(crate) fn is_strongly_connected(&self) -> bool {
        self.models <= 1 || (self.reaches_all(&self.beats) && self.reaches_all(&self.beaten_by))
    }

    fn reaches_all(&self, rows: &[u64]) -> bool {
        let words = self.words;
        let mut reached = vec![0u64; words];
        reached[0] = 1;
        let mut pending = vec![0usize];
        while let Some(node) = pending.pop() {
            for w in 0..words {
                let mut new = rows[node * words + w] & !reached[w];
                reached[w] |= new;
                while new != 0 {
                    pending.push(w * 64 + new.trailing_zeros() as usize);
                    new &= new - 1;
                }
            }
        }
        reached
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>()
            == self.models
    }
}

/// Iterative depth-first order of `graph` from every unvisited node.
fn finish_order(graph: &[Vec<u32>]) -> Vec<u32> {
    let mut visited = vec![false; graph.len()];
    let mut order = Vec::with_capacity(graph.len());
    for start in 0..graph.len() {
        if visited[start] {
            continue;
        }
        visited[start] = true;
        let mut stack = vec![(start as u32, 0usize)];
        while let Some((node, next)) = stack.pop() {
            if let Some(&child) = graph[node as usize].get(next) {
                stack.push((node, next + 1));
                if !visited[child as usize] {
                    visited[child as usize] = true;
                    stack.push((child, 0));
                }
            } else {
                order.push(node);
            }
        }
    }
    order
}

/// Number of strongly connected components (Kosaraju).
fn strongly_connected_components(graph: &[Vec<u32>]) -> usize {
    let order = finish_order(graph);
    let mut reversed: Vec<Vec<u32>> = vec![Vec::new(); graph.len()];
    for (from, targets) in graph.iter().enumerate() {
        for &to in targets {
            reversed[to as usize].push(from as u32);
        }
    }
    let mut assigned = vec![false; graph.len()];
    let mut components = 0;
    for &root in order.iter().rev() {
        if assigned[root as usize] {
            continue;
        }
        components += 1;
        let mut stack = vec![root];
        assigned[root as usize] = true;
        while let Some(node) = stack.pop() {
            for &next in &reversed[node as usize] {
                if !assigned[next as usize] {
                    assigned[next as usize] = true;
                    stack.push(next);
                }
            }
        }
    }
    components
}

/// Number of connected components of an undirected graph.
fn connected_components(graph: &[Vec<u32>]) -> usize {
    let mut seen = vec![false; graph.len()];
    let mut components = 0;
    for start in 0..graph.len() {
        if seen[start] {
            continue;
        }
        components += 1;
        seen[start] = true;
        let mut stack = vec![start as u32];
        while let Some(node) = stack.pop() {
            for &next in &graph[node as usize] {
                if !seen[next as usize] {
                    seen[next as usize] = true;
                    stack.push(next);
                }
            }
        }
    }
    components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(i: u32, j: u32, wins_i: f64, wins_j: f64, ties: f64) -> PairTally {
        PairTally {
            i,
            j,
            wins_i,
            wins_j,
            ties,
        }
    }

    /// The bit-row check agrees with Kosaraju's component count on random graphs of
    /// 1 to 70 models (across the 64-bit word boundary), sparse and dense.
    #[test]
    fn the_quick_check_agrees_with_kosaraju() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut connected = 0;
        for round in 0..600 {
            let k = 1 + round % 70;
            let density = [0.05, 0.2, 0.6][round % 3];
            let mut pairs = Vec::new();
            for i in 0..k as u32 {
                for j in i + 1..k as u32 {
                    if rng.random_bool(density) {
                        let mut cell = || f64::from(u8::from(rng.random_bool(0.6)));
                        pairs.push(tally(i, j, cell(), cell(), cell()));
                    }
                }
            }
            let counts = PairCounts::from_pairs(k, pairs);
            for ties in [TieModel::Half, TieModel::Drop] {
                let (beats, _) = comparison_graphs(&counts, ties);
                let kosaraju = strongly_connected_components(&beats) <= 1;
                assert_eq!(
                    beat_graph_is_strongly_connected(&counts, ties),
                    Some(kosaraju),
                    "round {round}"
                );
                connected += usize::from(kosaraju);
            }
        }
        assert!((200..1000).contains(&connected), "{connected} connected");
    }

    /// The bootstrap's path: a strongly connected graph's bits with some edges taken
    /// out answer as Kosaraju does on counts that never had those edges.
    #[test]
    fn edges_taken_out_of_the_bits_answer_as_a_graph_without_them() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let (mut kept, mut broken) = (0, 0);
        for round in 0..400 {
            let k = 2 + round % 90;
            let full: Vec<PairTally> = (0..k as u32)
                .flat_map(|i| (i + 1..k as u32).map(move |j| tally(i, j, 1.0, 1.0, 0.0)))
                .collect();
            let mut bits = BeatBits::new(&PairCounts::from_pairs(k, full.clone()), TieModel::Drop)
                .expect("small");
            assert!(bits.is_strongly_connected());
            let lose = [0.3, 0.6, 0.9][round % 3];
            let reduced: Vec<PairTally> = full
                .iter()
                .map(|p| {
                    let (mut wins_i, mut wins_j) = (p.wins_i, p.wins_j);
                    if rng.random_bool(lose) {
                        bits.set(p.i as usize, p.j as usize, false);
                        wins_i = 0.0;
                    }
                    if rng.random_bool(lose) {
                        bits.set(p.j as usize, p.i as usize, false);
                        wins_j = 0.0;
                    }
                    tally(p.i, p.j, wins_i, wins_j, 0.0)
                })
                .collect();
            let counts = PairCounts::from_pairs(k, reduced);
            let (beats, _) = comparison_graphs(&counts, TieModel::Drop);
            let kosaraju = strongly_connected_components(&beats) <= 1;
            assert_eq!(bits.is_strongly_connected(), kosaraju, "round {round}");
            if kosaraju {
                kept += 1;
            } else {
                broken += 1;
            }
        }
        assert!(kept > 50 && broken > 50, "{kept} kept, {broken} broken");
    }

    #[test]
    fn a_cycle_has_an_mle() {
        let counts = PairCounts::from_pairs(
            3,
            vec![
                tally(0, 1, 1.0, 0.0, 0.0),
                tally(1, 2, 1.0, 0.0, 0.0),
                tally(0, 2, 0.0, 1.0, 0.0),
            ],
        );
        assert!(mle_obstacles(&counts, TieModel::Half).is_empty());
    }

    #[test]
    fn a_model_that_never_wins_is_named() {
        let counts = PairCounts::from_pairs(
            3,
            vec![tally(0, 1, 1.0, 1.0, 0.0), tally(1, 2, 2.0, 0.0, 0.0)],
        );
        let obstacles = mle_obstacles(&counts, TieModel::Half);
        assert_eq!(obstacles, vec![MleObstacle::NeverWins { models: vec![2] }]);
        let names = ["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(obstacles[0].describe(&names), "never won: c");
    }

    #[test]
    fn ties_connect_unless_dropped() {
        let counts = PairCounts::from_pairs(2, vec![tally(0, 1, 0.0, 0.0, 3.0)]);
        assert!(mle_obstacles(&counts, TieModel::Half).is_empty());
        assert!(!mle_obstacles(&counts, TieModel::Drop).is_empty());
    }

    #[test]
    fn disconnected_groups_are_counted() {
        let counts = PairCounts::from_pairs(
            4,
            vec![tally(0, 1, 1.0, 1.0, 0.0), tally(2, 3, 1.0, 1.0, 0.0)],
        );
        assert_eq!(
            mle_obstacles(&counts, TieModel::Half),
            vec![MleObstacle::Disconnected { groups: 2 }]
        );
    }
}
