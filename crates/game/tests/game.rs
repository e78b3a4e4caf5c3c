//! The maximal lottery and the social-choice winners against closed forms, axioms and
//! a brute force over supports.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use verdict_game::{
    borda_winners, condorcet_winner, copeland_winners, exploitability, game_value, maximal_lottery,
    priced_lottery, GameError, LotteryStatus, PayoffMatrix, GAP_TOLERANCE,
};

fn rps() -> Vec<Vec<f64>> {
    vec![
        vec![0.0, -1.0, 1.0],
        vec![1.0, 0.0, -1.0],
        vec![-1.0, 1.0, 0.0],
    ]
}

fn random_game(k: usize, seed: u64) -> PayoffMatrix {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = vec![vec![0.0; k]; k];
    let pairs = (0..k).flat_map(|j| ((j + 1)..k).map(move |l| (j, l)));
    for (j, l) in pairs {
        let x: f64 = rng.random_range(-1.0..1.0);
        rows[j][l] = x;
        rows[l][j] = -x;
    }
    PayoffMatrix::new(&rows).unwrap()
}

/// `F(pi) = -A pi + rho (pi - 1/K) + c`, the operator of Lemma 1, written out here
/// independently of the library.
fn vi_field(game: &PayoffMatrix, pi: &[f64], rho: f64, costs: &[f64]) -> Vec<f64> {
    let k = pi.len();
    (0..k)
        .map(|j| {
            let a_pi: f64 = (0..k).map(|l| game.get(j, l) * pi[l]).sum();
            -a_pi + rho * (pi[j] - 1.0 / k as f64) + costs[j]
        })
        .collect()
}

/// How far `q` violates the variational inequality at `pi`: `<F(pi), pi - q>`, at most
/// 0 (up to rounding) when `pi` solves it.
fn vi_violation(field: &[f64], pi: &[f64], q: &[f64]) -> f64 {
    field
        .iter()
        .zip(pi)
        .zip(q)
        .map(|((f, p), x)| f * (p - x))
        .sum()
}

/// Random strategies (skewed towards the vertices) that spend at most `limit`.
fn affordable_mixes(costs: &[f64], limit: f64, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..2000)
        .map(|_| {
            let raw: Vec<f64> = costs.iter().map(|_| rng.random::<f64>().powi(4)).collect();
            let total: f64 = raw.iter().sum();
            raw.into_iter().map(|x| x / total).collect::<Vec<f64>>()
        })
        .filter(|q| q.iter().zip(costs).map(|(x, c)| x * c).sum::<f64>() <= limit)
        .collect()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// Appendix E.1: three voters with cyclic rankings a≻b≻c, b≻c≻a, c≻a≻b give every pair
/// a 2:1 majority, margins ±1/3: no Condorcet winner, and the uniform lottery.
#[test]
fn three_voter_cycle_gives_the_uniform_lottery() {
    let third = 1.0 / 3.0;
    let margins = vec![
        vec![0.0, third, -third],
        vec![-third, 0.0, third],
        vec![third, -third, 0.0],
    ];
    let game = PayoffMatrix::new(&margins).unwrap();
    assert_eq!(condorcet_winner(&game), None);
    let lottery = maximal_lottery(&game).unwrap();
    assert!(
        close(&lottery.probabilities, &[third; 3], 1e-12),
        "{:?}",
        lottery.probabilities
    );
    assert_eq!(lottery.status, LotteryStatus::Certified);
}

/// Condorcet consistency: a Condorcet winner gets probability 1.
#[test]
fn condorcet_winner_gets_everything() {
    let rows = vec![
        vec![0.0, 0.2, 0.1, 0.4],
        vec![-0.2, 0.0, 0.5, -0.3],
        vec![-0.1, -0.5, 0.0, 0.6],
        vec![-0.4, 0.3, -0.6, 0.0],
    ];
    let game = PayoffMatrix::new(&rows).unwrap();
    assert_eq!(condorcet_winner(&game), Some(0));
    assert_eq!(copeland_winners(&game), vec![0]);
    let lottery = maximal_lottery(&game).unwrap();
    assert!(
        close(&lottery.probabilities, &[1.0, 0.0, 0.0, 0.0], 1e-12),
        "{:?}",
        lottery.probabilities
    );
}

