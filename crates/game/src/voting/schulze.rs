//! Schulze's method (Schulze 2011, "A new monotonic, clone-independent, reversal
//! symmetric, and Condorcet-consistent single-winner election method").

use super::SocialOrder;
use crate::PayoffMatrix;

/// The strength of the strongest path from each agent to each other: `p[j][k]` is the
/// largest, over paths `j = x_0, x_1, …, x_n = k` whose every step has a positive margin,
/// of the smallest margin `A_{x_i x_{i+1}}` along the path; 0 when there is no such path.
/// The widest-path Floyd–Warshall recursion,
/// `p[j][k] = max(p[j][k], min(p[j][i], p[i][k]))`, in `O(K^3)`.
pub fn strongest_paths(a: &PayoffMatrix) -> Vec<Vec<f64>> {
    let k = a.agents();
    let mut p: Vec<Vec<f64>> = (0..k)
        .map(|j| (0..k).map(|l| a.get(j, l).max(0.0)).collect())
        .collect();
    for i in 0..k {
        for j in 0..k {
            if j == i || p[j][i] <= 0.0 {
                continue;
            }
            for l in 0..k {
                let through = p[j][i].min(p[i][l]);
                if l != i && l != j && through > p[j][l] {
                    p[j][l] = through;
                }
            }
        }
    }
    p
}

/// Schulze's order: j ranks above k when the strongest path from j to k is stronger
/// than the one back, `p[j][k] > p[k][j]` ([`strongest_paths`]); this relation is
/// transitive (Schulze 2011, Sec. 4.1). Each agent's score is the number of agents it
/// ranks above, so agents the relation cannot separate share a rank. The winners
/// (score `K - 1` when unique) are `pref_voting`'s `beat_path` winners.
pub fn schulze(a: &PayoffMatrix) -> SocialOrder {
    let p = strongest_paths(a);
    let k = a.agents();
    let scores: Vec<f64> = (0..k)
        .map(|j| (0..k).filter(|&l| p[j][l] > p[l][j]).count() as f64)
        .collect();
    let mut sorted = scores.clone();
    sorted.sort_by(f64::total_cmp);
    let unique = sorted.windows(2).all(|w| w[0] < w[1]);
    SocialOrder { scores, unique }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voting::tests::{order_of, profile_margins};

    /// The example of Wikipedia's "Schulze method" article (45 voters over A–E), whose
    /// table of strongest paths in winning votes `d` is printed there; on margins
    /// `(2d - 45) / 45` the widest paths are the same transform of those values.
    #[test]
    fn wikipedia_example_strongest_paths_and_order() {
        let (a, b, c, d, e) = (0, 1, 2, 3, 4);
        let profile: [(usize, &[usize]); 8] = [
            (5, &[a, c, b, e, d]),
            (5, &[a, d, e, c, b]),
            (8, &[b, e, d, a, c]),
            (3, &[c, a, b, e, d]),
            (7, &[c, a, e, b, d]),
            (2, &[c, b, a, d, e]),
            (7, &[d, c, e, b, a]),
            (8, &[e, b, a, d, c]),
        ];
        let margins = profile_margins(5, &profile);
        let printed = [
            [0, 28, 28, 30, 24],
            [25, 0, 28, 33, 24],
            [25, 29, 0, 29, 24],
            [25, 28, 28, 0, 24],
            [25, 28, 28, 31, 0],
        ];
        let p = strongest_paths(&margins);
        for j in 0..5 {
            for l in (0..5).filter(|&l| l != j) {
                let expected = (2.0 * f64::from(printed[j][l]) - 45.0) / 45.0;
                assert!(
                    (p[j][l] - expected).abs() < 1e-12,
                    "p[{j}][{l}] = {}",
                    p[j][l]
                );
            }
        }
        let order = schulze(&margins);
        assert_eq!(order_of(&order.scores), vec![e, a, c, b, d]);
        assert!(order.unique);
    }

    #[test]
    fn a_condorcet_winner_wins_and_a_perfect_tie_is_not_unique() {
        let rows = vec![
            vec![0.0, 0.2, 0.4],
            vec![-0.2, 0.0, 0.0],
            vec![-0.4, 0.0, 0.0],
        ];
        let order = schulze(&PayoffMatrix::new(&rows).unwrap());
        assert_eq!(order.scores, vec![2.0, 0.0, 0.0]);
        assert!(!order.unique);
    }
}
