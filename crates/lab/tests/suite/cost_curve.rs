//! The cost analysis's curves on a small Appendix G simulation: a higher price weight
//! never raises an equilibrium's expected cost (the price is linear in `π` and the
//! regularizer strongly convex), BT-cost and the hard-budget equilibrium never spend
//! past their budget, and each agent alone costs its cost.

use verdict_lab::cost_curve::{cost_curves, CostSettings};

#[test]
fn prices_lower_cost_and_budgets_bound_it() {
    let costs = vec![0.5, 1.0, 2.0, 4.0, 8.0];
    let points = cost_curves(&CostSettings {
        costs: costs.clone(),
        seed: 3,
        voters: 3,
        contexts: 800,
        test_contexts: 80,
    })
    .unwrap();
    for method in ["NashEval-debiased", "NashEval-plugin", "lottery"] {
        let curve: Vec<_> = points.iter().filter(|p| p.method == method).collect();
        assert_eq!(
            curve.len(),
            24,
            "{method}: one point per price weight of Eq. 21"
        );
        for pair in curve.windows(2) {
            assert!(pair[0].parameter < pair[1].parameter);
            assert!(
                pair[1].cost <= pair[0].cost + 1e-9,
                "{method}: beta {} costs {} > {} at beta {}",
                pair[1].parameter,
                pair[1].cost,
                pair[0].cost,
                pair[0].parameter
            );
        }
    }
    for (j, &c) in costs.iter().enumerate() {
        let alone: Vec<_> = points
            .iter()
            .filter(|p| p.method == "single" && p.parameter == j as f64)
            .collect();
        assert_eq!(alone.len(), 1);
        assert!((alone[0].cost - c).abs() < 1e-12);
    }
    for method in ["bt-cost", "NashEval-budget"] {
        let bt: Vec<_> = points.iter().filter(|p| p.method == method).collect();
        assert!(!bt.is_empty());
        for p in bt {
            assert!(
                p.cost <= p.parameter + 1e-9,
                "{method} spends {} of {}",
                p.cost,
                p.parameter
            );
            assert!((0.0..=1.0).contains(&p.win_rate));
        }
    }
}
