//! Off-policy evaluation of a router from its decision log: what a candidate policy
//! would have scored on the logged traffic, from the logged choices, their exact
//! propensities (which `verdict serve` records) and the outcomes observed.
//!
//! For logged rows `(x_i, a_i, μ_i, r_i)` — context, the agent routed to, the
//! probability `μ_i = μ(a_i | x_i)` it was routed with, the outcome — and a candidate
//! `π(a | x)`, with importance weights `w_i = π(a_i | x_i) / μ_i`:
//! - IPS: `V̂ = (1/n) Σ w_i r_i` (Horvitz & Thompson 1952);
//! - self-normalised IPS: `V̂ = Σ w_i r_i / Σ w_i` (Swaminathan & Joachims 2015);
//! - doubly robust: `V̂ = (1/n) Σ [Σ_a π(a|x_i) q̂(x_i, a) + w_i (r_i − q̂(x_i, a_i))]`
//!   with `q̂` an outcome model, cross-fitted (Dudík, Langford & Li 2011).
//!
//! Each comes with a 95% interval from its per-row terms (the delta method for SNIPS),
//! and the overlap diagnostics that say whether to believe it: the effective sample
//! size `(Σw)² / Σw²`, the largest weight, and the share of the candidate's mass on
//! agents the logger offered below a floor (beyond what the logger put there) — an
//! estimate there extrapolates, and is flagged rather than printed as if sound.

use verdict_nasheval::{Regressor, Ridge};

use crate::VerdictError;

/// The 97.5% quantile of the standard normal: a 95% two-sided interval.
const Z_95: f64 = 1.959_963_984_540_054;

/// One logged decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoggedChoice {
    /// The agent routed to (index into the agents).
    pub action: usize,
    /// The probability it was routed with, `μ(a_i | x_i) ∈ (0, 1]`.
    pub propensity: f64,
    /// The outcome observed (a score, a thumbs-up as 0/1, …).
    pub outcome: f64,
}

/// A point estimate with its standard error and 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The estimate.
    pub estimate: f64,
    /// Its standard error.
    pub std_error: f64,
    /// The interval's ends, `estimate ∓ 1.96 std_error`.
    pub ci_low: f64,
    /// See `ci_low`.
    pub ci_high: f64,
}

impl Estimate {
    /// The mean of `terms` with the standard error `sd / √n` (sample sd, `n − 1`).
    pub(crate) fn of_terms(terms: &[f64]) -> Self {
        let n = terms.len().max(1) as f64;
        let mean = terms.iter().sum::<f64>() / n;
        let variance = if terms.len() > 1 {
            terms.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Self::with_error(mean, (variance / n).sqrt())
    }

    /// The paired difference of two policies' per-row terms on the same log: the
    /// mean and standard error of `a_i − b_i`.
    pub(crate) fn of_difference(a: &[f64], b: &[f64]) -> Self {
        let differences: Vec<f64> = a.iter().zip(b).map(|(a, b)| a - b).collect();
        Self::of_terms(&differences)
    }

    fn with_error(estimate: f64, std_error: f64) -> Self {
        Self {
            estimate,
            std_error,
            ci_low: estimate - Z_95 * std_error,
            ci_high: estimate + Z_95 * std_error,
        }
    }
}

/// How well the log covers a candidate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Overlap {
    /// `(Σ w)² / Σ w²`: how many rows the weighted estimate is worth.
    pub effective_sample_size: f64,
    /// The largest importance weight.
    pub max_weight: f64,
    /// The candidate's mean mass beyond the logger's on agents the logger offered
    /// with probability below the floor.
    pub mass_below_floor: f64,
    /// Whether that mass is positive: the estimate leans on agents the log barely saw.
    pub flagged: bool,
}

/// A candidate's value by every estimator, and its overlap.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PolicyValue {
    /// Inverse propensity scoring.
    pub ips: Estimate,
    /// Self-normalised IPS.
    pub snips: Estimate,
    /// Doubly robust.
    pub dr: Estimate,
    /// The overlap diagnostics.
    pub overlap: Overlap,
}

/// Checks the logged rows: propensities in `(0, 1]`, finite outcomes, actions among
/// `agents`, and policies of `n × agents` probabilities.
fn check(
    logged: &[LoggedChoice],
    agents: usize,
    tables: &[(&str, &[f64])],
) -> Result<(), VerdictError> {
    let rows = logged.iter().map(|row| {
        (
            row.propensity,
            (row.outcome.is_finite() && row.action < agents).then_some(()).ok_or_else(|| {
                format!(
                    "outcome {} for agent {} (of {agents}); give a finite outcome for one of the agents",
                    row.outcome, row.action
                )
            }),
        )
    });
    let sized: Vec<(&str, &[f64], usize)> = tables.iter().map(|&(n, t)| (n, t, agents)).collect();
    check_log("decision", rows, &sized)
}

