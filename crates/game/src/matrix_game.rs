//! The minimising player's optimal mixture in a finite two-player zero-sum game with
//! any payoff table (not necessarily square or skew-symmetric):
//!
//! ```text
//! min_{δ ∈ Δ_L}  max_{a ∈ [K]}  Σ_ℓ δ_ℓ b_aℓ
//! ```
//!
//! written as the linear program `min v` subject to `Σ_ℓ δ_ℓ b_aℓ ≤ v` for every
//! column `a`, `δ ≥ 0`, `Σ δ = 1` (von Neumann's minimax theorem; e.g. the stable
//! lottery over committees of Haghtalab et al., NashEval Eq. 84), solved exactly by
//! Clarabel.

use crate::lottery::normalized;
use crate::qp::Qp;
use crate::GameError;

/// The minimiser's mixture and the value it guarantees.
#[derive(Debug, Clone, PartialEq)]
pub struct MinimaxMixture {
    /// `δ`: the probability of each row.
    pub mixture: Vec<f64>,
    /// `max_a Σ_ℓ δ_ℓ b_aℓ` at the answer, recomputed from `mixture`.
    pub value: f64,
}

/// `max_a Σ_ℓ δ_ℓ b_aℓ` for the mixture `delta` over `rows` (each row lists `b_ℓa`
/// for every column `a`).
pub fn worst_column(rows: &[Vec<f64>], delta: &[f64]) -> f64 {
    let columns = rows.first().map_or(0, Vec::len);
    (0..columns)
        .map(|a| {
            rows.iter()
                .zip(delta)
                .map(|(row, d)| d * row[a])
                .sum::<f64>()
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The mixture over `rows` minimising the largest column payoff (see the module
/// documentation); `rows[ℓ][a] = b_aℓ`.
///
/// # Errors
/// [`GameError::Solver`] for no rows, rows of different or zero lengths, a value that
/// is not finite, or a solver failure.
pub fn minimax_mixture(rows: &[Vec<f64>]) -> Result<MinimaxMixture, GameError> {
    let columns = rows.first().map_or(0, Vec::len);
    if columns == 0 || rows.iter().any(|r| r.len() != columns) {
        return Err(GameError::Solver(
            "a matrix game needs at least one row and one column, every row as long".into(),
        ));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err(GameError::Solver(
            "a matrix game's payoffs must be finite numbers".into(),
        ));
    }
    let l = rows.len();
    // Variables: δ (0..l), then v (l).
    let v = l;
    let mut constraints: Vec<(usize, usize, f64)> = (0..l).map(|i| (0, i, 1.0)).collect();
    let mut bounds = vec![1.0];
    for a in 0..columns {
        let row = bounds.len();
        constraints.extend(
            rows.iter()
                .enumerate()
                .filter(|(_, r)| r[a] != 0.0)
                .map(|(i, r)| (row, i, r[a])),
        );
        constraints.push((row, v, -1.0));
        bounds.push(0.0);
    }
    for i in 0..l {
        constraints.push((bounds.len(), i, -1.0));
        bounds.push(0.0);
    }
    let mut linear = vec![0.0; l + 1];
    linear[v] = 1.0;
    let (x, _) = Qp {
        variables: l + 1,
        quadratic: Vec::new(),
        linear,
        constraints,
        bounds,
        equalities: 1,
        exponential_cones: 0,
    }
    .solve()?;
    let mixture = normalized(&x[..l]);
    let value = worst_column(rows, &mixture);
    Ok(MinimaxMixture { mixture, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Matching pennies has value 0 at (1/2, 1/2) (closed form).
    #[test]
    fn matching_pennies_is_solved_by_the_even_mixture() {
        let rows = vec![vec![1.0, -1.0], vec![-1.0, 1.0]];
        let m = minimax_mixture(&rows).unwrap();
        assert!((m.mixture[0] - 0.5).abs() < 1e-8, "{m:?}");
        assert!(m.value.abs() < 1e-8);
    }

    /// A 3 × 4 table against a brute force over the simplex in steps of 1/600.
    #[test]
    fn value_matches_a_grid_search_of_the_simplex() {
        let rows = vec![
            vec![0.2, 0.7, 0.1, 0.4],
            vec![0.6, 0.1, 0.3, 0.2],
            vec![0.3, 0.4, 0.8, 0.1],
        ];
        let m = minimax_mixture(&rows).unwrap();
        let n = 600;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=n - i {
                let d = [
                    i as f64 / n as f64,
                    j as f64 / n as f64,
                    (n - i - j) as f64 / n as f64,
                ];
                best = best.min(worst_column(&rows, &d));
            }
        }
        assert!(m.value <= best + 1e-9, "LP {} above grid {best}", m.value);
        // One grid step moves a column's payoff by at most 2 · 0.8 / 600.
        assert!(m.value >= best - 2.0 * 0.8 / n as f64, "LP {}", m.value);
    }

    #[test]
    fn ragged_or_empty_tables_are_refused() {
        assert!(minimax_mixture(&[]).is_err());
        assert!(minimax_mixture(&[vec![1.0], vec![1.0, 2.0]]).is_err());
        assert!(minimax_mixture(&[vec![f64::NAN]]).is_err());
    }
}
