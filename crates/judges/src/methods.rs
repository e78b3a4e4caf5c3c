//! Strategies that spend the budget and return IVWE estimates: uniform, oracle,
//! Est-IVWE (bounded, Algorithm 1) and Est-IVWE (Gaussian, Appendix G.1).

use crate::allocation::{integer_counts, oracle_weights, uniform_counts, Allocation};
use crate::plan::plan_budget;
use crate::shared_allocation::{shared_error_counts, SharedErrorPanel};
use crate::shared_phase::shared_phase;
use crate::spend::spend;
use crate::target::{fixed_weight_phase, FixedWeights, PerCall, Scored};
use crate::uncertainty::{ivwe_uncertainty, CallVariance};
use crate::{
    estimated_error, gls_scores, intervals, ivwe, Intervals, JudgeError, JudgePool, Norm,
    PairStats, ScoreUncertainty, Spender,
};

/// Default confidence parameter `delta` of the exploration bias and the bounds.
pub const DEFAULT_DELTA: f64 = 0.05;

/// Which strategy to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// Equal calls for every (item, judge) pair, plain mean per item.
    Uniform,
    /// IVWE with the oracle allocation for the given true variances (Theorem 3.2).
    Oracle {
        /// True variances, row-major K×J.
        variances: Vec<f64>,
    },
    /// Est-IVWE with bounded scores (Algorithm 1): optimistic `sigma_hat + tau`.
    EstIvwe,
    /// Est-IVWE for Gaussian scores (Appendix G.1): the sample variances as they are.
    EstIvweGaussian,
    /// Judges chosen per item by successive elimination, then the oracle rule in stages
    /// that reuse the chosen judge's calls (module `adaptive`).
    Adaptive,
    /// Judges that share their mistakes, known: the allocation of module
    /// `shared_allocation` for the true call variances and bias covariance, scored by
    /// GLS (module `shared_errors`). For experiments.
    OracleShared {
        /// True call variances, row-major K×J.
        variances: Vec<f64>,
        /// True bias covariance, row-major J×J.
        bias_covariance: Vec<f64>,
    },
    /// Judges that share their mistakes, learnt: Est-IVWE's Phase I (`N0` calls of
    /// every pair, Gaussian rule), the shared errors estimated from it (pooled
    /// structure), the rest of the budget allocated as `OracleShared` would for the
    /// estimates, and every call scored bias-aware.
    EstIvweShared {
        /// Each judge's family index (empty: each judge its own).
        families: Vec<usize>,
    },
}

impl Method {
    /// The strategy named `name` in [`crate::METHODS`], the oracle given the instance's
    /// true `variances` (row-major K×J); `None` for another name.
    pub fn named(name: &str, variances: &[f64]) -> Option<Self> {
        match name {
            "oracle" => Some(Self::Oracle {
                variances: variances.to_vec(),
            }),
            other => Self::for_run(other).ok(),
        }
    }

    /// As [`Method::named`], in a world of judges that share their mistakes with bias
    /// covariance `bias_covariance` (row-major J×J) and `families`: also
    /// `oracle-shared` and `est-ivwe-shared`.
    pub fn named_shared(
        name: &str,
        variances: &[f64],
        bias_covariance: &[f64],
        families: &[usize],
    ) -> Option<Self> {
        match name {
            "oracle-shared" => Some(Self::OracleShared {
                variances: variances.to_vec(),
                bias_covariance: bias_covariance.to_vec(),
            }),
            "est-ivwe-shared" => Some(Self::EstIvweShared {
                families: families.to_vec(),
            }),
            other => Self::named(other, variances),
        }
    }

    /// The method of a judging run by its name: `uniform`, `est-ivwe`,
    /// `est-ivwe-gaussian`, `adaptive` or `est-ivwe-shared` (its families given by the
    /// run; the oracles need the true variances, so they are not named here).
    ///
    /// # Errors
    /// [`JudgeError::Setting`] listing the names.
    pub fn for_run(name: &str) -> Result<Self, JudgeError> {
        [
            Self::Uniform,
            Self::EstIvwe,
            Self::EstIvweGaussian,
            Self::Adaptive,
            Self::EstIvweShared {
                families: Vec::new(),
            },
        ]
        .into_iter()
        .find(|m| m.name() == name)
        .ok_or_else(|| {
            JudgeError::Setting(format!(
                "method {name:?}: use adaptive, est-ivwe, est-ivwe-gaussian, est-ivwe-shared or uniform"
            ))
        })
    }

