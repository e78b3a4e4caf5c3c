//! The Kemeny–Young order (Kemeny 1959; Young & Levenglick 1978), found exactly.

use super::{scores_of_order, SocialOrder};
use crate::{GameError, PayoffMatrix};

/// Most agents [`kemeny_young`] orders: finding the Kemeny–Young order is NP-hard
/// (Bartholdi, Tovey & Trick 1989), and the exact search visits all `2^K` sets of
/// agents, `2^20` (about a million, a second and 20 MiB) at this bound.
pub const KEMENY_MAX_AGENTS: usize = 20;

/// Margins closer than this are equal when optimal orders are counted.
const EQUAL_AGREEMENT: f64 = 1e-12;

/// A Kemeny–Young order and what it scores.
#[derive(Debug, Clone, PartialEq)]
pub struct KemenyYoung {
    /// The order (scores `K - 1 -` position; `unique` when no other order scores as
    /// much).
    pub order: SocialOrder,
    /// Its agreement `sum_{j before k} A_jk`, the largest over all orders.
    pub agreement: f64,
    /// How many orders reach that agreement.
    pub optimal_orders: u64,
}

/// The order of the agents that maximises the agreement `sum_{j placed before k} A_jk`
/// with the margins: for a profile of rankings this is the ranking closest to the
/// votes in Kendall's distance, the Kemeny–Young ranking of OpenSpiel's
/// `KemenyYoungVoting` and of `pref_voting`'s `kemeny_young`.
///
/// Exact, by dynamic programming over the sets `S` of agents placed first
/// (Held–Karp style): `f(S ∪ {j}) = max_j f(S) + sum_{i in S} A_ij`, in `O(2^K K^2)`
/// time and `O(2^K)` memory. Among optimal orders the one returned places, from the
/// bottom up, the lowest-indexed agent that keeps the order optimal.
///
/// # Errors
/// [`GameError::TooManyAgents`] above [`KEMENY_MAX_AGENTS`].
pub fn kemeny_young(a: &PayoffMatrix) -> Result<KemenyYoung, GameError> {
    let k = a.agents();
    if k > KEMENY_MAX_AGENTS {
        return Err(GameError::TooManyAgents {
            rule: "Kemeny–Young",
            agents: k,
            limit: KEMENY_MAX_AGENTS,
            reason: "the exact search visits all 2^K sets of agents (the problem is NP-hard)",
        });
    }
    let sets = 1usize << k;
    let mut best = vec![f64::NEG_INFINITY; sets];
    let mut ways = vec![0u64; sets];
    let mut last = vec![0u8; sets];
    best[0] = 0.0;
    ways[0] = 1;
    for set in 1..sets {
        for j in (0..k).filter(|&j| set & (1 << j) != 0) {
            let before = set & !(1 << j);
            let gain: f64 = (0..k)
                .filter(|&i| before & (1 << i) != 0)
                .map(|i| a.get(i, j))
                .sum();
            let value = best[before] + gain;
            if value > best[set] + EQUAL_AGREEMENT {
                best[set] = value;
                ways[set] = ways[before];
                last[set] = j as u8;
            } else if value >= best[set] - EQUAL_AGREEMENT {
                ways[set] = ways[set].saturating_add(ways[before]);
            }
        }
    }
    let mut order = Vec::with_capacity(k);
    let mut set = sets - 1;
    while set != 0 {
        let j = usize::from(last[set]);
        order.push(j);
        set &= !(1 << j);
    }
    order.reverse();
    Ok(KemenyYoung {
        order: SocialOrder {
            scores: tied_scores(a, &order),
            unique: ways[sets - 1] == 1,
        },
        agreement: best[sets - 1],
        optimal_orders: ways[sets - 1],
    })
}

