//! The regularized equilibrium (`rho > 0`, no hard budget) by block principal
//! pivoting on its support, the fast path before the interior-point QP of
//! [`crate::regularized_equilibrium`].
//!
//! The equilibrium `pi*` solves the linear complementarity problem of Lemma 1: with
//! `M = -A + rho I` and `b = rho/K - c`, there is a `lambda` with
//!
//! `w = M pi - b - lambda 1 >= 0`, `pi >= 0`, `pi_j w_j = 0`, `1^T pi = 1`.
//!
//! `M` is positive definite (`x^T A x = 0` for skew `A`), so the problem is strictly
//! monotone. Guessing the support `S` turns it into the bordered linear system
//! `M_SS p_S - lambda 1 = b_S`, `1^T p_S = 1`; the guess is right when `p_S >= 0` and
//! `w_j >= 0` off `S`. Otherwise every index that breaks a condition changes side (a
//! block pivot) while that lowers the number of broken conditions, and one index at a
//! time (the largest, Murty's rule) when three block pivots in a row have not
//! (J. J. Júdice and F. M. Pires, "A block principal pivoting algorithm for
//! large-scale strictly monotone linear complementarity problems", Computers &
//! Operations Research 21(5), 1994). Each step costs one dense solve of the size of the
//! support, which is small for the regularized games of NashEval's policies, where the
//! QP pays a sparse symbolic factorization of a `3K`-variable problem per game.
//!
//! The answer is accepted only when the caller's certificate (the gap `G_Omega`)
//! meets [`crate::certificate::GAP_TOLERANCE`]; a step limit, a singular system or an
//! uncertified answer leaves the game to the QP.

use nalgebra::{DMatrix, DVector};

use crate::{PayoffMatrix, Regularizer};

/// Block pivots in a row that may fail to lower the number of broken conditions
/// before single pivots take over (Júdice and Pires' `p`).
const BLOCK_PIVOT_TRIES: usize = 3;

/// Pivots tried before the QP takes over. Near-transitive games, the common case of
/// NashEval's policies, settle in one or two (the support of a small-`rho`
/// equilibrium is a few agents around the best); where majorities cycle and the
/// support holds many agents, the pivots can wander (Murty's finite rule needs a
/// P-matrix problem, and the bordered system is not one), so they stop early.
const PIVOT_LIMIT: usize = 12;

/// A condition is broken when it misses by more than this: rounding of a solve on a
/// support of up to a few hundred agents stays well below it.
const BROKEN_BELOW: f64 = -1e-12;

/// The solution of the bordered system on `support` (sorted agent indices): the
/// lottery `p` (zero off the support) and `lambda`; `None` when the system is
/// singular or not finite.
pub(crate) fn solve_on_support(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
    support: &[usize],
) -> Option<(Vec<f64>, f64)> {
    let k = a.agents();
    let rho = regularizer.rho;
    let uniform = 1.0 / k as f64;
    let s = support.len();
    let system = DMatrix::from_fn(s + 1, s + 1, |r, c| match (r < s, c < s) {
        (true, true) => -a.get(support[r], support[c]) + if r == c { rho } else { 0.0 },
        (true, false) => -1.0,
        (false, true) => 1.0,
        (false, false) => 0.0,
    });
    let rhs = DVector::from_fn(s + 1, |r, _| {
        if r < s {
            rho * uniform - regularizer.cost(support[r])
        } else {
            1.0
        }
    });
    let solution = system.lu().solve(&rhs)?;
    if !solution.iter().all(|v| v.is_finite()) {
        return None;
    }
    let mut p = vec![0.0; k];
    for (&agent, &value) in support.iter().zip(solution.iter()) {
        p[agent] = value;
    }
    Some((p, solution[s]))
}

/// `w_j = F_j(p) - lambda` for every agent, `F(p) = -A p + rho (p - 1/K) + c`.
pub(crate) fn slack(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
    p: &[f64],
    lambda: f64,
) -> Vec<f64> {
    let mut field = vec![0.0; p.len()];
    regularizer.operator_into(a, p, &mut field);
    field.iter().map(|f| f - lambda).collect()
}

