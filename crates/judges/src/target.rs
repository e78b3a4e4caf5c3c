//! Spending with fixed weights, to the budget or until a target error is reached.
//!
//! Uniform, the oracle and Est-IVWE's Phase II each buy calls by a rule — the calls
//! for a budget `b` — and combine them by IVWE with weights fixed before the calls
//! (equal, true or Phase-I variances). Without a target the rule gets what is left of
//! the budget, once. With a target error `E` (the estimated `l_p` error `||se||_p`,
//! module `uncertainty`) the budget is a cap and the calls are bought in rounds:
//!
//! 1. the error of the rule's calls for the whole cap is predicted from the variances
//!    estimated so far; errors of allocations of one shape fall like `1 / sqrt(b)`,
//!    so the phase should need `b* = b_cap · (e_cap / E)^2`;
//! 2. the calls for `min(b*, cap)` are bought, topping up what the phase has;
//! 3. the error is estimated again from all calls; at or below `E` the run stops,
//!    otherwise `b*` becomes `b · (e / E)^2` (at least 10% more) and step 2 repeats,
//!    until the cap is spent.
//!
//! The weights stay those fixed before the phase, so every round's calls enter one
//! fixed-weight mean; only *when* to stop depends on the calls (their estimated
//! variances), which for a skewed score law correlates slightly with the means —
//! second order, as in `adaptive`.

use crate::allocation::Allocation;
use crate::uncertainty::{ivwe_uncertainty, CallVariance};
use crate::{estimated_error, ivwe, JudgeError, Norm, PairStats, ScoreUncertainty, Spender};

/// Most rounds a target may take.
const MAX_ROUNDS: usize = 32;

/// Least growth of the phase's spend from one round to the next.
const LEAST_GROWTH: f64 = 1.1;

/// Bisection steps when the rule's calls for a budget cost more than is left.
const BISECTION_STEPS: usize = 48;

/// How a fixed-weight phase buys and weights its calls.
pub(crate) struct FixedWeights<'r> {
    /// The calls for a phase budget (all of the phase's calls, not an increment).
    pub rule: &'r dyn Fn(f64) -> Result<Allocation, JudgeError>,
    /// The variances IVWE weights the calls by, row-major K×J.
    pub weights: &'r [f64],
    /// Where each pair's variance per call comes from.
    pub per_call: PerCall<'r>,
}

/// Where the variance per call behind a phase's intervals comes from.
#[derive(Clone, Copy)]
pub(crate) enum PerCall<'r> {
    /// True variances, row-major K×J (the oracle).
    Known(&'r [f64]),
    /// The sample variance of every call of the pair so far: right when no call chose
    /// the pair (uniform).
    Pooled,
    /// The sample variance of the phase's own calls only: Est-IVWE chose each item's
    /// judges on its Phase-I variances, which are then biased low for the judges
    /// chosen (few calls that happen to agree win), while the phase's calls are drawn
    /// after the choice. A pair with a single such call has no variance estimate and
    /// gets the bound `R^2 / 4`: its interval says that little is known.
    Fresh,
}

/// Scores of a strategy with their uncertainty.
pub(crate) struct Scored {
    /// One per item.
    pub scores: Vec<f64>,
    /// One per item.
    pub uncertainty: Vec<ScoreUncertainty>,
    /// Whether the scores fell back on exploration calls.
    pub fallback: bool,
    /// With a target: whether it was reached.
    pub reached: Option<bool>,
}

impl Scored {
    /// GLS scores (module `shared_errors`) as a strategy's result.
    pub(crate) fn from_gls(scored: &[crate::GlsScore]) -> Self {
        Self {
            scores: scored.iter().map(|g| g.score).collect(),
            uncertainty: scored.iter().map(|g| g.uncertainty).collect(),
            fallback: false,
            reached: None,
        }
    }
}

