//! Budgeted multi-judge estimation against independent values: brute force over
//! integer allocations, the closed-form single-judge reduction, unbiasedness, and the
//! high-probability bound of Theorem 3.2.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict_judges::{
    allocation_objective, estimate, integer_counts, oracle_weights, Allocation, EstimateSettings,
    Instance, JudgeError, Method, Norm, Scenario, SimulatedJudges, METHODS,
};

fn tiny() -> Instance {
    // Two items, two judges: judge 0 cheap and noisy on item 0, judge 1 the reverse.
    Instance::new(
        vec![0.3, 0.6],
        vec![0.05, 0.01, 0.02, 0.12],
        vec![1.0, 1.7],
        1.0,
    )
    .unwrap()
}

/// `sum_k V_k^(p/2)` (or `max_k V_k`) of integer counts: `A_p` up to the factor B.
fn integer_objective(counts: &[u64], instance: &Instance, p: Norm) -> f64 {
    let judges = instance.judges();
    let omega: Vec<f64> = counts
        .iter()
        .enumerate()
        .map(|(i, &n)| n as f64 * instance.costs()[i % judges])
        .collect();
    allocation_objective(&omega, instance.variances(), instance.costs(), p)
}

/// Every integer allocation of the tiny instance within the budget.
fn brute_force(instance: &Instance, budget: f64, p: Norm) -> f64 {
    let c = instance.costs();
    let most = |j: usize| (budget / c[j]).floor() as u64;
    let mut best = f64::INFINITY;
    for a in 0..=most(0) {
        for b in 0..=most(1) {
            for d in 0..=most(0) {
                for e in 0..=most(1) {
                    let counts = [a, b, d, e];
                    let cost = (a + d) as f64 * c[0] + (b + e) as f64 * c[1];
                    if cost <= budget && a + b > 0 && d + e > 0 {
                        best = best.min(integer_objective(&counts, instance, p));
                    }
                }
            }
        }
    }
    best
}

#[test]
fn oracle_counts_match_a_brute_force_over_integer_allocations() {
    let instance = tiny();
    for p in [Norm::P(1.0), Norm::P(2.0), Norm::P(3.5), Norm::Infinity] {
        for budget in [4.0, 7.5, 12.0, 20.3] {
            let weights = oracle_weights(instance.variances(), instance.costs(), p);
            let allocation =
                integer_counts(&weights, instance.variances(), instance.costs(), budget, p)
                    .unwrap();
            assert!(allocation.cost(instance.costs()) <= budget + 1e-12);
            let ours = integer_objective(&allocation.counts, &instance, p);
            let best = brute_force(&instance, budget, p);
            assert!(
                (ours - best).abs() <= 1e-12 * best,
                "p={p} B={budget}: {:?} gives {ours}, brute force {best}",
                allocation.counts
            );
        }
    }
}

/// Theorem 3.2's remark: J = 1, c = 1, p = inf gives the single-judge allocation,
/// proportional to the variances.
#[test]
fn one_judge_at_p_infinity_allocates_in_proportion_to_variance() {
    let variances = vec![0.01, 0.04, 0.02, 0.09];
    let weights = oracle_weights(&variances, &[1.0], Norm::Infinity);
    let total: f64 = variances.iter().sum();
    for (w, v) in weights.weight.iter().zip(&variances) {
        assert!((w - v / total).abs() < 1e-15);
    }
    assert!(weights.judge.iter().all(|&j| j == 0));
}

/// The continuous oracle weights minimise `A_p`: no feasible perturbation does better.
#[test]
fn oracle_weights_minimise_the_objective() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let instance = Scenario::Random.draw(6, 3, &mut rng);
    for p in [Norm::P(1.0), Norm::P(2.0), Norm::Infinity] {
        let weights = oracle_weights(instance.variances(), instance.costs(), p);
        let omega = weights.omega(instance.judges());
        let best = allocation_objective(&omega, instance.variances(), instance.costs(), p);
        for i in 0..omega.len() {
            for l in 0..omega.len() {
                let shift = 0.01 * omega[l];
                if i == l || shift == 0.0 {
                    continue;
                }
                let mut moved = omega.clone();
                moved[l] -= shift;
                moved[i] += shift;
                let value = allocation_objective(&moved, instance.variances(), instance.costs(), p);
                assert!(
                    value >= best * (1.0 - 1e-12),
                    "p={p}: moving {i}<-{l} gives {value} < {best}"
                );
            }
        }
    }
}