/// The equilibrium by block principal pivoting (module docs), with the pivots it
/// took; `None` when the step limit passes or a system is singular.
pub(crate) fn pivoted_equilibrium(
    a: &PayoffMatrix,
    regularizer: &Regularizer,
) -> Option<(Vec<f64>, u32)> {
    let k = a.agents();
    // Start from the agent with the best row: most regularized equilibria of a
    // near-transitive game sit on a few agents around it.
    let row_total = |j: usize| a.row(j).iter().sum::<f64>() - regularizer.cost(j);
    let first = (0..k).max_by(|&x, &y| row_total(x).total_cmp(&row_total(y)))?;
    let mut in_support = vec![false; k];
    in_support[first] = true;
    let (mut fewest_broken, mut failed_blocks) = (usize::MAX, 0);
    for step in 0..PIVOT_LIMIT {
        let support: Vec<usize> = (0..k).filter(|&j| in_support[j]).collect();
        let (p, lambda) = solve_on_support(a, regularizer, &support)?;
        let w = slack(a, regularizer, &p, lambda);
        let broken: Vec<usize> = (0..k)
            .filter(|&j| {
                if in_support[j] {
                    p[j] < BROKEN_BELOW
                } else {
                    w[j] < BROKEN_BELOW
                }
            })
            .collect();
        let Some(&last) = broken.last() else {
            return Some((p, step as u32));
        };
        if broken.len() < fewest_broken {
            fewest_broken = broken.len();
            failed_blocks = 0;
        } else {
            failed_blocks += 1;
        }
        if failed_blocks < BLOCK_PIVOT_TRIES {
            broken.iter().for_each(|&j| in_support[j] = !in_support[j]);
        } else {
            in_support[last] = !in_support[last];
        }
        if !in_support.contains(&true) {
            // An empty support has no lottery: the best agent comes back.
            in_support[first] = true;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::GAP_TOLERANCE;
    use rand::{Rng, SeedableRng};

    /// A skew-symmetric game in [-1, 1]: a transitive part `tanh((s_j - s_k) / 2)`
    /// of strengths `spread` apart, plus a random cyclic part of size `cycle`, clipped.
    fn game(k: usize, spread: f64, cycle: f64, rng: &mut impl Rng) -> PayoffMatrix {
        let strengths: Vec<f64> = (0..k).map(|_| rng.random_range(-spread..=spread)).collect();
        let mut values = vec![0.0; k * k];
        for j in 0..k {
            for l in j + 1..k {
                let noise = cycle * rng.random_range(-1.0..=1.0);
                let v = (((strengths[j] - strengths[l]) / 2.0).tanh() + noise).clamp(-1.0, 1.0);
                values[j * k + l] = v;
                values[l * k + j] = -v;
            }
        }
        PayoffMatrix::from_row_major(&values, k).unwrap()
    }

    /// Where the pivots answer, they reach the interior-point QP's certified answer
    /// (Clarabel, polished) to 1e-7, on 378 games of 2 to 64 agents — transitive,
    /// cyclic and mixed, three `rho`, with and without costs; they answer every
    /// transitive game and most of the others.
    #[test]
    fn the_pivots_agree_with_the_interior_point_qp() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let (mut cases, mut answered) = (0, 0);
        for k in [2, 3, 5, 8, 16, 32, 64] {
            for (spread, cycle) in [(3.0, 0.0), (0.5, 0.6), (0.0, 1.0)] {
                for rho in [1e-3, 0.02, 0.5] {
                    for priced in [false, true] {
                        for _ in 0..3 {
                            let a = game(k, spread, cycle, &mut rng);
                            let costs = if priced {
                                (0..k).map(|_| rng.random_range(0.0..0.05)).collect()
                            } else {
                                Vec::new()
                            };
                            let regularizer = Regularizer { rho, costs };
                            cases += 1;
                            let Some((pivoted, _)) = pivoted_equilibrium(&a, &regularizer) else {
                                assert!(cycle > 0.0, "K={k} rho={rho}: a transitive game left");
                                continue;
                            };
                            answered += 1;
                            let qp =
                                crate::regularized::solve_by_qp(&a, &regularizer, None).unwrap();
                            assert!(qp.gap <= GAP_TOLERANCE);
                            let largest = pivoted
                                .iter()
                                .zip(&qp.probabilities)
                                .map(|(x, y)| (x - y).abs())
                                .fold(0.0, f64::max);
                            assert!(largest < 1e-7, "K={k} rho={rho}: off by {largest:e}");
                        }
                    }
                }
            }
        }
        // 378 games; the pivots gave up on 92 cyclic ones (left to the QP) when this
        // was written.
        assert_eq!(cases, 378);
        assert!(answered >= 270, "{answered} of {cases} answered");
    }

    /// With `A = 0` the equilibrium is the Euclidean projection of `1/K - c / rho` on
    /// the simplex (closed form; computed here by sorting, Duchi et al. 2008).
    #[test]
    fn without_a_game_the_answer_is_the_projection_of_the_prices() {
        let k = 6;
        let a = PayoffMatrix::from_row_major(&vec![0.0; k * k], k).unwrap();
        let costs = vec![0.0, 0.01, 0.03, 0.002, 0.2, 0.05];
        let rho = 0.1;
        let target: Vec<f64> = costs.iter().map(|c| 1.0 / k as f64 - c / rho).collect();
        let mut sorted = target.clone();
        sorted.sort_by(|x, y| y.total_cmp(x));
        let mut prefix = 0.0;
        let mut shift = 0.0;
        for (i, v) in sorted.iter().enumerate() {
            prefix += v;
            let candidate = (prefix - 1.0) / (i + 1) as f64;
            if v - candidate > 0.0 {
                shift = candidate;
            }
        }
        let expected: Vec<f64> = target.iter().map(|v| (v - shift).max(0.0)).collect();
        let (pivoted, _) = pivoted_equilibrium(&a, &Regularizer { rho, costs }).unwrap();
        for (x, y) in pivoted.iter().zip(&expected) {
            assert!((x - y).abs() < 1e-12, "{pivoted:?} against {expected:?}");
        }
        assert!(expected.iter().filter(|&&p| p == 0.0).count() >= 2);
    }
}
