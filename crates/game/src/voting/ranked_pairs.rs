//! Ranked pairs (Tideman 1987, "Independence of clones as a criterion for voting
//! rules").

use super::{scores_of_order, SocialOrder};
use crate::PayoffMatrix;

/// Tideman's ranked pairs: the pairs with a positive margin are taken from the largest
/// margin down and each is locked in (`j` above `k`) unless it would close a cycle with
/// those already locked. The locked pairs form an acyclic graph; the order is the
/// topological order of it, each agent placed as soon as nothing unplaced is locked
/// above it (the lowest index first among those free), and the score is `K - 1 -`
/// position.
///
/// Equal margins are taken in order of agent index. `unique` says the order depends
/// on no tie-break: within every group of equal margins each pair was either locked
/// or closed a cycle with the pairs locked before the group (then every order of the
/// group locks the same pairs), and the locked pairs order every two agents. Otherwise
/// another tie-break can give another order (`pref_voting`'s `ranked_pairs` then
/// returns every winner some tie-break gives).
pub fn ranked_pairs(a: &PayoffMatrix) -> SocialOrder {
    let k = a.agents();
    let mut pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|j| (0..k).map(move |l| (j, l)))
        .filter(|&(j, l)| a.get(j, l) > 0.0)
        .collect();
    pairs.sort_by(|&(j, l), &(x, y)| {
        a.get(x, y)
            .total_cmp(&a.get(j, l))
            .then((j, l).cmp(&(x, y)))
    });
    // above[j][l]: j is locked above l, directly or through other locked pairs (kept
    // transitively closed, so a cycle check is one lookup).
    let mut above = vec![vec![false; k]; k];
    let mut direct = vec![vec![false; k]; k];
    let mut unique = true;
    for group in pairs.chunk_by(|&(j, l), &(x, y)| a.get(j, l) == a.get(x, y)) {
        let before_group = above.clone();
        for &(j, l) in group {
            if above[l][j] {
                unique &= before_group[l][j];
                continue;
            }
            direct[j][l] = true;
            let uppers: Vec<usize> = (0..k).filter(|&x| x == j || above[x][j]).collect();
            let lowers: Vec<usize> = (0..k).filter(|&y| y == l || above[l][y]).collect();
            for &x in &uppers {
                for &y in &lowers {
                    above[x][y] = true;
                }
            }
        }
    }
    let mut placed = vec![false; k];
    let mut order = Vec::with_capacity(k);
    while order.len() < k {
        let mut free = (0..k).filter(|&x| !placed[x] && (0..k).all(|y| placed[y] || !direct[y][x]));
        let next = free.next().expect("the locked graph is acyclic");
        unique &= free.next().is_none();
        placed[next] = true;
        order.push(next);
    }
    SocialOrder {
        scores: scores_of_order(&order),
        unique,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voting::tests::{order_of, profile_margins, tennessee};

    /// The Tennessee capital example of Wikipedia's "Ranked pairs" article: locked
    /// pairs give Nashville > Chattanooga > Knoxville > Memphis.
    #[test]
    fn tennessee_example() {
        let (memphis, nashville, chattanooga, knoxville) = (0, 1, 2, 3);
        let profile = tennessee();
        let order = ranked_pairs(&profile_margins(4, &profile));
        assert_eq!(
            order_of(&order.scores),
            vec![nashville, chattanooga, knoxville, memphis]
        );
        assert!(order.unique);
    }

    /// A cycle a > b (0.5) > c (0.3) > a (0.1): the weakest pair, c over a, is the one
    /// left out.
    #[test]
    fn the_weakest_pair_of_a_cycle_is_dropped() {
        let rows = vec![
            vec![0.0, 0.5, -0.1],
            vec![-0.5, 0.0, 0.3],
            vec![0.1, -0.3, 0.0],
        ];
        let order = ranked_pairs(&PayoffMatrix::new(&rows).unwrap());
        assert_eq!(order_of(&order.scores), vec![0, 1, 2]);
    }
}
