//! Property tests: Bradley–Terry is a function of the counts alone (bit-identical
//! under any reordering of the log), its strengths satisfy the likelihood equations
//! (observed wins = expected wins for every model), and Elo conserves the total.

use proptest::prelude::*;
use verdict_feedback::{BattleLog, Outcome};
use verdict_ratings::{BradleyTerry, Elo, FitStatus, PairCounts, Regularization};

/// A random log over up to 6 models; model names are drawn in random order.
fn arb_log() -> impl Strategy<Value = (BattleLog, Vec<usize>)> {
    (2usize..6)
        .prop_flat_map(|models| {
            let battle = (0..models, 1..models, 0u8..4);
            (Just(models), prop::collection::vec(battle, 1..60))
        })
        .prop_flat_map(|(models, battles)| {
            let n = battles.len();
            (
                Just(models),
                Just(battles),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(models, battles, order)| {
            let mut log = BattleLog::new();
            for (a, offset, outcome) in battles {
                let b = (a + offset) % models;
                let outcome = [
                    Outcome::WinA,
                    Outcome::WinB,
                    Outcome::Tie,
                    Outcome::TieBothBad,
                ][outcome as usize];
                log.push(&format!("m{a}"), &format!("m{b}"), outcome)
                    .unwrap();
            }
            (log, order)
        })
}

proptest! {
    #[test]
    fn bradley_terry_ignores_the_order_of_the_log((log, order) in arb_log()) {
        let fit = |l: &BattleLog| BradleyTerry::default().fit(&PairCounts::from_log(l)).unwrap();
        let shuffled = log.reordered(&order);
        let (a, b) = (fit(&log), fit(&shuffled));
        prop_assert_eq!(a.beta.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        b.beta.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        prop_assert!(a.beta.iter().all(|x| x.is_finite()));
        prop_assert_eq!(a.status, FitStatus::Converged);
    }

    /// Where the MLE exists, each model's expected wins (ties as halves) equal its
    /// observed wins at the fit: the likelihood equations, to 1e-9 per battle.
    #[test]
    fn fit_solves_the_likelihood_equations((log, _order) in arb_log()) {
        let counts = PairCounts::from_log(&log);
        let fit = BradleyTerry::default().fit(&counts).unwrap();
        if fit.regularization == Regularization::None {
            let mut residual = vec![0.0; counts.models()];
            for p in counts.pairs() {
                let (i, j) = (p.i as usize, p.j as usize);
                let expected = p.total() * fit.win_probability(i, j);
                residual[i] += p.wins_i + 0.5 * p.ties - expected;
                residual[j] -= p.wins_i + 0.5 * p.ties - expected;
            }
            let scale = counts.battles();
            prop_assert!(residual.iter().all(|r| r.abs() <= 1e-9 * scale), "{residual:?}");
        }
    }

    #[test]
    fn elo_conserves_the_total((log, order) in arb_log()) {
        let elo = Elo::default();
        let ratings = elo.replay(&log, order);
        let total: f64 = ratings.iter().sum();
        prop_assert!((total - 1000.0 * log.models().len() as f64).abs() < 1e-9);
    }
}