    /// The judges' families for the shared-error method (each judge its own when none
    /// were given); `None` for the other methods.
    pub fn shared_families(&self, judges: usize) -> Option<Vec<usize>> {
        match self {
            Self::EstIvweShared { families } if families.is_empty() => Some((0..judges).collect()),
            Self::EstIvweShared { families } => Some(families.clone()),
            _ => None,
        }
    }

    /// The name used in reports and JSON.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Uniform => "uniform",
            Self::Oracle { .. } => "oracle",
            Self::EstIvwe => "est-ivwe",
            Self::EstIvweGaussian => "est-ivwe-gaussian",
            Self::Adaptive => "adaptive",
            Self::OracleShared { .. } => "oracle-shared",
            Self::EstIvweShared { .. } => "est-ivwe-shared",
        }
    }
}

/// Settings shared by the strategies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateSettings {
    /// The error norm the allocation targets.
    pub p: Norm,
    /// Confidence parameter `delta`.
    pub delta: f64,
    /// Phase-I calls per pair `N0` (default: [`default_exploration`]).
    pub exploration: Option<u64>,
    /// Optimistic bias `tau` of Est-IVWE (bounded); default
    /// `R sqrt(2 / (N0 - 1) · ln(2KJ / delta))` (Lemma B.2).
    pub tau: Option<f64>,
    /// Stop once the estimated `l_p` error `||se||_p` ([`estimated_error`]) is at most
    /// this, the budget being a cap (module `target`); `None` spends the budget.
    pub target_error: Option<f64>,
}

impl EstimateSettings {
    /// Defaults for norm `p`.
    pub fn new(p: Norm) -> Self {
        Self {
            p,
            delta: DEFAULT_DELTA,
            exploration: None,
            tau: None,
            target_error: None,
        }
    }
}

impl std::str::FromStr for Method {
    type Err = JudgeError;

    /// A run's method by name ([`Method::for_run`]).
    fn from_str(name: &str) -> Result<Self, JudgeError> {
        Self::for_run(name)
    }
}

/// Estimated scores, how precisely they are known, and what they cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// `s_hat`, one per item.
    pub scores: Vec<f64>,
    /// Each score's variance given the allocation (module `uncertainty`).
    pub uncertainty: Vec<ScoreUncertainty>,
    /// The score range `R`.
    pub range: f64,
    /// Every call's score by (item, judge), row-major K×J: count, mean and spread of
    /// what each judge said of each item.
    pub pooled: Vec<PairStats>,
    /// Amount spent (never above the budget).
    pub spent: f64,
    /// Successful judge calls.
    pub calls: u64,
    /// Phase-I calls per pair, for the Est-IVWE strategies.
    pub exploration: Option<u64>,
    /// The optimistic bias used by Est-IVWE (bounded).
    pub tau: Option<f64>,
    /// Whether Phase II could not score every item and the Phase-I scores were used.
    pub phase_one_fallback: bool,
    /// With a target error: whether the estimated error reached it within the budget.
    pub target_reached: Option<bool>,
}

impl Estimate {
    /// Each item's interval and the mean's at `level` (module `uncertainty`).
    ///
    /// # Errors
    /// [`JudgeError::Setting`] for a level outside (0, 1).
    pub fn intervals(&self, level: f64) -> Result<Intervals, JudgeError> {
        intervals(&self.scores, &self.uncertainty, level, self.range)
    }

    /// The estimated `l_p` error `||se||_p`.
    pub fn estimated_error(&self, p: Norm) -> f64 {
        estimated_error(&self.uncertainty, p)
    }
}

/// The most calls one run may buy of any judge: far beyond any real budget, and what
/// keeps every sum of prices and counts exact enough and finite.
pub const MAX_CALLS: f64 = 1e9;

/// Prices a budget can be spent on: each a normal, positive number whose calls the
/// budget buys at most [`MAX_CALLS`] of (a price of 1e-320 used to spin at full CPU),
/// and whose cost over every pair of items and judges stays finite (1e308 used to need
/// "inf").
fn check_prices(budget: f64, costs: &[f64], items: usize) -> Result<(), JudgeError> {
    for (judge, &cost) in costs.iter().enumerate() {
        let calls = budget / cost;
        let every_pair = cost * (items * costs.len()) as f64 * MAX_CALLS;
        if !(cost.is_normal() && cost > 0.0 && calls <= MAX_CALLS && every_pair.is_finite()) {
            return Err(JudgeError::Setting(format!(
                "judge {judge} costs {cost} a call against budget {budget}: a budget may buy at most {MAX_CALLS:e} calls of a judge and prices must be positive numbers well below 1e290; give prices and the budget in a larger unit (cents to dollars, say) or a smaller one"
            )));
        }
    }
    Ok(())
}