#[test]
fn ivwe_with_the_oracle_allocation_is_unbiased() {
    let instance = tiny();
    let settings = EstimateSettings::new(Norm::P(2.0));
    let method = Method::Oracle {
        variances: instance.variances().to_vec(),
    };
    let runs = 4000;
    let mut sums = [0.0; 2];
    let mut squares = [0.0; 2];
    let mut judges = SimulatedJudges::new(instance.clone(), 11);
    for _ in 0..runs {
        let e = estimate(&mut judges, 30.0, &method, &settings).unwrap();
        for k in 0..2 {
            sums[k] += e.scores[k];
            squares[k] += e.scores[k] * e.scores[k];
        }
    }
    for k in 0..2 {
        let mean = sums[k] / runs as f64;
        let sd = (squares[k] / runs as f64 - mean * mean).sqrt();
        let se = sd / (runs as f64).sqrt();
        let truth = instance.scores()[k];
        assert!(
            (mean - truth).abs() < 3.0 * se,
            "item {k}: {mean} vs {truth} (se {se})"
        );
    }
}

/// Theorem 3.2's high-probability bound, with Bernstein's lower-order term written
/// out: per item `sqrt(2 V_k L) + (2/3) b_k L`, `L = ln(2K / delta)`, `V_k` the IVWE
/// variance and `b_k` its largest single-score weight times R; the l_p norm of these
/// bounds the error in at least `1 - delta` of runs.
#[test]
fn theorem_3_2_bound_holds_with_probability_one_minus_delta() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let instance = Scenario::Random.draw(30, 4, &mut rng);
    let (delta, budget, runs) = (0.1, 3000.0, 200);
    let judges_n = instance.judges();
    for p in [Norm::P(1.0), Norm::P(2.0), Norm::Infinity] {
        let weights = oracle_weights(instance.variances(), instance.costs(), p);
        let allocation =
            integer_counts(&weights, instance.variances(), instance.costs(), budget, p).unwrap();
        let log_term = (2.0 * instance.items() as f64 / delta).ln();
        let per_item: Vec<f64> = (0..instance.items())
            .map(|k| {
                let info: f64 = (0..judges_n)
                    .map(|j| allocation.get(k, j) as f64 / instance.variances()[k * judges_n + j])
                    .sum();
                let heaviest = (0..judges_n)
                    .filter(|&j| allocation.get(k, j) > 0)
                    .map(|j| 1.0 / instance.variances()[k * judges_n + j] / info)
                    .fold(0.0, f64::max);
                (2.0 * log_term / info).sqrt() + 2.0 / 3.0 * heaviest * instance.range() * log_term
            })
            .collect();
        let bound = p.length(&per_item);
        let mut judges = SimulatedJudges::new(instance.clone(), 17);
        let method = Method::Oracle {
            variances: instance.variances().to_vec(),
        };
        let held = (0..runs)
            .filter(|_| {
                let e = estimate(&mut judges, budget, &method, &EstimateSettings::new(p)).unwrap();
                p.distance(&e.scores, instance.scores()) <= bound
            })
            .count();
        assert!(
            held as f64 >= (1.0 - delta) * runs as f64,
            "p={p}: bound held in {held} of {runs} runs"
        );
    }
}

#[test]
fn no_method_spends_more_than_the_budget() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let instance = Scenario::Random.draw(50, 5, &mut rng);
    let methods: Vec<Method> = METHODS
        .iter()
        .map(|name| Method::named(name, instance.variances()).unwrap())
        .collect();
    for budget in [2000.0, 7777.7, 50000.0] {
        for method in &methods {
            let mut judges = SimulatedJudges::new(instance.clone(), 1);
            let e = estimate(
                &mut judges,
                budget,
                method,
                &EstimateSettings::new(Norm::P(2.0)),
            )
            .unwrap();
            assert!(
                e.spent <= budget,
                "{}: spent {} of {budget}",
                method.name(),
                e.spent
            );
            assert!(e.scores.iter().all(|s| s.is_finite()));
            // Everything but the leftover below the dearest judge's price is spent.
            let dearest = instance.costs().iter().copied().fold(0.0, f64::max);
            if !matches!(method, Method::Uniform) {
                assert!(
                    budget - e.spent < dearest,
                    "{}: {} left",
                    method.name(),
                    budget - e.spent
                );
            }
        }
    }
}

#[test]
fn bad_settings_and_budgets_are_clear_errors() {
    let instance = tiny();
    let mut judges = SimulatedJudges::new(instance.clone(), 0);
    let settings = EstimateSettings::new(Norm::P(2.0));
    let err = estimate(&mut judges, 1.0, &Method::Uniform, &settings).unwrap_err();
    assert!(matches!(err, JudgeError::InfeasibleBudget { .. }), "{err}");
    assert!(err.to_string().contains("raise `budget`"));
    let err = estimate(&mut judges, 5.0, &Method::EstIvwe, &settings).unwrap_err();
    assert!(err.to_string().contains("Phase I"), "{err}");
    let err = estimate(&mut judges, f64::NAN, &Method::EstIvwe, &settings).unwrap_err();
    assert!(matches!(err, JudgeError::Setting(_)));
    assert!("0.5".parse::<Norm>().is_err());
    assert_eq!("inf".parse::<Norm>().unwrap(), Norm::Infinity);
    // Instances: variance above s (R - s), NaN score, non-positive cost, size mismatch.
    assert!(Instance::new(vec![0.1], vec![0.2], vec![1.0], 1.0).is_err());
    assert!(Instance::new(vec![f64::NAN], vec![0.01], vec![1.0], 1.0).is_err());
    assert!(Instance::new(vec![0.5], vec![0.01], vec![0.0], 1.0).is_err());
    assert!(Instance::new(vec![0.5, 0.5], vec![0.01], vec![1.0], 1.0).is_err());
    let _ = Allocation {
        judges: 1,
        counts: vec![],
    };
}

