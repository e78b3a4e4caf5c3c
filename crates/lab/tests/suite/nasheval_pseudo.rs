//! Aggregators against finite differences and their defining properties; the
//! pseudo-outcome of Eq. 42 against Theorem 1 on the Appendix G simulator: its mean
//! with the true nuisances is `A(x)` (Monte Carlo), and its bias under perturbed
//! nuisances is second order while the plug-in's is first order (log–log slopes).

use verdict::nasheval::{plugin_payoff, pseudo_outcome, Aggregator, MenuObservation};
use verdict_lab::worlds::nasheval::{
    replication_contexts, simulate_feedback, truth, FeedbackKind, World, AGENTS,
};

fn cubic(alpha: f64, menus: usize) -> Aggregator {
    Aggregator::Cubic {
        alpha,
        weights: vec![1.0 / menus as f64; menus],
    }
}

#[test]
fn aggregators_are_odd_idempotent_and_differentiate_correctly() {
    let u = [0.3, -0.7, 0.9];
    for aggregator in [
        Aggregator::uniform(3),
        Aggregator::Linear {
            weights: vec![0.2, 0.5, 0.3],
        },
        cubic(0.5, 3),
        cubic(4.0, 3),
    ] {
        aggregator.validate().unwrap();
        for x in [-1.0, -0.4, 0.0, 0.6, 1.0] {
            assert!(
                (aggregator.value(&[x; 3]) - x).abs() < 1e-12,
                "idempotent at {x}"
            );
        }
        let minus: Vec<f64> = u.iter().map(|x| -x).collect();
        assert!((aggregator.value(&minus) + aggregator.value(&u)).abs() < 1e-12);
        let gradient = aggregator.gradient(&u);
        for m in 0..3 {
            let step = 1e-6;
            let (mut up, mut down) = (u, u);
            up[m] += step;
            down[m] -= step;
            let numeric = (aggregator.value(&up) - aggregator.value(&down)) / (2.0 * step);
            assert!(
                (numeric - gradient[m]).abs() < 1e-7,
                "{aggregator:?} menu {m}: {numeric} vs {}",
                gradient[m]
            );
        }
    }
    // The cubic link bends: its value differs from the linear mean.
    assert!((cubic(4.0, 3).value(&u) - Aggregator::uniform(3).value(&u)).abs() > 0.01);
    assert_eq!(Aggregator::Identity.value(&[0.25]), 0.25);
    assert!(Aggregator::Linear {
        weights: vec![0.5, 0.6]
    }
    .validate()
    .is_err());
    assert!(cubic(-1.0, 2).validate().is_err());
}

/// The menus of the catalogue holding the pair (j, k).
fn holding(kind: FeedbackKind, j: usize, k: usize) -> Vec<usize> {
    let menus = kind.menus();
    (0..menus.len())
        .filter(|&m| menus[m].contains(&j) && menus[m].contains(&k))
        .collect()
}

/// Theorem 1 (i): at one context, with the true `mu0` and `e0`, the pseudo-outcomes of
/// repeated draws average to `A_jk(x)` within four standard errors, for ranking
/// feedback (pairs in one or two menus) and winner feedback (pairs in three menus).
#[test]
fn pseudo_outcomes_with_true_nuisances_average_to_the_payoff() {
    let world = World::draw(70);
    let (contexts, _) = replication_contexts(70, 2, 0);
    let draws = 20_000;
    for kind in [FeedbackKind::Ranking, FeedbackKind::Winner] {
        for x in &contexts {
            let t = truth(&world, x, 3, kind);
            let records = simulate_feedback(&world, &vec![*x; draws], 3, kind, 5);
            for j in 0..AGENTS {
                for k in (0..AGENTS).filter(|&k| k != j) {
                    let menus = holding(kind, j, k);
                    let aggregator = Aggregator::uniform(menus.len());
                    let mut sum = 0.0;
                    let mut squares = 0.0;
                    let mut next = 0;
                    for draw in 0..draws {
                        let observations: Vec<MenuObservation> = menus
                            .iter()
                            .map(|&m| {
                                // Records come ordered by draw, then menu.
                                let verdict = records[next..]
                                    .iter()
                                    .take_while(|r| r.context == draw)
                                    .find(|r| r.menu == m)
                                    .map(|r| verdict(&r.response, kind, j, k));
                                MenuObservation {
                                    outcome: t.menu_means[m][j * AGENTS + k],
                                    propensity: t.propensity,
                                    verdict,
                                }
                            })
                            .collect();
                        while next < records.len() && records[next].context == draw {
                            next += 1;
                        }
                        let gamma = pseudo_outcome(&aggregator, &observations);
                        sum += gamma;
                        squares += gamma * gamma;
                    }
                    let mean = sum / draws as f64;
                    let se = ((squares / draws as f64 - mean * mean) / draws as f64).sqrt();
                    let a = t.payoff[j * AGENTS + k];
                    assert!(
                        (mean - a).abs() < 4.0 * se + 1e-12,
                        "{kind:?} ({j},{k}): mean pseudo-outcome {mean} vs A {a} (se {se})"
                    );
                }
            }
        }
    }
}