/// Cloning consistency with a canonical answer: rock–paper–scissors with rock cloned
/// three times. Every split of 1/3 among the clones is a maximal lottery; the
/// minimum-norm one is [1/9, 1/9, 1/9, 1/3, 1/3], and paper and scissors keep 1/3.
#[test]
fn clones_share_their_original_probability_evenly() {
    // Agents: rock1, rock2, rock3, paper, scissors.
    let beats = |x: usize, y: usize| -> f64 {
        let kind = |a: usize| if a < 3 { 0 } else { a - 2 };
        match (kind(x), kind(y)) {
            (a, b) if a == b => 0.0,
            (0, 2) | (1, 0) | (2, 1) => 1.0,
            _ => -1.0,
        }
    };
    let rows: Vec<Vec<f64>> = (0..5)
        .map(|x| (0..5).map(|y| beats(x, y)).collect())
        .collect();
    let lottery = maximal_lottery(&PayoffMatrix::new(&rows).unwrap()).unwrap();
    assert!(!lottery.unique);
    let ninth = 1.0 / 9.0;
    let third = 1.0 / 3.0;
    assert!(
        close(
            &lottery.probabilities,
            &[ninth, ninth, ninth, third, third],
            1e-9
        ),
        "{:?}",
        lottery.probabilities
    );
    let base = maximal_lottery(&PayoffMatrix::new(&rps()).unwrap()).unwrap();
    assert!(close(&base.probabilities, &[third; 3], 1e-12));
}

/// The unique equilibrium of a generic game, by enumerating supports (odd sizes: a
/// skew-symmetric matrix of even order is singular only on a measure-zero set).
fn brute_force(game: &PayoffMatrix) -> Vec<f64> {
    let k = game.agents();
    for mask in 1u32..(1 << k) {
        let support: Vec<usize> = (0..k).filter(|j| mask & (1 << j) != 0).collect();
        if support.len().is_multiple_of(2) {
            continue;
        }
        let s = support.len();
        let system = nalgebra::DMatrix::from_fn(s + 1, s, |r, c| {
            if r < s {
                game.get(support[r], support[c])
            } else {
                1.0
            }
        });
        let mut rhs = nalgebra::DVector::zeros(s + 1);
        rhs[s] = 1.0;
        let Ok(x) = system.svd(true, true).solve(&rhs, 1e-14) else {
            continue;
        };
        if x.iter().any(|&v| v <= 0.0) {
            continue;
        }
        let mut pi = vec![0.0; k];
        support.iter().zip(x.iter()).for_each(|(&j, &v)| pi[j] = v);
        if exploitability(game, &pi) <= 1e-12 {
            return pi;
        }
    }
    panic!("no equilibrium found by enumeration");
}

#[test]
fn matches_brute_force_over_supports_up_to_eight_agents() {
    for k in 2..=8 {
        for seed in 0..5 {
            let game = random_game(k, 100 * k as u64 + seed);
            let lottery = maximal_lottery(&game).unwrap();
            let exact = brute_force(&game);
            assert!(
                close(&lottery.probabilities, &exact, 1e-9),
                "K={k} seed={seed}: {:?} vs {exact:?}",
                lottery.probabilities
            );
        }
    }
}

/// Random games up to K = 200: certified (exploitability ≤ 1e-9), value 0, and no
/// agent beats the lottery: `T^T A pi ≤ tol` for every pure response T.
#[test]
fn random_games_are_certified() {
    for (k, seed) in [(10, 1), (50, 2), (120, 3), (200, 4)] {
        let game = random_game(k, seed);
        let lottery = maximal_lottery(&game).unwrap();
        assert_eq!(
            lottery.status,
            LotteryStatus::Certified,
            "K={k}: gap {}",
            lottery.gap
        );
        let pi = &lottery.probabilities;
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-12 && pi.iter().all(|&p| p >= 0.0));
        assert!(game_value(&game, pi, pi).abs() < 1e-12);
        assert!(game.apply(pi).iter().all(|&x| x <= GAP_TOLERANCE));
    }
}