/// Buys the phase's calls on top of `fresh` (calls it already has, which count in its
/// mean) and scores the items by IVWE (module docs).
///
/// # Errors
/// [`JudgeError::InfeasibleBudget`] when what is left cannot buy the rule's minimum;
/// failed calls.
pub(crate) fn fixed_weight_phase(
    spender: &mut Spender<'_>,
    plan: &FixedWeights<'_>,
    mut fresh: Vec<PairStats>,
    target: Option<f64>,
    p: Norm,
) -> Result<Scored, JudgeError> {
    let costs = spender.costs().to_vec();
    let judges = costs.len();
    // The uncertainty of `counts`; `planned` counts hold no scores yet, and their
    // variances are the ones estimated so far from every call.
    let uncertainty_of = |spender: &Spender<'_>, counts: &[PairStats], planned: bool| {
        let (range, pooled) = (spender.range(), spender.pooled());
        ivwe_uncertainty(counts, plan.weights, judges, |i| match plan.per_call {
            PerCall::Known(known) => CallVariance::known(known[i]),
            PerCall::Fresh if !planned => CallVariance::estimated(&counts[i], range),
            PerCall::Pooled | PerCall::Fresh => CallVariance::estimated(&pooled[i], range),
        })
    };
    let reached = match target {
        None => {
            let allocation = (plan.rule)(spender.left())?;
            top_up(spender, &allocation, &mut fresh)?;
            None
        }
        Some(target) => {
            let spent = |fresh: &[PairStats]| counts_of(fresh, judges).cost(&costs);
            let cap = spent(&fresh) + spender.left();
            let whole = (plan.rule)(cap)?;
            let predicted =
                estimated_error(&uncertainty_of(spender, &with_counts(&whole), true), p);
            let mut goal = cap * (predicted / target).powi(2);
            let mut reached = false;
            for _ in 0..MAX_ROUNDS {
                let before = spent(&fresh);
                let bought = buy_toward(spender, plan, goal.min(cap), &mut fresh)?;
                if unscored(&fresh, judges) {
                    // A goal below the rule's minimum buys nothing: raise it (the
                    // rule's calls for the whole cap are affordable, so this ends).
                    goal = (goal * 2.0).max(cap / 1024.0);
                    continue;
                }
                let error = estimated_error(&uncertainty_of(spender, &fresh, false), p);
                if error <= target {
                    reached = true;
                    break;
                }
                if !bought {
                    break;
                }
                let now = spent(&fresh);
                goal = (now * (error / target).powi(2)).max(before.max(now) * LEAST_GROWTH);
            }
            if unscored(&fresh, judges) {
                return Err(JudgeError::InfeasibleBudget {
                    budget: cap,
                    needed: whole.cost(&costs),
                    purpose: "score every item in rounds toward the target error".into(),
                });
            }
            Some(reached)
        }
    };
    Ok(Scored {
        scores: ivwe(&fresh, plan.weights, judges),
        uncertainty: uncertainty_of(spender, &fresh, false),
        fallback: false,
        reached,
    })
}

/// Buys the calls the rule gives for `budget` that `fresh` lacks, or for the largest
/// budget below it whose missing calls what is left can pay; whether any call was
/// bought.
fn buy_toward(
    spender: &mut Spender<'_>,
    plan: &FixedWeights<'_>,
    budget: f64,
    fresh: &mut [PairStats],
) -> Result<bool, JudgeError> {
    let costs = spender.costs().to_vec();
    let missing = |b: f64| -> Option<Allocation> {
        let wanted = (plan.rule)(b).ok()?;
        let counts = wanted
            .counts
            .iter()
            .zip(fresh.iter())
            .map(|(&w, have)| w.saturating_sub(have.count))
            .collect();
        Some(Allocation {
            judges: wanted.judges,
            counts,
        })
    };
    let affordable = |a: &Allocation| a.cost(&costs) <= spender.left();
    let chosen = match missing(budget) {
        Some(calls) if affordable(&calls) => Some(calls),
        _ => {
            // The largest budget in [now, budget] whose missing calls fit.
            let (mut low, mut high) = (counts_of(fresh, costs.len()).cost(&costs), budget);
            let mut best = None;
            for _ in 0..BISECTION_STEPS {
                let middle = 0.5 * (low + high);
                match missing(middle) {
                    Some(calls) if affordable(&calls) => {
                        best = Some(calls);
                        low = middle;
                    }
                    _ => high = middle,
                }
            }
            best
        }
    };
    match chosen {
        Some(calls) if calls.counts.iter().any(|&n| n > 0) => {
            top_up(spender, &calls, fresh)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Buys `calls` into `fresh`.
fn top_up(
    spender: &mut Spender<'_>,
    calls: &Allocation,
    fresh: &mut [PairStats],
) -> Result<(), JudgeError> {
    crate::spend::spend(spender, calls, fresh)
}

/// Whether some item has no call in `stats`.
fn unscored(stats: &[PairStats], judges: usize) -> bool {
    stats
        .chunks(judges)
        .any(|row| row.iter().all(|s| s.count == 0))
}

/// The calls `stats` hold, as an allocation.
fn counts_of(stats: &[PairStats], judges: usize) -> Allocation {
    Allocation {
        judges,
        counts: stats.iter().map(|s| s.count).collect(),
    }
}

/// Empty statistics with an allocation's counts: what the uncertainty of calls not yet
/// made needs (their count; the variances come from the calls made).
fn with_counts(allocation: &Allocation) -> Vec<PairStats> {
    allocation
        .counts
        .iter()
        .map(|&count| PairStats {
            count,
            ..PairStats::default()
        })
        .collect()
}
