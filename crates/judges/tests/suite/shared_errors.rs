//! Judges that share their mistakes: the bias-aware score's weights, effective judges
//! and intervals against closed forms and the simulated truth, beside today's
//! (consensus) intervals on the same calls.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict_judges::{
    effective_judges, error_floor, gls_scores, run_experiment, shared_budget, shared_error,
    shared_error_counts, Allocation, BiasStructure, BiasWorld, ExperimentSettings, JudgePool, Norm,
    PairStats, Scenario, SharedErrorPanel, SharedErrors, SimulatedJudges,
};

fn calls(scores: &[f64]) -> PairStats {
    let mut stats = PairStats::default();
    for &s in scores {
        stats.push(s);
    }
    stats
}

#[test]
fn gls_weights_match_a_direct_solve_on_a_small_panel() {
    // Judges 0 and 1 share a bias of variance 1, judge 2 has none; one call each of
    // variance 1: V = [[2, 1, 0], [1, 2, 0], [0, 0, 1]]. By hand, V^-1 1 = (1/3, 1/3,
    // 1), 1' V^-1 1 = 5/3, so a = (0.2, 0.2, 0.6) and Var = 3/5; the means 0.2, 0.4,
    // 0.9 give 0.04 + 0.08 + 0.54 = 0.66. Independent judges would give 1' D^-1 1 =
    // 1/2 + 1/2 + 1 = 2: n_eff = 3 · (5/3) / 2 = 2.5.
    let pooled = [calls(&[0.2]), calls(&[0.4]), calls(&[0.9])];
    let bias = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    let found = gls_scores(&pooled, &[1.0; 3], &[1.0; 3], &bias, 3).unwrap();
    assert!((found[0].score - 0.66).abs() < 1e-12, "{found:?}");
    assert!((found[0].uncertainty.variance - 0.6).abs() < 1e-12);
    assert!((found[0].effective_judges - 2.5).abs() < 1e-12);
    // A judge without calls drops out: judges 0 and 2 only, V = diag(2, 1), IVWE.
    let pooled = [calls(&[0.2]), PairStats::default(), calls(&[0.9])];
    let found = gls_scores(&pooled, &[1.0; 3], &[1.0; 3], &bias, 3).unwrap();
    assert!((found[0].score - (0.2 / 2.0 + 0.9) / 1.5).abs() < 1e-12);
    assert!((found[0].uncertainty.variance - 1.0 / 1.5).abs() < 1e-12);
}

#[test]
fn effective_judges_is_kishs_design_effect_for_equicorrelated_judges() {
    // m judges of equal variance v at correlation r: m / (1 + (m - 1) r) (Kish 1965).
    for (m, r) in [(5usize, 0.3), (9, 0.8), (2, 0.0), (4, 1.0 - 1e-9)] {
        let v = 2.0;
        let covariance: Vec<f64> = (0..m * m)
            .map(|i| if i / m == i % m { v } else { r * v })
            .collect();
        let expected = m as f64 / (1.0 + (m as f64 - 1.0) * r);
        let found = effective_judges(&covariance, m).unwrap();
        assert!(
            (found - expected).abs() < 1e-6 * expected,
            "m {m}, r {r}: {found} against {expected}"
        );
    }
    // Nine judges in three families of three, r = 0.9 within: about three votes.
    let families = BiasWorld {
        bias_sd: 1.0,
        families: 3,
        family_correlation: 0.9,
    };
    let nine = effective_judges(&families.covariance(9), 9).unwrap();
    // Each family's three are worth 3 / (1 + 2 · 0.9) = 1.0714; three families.
    assert!((nine - 3.0 * 3.0 / 2.8).abs() < 1e-9, "{nine}");
}