/// Checks a log: not empty, each row's propensity in `(0, 1]` and its own check
/// passed (both named by row), and each table `rows × width` long.
///
/// # Errors
/// [`VerdictError::Data`] naming the first row or table that fails.
pub(crate) fn check_log(
    what: &str,
    rows: impl Iterator<Item = (f64, Result<(), String>)>,
    tables: &[(&str, &[f64], usize)],
) -> Result<(), VerdictError> {
    let mut n = 0;
    for (i, (propensity, own)) in rows.enumerate() {
        checked_propensity(propensity, what)
            .and(own)
            .map_err(|e| VerdictError::Data(format!("row {i}: {e}")))?;
        n += 1;
    }
    if n == 0 {
        return Err(VerdictError::Data(format!("no logged {what} to evaluate")));
    }
    for (name, table, width) in tables {
        if table.len() != n * width {
            return Err(VerdictError::Data(format!(
                "{name}: {} values for {n} rows of {width}",
                table.len()
            )));
        }
    }
    Ok(())
}

/// `propensity` when it is a probability in `(0, 1]` (a `what` logged with probability
/// 0 cannot be reweighted), else why not.
pub(crate) fn checked_propensity(propensity: f64, what: &str) -> Result<f64, String> {
    if propensity > 0.0 && propensity <= 1.0 {
        Ok(propensity)
    } else {
        Err(format!(
            "propensity {propensity} is not a probability in (0, 1]; a {what} logged with probability 0 cannot be reweighted"
        ))
    }
}

/// The importance weights `π(a_i | x_i) / μ_i`.
fn weights(logged: &[LoggedChoice], target: &[f64], agents: usize) -> Vec<f64> {
    logged
        .iter()
        .enumerate()
        .map(|(i, row)| target[i * agents + row.action] / row.propensity)
        .collect()
}

/// The per-row terms of the IPS and doubly-robust estimators at importance weights `w`
/// (their means are the estimates; a paired difference of two policies is the mean of
/// the differences).
fn terms(
    logged: &[LoggedChoice],
    target: &[f64],
    w: &[f64],
    outcome_model: &[f64],
    agents: usize,
) -> (Vec<f64>, Vec<f64>) {
    let ips = logged.iter().zip(w).map(|(r, w)| w * r.outcome).collect();
    let dr = logged
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let q = &outcome_model[i * agents..(i + 1) * agents];
            let p = &target[i * agents..(i + 1) * agents];
            let direct: f64 = p.iter().zip(q).map(|(p, q)| p * q).sum();
            direct + w[i] * (row.outcome - q[row.action])
        })
        .collect();
    (ips, dr)
}

/// The value of `target` (`n × agents` probabilities, row `i` the candidate's policy at
/// logged context `i`) on the log: IPS, SNIPS and DR with `outcome_model` (`n × agents`
/// predicted outcomes, cross-fitted), and the overlap against `logging` (`n × agents`,
/// the logger's probabilities of every agent at each row) at `floor`.
///
/// # Errors
/// [`VerdictError::Data`] naming the row: a propensity of 0 or above 1, a non-finite
/// outcome, an unknown agent; tables of the wrong size.
pub fn policy_value(
    logged: &[LoggedChoice],
    target: &[f64],
    outcome_model: &[f64],
    logging: &[f64],
    agents: usize,
    floor: f64,
) -> Result<PolicyValue, VerdictError> {
    check(
        logged,
        agents,
        &[
            ("target", target),
            ("outcome_model", outcome_model),
            ("logging", logging),
        ],
    )?;
    let w = weights(logged, target, agents);
    let (ips_terms, dr_terms) = terms(logged, target, &w, outcome_model, agents);
    let n = logged.len() as f64;
    let sum_w: f64 = w.iter().sum();
    let snips = if sum_w > 0.0 {
        let value = ips_terms.iter().sum::<f64>() / sum_w;
        // Delta method: the terms w_i (r_i − V̂), scaled by the mean weight.
        let mean_w = sum_w / n;
        let centred: Vec<f64> = logged
            .iter()
            .zip(&w)
            .map(|(r, w)| w * (r.outcome - value) / mean_w)
            .collect();
        Estimate::with_error(value, Estimate::of_terms(&centred).std_error)
    } else {
        Estimate::with_error(f64::NAN, f64::NAN)
    };
    Ok(PolicyValue {
        ips: Estimate::of_terms(&ips_terms),
        snips,
        dr: Estimate::of_terms(&dr_terms),
        overlap: Overlap::of(&w, mass_below_floor(target, logging, agents, floor)),
    })
}

/// The candidate's mean mass beyond the logger's on agents the logger gave a
/// probability below `floor`: `(1/n) Σ_i Σ_{a: μ(a|x_i) < floor} max(π(a|x_i) −
/// μ(a|x_i), 0)` (`target` and `logging` both `n × agents`; an unknown, NaN, logging
/// probability is not counted). The logger itself, or any candidate that follows it
/// there, has none.
pub(crate) fn mass_below_floor(target: &[f64], logging: &[f64], agents: usize, floor: f64) -> f64 {
    let n = target.len() / agents.max(1);
    target
        .iter()
        .zip(logging)
        .filter(|(_, &l)| l < floor)
        .map(|(p, l)| (p - l).max(0.0))
        .sum::<f64>()
        / n.max(1) as f64
}