/// Checks a run's budget and settings.
fn check_settings(budget: f64, settings: &EstimateSettings) -> Result<(), JudgeError> {
    if !(budget.is_finite() && budget > 0.0) {
        return Err(JudgeError::Setting(format!(
            "budget {budget} must be positive"
        )));
    }
    if !(settings.delta > 0.0 && settings.delta < 1.0) {
        return Err(JudgeError::Setting(format!(
            "delta {} must be in (0, 1)",
            settings.delta
        )));
    }
    if let Some(tau) = settings.tau.filter(|t| !(t.is_finite() && *t >= 0.0)) {
        return Err(JudgeError::Setting(format!(
            "tau {tau} must be a number >= 0 (the optimistic bias added to each standard deviation)"
        )));
    }
    if let Some(target) = settings
        .target_error
        .filter(|e| !(e.is_finite() && *e > 0.0))
    {
        return Err(JudgeError::Setting(format!(
            "target error {target} must be a positive number (the estimated l_p error to stop at)"
        )));
    }
    Ok(())
}

/// Runs `method` on `pool` with `budget` (a cap when the settings name a target error).
///
/// # Errors
/// Budgets too small for the method's minimum, invalid settings, failed judge calls.
pub fn estimate(
    pool: &mut dyn JudgePool,
    budget: f64,
    method: &Method,
    settings: &EstimateSettings,
) -> Result<Estimate, JudgeError> {
    check_settings(budget, settings)?;
    check_prices(budget, pool.costs(), pool.items())?;
    let items = pool.items();
    let costs = pool.costs().to_vec();
    let judges = costs.len();
    let range = pool.range();
    let mut spender = Spender::new(pool, budget);
    let target = settings.target_error;
    let mut exploration = None;
    let mut tau = None;
    // With a target, two calls of every pair first (the oracle needs none): they are
    // the first calls of the uniform allocation, of Est-IVWE's Phase I and of
    // adaptive's screening, and size what explores for the budget the target is
    // predicted to need — the uniform allocation's for the pilot's variances (module
    // `plan`), an allocation that learns should need less — instead of for the cap.
    let mut pilot = vec![PairStats::default(); items * judges];
    let sizing = match target {
        Some(target) if !matches!(method, Method::Oracle { .. }) => {
            let calls = Allocation {
                judges,
                counts: vec![2; items * judges],
            };
            ensure_affordable(
                &calls,
                &costs,
                budget,
                "pilot every (item, judge) pair twice",
            )?;
            spend(&mut spender, &calls, &mut pilot)?;
            let plan = plan_budget(&pilot, &costs, range, settings.p, target, spender.spent())?;
            plan.uniform_total.min(budget)
        }
        _ => budget,
    };
    let scored = match method {
        Method::Uniform => {
            let fresh = pilot;
            let rule = |b: f64| uniform_counts(items, &costs, b);
            let equal = vec![1.0; items * judges];
            let plan = FixedWeights {
                rule: &rule,
                weights: &equal,
                per_call: PerCall::Pooled,
            };
            fixed_weight_phase(&mut spender, &plan, fresh, target, settings.p)?
        }
        Method::Oracle { variances } => {
            if variances.len() != items * judges {
                return Err(JudgeError::Setting(format!(
                    "{} oracle variances for {items} items × {judges} judges",
                    variances.len()
                )));
            }
            let weights = oracle_weights(variances, &costs, settings.p);
            let rule = |b: f64| integer_counts(&weights, variances, &costs, b, settings.p);
            let plan = FixedWeights {
                rule: &rule,
                weights: variances,
                per_call: PerCall::Known(variances),
            };
            let fresh = vec![PairStats::default(); items * judges];
            fixed_weight_phase(&mut spender, &plan, fresh, target, settings.p)?
        }
        Method::Adaptive => {
            let (scored, first) = crate::adaptive::adaptive(
                &mut spender,
                pilot,
                (budget, sizing),
                settings.delta,
                settings.p,
                target,
            )?;
            exploration = Some(first);
            scored
        }
        Method::OracleShared {
            variances,
            bias_covariance,
        } => {
            refuse_target(method, target)?;
            if variances.len() != items * judges || bias_covariance.len() != judges * judges {
                return Err(JudgeError::Setting(format!(
                    "{} oracle variances and a {}-entry bias covariance for {items} items × {judges} judges",
                    variances.len(),
                    bias_covariance.len()
                )));
            }
            let panel = SharedErrorPanel {
                call_variances: variances,
                bias_covariance,
                costs: &costs,
            };
            let none = Allocation {
                judges,
                counts: vec![0; items * judges],
            };
            let calls = shared_error_counts(&panel, &none, budget, settings.p)?;
            let mut stats = vec![PairStats::default(); items * judges];
            spend(&mut spender, &calls, &mut stats)?;
            Scored::from_gls(&gls_scores(
                &stats,
                variances,
                variances,
                bias_covariance,
                judges,
            )?)
        }
        Method::EstIvweShared { .. } => {
            let families = method.shared_families(judges).unwrap_or_default();
            if families.len() != judges {
                return Err(JudgeError::Setting(format!(
                    "{} families for {judges} judges",
                    families.len()
                )));
            }
            let (n0, phase_one) = explore(&mut spender, pilot, true, sizing, settings)?;
            exploration = Some(n0);
            shared_phase(&mut spender, phase_one, &families, settings.p, target)?
        }
        Method::EstIvwe | Method::EstIvweGaussian => {
            let gaussian = matches!(method, Method::EstIvweGaussian);
            let (n0, phase_one) = explore(&mut spender, pilot, gaussian, sizing, settings)?;
            tau = (!gaussian).then(|| {
                settings.tau.unwrap_or_else(|| {
                    let log_term = (2.0 * (items * judges) as f64 / settings.delta).ln();
                    range * (2.0 / (n0 - 1) as f64 * log_term).sqrt()
                })
            });
            exploration = Some(n0);
            // A floor keeps a constant judge (sample variance 0) usable as a weight.
            let floor = range * range * 1e-12;
            let variances: Vec<f64> = phase_one
                .iter()
                .map(|s| match tau {
                    Some(t) => (s.sample_variance().sqrt() + t).powi(2).max(floor),
                    None => s.sample_variance().max(floor),
                })
                .collect();
            second_phase(&mut spender, &variances, settings.p, &phase_one, target)?
        }
    };
    Ok(Estimate {
        scores: scored.scores,
        uncertainty: scored.uncertainty,
        range,
        pooled: spender.pooled().to_vec(),
        spent: spender.spent(),
        calls: spender.calls(),
        exploration,
        tau,
        phase_one_fallback: scored.fallback,
        target_reached: scored.reached,
    })
}

