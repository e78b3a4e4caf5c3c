//! How much budget a target error needs, predicted from a pilot.
//!
//! A pilot calls every (item, judge) pair `n0` times and estimates each pair's
//! variance per call `sigma_hat^2_kj` (the sample variance, with the floors of module
//! `uncertainty` for agreeing calls). The budget paper's oracle allocation (Theorem 3.2)
//! spends budget fractions `omega*` on one judge per item; the IVWE variance of item k
//! at budget `B` is then `V_k / B` with `V_k = (sum_j omega_kj / (c_j sigma^2_kj))^-1`,
//! so the estimated `l_p` error `||se||_p` is `sqrt(A_p(omega*) / B)`
//! ([`allocation_objective`]) and a target `E` needs
//!
//! ```text
//! B_oracle = A_p(omega*; sigma_hat, c) / E^2
//! ```
//!
//! after the pilot (Est-IVWE's Phase II scores on fresh calls only, so the pilot is
//! paid on top). For comparison, the uniform allocation (`n` calls of every pair,
//! their plain mean) has `Var_k = sum_j sigma^2_kj / (J^2 n)` with
//! `n = B / (K sum_j c_j)`, hence `B_uniform = K (sum_j c_j) ||(sum_j sigma^2_kj /
//! J^2)_k||_{p/2} / E^2`, which may count the pilot's calls.
//!
//! The prediction treats the estimated variances as the true ones: with few pilot calls
//! it is as uncertain as they are, and a run with `--target-error` measures its error
//! as it goes instead of trusting the plan.

use crate::allocation::{allocation_objective, oracle_weights};
use crate::uncertainty::CallVariance;
use crate::{
    error_floor, shared_budget, Allocation, BiasStructure, JudgeError, JudgePool, Norm, PairStats,
    SharedErrorPanel, SharedErrors, Spender,
};

/// The predicted budgets for a target error.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BudgetPlan {
    /// The target `E` of the estimated `l_p` error.
    pub target_error: f64,
    /// The norm.
    pub p: String,
    /// Calls of each (item, judge) pair in the pilot.
    pub pilot_calls_per_pair: u64,
    /// What the pilot spent.
    pub pilot_spent: f64,
    /// The budget after the pilot the oracle allocation for the estimated variances
    /// needs: `A_p(omega*) / E^2`.
    pub oracle_after_pilot: f64,
    /// Pilot and oracle together: the `--budget` to give Est-IVWE with `--n0` the
    /// pilot's calls per pair.
    pub oracle_total: f64,
    /// What the uniform allocation needs in all (its calls include the pilot's).
    pub uniform_total: f64,
    /// Each item's judge under the oracle allocation, by index.
    pub judge_of_item: Vec<usize>,
    /// For judges that share their mistakes (a plan for `est-ivwe-shared`): the bias the
    /// pilot shows, the error no budget goes below, and the budget the shared-error
    /// allocation needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared: Option<SharedPlan>,
}

/// A plan for judges that share their mistakes (module `shared_allocation`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SharedPlan {
    /// Whether the pilot could tell the bias (judges of two families, ten items).
    pub identified: bool,
    /// What the figures mean, or why the bias could not be estimated and what would.
    pub note: String,
    /// The standard deviation of a judge's bias at an item.
    pub bias_sd: Option<f64>,
    /// The `l_p` error with every judge called without end: only the biases left.
    pub error_floor: f64,
    /// The budget after the pilot the shared-error allocation needs for the target
    /// (None when the target is at or below the floor).
    pub after_pilot: Option<f64>,
    /// Pilot and the rest together: the `--budget` to give `est-ivwe-shared` with
    /// `--n0` the pilot's calls per pair.
    pub total: Option<f64>,
}