/// Generic games take the interior-point path, which proves the lottery unique; the
/// answer agrees with the independent Clarabel QP (the minimum-norm equilibrium of
/// `F = -A pi + c` with zero prices).
#[test]
fn generic_games_are_proved_unique_and_agree_with_the_qp() {
    for (k, seed) in [(2, 5), (3, 6), (7, 7), (25, 8), (64, 9), (150, 10)] {
        let game = random_game(k, seed);
        let lottery = maximal_lottery(&game).unwrap();
        assert!(lottery.unique, "K={k}: uniqueness not proved");
        let qp = priced_lottery(&game, &vec![0.0; k]).unwrap();
        assert!(!qp.unique);
        assert!(
            close(&lottery.probabilities, &qp.probabilities, 1e-7),
            "K={k}: {:?} vs {:?}",
            lottery.probabilities,
            qp.probabilities
        );
        assert!(lottery.gap <= 1e-14, "K={k}: gap {}", lottery.gap);
    }
}

/// Games with a face of equilibria are never claimed unique: clones, and the all-ties
/// game where every lottery is maximal (minimum norm: uniform).
#[test]
fn games_with_many_equilibria_are_not_claimed_unique() {
    let ties = PayoffMatrix::new(&vec![vec![0.0; 4]; 4]).unwrap();
    let lottery = maximal_lottery(&ties).unwrap();
    assert!(!lottery.unique);
    assert!(close(&lottery.probabilities, &[0.25; 4], 1e-9));
    // Rock, paper, scissors and a second paper that ties the first.
    let rows = vec![
        vec![0.0, -1.0, 1.0, -1.0],
        vec![1.0, 0.0, -1.0, 0.0],
        vec![-1.0, 1.0, 0.0, 1.0],
        vec![1.0, 0.0, -1.0, 0.0],
    ];
    let lottery = maximal_lottery(&PayoffMatrix::new(&rows).unwrap()).unwrap();
    assert!(!lottery.unique);
    let sixth = 1.0 / 6.0;
    let third = 1.0 / 3.0;
    assert!(close(
        &lottery.probabilities,
        &[third, sixth, third, sixth],
        1e-9
    ));
}

#[test]
fn borda_and_copeland_on_a_hand_example() {
    let game = PayoffMatrix::new(&rps()).unwrap();
    assert_eq!(copeland_winners(&game), vec![0, 1, 2]);
    assert_eq!(borda_winners(&game), vec![0, 1, 2]);
}

/// Bad input: not skew-symmetric, NaN, out of range, one agent, ragged rows,
/// unobserved pairs unless allowed.
#[test]
fn bad_matrices_get_clear_errors() {
    let not_skew = PayoffMatrix::new(&[vec![0.0, 0.5], vec![0.4, 0.0]]).unwrap_err();
    assert!(matches!(not_skew, GameError::NotSkewSymmetric { .. }));
    assert!(not_skew
        .to_string()
        .contains("A[0][1] = 0.5 but A[1][0] = 0.4"));
    let nan = PayoffMatrix::new(&[vec![0.0, f64::NAN], vec![f64::NAN, 0.0]]).unwrap_err();
    assert!(matches!(nan, GameError::NotFinite { .. }));
    let range = PayoffMatrix::new(&[vec![0.0, 2.0], vec![-2.0, 0.0]]).unwrap_err();
    assert!(matches!(range, GameError::OutOfRange { .. }));
    assert_eq!(
        PayoffMatrix::new(&[vec![0.0]]).unwrap_err(),
        GameError::TooFewAgents(1)
    );
    assert!(matches!(
        PayoffMatrix::new(&[vec![0.0, 1.0], vec![-1.0]]).unwrap_err(),
        GameError::Shape { .. }
    ));
    let wins = vec![
        vec![0.0, 3.0, 0.0],
        vec![1.0, 0.0, 0.0],
        vec![0.0, 0.0, 0.0],
    ];
    let ties = vec![vec![0.0; 3]; 3];
    let err = PayoffMatrix::from_counts(&wins, &ties, false).unwrap_err();
    assert_eq!(
        err,
        GameError::Unobserved {
            count: 2,
            first_pair: (0, 2)
        }
    );
    let (game, unobserved) = PayoffMatrix::from_counts(&wins, &ties, true).unwrap();
    assert_eq!(unobserved, vec![(0, 2), (1, 2)]);
    assert_eq!(game.get(0, 1), 0.5); // (3 - 1) / 4, NashEval Eq. 78
}