/// Est-IVWE's Phase I: every (item, judge) pair called `N0` times (the settings', or
/// [`default_exploration`] for the `sizing` budget), counting the `pilot`'s calls;
/// returns `N0` and every pair's calls.
///
/// # Errors
/// `N0` below 2, a budget that cannot buy Phase I, failed calls.
fn explore(
    spender: &mut Spender<'_>,
    pilot: Vec<PairStats>,
    gaussian: bool,
    sizing: f64,
    settings: &EstimateSettings,
) -> Result<(u64, Vec<PairStats>), JudgeError> {
    let costs = spender.costs().to_vec();
    let judges = costs.len();
    let items = pilot.len() / judges;
    let n0 = match settings.exploration {
        Some(n) => n,
        None => default_exploration(gaussian, items, &costs, sizing, settings),
    };
    if n0 < 2 {
        return Err(JudgeError::Setting(format!(
            "exploration N0 = {n0}: a sample variance needs at least 2 calls per pair"
        )));
    }
    let round: f64 = items as f64 * costs.iter().sum::<f64>();
    let budget = spender.left() + spender.spent();
    if round * n0 as f64 > budget {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed: round * n0 as f64,
            purpose: format!("explore every (item, judge) pair {n0} times (Phase I)"),
        });
    }
    let phase_one_calls = Allocation {
        judges,
        counts: pilot.iter().map(|s| n0.saturating_sub(s.count)).collect(),
    };
    let mut phase_one = pilot;
    spend(spender, &phase_one_calls, &mut phase_one)?;
    Ok((n0, phase_one))
}