/// `Z_jk` of one response: the order (ranking) or the winner (Eq. 65).
fn verdict(response: &[usize], kind: FeedbackKind, j: usize, k: usize) -> f64 {
    match kind {
        FeedbackKind::Winner => {
            f64::from(u8::from(response[0] == j)) - f64::from(u8::from(response[0] == k))
        }
        _ => {
            let place = |a: usize| response.iter().position(|&b| b == a).unwrap();
            if place(j) < place(k) {
                1.0
            } else {
                -1.0
            }
        }
    }
}

/// Theorem 1 (ii), numerically: move the nuisances to `mu0 + t h`, `e0 + t g`; the
/// conditional mean of the pseudo-outcome, `f(mu_t) + sum_m ∂f_m(mu_t) (e0/e_t)(mu0 −
/// mu_t)`, misses `A` by O(t^2), the plug-in `f(mu_t)` by O(t): slopes about 2 and 1
/// on a log–log grid, for the mean and for a strongly curved cubic link.
#[test]
fn debiased_payoff_is_orthogonal_and_the_plugin_is_not() {
    let world = World::draw(71);
    let (contexts, _) = replication_contexts(71, 1, 0);
    let t0 = truth(&world, &contexts[0], 5, FeedbackKind::Winner);
    let (j, k) = (0, 3);
    let menus = holding(FeedbackKind::Winner, j, k);
    let mu0: Vec<f64> = menus
        .iter()
        .map(|&m| t0.menu_means[m][j * AGENTS + k])
        .collect();
    let e0 = t0.propensity;
    let h = [0.8, -0.5, 0.3];
    let g = [-0.4, 0.2, 0.5];
    for aggregator in [Aggregator::uniform(3), cubic(3.0, 3)] {
        let target = aggregator.value(&mu0);
        let biases = |t: f64| -> (f64, f64) {
            let observations: Vec<MenuObservation> = (0..3)
                .map(|m| MenuObservation {
                    outcome: mu0[m] + t * h[m],
                    propensity: e0 + t * g[m],
                    verdict: None,
                })
                .collect();
            let plugin = plugin_payoff(&aggregator, &observations);
            let u: Vec<f64> = observations.iter().map(|o| o.outcome).collect();
            let gradient = aggregator.gradient(&u);
            let correction: f64 = (0..3)
                .map(|m| gradient[m] * e0 / observations[m].propensity * (mu0[m] - u[m]))
                .sum();
            (
                (plugin + correction - target).abs(),
                (plugin - target).abs(),
            )
        };
        let steps: [f64; 4] = [0.01, 0.005, 0.0025, 0.00125];
        let slope = |which: fn((f64, f64)) -> f64| {
            let points: Vec<(f64, f64)> = steps
                .iter()
                .map(|&t| (t.ln(), which(biases(t)).ln()))
                .collect();
            let n = points.len() as f64;
            let (mx, my) = (
                points.iter().map(|p| p.0).sum::<f64>() / n,
                points.iter().map(|p| p.1).sum::<f64>() / n,
            );
            points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
                / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>()
        };
        let debiased = slope(|b| b.0);
        let plugin = slope(|b| b.1);
        assert!(
            (1.85..2.15).contains(&debiased),
            "{aggregator:?}: debiased slope {debiased}"
        );
        assert!(
            (0.9..1.1).contains(&plugin),
            "{aggregator:?}: plug-in slope {plugin}"
        );
    }
}