#[test]
fn the_variance_components_are_recovered_from_repeated_and_shared_calls() {
    // 2,000 items, six judges in three families (correlation 0.6), bias sd 0.05,
    // 80 calls of every pair: the estimates against the world's values.
    let world = BiasWorld {
        bias_sd: 0.05,
        families: 3,
        family_correlation: 0.6,
    };
    let (items, judges) = (2000, 6);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let instance = Scenario::Random.draw(items, judges, &mut rng);
    let biases = world.draw(items, judges, &mut rng);
    let mut pool = SimulatedJudges::with_item_bias(instance.clone(), &biases, 5);
    let mut pooled = vec![PairStats::default(); items * judges];
    for k in 0..items {
        for j in 0..judges {
            for _ in 0..80 {
                pooled[k * judges + j].push(pool.score(k, j).unwrap());
            }
        }
    }
    let model =
        SharedErrors::estimate(&pooled, &world.families_of(judges), BiasStructure::PerJudge)
            .unwrap();
    assert!(model.identified());
    // The truth's spread: s ~ U[0.1, 0.9], variance 0.8^2 / 12.
    let spread = model.score_variance.unwrap();
    assert!((spread - 0.64 / 12.0).abs() < 0.004, "{spread}");
    for (j, tau2) in model.bias_variance().into_iter().enumerate() {
        assert!((tau2 - 0.0025).abs() < 0.0005, "judge {j}: tau^2 {tau2}");
    }
    // Judges 0 and 3 are one family (j mod 3), 0 and 1 are not.
    let within = model.bias_correlation(0, 3);
    assert!((within - 0.6).abs() < 0.15, "{within}");
    assert!(model.bias_covariance[1].abs() < 1e-12);
    // One call's variance: the instance's mean variance of the judge, about 0.09.
    for (j, sigma2) in model.call_variance.iter().enumerate() {
        let truth: f64 = (0..items)
            .map(|k| instance.variances()[k * judges + j])
            .sum::<f64>()
            / items as f64;
        assert!(
            (sigma2 - truth).abs() < 0.01 * truth.max(0.05) + 0.002,
            "judge {j}: {sigma2} against {truth}"
        );
    }
}

#[test]
fn one_family_leaves_the_bias_unidentified_and_says_so() {
    // Every judge in one family: a bias they all share looks like the true scores.
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let world = BiasWorld {
        bias_sd: 0.05,
        families: 1,
        family_correlation: 0.5,
    };
    let instance = Scenario::Random.draw(50, 3, &mut rng);
    let biases = world.draw(50, 3, &mut rng);
    let mut pool = SimulatedJudges::with_item_bias(instance, &biases, 2);
    let mut pooled = vec![PairStats::default(); 150];
    for (i, stats) in pooled.iter_mut().enumerate() {
        for _ in 0..4 {
            stats.push(pool.score(i / 3, i % 3).unwrap());
        }
    }
    let model = SharedErrors::estimate(&pooled, &[0, 0, 0], BiasStructure::Pooled).unwrap();
    assert!(!model.identified());
    assert!(model.bias_covariance.iter().all(|&c| c == 0.0));
}

fn biased_world(methods: &[&str], budgets: Vec<f64>, repetitions: usize) -> ExperimentSettings {
    ExperimentSettings {
        items: 50,
        judges: 6,
        budgets,
        norms: vec![Norm::P(2.0)],
        repetitions,
        scenario: Scenario::Random,
        methods: methods.iter().map(|m| m.to_string()).collect(),
        seed: 17,
        target_error: None,
        shared_errors: Some(BiasWorld {
            bias_sd: 0.05,
            families: 3,
            family_correlation: 0.6,
        }),
    }
}

