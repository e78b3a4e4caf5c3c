//! Social-choice rules that order every agent from the pairwise margins
//! `A_jk` of a [`PayoffMatrix`] (the mean verdict of the battles between j and k,
//! NashEval Eq. 78): Copeland, Schulze, ranked pairs and Kemeny–Young, the
//! margin-based rules of OpenSpiel's voting suite and of `pref_voting`.
//!
//! For a profile of full rankings every pair is compared by every voter, so the mean
//! margin is the usual margin divided by the number of voters and each rule gives the
//! order it gives on the profile. A battle log compares pairs unequally often; the
//! mean margin keeps a pair's weight independent of how often it was sampled.
//!
//! Written here rather than taken from a crate: the Rust voting crates count ballots,
//! and none works from a margin matrix with fractional margins.

mod kemeny;
mod ranked_pairs;
mod schulze;

pub use kemeny::{kemeny_young, KemenyYoung, KEMENY_MAX_AGENTS};
pub use ranked_pairs::ranked_pairs;
pub use schulze::{schulze, strongest_paths};

use crate::PayoffMatrix;

/// An order of the agents made by a social-choice rule.
#[derive(Debug, Clone, PartialEq)]
pub struct SocialOrder {
    /// Each agent's score under the rule; a higher score ranks first, equal scores
    /// share a rank.
    pub scores: Vec<f64>,
    /// Whether the order needed no tie-breaking: `false` when equal margins (ranked
    /// pairs) or several optimal orders (Kemeny–Young) were decided by agent index.
    pub unique: bool,
}

/// Copeland's rule: each agent scores its pairwise wins minus its pairwise losses
/// (`sum_k sign(A_jk)`; a zero margin counts 0), as OpenSpiel's `CopelandVoting`
/// and `pref_voting`'s `copeland` with scores (1, 0, -1).
pub fn copeland(a: &PayoffMatrix) -> SocialOrder {
    let scores = (0..a.agents())
        .map(|j| {
            a.row(j)
                .iter()
                .map(|&x| f64::from(x > 0.0) - f64::from(x < 0.0))
                .sum()
        })
        .collect();
    SocialOrder {
        scores,
        unique: true,
    }
}

/// The score of a strict order in which agent `order[p]` is placed p-th: the number of
/// agents placed below it (`K - 1 - p`), so that the leaderboard's sort gives the order
/// back.
pub(crate) fn scores_of_order(order: &[usize]) -> Vec<f64> {
    let mut scores = vec![0.0; order.len()];
    for (position, &agent) in order.iter().enumerate() {
        scores[agent] = (order.len() - 1 - position) as f64;
    }
    scores
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The margin matrix of a profile of `(voters, ranking best first)` over `k`
    /// candidates, divided by the number of voters.
    pub(crate) fn profile_margins(k: usize, profile: &[(usize, &[usize])]) -> PayoffMatrix {
        let voters: usize = profile.iter().map(|(n, _)| n).sum();
        let mut rows = vec![vec![0.0; k]; k];
        for &(n, ranking) in profile {
            for (p, &above) in ranking.iter().enumerate() {
                for &below in &ranking[p + 1..] {
                    rows[above][below] += n as f64 / voters as f64;
                    rows[below][above] -= n as f64 / voters as f64;
                }
            }
        }
        PayoffMatrix::new(&rows).unwrap()
    }

    /// The 100-voter Tennessee capital profile of Wikipedia's "Ranked pairs" and
    /// "Kemeny–Young method" articles over Memphis 0, Nashville 1, Chattanooga 2 and
    /// Knoxville 3, as `profile_margins` reads it.
    pub(crate) fn tennessee() -> [(usize, &'static [usize]); 4] {
        [
            (42, &[0, 1, 2, 3]),
            (26, &[1, 2, 3, 0]),
            (15, &[2, 3, 1, 0]),
            (17, &[3, 2, 1, 0]),
        ]
    }

    /// The order of agents by descending score (ties by index).
    pub(crate) fn order_of(scores: &[f64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
        order
    }

    #[test]
    fn copeland_counts_wins_minus_losses() {
        // Rock, paper, scissors and a fourth agent beaten by all: everyone else
        // scores 1 (one win, one loss, one win over the fourth).
        let rows = vec![
            vec![0.0, -1.0, 1.0, 0.5],
            vec![1.0, 0.0, -1.0, 0.5],
            vec![-1.0, 1.0, 0.0, 0.5],
            vec![-0.5, -0.5, -0.5, 0.0],
        ];
        let order = copeland(&PayoffMatrix::new(&rows).unwrap());
        assert_eq!(order.scores, vec![1.0, 1.0, 1.0, -3.0]);
    }
}
