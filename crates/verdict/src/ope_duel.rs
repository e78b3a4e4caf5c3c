//! Off-policy evaluation of duels: a router that offered two answers (`menu_size` 2)
//! and logged which won. A candidate `π` is scored by its expected payoff against an
//! opponent `ρ` (the logging policy, another candidate, a fixed agent):
//! `V(π, ρ) = E_x Σ_{a,b} π(a|x) ρ(b|x) P(a ≻ b | x)`, `P(a ≻ a) = 1/2`.
//!
//! With `D(a, b | x) = P(a ≻ b | x) − 1/2` antisymmetric, `V = 1/2 + E_x Σ_{a<b}
//! g_ab(x) D(a, b | x)` where `g_ab = π(a)ρ(b) − π(b)ρ(a)`. A logged duel `(x_i, a_i,
//! b_i, μ_i, y_i)` — the pair offered with probability `μ_i` (as a set) and `y_i` = 1
//! when `a_i` won, 0 when `b_i` won, 1/2 for a tie — gives:
//! - IPS: `1/2 + g_{a_i b_i}(x_i) (y_i − 1/2) / μ_i`;
//! - doubly robust: `1/2 + Σ_{a<b} g_ab(x_i) D̂_ab(x_i) + g_{a_i b_i}(x_i) (y_i − 1/2 −
//!   D̂_{a_i b_i}(x_i)) / μ_i`, with `D̂` a cross-fitted margin model — the pseudo-outcome
//!   construction of NashEval's debiased payoff (Dudík, Langford & Li 2011 for one
//!   action; NashEval Section 4 for pairs).
//!
//! Both are means of per-row terms, so each has a 95% interval, and two candidates'
//! paired difference on the same log is the mean of the per-row differences.

use crate::ope::{check_log, cross_fitted_by_group, Estimate};
use crate::VerdictError;

/// One logged duel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoggedDuel {
    /// The menu's first agent (index into the agents).
    pub first: usize,
    /// The menu's second agent.
    pub second: usize,
    /// The probability the pair was offered (as a set), in `(0, 1]`.
    pub propensity: f64,
    /// 1 when `first` won, 0 when `second` won, 1/2 for a tie.
    pub outcome: f64,
}

/// A candidate's payoff against an opponent, by IPS and DR.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DuelValue {
    /// Inverse propensity scoring.
    pub ips: Estimate,
    /// Doubly robust.
    pub dr: Estimate,
}

/// The unordered pairs `a < b` of `agents`, in the order of a margin model's columns.
pub fn pairs(agents: usize) -> Vec<(usize, usize)> {
    (0..agents)
        .flat_map(|a| (a + 1..agents).map(move |b| (a, b)))
        .collect()
}

/// The column of pair `{a, b}` in [`pairs`] order, and its sign: `D(a, b) = sign ·
/// D(min, max)`.
fn pair_column(a: usize, b: usize, agents: usize) -> (usize, f64) {
    let (lo, hi, sign) = if a < b { (a, b, 1.0) } else { (b, a, -1.0) };
    // Pairs before row `lo`: Σ_{r<lo} (agents − 1 − r).
    let before = lo * (2 * agents - lo - 1) / 2;
    (before + hi - lo - 1, sign)
}

/// Checks duels: propensities in `(0, 1]`, outcomes in `[0, 1]`, two distinct known
/// agents, and tables of the right size.
fn check(
    logged: &[LoggedDuel],
    agents: usize,
    tables: &[(&str, &[f64], usize)],
) -> Result<(), VerdictError> {
    let rows = logged.iter().map(|d| {
        let sound = (0.0..=1.0).contains(&d.outcome)
            && d.first != d.second
            && d.first < agents
            && d.second < agents;
        (
            d.propensity,
            sound.then_some(()).ok_or_else(|| {
                format!(
                    "a duel of agents {} and {} (of {agents}) with outcome {}; give two distinct agents and an outcome in [0, 1]",
                    d.first, d.second, d.outcome
                )
            }),
        )
    });
    check_log("duel", rows, tables)
}

/// The per-row IPS and DR terms of `target` against `opponent` (`n × agents` each),
/// with `margins` (`n × pairs`, [`pairs`] order).
fn terms(
    logged: &[LoggedDuel],
    target: &[f64],
    opponent: &[f64],
    margins: &[f64],
    agents: usize,
) -> (Vec<f64>, Vec<f64>) {
    let all = pairs(agents);
    let width = all.len();
    let mut ips = Vec::with_capacity(logged.len());
    let mut dr = Vec::with_capacity(logged.len());
    for (i, d) in logged.iter().enumerate() {
        let p = &target[i * agents..(i + 1) * agents];
        let r = &opponent[i * agents..(i + 1) * agents];
        let m = &margins[i * width..(i + 1) * width];
        let gain = |a: usize, b: usize| p[a] * r[b] - p[b] * r[a];
        let g = gain(d.first, d.second);
        let (column, sign) = pair_column(d.first, d.second, agents);
        let predicted = sign * m[column];
        let direct: f64 = all.iter().zip(m).map(|(&(a, b), m)| gain(a, b) * m).sum();
        ips.push(0.5 + g * (d.outcome - 0.5) / d.propensity);
        dr.push(0.5 + direct + g * (d.outcome - 0.5 - predicted) / d.propensity);
    }
    (ips, dr)
}

