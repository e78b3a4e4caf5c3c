//! The NashEval Appendix G simulator against its own definitions: payoff matrices
//! skew-symmetric in [-1, 1], one voter transitive and majorities of three or five
//! cyclic on some contexts, selection frequencies equal to `e0`, mean verdicts equal to
//! `mu0` over repeated draws, and the same seed giving the same log.

use verdict_lab::worlds::nasheval::{
    replication_contexts, simulate_feedback, truth, Context, FeedbackKind, World, AGENTS,
};

const KINDS: [FeedbackKind; 3] = [
    FeedbackKind::Pairwise,
    FeedbackKind::Ranking,
    FeedbackKind::Winner,
];

fn has_majority_cycle(margin: &[f64]) -> bool {
    let beats = |j: usize, k: usize| margin[j * AGENTS + k] > 0.0;
    (0..AGENTS).any(|j| {
        (0..AGENTS).any(|k| (0..AGENTS).any(|l| beats(j, k) && beats(k, l) && beats(l, j)))
    })
}

#[test]
fn payoff_matrices_are_skew_symmetric_in_the_unit_interval() {
    let world = World::draw(70);
    let (contexts, _) = replication_contexts(70, 300, 0);
    for kind in KINDS {
        for voters in [1, 3, 5] {
            for x in &contexts {
                let t = truth(&world, x, voters, kind);
                for j in 0..AGENTS {
                    assert_eq!(t.payoff[j * AGENTS + j], 0.0);
                    for k in 0..AGENTS {
                        let a = t.payoff[j * AGENTS + k];
                        assert!((-1.0..=1.0).contains(&a));
                        assert!((a + t.payoff[k * AGENTS + j]).abs() < 1e-12);
                    }
                }
                // Pairwise and ranking feedback: A(x) = M(x) (Appendix G.4).
                if kind != FeedbackKind::Winner {
                    assert_eq!(t.payoff, t.margin);
                }
                assert!((0.25..=0.75).contains(&t.propensity));
            }
        }
    }
}

/// One voter's preferences are transitive; majorities of three and five voters cycle
/// on a positive fraction of contexts (the fractions for seeds 70–74 are printed with
/// `--nocapture`).
#[test]
fn one_voter_is_transitive_and_majorities_cycle_sometimes() {
    for seed in 70..75 {
        let world = World::draw(seed);
        let (contexts, _) = replication_contexts(seed, 2000, 0);
        let mut fractions = Vec::new();
        for voters in [1, 3, 5] {
            let cyclic = contexts
                .iter()
                .filter(|x| {
                    has_majority_cycle(&truth(&world, x, voters, FeedbackKind::Pairwise).margin)
                })
                .count();
            let fraction = cyclic as f64 / contexts.len() as f64;
            if voters == 1 {
                assert_eq!(cyclic, 0, "seed {seed}: one voter with a cycle");
            }
            fractions.push(fraction);
        }
        println!(
            "seed {seed}: contexts with a majority cycle: N_v=1 {:.4}, N_v=3 {:.4}, N_v=5 {:.4}",
            fractions[0], fractions[1], fractions[2]
        );
        assert!(
            fractions[1] > 0.0 || fractions[2] > 0.0,
            "seed {seed}: no cycle with 3 or 5 voters"
        );
    }
}