#[test]
fn bias_aware_intervals_cover_the_true_scores_where_todays_do_not() {
    // 200 seeded instances × 50 items, six judges in three families (correlation 0.6,
    // item-bias sd 0.05), budgets where the bias is a third to most of the error. The
    // bias-aware 95% intervals (the pooled structure: one bias variance, one
    // within-family covariance) hold the true score 93–97% of the time; today's
    // (consensus) intervals, built on the same calls, hold what the judges would say
    // on average and cover the truth far less as the budget grows.
    let rows = run_experiment(&biased_world(&["uniform", "est-ivwe"], vec![3e3, 2e4], 200));
    for row in &rows {
        let aware = row.bias_aware.as_ref().expect("a world of shared mistakes");
        eprintln!(
            "{} at {}: consensus {:?}, bias-aware {:.4} (mean {:.3}), n_eff {:.2}",
            row.method,
            row.budget,
            row.coverage,
            aware.coverage,
            aware.mean_coverage,
            aware.effective_judges
        );
        assert_eq!(row.runs, 200);
        assert_eq!(aware.unidentified, 0);
        assert!(
            (0.93..=0.97).contains(&aware.coverage),
            "{} at {}: bias-aware coverage {}",
            row.method,
            row.budget,
            aware.coverage
        );
        assert!(aware.effective_judges < 6.0);
    }
    for row in rows.iter().filter(|r| r.budget == 2e4) {
        let consensus = row.coverage.unwrap();
        assert!(
            consensus < 0.85,
            "{}: consensus coverage {consensus}",
            row.method
        );
    }
}

#[test]
fn without_shared_mistakes_the_rows_are_todays() {
    // The same settings without a bias world: no bias-aware figures, and today's
    // numbers unchanged by the world's existence elsewhere (rows of a run with the
    // world keep today's error and coverage for its own draws).
    let mut settings = biased_world(&["uniform"], vec![3e3], 3);
    settings.shared_errors = None;
    let rows = run_experiment(&settings);
    assert!(rows.iter().all(|r| r.bias_aware.is_none()));
    let json = serde_json::to_string(&settings).unwrap();
    assert!(!json.contains("shared_errors"), "{json}");
}

/// The objective `sum_k Var_k` of counts (row-major K×J), p = 2.
fn objective(panel: &SharedErrorPanel<'_>, counts: &[u64]) -> f64 {
    let judges = panel.costs.len();
    counts
        .chunks(judges)
        .enumerate()
        .map(|(k, row)| panel.item_variance(k, row))
        .sum()
}

/// The least objective over every integer allocation of two items and three judges
/// within `budget`, each item with at least one call.
fn brute_force(panel: &SharedErrorPanel<'_>, budget: f64) -> f64 {
    let c = panel.costs;
    let most = |j: usize| (budget / c[j]).floor() as u64;
    let mut best = f64::INFINITY;
    let mut counts = [0u64; 6];
    let total = |n: &[u64; 6]| (0..6).map(|i| n[i] as f64 * c[i % 3]).sum::<f64>();
    fn next(n: &mut [u64; 6], most: &dyn Fn(usize) -> u64) -> bool {
        for (i, count) in n.iter_mut().enumerate() {
            if *count < most(i % 3) {
                *count += 1;
                return true;
            }
            *count = 0;
        }
        false
    }
    while next(&mut counts, &most) {
        if total(&counts) <= budget + 1e-9 {
            best = best.min(objective(panel, &counts));
        }
    }
    best
}