impl Overlap {
    /// The diagnostics of importance weights `w` with the candidate's mass below the
    /// floor.
    pub(crate) fn of(w: &[f64], mass_below_floor: f64) -> Self {
        let sum_w: f64 = w.iter().sum();
        let sum_w2: f64 = w.iter().map(|w| w * w).sum();
        Self {
            effective_sample_size: if sum_w2 > 0.0 {
                sum_w * sum_w / sum_w2
            } else {
                0.0
            },
            max_weight: w.iter().copied().fold(0.0, f64::max),
            mass_below_floor,
            flagged: mass_below_floor > 1e-12,
        }
    }
}

/// The paired difference `V(a) − V(b)` of two candidates on the same log, by IPS and by
/// DR, each with its interval (the mean and standard error of the per-row differences).
///
/// # Errors
/// As [`policy_value`].
pub fn difference(
    logged: &[LoggedChoice],
    a: &[f64],
    b: &[f64],
    outcome_model: &[f64],
    agents: usize,
) -> Result<(Estimate, Estimate), VerdictError> {
    check(
        logged,
        agents,
        &[("a", a), ("b", b), ("outcome_model", outcome_model)],
    )?;
    let (ips_a, dr_a) = terms(
        logged,
        a,
        &weights(logged, a, agents),
        outcome_model,
        agents,
    );
    let (ips_b, dr_b) = terms(
        logged,
        b,
        &weights(logged, b, agents),
        outcome_model,
        agents,
    );
    Ok((
        Estimate::of_difference(&ips_a, &ips_b),
        Estimate::of_difference(&dr_a, &dr_b),
    ))
}

/// Cross-fitted outcome predictions `q̂(x_i, a)` (`n × agents`): per fold (row `i` in
/// fold `i mod folds`), one ridge regression per agent of the outcome on the context
/// `features` (`n × columns`), fitted on the other folds' rows routed to that agent
/// and predicted on the fold; an agent with no row elsewhere gets the other folds' mean
/// outcome.
///
/// # Errors
/// [`VerdictError::Settings`] for fewer than 2 folds or more folds than rows; the
/// regression's errors.
pub fn cross_fitted_outcomes(
    logged: &[LoggedChoice],
    features: &[f64],
    columns: usize,
    agents: usize,
    folds: usize,
    lambda: f64,
) -> Result<Vec<f64>, VerdictError> {
    let rows: Vec<(usize, f64)> = logged.iter().map(|r| (r.action, r.outcome)).collect();
    let mean = |others: &[usize]| {
        others.iter().map(|&i| logged[i].outcome).sum::<f64>() / others.len().max(1) as f64
    };
    cross_fitted_by_group(&rows, (features, columns), agents, (folds, lambda), &mean)
}

/// Cross-fitted ridge predictions by group (`n × groups`): `rows[i]` is row `i`'s
/// group and target; per fold (row `i` in fold `i mod folds`), one ridge regression per
/// group of the target on `features` (`n × columns`), fitted on the other folds' rows of
/// that group and predicted at every row of the fold; a group with no row elsewhere
/// gets `fallback` of the other folds' rows.
///
/// # Errors
/// [`VerdictError::Settings`] for fewer than 2 folds or more folds than rows; the
/// regression's errors.
pub(crate) fn cross_fitted_by_group(
    rows: &[(usize, f64)],
    (features, columns): (&[f64], usize),
    groups: usize,
    (folds, lambda): (usize, f64),
    fallback: &dyn Fn(&[usize]) -> f64,
) -> Result<Vec<f64>, VerdictError> {
    let n = rows.len();
    if folds < 2 || folds > n {
        return Err(VerdictError::Settings(format!(
            "{folds} folds for {n} logged rows: give at least 2 and at most one per row"
        )));
    }
    let features_of = |at: &[usize]| -> Vec<f64> {
        at.iter()
            .flat_map(|&i| features[i * columns..(i + 1) * columns].iter().copied())
            .collect()
    };
    let mut predictions = vec![0.0; n * groups];
    for fold in 0..folds {
        let held: Vec<usize> = (0..n).filter(|i| i % folds == fold).collect();
        let held_features = features_of(&held);
        let others: Vec<usize> = (0..n).filter(|i| i % folds != fold).collect();
        let mut by_group: Vec<Vec<usize>> = vec![Vec::new(); groups];
        for &i in &others {
            by_group[rows[i].0].push(i);
        }
        let otherwise = fallback(&others);
        for (group, members) in by_group.iter().enumerate() {
            let predicted = if members.is_empty() {
                vec![otherwise; held.len()]
            } else {
                let y: Vec<f64> = members.iter().map(|&i| rows[i].1).collect();
                Ridge::new(lambda)
                    .fit(&features_of(members), columns, &y)
                    .map_err(|e| VerdictError::Data(format!("the outcome model: {e}")))?
                    .predict(&held_features)
            };
            for (&i, p) in held.iter().zip(predicted) {
                predictions[i * groups + group] = p;
            }
        }
    }
    Ok(predictions)
}