/// A game built from the entries above its diagonal is the row-major game with those
/// entries mirrored, and a bad entry is refused naming its place.
#[test]
fn games_built_from_the_upper_triangle_match_the_row_major_ones() {
    let game = random_game(7, 5);
    let built = PayoffMatrix::from_upper(7, |j, k| game.get(j, k)).unwrap();
    assert_eq!(built, game);
    let nan = PayoffMatrix::from_upper(3, |j, k| if (j, k) == (1, 2) { f64::NAN } else { 0.1 });
    assert!(matches!(
        nan.unwrap_err(),
        GameError::NotFinite {
            row: 1,
            column: 2,
            ..
        }
    ));
    let range = PayoffMatrix::from_upper(3, |_, _| 1.5).unwrap_err();
    assert!(matches!(
        range,
        GameError::OutOfRange {
            row: 0,
            column: 1,
            ..
        }
    ));
    assert_eq!(
        PayoffMatrix::from_upper(1, |_, _| 0.0).unwrap_err(),
        GameError::TooFewAgents(1)
    );
}

/// Regularized equilibria (rho > 0, with costs): certified by the gap, and the
/// variational inequality of Lemma 1 holds at every vertex:
/// `<F(pi), e_j - pi> >= -1e-9`, `F(pi) = -A pi + rho (pi - 1/K) + c`.
#[test]
fn regularized_equilibria_solve_the_variational_inequality() {
    use verdict_game::{regularized_equilibrium, Regularizer};
    let rps_game = PayoffMatrix::new(&rps()).unwrap();
    let uniform = regularized_equilibrium(
        &rps_game,
        &Regularizer {
            rho: 0.1,
            costs: vec![],
        },
    )
    .unwrap();
    assert!(close(&uniform.probabilities, &[1.0 / 3.0; 3], 1e-12));
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (k, rho) in [(3, 0.5), (5, 0.01), (12, 0.001), (40, 0.001), (40, 0.2)] {
        let game = random_game(k, 7 * k as u64);
        let costs: Vec<f64> = (0..k).map(|_| rng.random_range(0.0..0.05)).collect();
        let regularizer = Regularizer {
            rho,
            costs: costs.clone(),
        };
        let solution = regularized_equilibrium(&game, &regularizer).unwrap();
        assert_eq!(
            solution.status,
            LotteryStatus::Certified,
            "K={k} rho={rho}: gap {}",
            solution.gap
        );
        let pi = &solution.probabilities;
        let field = vi_field(&game, pi, rho, &costs);
        for j in 0..k {
            let vertex: Vec<f64> = (0..k).map(|l| f64::from(u8::from(l == j))).collect();
            let violation = vi_violation(&field, pi, &vertex);
            assert!(
                violation <= 1e-9,
                "K={k} rho={rho}: vertex {j} violates the VI by {violation}"
            );
        }
    }
}

/// As rho shrinks the regularized equilibrium tends to the maximal lottery (unique
/// for a generic game): at rho = 1e-8 they agree to 1e-5.
#[test]
fn vanishing_regularization_recovers_the_maximal_lottery() {
    use verdict_game::{regularized_equilibrium, Regularizer};
    let game = random_game(7, 31);
    let lottery = maximal_lottery(&game).unwrap();
    let regularized = regularized_equilibrium(
        &game,
        &Regularizer {
            rho: 1e-8,
            costs: vec![],
        },
    )
    .unwrap();
    assert!(close(
        &lottery.probabilities,
        &regularized.probabilities,
        1e-5
    ));
    let zero = regularized_equilibrium(
        &game,
        &Regularizer {
            rho: 0.0,
            costs: vec![],
        },
    )
    .unwrap_err();
    assert!(zero.to_string().contains("rho > 0"));
    let short = regularized_equilibrium(
        &game,
        &Regularizer {
            rho: 0.1,
            costs: vec![0.1],
        },
    )
    .unwrap_err();
    assert!(short.to_string().contains("1 costs for 7 agents"));
}