/// The shared-error plan for `target` from the pilot's calls (`pilot`, row-major K×J)
/// by judges of `families` (one index each): the components estimated from the pilot,
/// each pair's variance per call as in [`plan_budget`], the error floor and the budget
/// (module `shared_allocation`).
///
/// # Errors
/// [`JudgeError::Instance`] when the sizes disagree.
pub fn shared_plan(
    pilot: &[PairStats],
    costs: &[f64],
    range: f64,
    p: Norm,
    target: f64,
    pilot_spent: f64,
    families: &[usize],
) -> Result<SharedPlan, JudgeError> {
    let model = SharedErrors::estimate(pilot, families, BiasStructure::Pooled)?;
    let variances = pilot_variances(pilot, range);
    let panel = SharedErrorPanel {
        call_variances: &variances,
        bias_covariance: &model.bias_covariance,
        costs,
    };
    let made = Allocation {
        judges: costs.len(),
        counts: pilot.iter().map(|s| s.count).collect(),
    };
    let items = pilot.len() / costs.len().max(1);
    let floor = error_floor(&panel, items, p);
    let after_pilot = shared_budget(&panel, &made, target, p);
    let note = match (model.identified(), after_pilot) {
        (false, _) => "the pilot cannot tell the judges' shared mistakes apart from the true scores (one family, or fewer than ten items scored by two families): planned as if calls were independent; add a judge of another family".into(),
        (true, Some(_)) => "the budget the shared-error allocation needs, its calls on top of the pilot's".into(),
        (true, None) => format!(
            "the target {target} is at or below the error these judges cannot go under ({floor:.4}): their biases at the items do not average away; add judges of other families, or gold labels"
        ),
    };
    Ok(SharedPlan {
        identified: model.identified(),
        note,
        bias_sd: model
            .identified()
            .then(|| model.bias_variance().first().copied().unwrap_or(0.0).sqrt()),
        error_floor: floor,
        after_pilot,
        total: after_pilot.map(|b| b + pilot_spent),
    })
}

/// Predicts the budgets for target error `target` from pilot calls `pilot` (row-major
/// K×J) of judges costing `costs` with scores in `[0, range]` (module docs).
///
/// # Errors
/// [`JudgeError::Setting`] for a target that is not a positive number or a pilot
/// without calls of some pair.
pub fn plan_budget(
    pilot: &[PairStats],
    costs: &[f64],
    range: f64,
    p: Norm,
    target: f64,
    pilot_spent: f64,
) -> Result<BudgetPlan, JudgeError> {
    if !(target.is_finite() && target > 0.0) {
        return Err(JudgeError::Setting(format!(
            "target error {target} must be a positive number (the estimated l_p error to plan for)"
        )));
    }
    let judges = costs.len();
    let calls = pilot.iter().map(|s| s.count).min().unwrap_or(0);
    if judges == 0 || pilot.is_empty() || calls == 0 {
        return Err(JudgeError::Setting(
            "a plan needs pilot calls of every (item, judge) pair".into(),
        ));
    }
    let variances = pilot_variances(pilot, range);
    let weights = oracle_weights(&variances, costs, p);
    let oracle =
        allocation_objective(&weights.omega(judges), &variances, costs, p) / target.powi(2);
    let items = pilot.len() / judges;
    let round: f64 = costs.iter().sum();
    let per_item: Vec<f64> = variances
        .chunks(judges)
        .map(|row| {
            (items as f64 * round * row.iter().sum::<f64>() / (judges * judges) as f64).sqrt()
        })
        .collect();
    let uniform = p.length(&per_item).powi(2) / target.powi(2);
    Ok(BudgetPlan {
        target_error: target,
        p: p.to_string(),
        pilot_calls_per_pair: calls,
        pilot_spent,
        oracle_after_pilot: oracle,
        oracle_total: pilot_spent + oracle,
        uniform_total: uniform.max(pilot_spent),
        judge_of_item: weights.judge,
        shared: None,
    })
}