/// The payoff of `target` against `opponent` (both `n × agents`, row `i` the policy at
/// logged context `i`) on the logged duels, by IPS and by DR with `margins` (`n ×
/// pairs`: `D̂(a, b | x_i)` for each pair `a < b` in [`pairs`] order, cross-fitted).
///
/// # Errors
/// [`VerdictError::Data`] naming the row: a propensity of 0 or above 1, an outcome
/// outside `[0, 1]`, a duel of one agent with itself or of an unknown agent; tables of
/// the wrong size.
pub fn duel_value(
    logged: &[LoggedDuel],
    target: &[f64],
    opponent: &[f64],
    margins: &[f64],
    agents: usize,
) -> Result<DuelValue, VerdictError> {
    let [(ips, dr)] = checked_terms(logged, [("target", target)], opponent, margins, agents)?;
    Ok(DuelValue {
        ips: Estimate::of_terms(&ips),
        dr: Estimate::of_terms(&dr),
    })
}

/// A policy's per-row IPS and DR terms.
type Terms = (Vec<f64>, Vec<f64>);

/// The per-row IPS and DR terms of each named policy against `opponent`, after the
/// log and every table are checked.
fn checked_terms<const N: usize>(
    logged: &[LoggedDuel],
    policies: [(&str, &[f64]); N],
    opponent: &[f64],
    margins: &[f64],
    agents: usize,
) -> Result<[Terms; N], VerdictError> {
    let mut tables: Vec<(&str, &[f64], usize)> = policies
        .iter()
        .map(|&(name, p)| (name, p, agents))
        .collect();
    tables.push(("opponent", opponent, agents));
    tables.push(("margins", margins, pairs(agents).len()));
    check(logged, agents, &tables)?;
    Ok(policies.map(|(_, p)| terms(logged, p, opponent, margins, agents)))
}

/// The paired difference `V(a, ρ) − V(b, ρ)` of two candidates against one opponent,
/// by IPS and DR, each with its interval.
///
/// # Errors
/// As [`duel_value`].
pub fn duel_difference(
    logged: &[LoggedDuel],
    a: &[f64],
    b: &[f64],
    opponent: &[f64],
    margins: &[f64],
    agents: usize,
) -> Result<DuelValue, VerdictError> {
    let [(ips_a, dr_a), (ips_b, dr_b)] =
        checked_terms(logged, [("a", a), ("b", b)], opponent, margins, agents)?;
    Ok(DuelValue {
        ips: Estimate::of_difference(&ips_a, &ips_b),
        dr: Estimate::of_difference(&dr_a, &dr_b),
    })
}

/// Cross-fitted margins `D̂(a, b | x_i)` (`n × pairs`, [`pairs`] order): per fold (row
/// `i` in fold `i mod folds`), one ridge regression per pair of the centred outcome
/// (`y − 1/2`, oriented `a < b`) on the context `features` (`n × columns`), fitted on
/// the other folds' duels of that pair; a pair with no duel elsewhere gets 0 (even).
///
/// # Errors
/// [`VerdictError::Settings`] for fewer than 2 folds or more folds than rows; the
/// regression's errors.
pub fn cross_fitted_margins(
    logged: &[LoggedDuel],
    features: &[f64],
    columns: usize,
    agents: usize,
    folds: usize,
    lambda: f64,
) -> Result<Vec<f64>, VerdictError> {
    let rows: Vec<(usize, f64)> = logged
        .iter()
        .map(|d| {
            let (column, sign) = pair_column(d.first, d.second, agents);
            (column, sign * (d.outcome - 0.5))
        })
        .collect();
    let margins = cross_fitted_by_group(
        &rows,
        (features, columns),
        pairs(agents).len(),
        (folds, lambda),
        &|_| 0.0,
    )?;
    Ok(margins.into_iter().map(|m| m.clamp(-0.5, 0.5)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_columns_follow_the_pairs_order() {
        for agents in 2..7 {
            for (column, &(a, b)) in pairs(agents).iter().enumerate() {
                assert_eq!(pair_column(a, b, agents), (column, 1.0));
                assert_eq!(pair_column(b, a, agents), (column, -1.0));
            }
        }
    }
}