#[test]
fn the_shared_error_allocation_matches_a_brute_force_on_small_panels() {
    // Two items, three judges; judges 0 and 1 of one family. Call variances differ by
    // item, as the budget paper's do.
    let variances = [0.04, 0.02, 0.08, 0.10, 0.05, 0.03];
    let none = Allocation {
        judges: 3,
        counts: vec![0; 6],
    };
    // Independent biases and equal prices: greedy marginal allocation is optimal
    // (Fox 1966); every budget to 14 calls.
    let independent = [0.01, 0.0, 0.0, 0.0, 0.02, 0.0, 0.0, 0.0, 0.005];
    let equal = SharedErrorPanel {
        call_variances: &variances,
        bias_covariance: &independent,
        costs: &[1.0, 1.0, 1.0],
    };
    for budget in 2..=14 {
        let budget = budget as f64;
        let found = shared_error_counts(&equal, &none, budget, Norm::P(2.0)).unwrap();
        let (ours, best) = (
            objective(&equal, &found.counts),
            brute_force(&equal, budget),
        );
        assert!(found.cost(equal.costs) <= budget);
        assert!(
            (ours - best).abs() <= 1e-12 * best,
            "B {budget}: {:?} gives {ours}, brute force {best}",
            found.counts
        );
    }
    // A correlated family and unequal prices: a heuristic, within 3% of the optimum.
    let family = [0.01, 0.008, 0.0, 0.008, 0.01, 0.0, 0.0, 0.0, 0.01];
    let priced = SharedErrorPanel {
        call_variances: &variances,
        bias_covariance: &family,
        costs: &[1.0, 0.6, 1.7],
    };
    for budget in [3.0, 5.0, 8.0, 11.0, 14.0] {
        let found = shared_error_counts(&priced, &none, budget, Norm::P(2.0)).unwrap();
        let (ours, best) = (
            objective(&priced, &found.counts),
            brute_force(&priced, budget),
        );
        assert!(found.cost(priced.costs) <= budget + 1e-9);
        assert!(
            ours <= 1.03 * best,
            "B {budget}: {:?} gives {ours}, brute force {best}",
            found.counts
        );
    }
}

#[test]
fn a_bias_spreads_the_calls_over_families_where_independent_calls_pick_one_judge() {
    // One item, three judges of three families, the cheapest-per-information judge 0.
    // Without bias the optimum puts every call on judge 0 (the budget paper's
    // sparsity); with a bias as large as a call's noise, repeating judge 0 stops
    // paying and the budget goes to all three.
    let variances = [0.02, 0.04, 0.04];
    let none = Allocation {
        judges: 3,
        counts: vec![0; 3],
    };
    let allocate = |bias: f64| {
        let covariance = [bias, 0.0, 0.0, 0.0, bias, 0.0, 0.0, 0.0, bias];
        let panel = SharedErrorPanel {
            call_variances: &variances,
            bias_covariance: &covariance,
            costs: &[1.0, 1.0, 1.0],
        };
        shared_error_counts(&panel, &none, 60.0, Norm::P(2.0))
            .unwrap()
            .counts
    };
    assert_eq!(allocate(0.0), vec![60, 0, 0]);
    let spread = allocate(0.02);
    assert!(spread.iter().all(|&n| n >= 10), "{spread:?}");
    assert_eq!(spread.iter().sum::<u64>(), 60);
}

#[test]
fn the_budget_for_a_target_and_the_floor_no_budget_goes_below_are_the_closed_forms() {
    // One item, two judges of two families, price 1, bias variance 0.01 and call
    // variance 0.04 each: n calls of each give Var = (0.01 + 0.04 / n) / 2, so the
    // target sd 0.1 (Var 0.01) needs n = 4 of each, B = 8; the floor is
    // sqrt(0.01 / 2) = 0.0707.
    let panel = SharedErrorPanel {
        call_variances: &[0.04, 0.04],
        bias_covariance: &[0.01, 0.0, 0.0, 0.01],
        costs: &[1.0, 1.0],
    };
    let none = Allocation {
        judges: 2,
        counts: vec![0; 2],
    };
    let floor = error_floor(&panel, 1, Norm::P(2.0));
    assert!((floor - 0.005f64.sqrt()).abs() < 1e-9, "{floor}");
    let budget = shared_budget(&panel, &none, 0.1 + 1e-12, Norm::P(2.0)).unwrap();
    assert!((budget - 8.0).abs() <= 8e-3, "{budget}");
    // One call fewer misses the target; the floor is out of reach.
    let seven = shared_error_counts(&panel, &none, 7.0, Norm::P(2.0)).unwrap();
    assert!(shared_error(&panel, &seven.counts, Norm::P(2.0)) > 0.1);
    assert_eq!(shared_budget(&panel, &none, 0.07, Norm::P(2.0)), None);
}
