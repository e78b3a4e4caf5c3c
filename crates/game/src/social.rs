//! Social-choice winners from a margin matrix (NashEval Appendix E; Borda as in the
//! baselines of Appendix I.3: the largest average row margin).

use crate::PayoffMatrix;

/// The agent preferred to every other (`A_jk > 0` for all k ≠ j), if any.
pub fn condorcet_winner(a: &PayoffMatrix) -> Option<usize> {
    (0..a.agents()).find(|&j| (0..a.agents()).all(|k| k == j || a.get(j, k) > 0.0))
}

fn argmax_set(scores: &[f64]) -> Vec<usize> {
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (0..scores.len()).filter(|&j| scores[j] == best).collect()
}

/// Copeland winners: most pairwise wins minus losses.
pub fn copeland_winners(a: &PayoffMatrix) -> Vec<usize> {
    argmax_set(&crate::voting::copeland(a).scores)
}

/// Borda winners: largest average row margin `1/(K-1) sum_k A_jk`.
pub fn borda_winners(a: &PayoffMatrix) -> Vec<usize> {
    let scores: Vec<f64> = (0..a.agents())
        .map(|j| a.row(j).iter().sum::<f64>())
        .collect();
    argmax_set(&scores)
}