/// Hard budget on both players (NashEval Eq. 54–55): a slack budget changes nothing;
/// a binding one is respected, and no affordable strategy beats the answer (checked
/// at every vertex of the simplex cut by the budget and at random affordable mixes);
/// a budget below the cheapest agent is refused.
#[test]
fn hard_budget_is_respected_and_certified() {
    use verdict_game::{budgeted_lottery, HardBudget};
    let game = random_game(6, 77);
    let costs = vec![0.1, 0.9, 0.3, 0.7, 0.5, 0.2];
    let free = maximal_lottery(&game).unwrap();
    let slack = budgeted_lottery(
        &game,
        &HardBudget {
            costs: costs.clone(),
            limit: 1.0,
        },
    )
    .unwrap();
    assert!(close(&free.probabilities, &slack.probabilities, 1e-7));
    for limit in [0.15, 0.25, 0.4] {
        let budget = HardBudget {
            costs: costs.clone(),
            limit,
        };
        let lottery = budgeted_lottery(&game, &budget).unwrap();
        assert_eq!(
            lottery.status,
            LotteryStatus::Certified,
            "C={limit}: gap {}",
            lottery.gap
        );
        let pi = &lottery.probabilities;
        let spend: f64 = pi.iter().zip(&costs).map(|(p, c)| p * c).sum();
        assert!(spend <= limit + 1e-9, "C={limit}: spends {spend}");
        let a_pi = game.apply(pi);
        for q in affordable_mixes(&costs, limit, 5) {
            let payoff: f64 = q.iter().zip(&a_pi).map(|(x, y)| x * y).sum();
            assert!(
                payoff <= 1e-9,
                "C={limit}: an affordable mix earns {payoff}"
            );
        }
    }
    let err = budgeted_lottery(&game, &HardBudget { costs, limit: 0.05 }).unwrap_err();
    assert!(
        err.to_string()
            .contains("below the cheapest agent's cost 0.1"),
        "{err}"
    );
}

/// Robust maximal lottery (Eq. 79–81): with radius 0 it is a maximal lottery of the
/// weighted average; with one group the radius does not matter; its LP optimum equals
/// the worst case computed directly (greedy adversary); and no other lottery tried —
/// each group's own lottery, the average's, uniform, random ones — has a better worst
/// case.
#[test]
fn robust_lottery_is_optimal_against_the_ambiguity_set() {
    use verdict_game::{robust_lottery, worst_case_payoff};
    let groups: Vec<PayoffMatrix> = (0..3).map(|g| random_game(5, 500 + g)).collect();
    let weights = [0.5, 0.3, 0.2];
    let average_rows: Vec<Vec<f64>> = (0..5)
        .map(|i| {
            (0..5)
                .map(|j| {
                    groups
                        .iter()
                        .zip(&weights)
                        .map(|(m, w)| w * m.get(i, j))
                        .sum()
                })
                .collect()
        })
        .collect();
    let average = PayoffMatrix::new(&average_rows).unwrap();
    let at_zero = robust_lottery(&groups, &weights, 0.0).unwrap();
    assert!(exploitability(&average, &at_zero.probabilities) <= 1e-8);
    assert!(at_zero.worst_case.abs() <= 1e-8);

    let single = robust_lottery(&groups[..1], &[1.0], 0.7).unwrap();
    assert!(exploitability(&groups[0], &single.probabilities) <= 1e-8);

    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for tau in [0.1, 0.3, 1.0] {
        let robust = robust_lottery(&groups, &weights, tau).unwrap();
        let mut candidates: Vec<Vec<f64>> = groups
            .iter()
            .map(|m| maximal_lottery(m).unwrap().probabilities)
            .collect();
        candidates.push(maximal_lottery(&average).unwrap().probabilities);
        candidates.push(vec![0.2; 5]);
        for _ in 0..500 {
            let raw: Vec<f64> = (0..5).map(|_| rng.random::<f64>().powi(3)).collect();
            let total: f64 = raw.iter().sum();
            candidates.push(raw.iter().map(|x| x / total).collect());
        }
        for candidate in &candidates {
            let other = worst_case_payoff(&groups, &weights, tau, candidate);
            assert!(
                other <= robust.worst_case + 1e-8,
                "tau={tau}: {other} beats {}",
                robust.worst_case
            );
        }
    }
    assert!(robust_lottery(&groups, &[0.5, 0.5], 0.1)
        .unwrap_err()
        .to_string()
        .contains("2 group weights for 3 groups"));
    assert!(robust_lottery(&groups, &weights, 1.5)
        .unwrap_err()
        .to_string()
        .contains("[0, 1]"));
}

