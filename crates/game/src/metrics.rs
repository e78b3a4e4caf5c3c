//! Evaluation metrics of NashEval Appendix I.1 for one context; averages over test
//! contexts are means of these. None allocates, so batches of contexts can call
//! them in a tight loop.

use crate::payoff::dot;
use crate::PayoffMatrix;

/// Support threshold `tau` of Eq. 70.
pub const SUPPORT_THRESHOLD: f64 = 1e-3;

/// Unregularized exploitability `max_q q^T A pi = max_j (A pi)_j` (Eq. 69): the best
/// payoff an opponent gets against `pi`; zero exactly at a maximal lottery.
pub fn exploitability(a: &PayoffMatrix, pi: &[f64]) -> f64 {
    (0..a.agents())
        .map(|j| dot(a.row(j), pi))
        .fold(f64::NEG_INFINITY, f64::max)
        .max(0.0)
}

/// Head-to-head game value `pi^T A q` (Eq. 71).
pub fn game_value(a: &PayoffMatrix, pi: &[f64], q: &[f64]) -> f64 {
    pi.iter()
        .enumerate()
        .map(|(j, p)| p * dot(a.row(j), q))
        .sum()
}

/// Support `S_tau(p) = {j : p_j > tau}` (allocates its answer; [`support_f1`] does
/// not).
pub fn support(p: &[f64], tau: f64) -> Vec<usize> {
    (0..p.len()).filter(|&j| p[j] > tau).collect()
}

/// Support F1 `2 |S(pi) ∩ S(ref)| / (|S(pi)| + |S(ref)|)` (Eq. 70).
pub fn support_f1(pi: &[f64], reference: &[f64], tau: f64) -> f64 {
    let (mut ours, mut theirs, mut common) = (0usize, 0usize, 0usize);
    for (p, r) in pi.iter().zip(reference) {
        let (in_ours, in_theirs) = (*p > tau, *r > tau);
        ours += usize::from(in_ours);
        theirs += usize::from(in_theirs);
        common += usize::from(in_ours && in_theirs);
    }
    if ours + theirs == 0 {
        return 1.0;
    }
    2.0 * common as f64 / (ours + theirs) as f64
}

/// Strict win rate `1/K sum_j sum_k pi_j W_jk` (Eq. 72), `W_jk` the probability that
/// j strictly beats k (ties and self-comparisons earn nothing).
pub fn strict_win_rate(strict_wins: &[Vec<f64>], pi: &[f64]) -> f64 {
    let k = pi.len() as f64;
    pi.iter()
        .zip(strict_wins)
        .map(|(p, row)| p * row.iter().sum::<f64>())
        .sum::<f64>()
        / k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_on_hand_examples() {
        let rps = PayoffMatrix::new(&[
            vec![0.0, -1.0, 1.0],
            vec![1.0, 0.0, -1.0],
            vec![-1.0, 1.0, 0.0],
        ])
        .unwrap();
        let uniform = [1.0 / 3.0; 3];
        assert!(exploitability(&rps, &uniform) < 1e-15);
        assert_eq!(exploitability(&rps, &[1.0, 0.0, 0.0]), 1.0);
        assert_eq!(game_value(&rps, &[0.0, 1.0, 0.0], &[1.0, 0.0, 0.0]), 1.0);
        assert_eq!(
            support_f1(&[0.5, 0.5, 0.0], &[0.5, 0.0, 0.5], SUPPORT_THRESHOLD),
            0.5
        );
        let wins = vec![
            vec![0.0, 0.6, 0.2],
            vec![0.3, 0.0, 0.5],
            vec![0.7, 0.4, 0.0],
        ];
        assert!((strict_win_rate(&wins, &[1.0, 0.0, 0.0]) - 0.8 / 3.0).abs() < 1e-15);
    }
}