/// Prices at the ends of the floats are refused before any call: 1e-320 a call (a
/// subnormal: the budget would buy ~1e321 calls, and the run used to spin at full CPU
/// after 48 of them) and 1e308 (sums over the pairs overflow: "inf is needed").
#[test]
fn prices_a_budget_cannot_be_spent_on_are_refused_before_any_call() {
    let settings = EstimateSettings::new(Norm::P(2.0));
    for (cost, budget) in [(1e-320, 40.0), (1e-12, 40.0), (1e308, 1e308)] {
        let instance = Instance::new(vec![0.3, 0.6], vec![0.05, 0.01], vec![cost], 1.0).unwrap();
        let mut judges = SimulatedJudges::new(instance, 0);
        for method in [Method::Uniform, Method::EstIvwe] {
            let err = estimate(&mut judges, budget, &method, &settings).unwrap_err();
            assert!(matches!(err, JudgeError::Setting(_)), "{cost}: {err}");
            assert!(
                err.to_string().contains("at most 1e9 calls"),
                "{cost}: {err}"
            );
        }
    }
}

/// `adaptive` decides its counts from earlier scores, but its stage weights are fixed
/// in advance and its screening calls never enter the mean, so it stays unbiased —
/// checked on skewed Beta laws (scores 0.1 and 0.9) with near-tied judges, where
/// reusing the screening calls would shift the mean by a quarter of the error of one
/// run.
#[test]
fn adaptive_is_unbiased_on_skewed_laws() {
    let instance = Instance::new(
        vec![0.1, 0.9, 0.5],
        vec![
            0.030, 0.033, 0.060, //
            0.020, 0.018, 0.045, //
            0.150, 0.160, 0.100,
        ],
        vec![1.0, 1.0, 1.2],
        1.0,
    )
    .unwrap();
    let settings = EstimateSettings::new(Norm::P(2.0));
    let runs = 3000;
    let mut judges = SimulatedJudges::new(instance.clone(), 23);
    let mut sums = [0.0; 3];
    let mut squares = [0.0; 3];
    for _ in 0..runs {
        let e = estimate(&mut judges, 400.0, &Method::Adaptive, &settings).unwrap();
        for k in 0..3 {
            let error = e.scores[k] - instance.scores()[k];
            sums[k] += error;
            squares[k] += error * error;
        }
    }
    for k in 0..3 {
        let bias = sums[k] / runs as f64;
        let rmse = (squares[k] / runs as f64).sqrt();
        let se = (rmse * rmse - bias * bias).sqrt() / (runs as f64).sqrt();
        assert!(
            bias.abs() < 3.0 * se,
            "item {k}: bias {bias} (standard error {se})"
        );
    }
}

/// With one judge there is nothing to choose: `adaptive` spends the whole budget in
/// its stages, and its error is close to the oracle allocation's (the same judge, the
/// counts from estimated instead of true variances).
#[test]
fn adaptive_with_one_judge_spends_everything_on_it() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let instance = Scenario::Random.draw(40, 1, &mut rng);
    let settings = EstimateSettings::new(Norm::P(2.0));
    let oracle = Method::Oracle {
        variances: instance.variances().to_vec(),
    };
    let (mut ours, mut best) = (0.0, 0.0);
    for seed in 0..30 {
        let mut judges = SimulatedJudges::new(instance.clone(), seed);
        let e = estimate(&mut judges, 4000.0, &Method::Adaptive, &settings).unwrap();
        assert!(e.spent <= 4000.0 && 4000.0 - e.spent < instance.costs()[0]);
        assert!(!e.phase_one_fallback);
        ours += Norm::P(2.0).distance(&e.scores, instance.scores()).powi(2);
        let mut judges = SimulatedJudges::new(instance.clone(), seed + 1000);
        let o = estimate(&mut judges, 4000.0, &oracle, &settings).unwrap();
        best += Norm::P(2.0).distance(&o.scores, instance.scores()).powi(2);
    }
    let ratio = (ours / best).sqrt();
    assert!(ratio < 1.15, "one judge: {ratio}x the oracle's error");
}