/// A linear price without the quadratic term (`Omega(q) = c^T q`): on rock–paper–
/// scissors with costs (0.1, 0.5, 0.9), equal `F_j = c_j - (A pi)_j` on the full
/// support gives the closed form (0.2, 0.6, 0.2).
#[test]
fn priced_lottery_matches_the_closed_form() {
    let game = PayoffMatrix::new(&rps()).unwrap();
    let lottery = priced_lottery(&game, &[0.1, 0.5, 0.9]).unwrap();
    assert!(
        close(&lottery.probabilities, &[0.2, 0.6, 0.2], 1e-9),
        "{:?}",
        lottery.probabilities
    );
    assert_eq!(
        lottery.status,
        LotteryStatus::Certified,
        "gap {}",
        lottery.gap
    );
    assert!(priced_lottery(&game, &[0.1]).is_err());
}

/// Regularized equilibrium under a hard budget on both players (Eq. 55): a slack
/// budget changes nothing; a binding one is respected and the variational inequality
/// holds against random affordable strategies.
#[test]
fn regularized_equilibrium_under_a_hard_budget() {
    use verdict_game::{
        budgeted_regularized_equilibrium, regularized_equilibrium, HardBudget, Regularizer,
    };
    let game = random_game(6, 91);
    let costs = vec![0.1, 0.9, 0.3, 0.7, 0.5, 0.2];
    let rho = 0.05;
    let free = regularized_equilibrium(&game, &Regularizer { rho, costs: vec![] }).unwrap();
    let slack = budgeted_regularized_equilibrium(
        &game,
        rho,
        &HardBudget {
            costs: costs.clone(),
            limit: 1.0,
        },
    )
    .unwrap();
    assert!(close(&free.probabilities, &slack.probabilities, 1e-7));
    let limit = 0.25;
    let solution = budgeted_regularized_equilibrium(
        &game,
        rho,
        &HardBudget {
            costs: costs.clone(),
            limit,
        },
    )
    .unwrap();
    assert_eq!(
        solution.status,
        LotteryStatus::Certified,
        "gap {}",
        solution.gap
    );
    let pi = &solution.probabilities;
    let spend: f64 = pi.iter().zip(&costs).map(|(p, c)| p * c).sum();
    assert!(spend <= limit + 1e-9);
    let field = vi_field(&game, pi, rho, &[0.0; 6]);
    for q in affordable_mixes(&costs, limit, 12) {
        let violation = vi_violation(&field, pi, &q);
        assert!(
            violation <= 1e-9,
            "an affordable q violates the VI by {violation}"
        );
    }
}

/// Soft budget (Eq. 52–53): without a surcharge it is the linear price `lambda_0 c`;
/// with one it is certified by the VI gap and spends less than without it.
#[test]
fn soft_budget_prices_spend_smoothly() {
    use verdict_game::{
        regularized_equilibrium, soft_budget_equilibrium, Regularizer, SoftBudget, SoftBudgetPrices,
    };
    let game = random_game(6, 123);
    let costs = vec![0.1, 0.9, 0.3, 0.7, 0.5, 0.2];
    let rho = 0.05;
    let linear = SoftBudget {
        costs: costs.clone(),
        prices: SoftBudgetPrices {
            base_price: 0.02,
            surcharge: 0.0,
            budget: 0.3,
            width: 0.05,
        },
    };
    let soft = soft_budget_equilibrium(&game, rho, &linear).unwrap();
    let priced = regularized_equilibrium(
        &game,
        &Regularizer {
            rho,
            costs: costs.iter().map(|c| 0.02 * c).collect(),
        },
    )
    .unwrap();
    assert!(close(&soft.probabilities, &priced.probabilities, 1e-9));
    let spend = |p: &[f64]| p.iter().zip(&costs).map(|(x, c)| x * c).sum::<f64>();
    let surcharged = SoftBudget {
        prices: SoftBudgetPrices {
            surcharge: 2.0,
            ..linear.prices
        },
        ..linear.clone()
    };
    let tight = soft_budget_equilibrium(&game, rho, &surcharged).unwrap();
    assert_eq!(tight.status, LotteryStatus::Certified, "gap {}", tight.gap);
    assert!(spend(&tight.probabilities) < spend(&soft.probabilities));
    let bad = SoftBudget {
        prices: SoftBudgetPrices {
            width: 0.0,
            ..surcharged.prices
        },
        ..surcharged
    };
    assert!(soft_budget_equilibrium(&game, rho, &bad).is_err());
}