/// Each pair's variance per call from the pilot: the sample variance, with the floors
/// of module `uncertainty` for agreeing calls.
fn pilot_variances(pilot: &[PairStats], range: f64) -> Vec<f64> {
    pilot
        .iter()
        .map(|s| CallVariance::estimated(s, range).value())
        .collect()
}

/// Spends the pilot — `n0` calls of every (item, judge) pair, or as many as `budget`
/// buys when `n0` is `None` — and plans for `target` (module docs); with the judges'
/// `families`, for shared mistakes too ([`shared_plan`]).
///
/// # Errors
/// [`JudgeError::InfeasibleBudget`] when the budget cannot buy two calls of every
/// pair (or `n0` of them); failed judge calls.
pub fn pilot_plan(
    pool: &mut dyn JudgePool,
    budget: f64,
    n0: Option<u64>,
    p: Norm,
    target: f64,
    families: Option<&[usize]>,
) -> Result<BudgetPlan, JudgeError> {
    let (items, costs, range) = (pool.items(), pool.costs().to_vec(), pool.range());
    let round = items as f64 * costs.iter().sum::<f64>();
    let calls = n0.unwrap_or_else(|| (budget / round).floor() as u64);
    let needed = round * calls.max(2) as f64;
    if calls < 2 || needed > budget {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed,
            purpose: format!(
                "run a pilot of {} calls of every (item, judge) pair",
                calls.max(2)
            ),
        });
    }
    let mut spender = Spender::new(pool, budget);
    let mut pilot = vec![PairStats::default(); items * costs.len()];
    for (pair, stats) in pilot.iter_mut().enumerate() {
        spender.sample(pair / costs.len(), pair % costs.len(), calls, stats)?;
    }
    let spent = spender.spent();
    let mut plan = plan_budget(&pilot, &costs, range, p, target, spent)?;
    plan.shared = families
        .map(|f| shared_plan(&pilot, &costs, range, p, target, spent, f))
        .transpose()?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pair statistics with the given sample variance from `n` calls.
    fn stats_with(n: u64, variance: f64) -> PairStats {
        let mut s = PairStats::default();
        let half = (variance * (n - 1) as f64 / n as f64).sqrt();
        for i in 0..n {
            s.push(0.5 + if i % 2 == 0 { half } else { -half });
        }
        s
    }

    #[test]
    fn the_oracle_budget_is_the_closed_form_of_theorem_3_2() {
        // One judge, two items with variances 0.04 and 0.01, cost 1, p = 2: omega ∝
        // sqrt(c sigma^2) = (0.2, 0.1) → (2/3, 1/3); V = (0.06, 0.03), A = 0.09;
        // E = 0.03 needs B = 0.09 / 0.0009 = 100. By hand: 66.7 calls on item 0 give
        // se 0.0245, 33.3 on item 1 give 0.0173, sqrt(0.0006 + 0.0003) = 0.03.
        let pilot = [stats_with(4, 0.04), stats_with(4, 0.01)];
        let plan = plan_budget(&pilot, &[1.0], 1.0, Norm::P(2.0), 0.03, 8.0).unwrap();
        assert!((plan.oracle_after_pilot - 100.0).abs() < 1e-9, "{plan:?}");
        assert_eq!(plan.oracle_total, plan.oracle_after_pilot + 8.0);
        // Uniform, one judge: n calls each, Var = sigma^2 / n, B = 2n:
        // 0.04/n + 0.01/n = 0.0009 → n = 55.6, B = 111.1.
        assert!((plan.uniform_total - 0.05 / 0.0009 * 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_pilot_that_cannot_buy_two_calls_each_is_refused() {
        let pilot = [PairStats::default()];
        assert!(plan_budget(&pilot, &[1.0], 1.0, Norm::P(2.0), 0.1, 0.0).is_err());
        assert!(plan_budget(&[stats_with(3, 0.01)], &[1.0], 1.0, Norm::P(2.0), 0.0, 3.0).is_err());
    }
}