/// The scores of `order` (`K - 1 -` position), with each run of consecutive agents
/// whose every pair has a zero margin sharing the run's best score: swapping two
/// such agents changes the agreement by `2 A_jk = 0`, so the rule does not order them
/// and they share a rank (two exactly tied models were ranked 1 and 2 by index).
fn tied_scores(a: &PayoffMatrix, order: &[usize]) -> Vec<f64> {
    let mut scores = scores_of_order(order);
    let mut start = 0;
    for position in 1..=order.len() {
        let joins = position < order.len()
            && order[start..position]
                .iter()
                .all(|&j| a.get(j, order[position]).abs() <= EQUAL_AGREEMENT);
        if !joins {
            let best = scores[order[start]];
            for &agent in &order[start..position] {
                scores[agent] = best;
            }
            start = position;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voting::tests::{order_of, profile_margins, tennessee};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn agreement(a: &PayoffMatrix, order: &[usize]) -> f64 {
        (0..order.len())
            .flat_map(|p| (p + 1..order.len()).map(move |q| (p, q)))
            .map(|(p, q)| a.get(order[p], order[q]))
            .sum()
    }

    fn permutations(k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![Vec::new()];
        }
        let mut all = Vec::new();
        for shorter in permutations(k - 1) {
            for slot in 0..=shorter.len() {
                let mut p = shorter.clone();
                p.insert(slot, k - 1);
                all.push(p);
            }
        }
        all
    }

    /// Wikipedia's "Kemeny–Young method" example (the Tennessee capital, per 100
    /// voters): Nashville > Chattanooga > Knoxville > Memphis with the printed score
    /// 393 agreeing preferences, i.e. agreement `(2·393 − 6·100) / 100` in margins.
    #[test]
    fn tennessee_example_and_its_printed_score() {
        let (memphis, nashville, chattanooga, knoxville) = (0, 1, 2, 3);
        let profile = tennessee();
        let found = kemeny_young(&profile_margins(4, &profile)).unwrap();
        assert_eq!(
            order_of(&found.order.scores),
            vec![nashville, chattanooga, knoxville, memphis]
        );
        assert!((found.agreement - (2.0 * 393.0 - 600.0) / 100.0).abs() < 1e-12);
        assert_eq!(found.optimal_orders, 1);
    }

    /// Against every permutation, on random margins with ties among them.
    #[test]
    fn matches_brute_force_over_all_orders() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for trial in 0..60 {
            let k = 2 + trial % 6;
            let mut rows = vec![vec![0.0; k]; k];
            for (j, l) in (0..k).flat_map(|j| (j + 1..k).map(move |l| (j, l))) {
                // Margins on a coarse grid, so that ties between orders occur.
                let m = f64::from(rng.random_range(-4..=4)) / 4.0;
                rows[j][l] = m;
                rows[l][j] = -m;
            }
            let a = PayoffMatrix::new(&rows).unwrap();
            let found = kemeny_young(&a).unwrap();
            let values: Vec<f64> = permutations(k).iter().map(|p| agreement(&a, p)).collect();
            let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let optimal = values.iter().filter(|&&v| (v - top).abs() < 1e-9).count();
            assert!((found.agreement - top).abs() < 1e-12, "trial {trial}");
            assert!((agreement(&a, &order_of(&found.order.scores)) - top).abs() < 1e-12);
            assert_eq!(found.optimal_orders, optimal as u64, "trial {trial}");
            assert_eq!(found.order.unique, optimal == 1);
        }
    }

    #[test]
    fn refuses_more_agents_than_it_can_search() {
        let k = KEMENY_MAX_AGENTS + 1;
        let a = PayoffMatrix::new(&vec![vec![0.0; k]; k]).unwrap();
        let error = kemeny_young(&a).unwrap_err();
        assert!(error.to_string().contains("at most 20"), "{error}");
    }

    /// Two models tied exactly — a zero margin between them and the same margins with
    /// everyone else — share a rank, above the third they both beat; a strict order
    /// keeps distinct scores.
    #[test]
    fn exactly_tied_models_share_a_rank() {
        let tied = PayoffMatrix::new(&[
            vec![0.0, 0.0, 0.4],
            vec![0.0, 0.0, 0.4],
            vec![-0.4, -0.4, 0.0],
        ])
        .unwrap();
        let found = kemeny_young(&tied).unwrap();
        assert_eq!(found.order.scores, vec![2.0, 2.0, 0.0]);
        assert_eq!(found.optimal_orders, 2);
        let strict = PayoffMatrix::new(&[
            vec![0.0, 0.2, 0.4],
            vec![-0.2, 0.0, 0.4],
            vec![-0.4, -0.4, 0.0],
        ])
        .unwrap();
        assert_eq!(
            kemeny_young(&strict).unwrap().order.scores,
            vec![2.0, 1.0, 0.0]
        );
    }
}