fn soft_regularizer(rho: f64, surcharge: f64) -> verdict_game::SoftRegularizer {
    verdict_game::SoftRegularizer {
        rho,
        budget: verdict_game::SoftBudget {
            costs: vec![0.2, 0.9, 0.5],
            prices: verdict_game::SoftBudgetPrices {
                base_price: 0.05,
                surcharge,
                budget: 0.45,
                width: 0.05,
            },
        },
    }
}

/// The smooth price of Eq. 53: `phi(B) = lambda_0 B + lambda_bar gamma ln 2` (closed
/// form), `phi'` the derivative of `phi` (central differences), and `phi` linear with
/// slope `lambda_0` far below the budget.
#[test]
fn soft_budget_price_and_its_derivative() {
    let prices = soft_regularizer(0.1, 0.8).budget.prices;
    let at_budget = 0.05 * 0.45 + 0.8 * 0.05 * 2f64.ln();
    assert!((prices.price(0.45) - at_budget).abs() < 1e-15);
    for s in [-1.0, 0.0, 0.3, 0.45, 0.5, 0.9, 5.0] {
        let h = 1e-6;
        let numeric = (prices.price(s + h) - prices.price(s - h)) / (2.0 * h);
        assert!((numeric - prices.marginal_price(s)).abs() < 1e-8, "{s}");
    }
    assert!((prices.price(-100.0) - 0.05 * -100.0).abs() < 1e-12);
}