/// The oracle for shared errors spends its budget; a target error is not built for it.
fn refuse_target(method: &Method, target: Option<f64>) -> Result<(), JudgeError> {
    match target {
        Some(_) => Err(JudgeError::Setting(format!(
            "{} spends its budget: a target error is not available for it yet; drop the target or use another method",
            method.name()
        ))),
        None => Ok(()),
    }
}

/// [`JudgeError::InfeasibleBudget`] when `calls` cost more than `budget`.
fn ensure_affordable(
    calls: &Allocation,
    costs: &[f64],
    budget: f64,
    purpose: &str,
) -> Result<(), JudgeError> {
    let needed = calls.cost(costs);
    if needed > budget {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed,
            purpose: purpose.into(),
        });
    }
    Ok(())
}

/// Phase II of Est-IVWE: the oracle allocation for the estimated
/// `variances` on what is left of the budget, fresh calls only, IVWE. When what is
/// left cannot score every item once more, the exploration's scores are used instead,
/// weighted by the same variances (and the result says so).
pub(crate) fn second_phase(
    spender: &mut Spender<'_>,
    variances: &[f64],
    p: Norm,
    exploration: &[PairStats],
    target: Option<f64>,
) -> Result<Scored, JudgeError> {
    let costs = spender.costs().to_vec();
    let weights = oracle_weights(variances, &costs, p);
    let rule = |b: f64| integer_counts(&weights, variances, &costs, b, p);
    let plan = FixedWeights {
        rule: &rule,
        weights: variances,
        per_call: PerCall::Fresh,
    };
    let fresh = vec![PairStats::default(); exploration.len()];
    match fixed_weight_phase(spender, &plan, fresh, target, p) {
        Err(JudgeError::InfeasibleBudget { .. }) => {
            let range = spender.range();
            let pooled = spender.pooled();
            let uncertainty = ivwe_uncertainty(exploration, variances, costs.len(), |i| {
                CallVariance::estimated(&pooled[i], range)
            });
            Ok(Scored {
                scores: ivwe(exploration, variances, costs.len()),
                uncertainty,
                fallback: true,
                reached: target.map(|_| false),
            })
        }
        other => other,
    }
}

/// The default Phase-I calls per pair `N0`, from balancing the two `N0`-dependent
/// terms of the error bound in Appendix B.4 (exploration noise through `tau`, falling
/// with `N0`, against the budget Phase I takes away, growing with it), with the
/// unknown variance aggregates replaced by their worst case `sigma = R/2`
/// (Popoviciu) so that the rule needs no knowledge of the instance:
///
/// - bounded, `p >= 2` (B.4.1): `N0 = (2 L sqrt(2B))^(2/3)`, growing like `B^(1/3)`;
/// - bounded, `p < 2` (B.4.2): `N0 = (16 · 2^((3p+2)/(2p+4)) L^((3p+2)/(2p+4)) sqrt(B))^((p+2)/(2p+2))`,
///   growing like `B^((p+2)/(4p+4))`;
/// - Gaussian (G.1): the multiplicative loss `1 + 2 sqrt(L / N0)` against the budget
///   `B - C N0` left, `N0 = (sqrt(L) B / C)^(2/3)`;
///
/// with `L = ln(2KJ / delta)` and `C = K sum_j c_j` the cost of one round. Capped so
/// that Phase I costs at most `B / 2`, and at least 2.
pub fn default_exploration(
    gaussian: bool,
    items: usize,
    costs: &[f64],
    budget: f64,
    settings: &EstimateSettings,
) -> u64 {
    let round: f64 = items as f64 * costs.iter().sum::<f64>();
    let log_term = (2.0 * (items * costs.len()) as f64 / settings.delta).ln();
    let balance = if gaussian {
        (log_term.sqrt() * budget / round).powf(2.0 / 3.0)
    } else {
        match settings.p {
            Norm::P(p) if p < 2.0 => {
                let e = (3.0 * p + 2.0) / (2.0 * p + 4.0);
                (16.0 * 2f64.powf(e) * log_term.powf(e) * budget.sqrt())
                    .powf((p + 2.0) / (2.0 * p + 2.0))
            }
            _ => (2.0 * log_term * (2.0 * budget).sqrt()).powf(2.0 / 3.0),
        }
    };
    let cap = (budget / (2.0 * round)).floor();
    balance.min(cap).floor().max(2.0) as u64
}
