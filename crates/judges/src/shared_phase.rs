//! `est-ivwe-shared` after its Phase I: the judges' shared mistakes estimated from the
//! calls so far, the rest of the budget allocated for them (module
//! `shared_allocation`), every call scored bias-aware (module `shared_errors`).
//!
//! Without a target the allocation gets what is left of the budget, once. With a
//! target error `E` the budget is a cap and calls are bought in rounds, as module
//! `target` does for the budget paper's allocations: the error is measured on every
//! call so far; above `E`, the components and each pair's variance are estimated again
//! and the round buys what the plan for them says the target needs
//! ([`shared_budget`]), at least a tenth more than spent so far — or half of what is
//! left when the plan says the target is below the error floor, since that floor is an
//! estimate too — until the target or the cap is reached. Each round's allocation
//! starts from the calls made, so no round wastes what an earlier one bought.

use crate::allocation::Allocation;
use crate::shared_allocation::{shared_budget, shared_error_counts, SharedErrorPanel};
use crate::spend::spend;
use crate::target::Scored;
use crate::{estimated_error, BiasStructure, JudgeError, Norm, PairStats, SharedErrors, Spender};

/// Most rounds a target may take.
const MAX_ROUNDS: usize = 32;

/// Least growth of the spend from one round to the next.
const LEAST_GROWTH: f64 = 1.1;

/// Spends the rest of the budget (or toward `target`) on the judges of `families`,
/// starting from `stats` (Phase I), and scores every item by GLS.
///
/// # Errors
/// Failed calls; sizes that disagree.
pub(crate) fn shared_phase(
    spender: &mut Spender<'_>,
    mut stats: Vec<PairStats>,
    families: &[usize],
    p: Norm,
    target: Option<f64>,
) -> Result<Scored, JudgeError> {
    let costs = spender.costs().to_vec();
    let judges = costs.len();
    let range = spender.range();
    let floor = range * range * 1e-12;
    // Each pair's variance per call as Phase I measured it: what the allocation
    // plans with (the calls bought later do not change it, so later rounds continue
    // one plan).
    let call_variances: Vec<f64> = stats
        .iter()
        .map(|s| s.sample_variance().max(floor))
        .collect();
    let learnt = SharedErrors::estimate(&stats, families, BiasStructure::Pooled)?;
    let panel = SharedErrorPanel {
        call_variances: &call_variances,
        bias_covariance: &learnt.bias_covariance,
        costs: &costs,
    };
    let counts = |stats: &[PairStats]| Allocation {
        judges,
        counts: stats.iter().map(|s| s.count).collect(),
    };
    // Buys the allocation for `budget` more than the calls made.
    let buy = |spender: &mut Spender<'_>, stats: &mut Vec<PairStats>, budget: f64| {
        let made = counts(stats);
        let planned = shared_error_counts(&panel, &made, budget, p)?;
        let more = Allocation {
            judges,
            counts: planned
                .counts
                .iter()
                .zip(&made.counts)
                .map(|(n, m)| n - m)
                .collect(),
        };
        let bought = more.counts.iter().any(|&n| n > 0);
        spend(spender, &more, stats)?;
        Ok::<bool, JudgeError>(bought)
    };
    // The components estimated on every call so far, and the GLS scores with them.
    let model_and_scores = |stats: &[PairStats]| -> Result<(SharedErrors, Scored), JudgeError> {
        let model = SharedErrors::estimate(stats, families, BiasStructure::Pooled)?;
        let scored = Scored::from_gls(&model.scores(stats, range)?);
        Ok((model, scored))
    };
    let Some(target) = target else {
        buy(spender, &mut stats, spender.left())?;
        return Ok(model_and_scores(&stats)?.1);
    };
    let cheapest = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let finish = |mut scored: Scored, reached: bool| {
        scored.reached = Some(reached);
        Ok(scored)
    };
    for round in 0..=MAX_ROUNDS {
        let (model, scored) = model_and_scores(&stats)?;
        if round == MAX_ROUNDS {
            return finish(scored, false);
        }
        if estimated_error(&scored.uncertainty, p) <= target {
            return finish(scored, true);
        }
        if spender.left() < cheapest {
            return finish(scored, false);
        }
        // The plan for what the calls so far say: the components and each pair's
        // variance again from every call.
        let variances: Vec<f64> = stats
            .iter()
            .zip(&call_variances)
            .map(|(s, first)| {
                if s.count >= 2 {
                    s.sample_variance().max(floor)
                } else {
                    *first
                }
            })
            .collect();
        let now = SharedErrorPanel {
            call_variances: &variances,
            bias_covariance: &model.bias_covariance,
            costs: &costs,
        };
        // At least a tenth more than spent so far; half of what is left when the
        // plan says no budget reaches the target (its floor is an estimate too).
        let least = (LEAST_GROWTH - 1.0) * spender.spent();
        let step = match shared_budget(&now, &counts(&stats), target, p) {
            Some(needed) => needed.max(least),
            None => (spender.left() / 2.0).max(least),
        }
        .clamp(cheapest, spender.left());
        if !buy(spender, &mut stats, step)? {
            return finish(scored, false);
        }
    }
    unreachable!("the last round returns")
}