/// The soft-budget best response (Eq. 29 with Eq. 52) against a brute-force search of
/// `pi^T A q + Omega(q)` over a 1/1000 grid of the 3-simplex, for prices that bind and
/// that do not.
#[test]
fn soft_budget_best_response_matches_a_grid_search() {
    let game = PayoffMatrix::new(&[
        vec![0.0, 0.6, -0.3],
        vec![-0.6, 0.0, 0.8],
        vec![0.3, -0.8, 0.0],
    ])
    .unwrap();
    let pi = [0.2, 0.5, 0.3];
    for (rho, surcharge) in [(0.5, 0.0), (0.5, 1.5), (0.05, 3.0)] {
        let soft = soft_regularizer(rho, surcharge);
        let objective = |q: &[f64]| {
            let aq: f64 = (0..3)
                .map(|j| pi[j] * (0..3).map(|k| game.get(j, k) * q[k]).sum::<f64>())
                .sum();
            aq + soft.value(q)
        };
        let steps = 1000;
        let mut best = (f64::INFINITY, vec![0.0; 3]);
        for i in 0..=steps {
            for j in 0..=steps - i {
                let q = [
                    i as f64 / steps as f64,
                    j as f64 / steps as f64,
                    (steps - i - j) as f64 / steps as f64,
                ];
                let value = objective(&q);
                if value < best.0 {
                    best = (value, q.to_vec());
                }
            }
        }
        let mut response = [0.0; 3];
        soft.best_response_into(&game, &pi, &mut Vec::new(), &mut response);
        assert!((response.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(objective(&response) <= best.0 + 1e-12, "{rho} {surcharge}");
        assert!(
            close(&response, &best.1, 2e-3),
            "{response:?} vs {:?}",
            best.1
        );
    }
}

/// The soft-budget gap (Eq. 30): Danskin's gradient (Eq. 33) against central finite
/// differences, zero at the equilibrium solved by root finding over QPs
/// (`soft_budget_equilibrium`), positive away from it.
#[test]
fn soft_budget_gap_vanishes_at_the_equilibrium_and_has_danskins_gradient() {
    use verdict_game::soft_budget_equilibrium;
    let game = random_game(3, 7);
    let soft = soft_regularizer(0.3, 1.5);
    let (mut scratch, mut response) = (Vec::new(), [0.0; 3]);
    let pi = [0.5, 0.3, 0.2];
    soft.gap(&game, &pi, &mut scratch, &mut response);
    let mut gradient = [0.0; 3];
    soft.gap_gradient(&game, &pi, &response, &mut gradient);
    let h = 1e-6;
    for j in 0..3 {
        let (mut up, mut down) = (pi, pi);
        up[j] += h;
        down[j] -= h;
        let numeric = (soft.gap(&game, &up, &mut scratch, &mut response)
            - soft.gap(&game, &down, &mut scratch, &mut response))
            / (2.0 * h);
        assert!(
            (numeric - gradient[j]).abs() < 1e-6,
            "{j}: {numeric} vs {}",
            gradient[j]
        );
    }
    let star = soft_budget_equilibrium(&game, soft.rho, &soft.budget).unwrap();
    let at_star = soft.gap(&game, &star.probabilities, &mut scratch, &mut response);
    assert!(at_star < 1e-9, "gap {at_star} at the equilibrium");
    assert!(close(&response, &star.probabilities, 1e-6));
    assert!(soft.gap(&game, &pi, &mut scratch, &mut response) > 1e-3);
}

/// Maximum-entropy maximal lottery: an equilibrium, at least as spread as the
/// minimum-norm one, equal to it on the cloned rock–paper–scissors (symmetry forces
/// 1/9 each to the clones), and the unique equilibrium of a generic game.
#[test]
fn max_entropy_lottery_is_a_spread_out_equilibrium() {
    use verdict_game::max_entropy_lottery;
    let entropy = |p: &[f64]| {
        -p.iter()
            .filter(|&&x| x > 0.0)
            .map(|x| x * x.ln())
            .sum::<f64>()
    };
    let beats = |x: usize, y: usize| -> f64 {
        let kind = |a: usize| if a < 3 { 0 } else { a - 2 };
        match (kind(x), kind(y)) {
            (a, b) if a == b => 0.0,
            (0, 2) | (1, 0) | (2, 1) => 1.0,
            _ => -1.0,
        }
    };
    let rows: Vec<Vec<f64>> = (0..5)
        .map(|x| (0..5).map(|y| beats(x, y)).collect())
        .collect();
    let cloned = PayoffMatrix::new(&rows).unwrap();
    let spread = max_entropy_lottery(&cloned).unwrap();
    let ninth = 1.0 / 9.0;
    assert!(
        close(
            &spread.probabilities,
            &[ninth, ninth, ninth, 1.0 / 3.0, 1.0 / 3.0],
            1e-6
        ),
        "{:?}",
        spread.probabilities
    );
    assert!(exploitability(&cloned, &spread.probabilities) <= 1e-6);
    // A generic game has one maximal lottery: both canonical choices find it, and the
    // entropy answer is polished to a certified equilibrium.
    let game = random_game(7, 41);
    let unique = maximal_lottery(&game).unwrap();
    let by_entropy = max_entropy_lottery(&game).unwrap();
    assert!(close(
        &unique.probabilities,
        &by_entropy.probabilities,
        1e-6
    ));
    assert!(entropy(&by_entropy.probabilities) >= entropy(&unique.probabilities) - 1e-6);
    assert_eq!(
        by_entropy.status,
        LotteryStatus::Certified,
        "gap {}",
        by_entropy.gap
    );
}

/// A batch of small games gives exactly the answers of solving them one at a time.
#[test]
fn batches_match_one_at_a_time() {
    use verdict_game::{solve_batch, Regularizer};
    let games: Vec<PayoffMatrix> = (0..40)
        .map(|s| random_game(3 + (s % 15) as usize, 900 + s))
        .collect();
    for rho in [0.0, 0.01] {
        let regularizer = Regularizer { rho, costs: vec![] };
        let batch = solve_batch(&games, &regularizer);
        for (game, result) in games.iter().zip(batch) {
            let single = if rho > 0.0 {
                verdict_game::regularized_equilibrium(game, &regularizer).unwrap()
            } else {
                maximal_lottery(game).unwrap()
            };
            assert_eq!(result.unwrap().probabilities, single.probabilities);
        }
    }
}

/// A hard budget at or above every agent's cost binds no lottery, so it is the
/// unbudgeted equilibrium — for a limit of 1e15 too, which used to reach the solver as
/// a constraint and come back off the equilibrium, flagged only by its gap. Compared
/// with the unbudgeted problem's solution on a random game, with and without the
/// regularizer.
#[test]
fn a_budget_nothing_reaches_is_the_unbudgeted_equilibrium() {
    let game = random_game(6, 17);
    let costs = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    for rho in [0.0, 0.1] {
        let free = verdict_game::Equilibrium::new(rho, Vec::new(), None, None)
            .solve(&game)
            .unwrap();
        for limit in [6.0, 1e9, 1e15, 1e300] {
            let budgeted = verdict_game::Equilibrium::new(rho, costs.clone(), Some(limit), None)
                .solve(&game)
                .unwrap();
            assert_eq!(
                budgeted.probabilities, free.probabilities,
                "rho {rho}, limit {limit}"
            );
        }
    }
}