/// Repeating one context many times: each menu is selected with frequency `e0(x)`,
/// and the mean verdict of each pair in each menu is `mu0^m_jk(x)`, within four
/// standard errors.
#[test]
fn selection_frequencies_and_mean_verdicts_match_the_nuisances() {
    let world = World::draw(71);
    let (grid, _) = replication_contexts(71, 3, 0);
    let copies = 10_000;
    for kind in KINDS {
        let menus = kind.menus();
        for x in &grid {
            let t = truth(&world, x, 5, kind);
            let repeated: Vec<Context> = vec![*x; copies];
            let records = simulate_feedback(&world, &repeated, 5, kind, 9);
            for (m, menu) in menus.iter().enumerate() {
                let of_menu: Vec<_> = records.iter().filter(|r| r.menu == m).collect();
                let n = of_menu.len() as f64;
                let e = t.propensity;
                let se = (e * (1.0 - e) / copies as f64).sqrt();
                assert!(
                    (n / copies as f64 - e).abs() < 4.0 * se,
                    "{kind:?} menu {m}: frequency {} vs e0 {e}",
                    n / copies as f64
                );
                for &j in menu {
                    for &k in menu.iter().filter(|&&k| k != j) {
                        // Verdicts from each response: the order (ranking) or the
                        // winner (pairwise: the winner of the pair; winner: Eq. 65).
                        let verdicts: Vec<f64> = of_menu
                            .iter()
                            .map(|r| {
                                let place = |a: usize| r.response.iter().position(|&b| b == a);
                                match (place(j), place(k)) {
                                    (Some(pj), Some(pk)) => {
                                        if pj < pk {
                                            1.0
                                        } else {
                                            -1.0
                                        }
                                    }
                                    (Some(_), None) => 1.0,
                                    (None, Some(_)) => -1.0,
                                    (None, None) => 0.0,
                                }
                            })
                            .collect();
                        let mean = verdicts.iter().sum::<f64>() / n;
                        let var = verdicts.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
                        let se = (var / n).sqrt().max(1e-12);
                        let mu = t.menu_means[m][j * AGENTS + k];
                        assert!(
                            (mean - mu).abs() <= 4.0 * se + 1e-12,
                            "{kind:?} menu {m} ({j},{k}): mean verdict {mean} vs mu0 {mu}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_log() {
    let (a, b) = (World::draw(72), World::draw(72));
    let (contexts, test) = replication_contexts(72, 500, 100);
    let (again, test_again) = replication_contexts(72, 500, 100);
    assert_eq!(contexts, again);
    assert_eq!(test, test_again);
    for kind in KINDS {
        let first = simulate_feedback(&a, &contexts, 3, kind, 72);
        let second = simulate_feedback(&b, &contexts, 3, kind, 72);
        assert_eq!(first, second);
        assert!(!first.is_empty());
        let other = simulate_feedback(&a, &contexts, 3, kind, 73);
        assert_ne!(first, other);
    }
    assert_eq!(
        truth(&a, &contexts[0], 5, FeedbackKind::Winner),
        truth(&b, &contexts[0], 5, FeedbackKind::Winner)
    );
}

/// The catalogues of Appendix G.3: ten pairs, the five triples of Eq. 62 (every pair
/// in one or two), ten triples (every pair in exactly three).
#[test]
fn menu_catalogues_cover_every_pair_as_specified() {
    let count = |menus: &[Vec<usize>], j: usize, k: usize| {
        menus
            .iter()
            .filter(|m| m.contains(&j) && m.contains(&k))
            .count()
    };
    let pairwise = FeedbackKind::Pairwise.menus();
    let ranking = FeedbackKind::Ranking.menus();
    let winner = FeedbackKind::Winner.menus();
    assert_eq!((pairwise.len(), ranking.len(), winner.len()), (10, 5, 10));
    for j in 0..AGENTS {
        for k in j + 1..AGENTS {
            assert_eq!(count(&pairwise, j, k), 1);
            assert!((1..=2).contains(&count(&ranking, j, k)));
            assert_eq!(count(&winner, j, k), 3);
        }
    }
}

/// Eq. 63's parameters can be changed to probe selection strength: propensities stay
/// within the new bounds, a zero slope makes selection independent of the context,
/// and impossible settings are refused.
#[test]
fn selection_parameters_can_be_changed() {
    let (contexts, _) = replication_contexts(73, 500, 0);
    let wide = World::draw(73).with_selection(0.05, 0.95, 6.0).unwrap();
    let flat = World::draw(73).with_selection(0.3, 0.7, 0.0).unwrap();
    let (mut low, mut high) = (1.0f64, 0.0f64);
    for x in &contexts {
        let e = wide.propensity(x);
        assert!((0.05..=0.95).contains(&e));
        low = low.min(e);
        high = high.max(e);
        assert!((flat.propensity(x) - 0.5).abs() < 1e-15);
    }
    assert!(
        low < 0.15 && high > 0.85,
        "a steep slope spreads the propensities"
    );
    assert!(World::draw(73).with_selection(0.0, 0.5, 1.0).is_err());
    assert!(World::draw(73).with_selection(0.6, 0.5, 1.0).is_err());
}
