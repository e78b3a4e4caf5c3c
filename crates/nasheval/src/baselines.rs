//! The paper's per-context baselines (NashEval Appendix I.3) as policies of a fitted
//! payoff surface `Â(x)`: each maps a context's estimated game to a distribution over
//! agents without the equilibrium NashEval solves.
//!
//! - **BT argmax** (Eq. 75): per-context Bradley–Terry scores `s(x)` of `Â(x)`, all
//!   mass on the largest (BT-plug-in on the plug-in surface, BT-debiased on the
//!   debiased one).
//! - **Borda**: all mass on the largest average row margin `(K−1)⁻¹ Σ_{k≠j} Â_jk(x)`.
//! - **BT-Reg** (Eq. 76): the regularized equilibrium, with NashEval's `ρ`, of the
//!   transitive game `tanh((s_j(x) − s_k(x))/2)`.
//! - **BT-cost** (Eq. 77): against the uniform opponent, the best lottery within the
//!   budget, `argmax_{π ∈ Δ, c·π ≤ C} πᵀ P(x) 1/K` with `P_jk = σ(s_j − s_k)`.
//!
//! Ties go to the agent listed first, as the paper breaks them by agent index.

use verdict_feedback::ContextualLog;
use verdict_game::PayoffMatrix;
use verdict_ratings::{BradleyTerry, PairCounts, PairTally};

use crate::error::FitError;
use crate::learner::sigmoid;
use crate::settings::PolicyRule;

/// `κ_BT` of Eq. 75: the ridge on the per-context scores.
pub const BT_RIDGE: f64 = 1e-4;

/// Bradley–Terry scores (natural-log scale, centred) of one skew-symmetric payoff
/// matrix `B` (`k × k`, row-major, entries in `[-1, 1]`), NashEval Eq. 75:
///
/// ```text
/// s = argmin (1/C(K,2)) Σ_{j<k} [log(1 + e^{s_j − s_k}) − (1 + B_jk)/2 · (s_j − s_k)] + κ/2 ‖s‖²
/// ```
///
/// with `κ = 1e-4`, by Newton's method to a largest gradient of 1e-9. Each pair counts
/// as one battle won `(1 + B_jk)/2` by `j`, so this is the ratings crate's penalised
/// fit with the ridge rescaled to its units (summed over pairs, log10 scale).
///
/// # Errors
/// [`FitError::Model`] should the fit fail (it does not on finite input).
pub fn bradley_terry_of_payoff(b: &[f64], k: usize) -> Result<Vec<f64>, FitError> {
    let mut pairs = Vec::with_capacity(k * (k - 1) / 2);
    for j in 0..k {
        for l in j + 1..k {
            let p = ((1.0 + b[j * k + l]) / 2.0).clamp(0.0, 1.0);
            pairs.push(PairTally {
                i: j as u32,
                j: l as u32,
                wins_i: p,
                wins_j: 1.0 - p,
                ties: 0.0,
            });
        }
    }
    let count = pairs.len() as f64;
    let counts = PairCounts::from_pairs(k, pairs);
    let ln10 = std::f64::consts::LN_10;
    let model = BradleyTerry {
        tol: 1e-9,
        l2: Some(count * BT_RIDGE * ln10 * ln10),
        ..BradleyTerry::default()
    };
    let fit = model
        .fit(&counts)
        .map_err(|e| FitError::Model(format!("per-context Bradley–Terry scores: {e}")))?;
    Ok(fit.beta)
}

/// The index of the largest value, the first on ties.
fn first_argmax(values: &[f64]) -> usize {
    (0..values.len()).fold(0, |best, j| if values[j] > values[best] { j } else { best })
}

/// All mass on `j`.
fn point_mass(k: usize, j: usize) -> Vec<f64> {
    let mut pi = vec![0.0; k];
    pi[j] = 1.0;
    pi
}

/// `max vᵀπ` over the simplex subject to `cᵀπ ≤ budget`. A linear objective over the
/// simplex cut by one half-space peaks at a vertex of the cut: one affordable agent,
/// or two agents, one above and one below the budget, mixed to spend it exactly. The
/// `O(K²)` vertices are enumerated (exact; an LP solver would find the same vertex).
/// `None` when no agent is affordable.
pub fn budgeted_best_reply(values: &[f64], costs: &[f64], budget: f64) -> Option<Vec<f64>> {
    let k = values.len();
    let mut best: Option<(f64, Vec<f64>)> = None;
    let mut consider = |value: f64, pi: Vec<f64>| {
        if best.as_ref().is_none_or(|(v, _)| value > *v + 1e-15) {
            best = Some((value, pi));
        }
    };
    for j in (0..k).filter(|&j| costs[j] <= budget) {
        consider(values[j], point_mass(k, j));
        for l in (0..k).filter(|&l| costs[l] > budget) {
            // pi_j c_j + (1 − pi_j) c_l = budget.
            let w = (costs[l] - budget) / (costs[l] - costs[j]);
            let mut pi = vec![0.0; k];
            pi[j] = w;
            pi[l] = 1.0 - w;
            consider(w * values[j] + (1.0 - w) * values[l], pi);
        }
    }
    best.map(|(_, pi)| pi)
}

/// The policy of `rule` at one context's estimated game `a` (`k × k`, row-major), or
/// for `BtReg` the transitive game whose regularized equilibrium it is (solved with
/// the fit's regularizer by the caller).
///
/// # Errors
/// [`FitError`] from the scores; for `BtCost`, when no agent is within the budget.
pub(crate) fn rule_policy(
    rule: PolicyRule,
    a: &[f64],
    k: usize,
    costs: &[f64],
    budget: Option<f64>,
) -> Result<RulePolicy, FitError> {
    Ok(match rule {
        PolicyRule::Equilibrium => unreachable!("the equilibrium is NashEval's own policy"),
        PolicyRule::Lottery | PolicyRule::RobustLottery | PolicyRule::Pluralistic => {
            unreachable!("a global rule's lottery is the model's, not a context's")
        }
        PolicyRule::Borda => {
            let margins: Vec<f64> = (0..k)
                .map(|j| {
                    (0..k)
                        .filter(|&l| l != j)
                        .map(|l| a[j * k + l])
                        .sum::<f64>()
                })
                .collect();
            RulePolicy::Ready(point_mass(k, first_argmax(&margins)))
        }
        PolicyRule::BtArgmax => {
            let s = bradley_terry_of_payoff(a, k)?;
            RulePolicy::Ready(point_mass(k, first_argmax(&s)))
        }
        PolicyRule::BtReg => {
            let s = bradley_terry_of_payoff(a, k)?;
            let rows: Vec<Vec<f64>> = (0..k)
                .map(|j| (0..k).map(|l| ((s[j] - s[l]) / 2.0).tanh()).collect())
                .collect();
            let game = PayoffMatrix::new(&rows)
                .map_err(|e| FitError::Model(format!("BT-Reg game: {e}")))?;
            RulePolicy::Solve(game)
        }
        PolicyRule::BtCost => {
            let s = bradley_terry_of_payoff(a, k)?;
            let values: Vec<f64> = (0..k)
                .map(|j| (0..k).map(|l| sigmoid(s[j] - s[l])).sum::<f64>() / k as f64)
                .collect();
            let budget = budget.ok_or_else(|| {
                FitError::setting("budget", "BT-cost needs agent costs and a budget")
            })?;
            RulePolicy::Ready(budgeted_best_reply(&values, costs, budget).ok_or_else(|| {
                FitError::setting(
                    "budget",
                    format!("no agent costs at most the budget {budget}"),
                )
            })?)
        }
    })
}

/// The pooled training margins of NashEval Eq. 78, the global maximal lottery's game,
/// over every record ([`crate::global::pooled_margins_where`]).
pub fn pooled_margins(log: &ContextualLog) -> Vec<f64> {
    crate::global::pooled_margins_where(log, |_| true)
}

/// A rule's policy, or the game its policy is the equilibrium of.
pub(crate) enum RulePolicy {
    /// The distribution.
    Ready(Vec<f64>),
    /// Solve this game with the fit's regularizer.
    Solve(PayoffMatrix),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::simplex_grid3;
    use verdict_feedback::MenuFeedback;

    /// Eq. 75 on two agents is a logistic fit of one proportion: with a negligible
    /// ridge, `σ(s_0 − s_1) = (1 + B_01)/2` (closed form).
    #[test]
    fn two_agent_scores_recover_the_win_rate() {
        for b in [-0.6, 0.0, 0.3, 0.9] {
            let s = bradley_terry_of_payoff(&[0.0, b, -b, 0.0], 2).unwrap();
            let p = sigmoid(s[0] - s[1]);
            // The ridge κ = 1e-4 moves the logit by at most κ·|s|·(…) ≈ 1e-4.
            assert!((p - (1.0 + b) / 2.0).abs() < 2e-4, "b {b}: p {p}");
        }
    }

    /// On a complete transitive game, BT scores and Borda's row sums order the agents
    /// alike (the paper's BT-debiased / Borda equivalence), so both pick the same one.
    #[test]
    fn bt_argmax_and_borda_agree_on_a_transitive_game() {
        let strengths = [0.3, -0.5, 1.2, 0.0, 0.7];
        let k = strengths.len();
        let a: Vec<f64> = (0..k * k)
            .map(|c| ((strengths[c / k] - strengths[c % k]) / 2.0f64).tanh())
            .collect();
        let pick = |rule| match rule_policy(rule, &a, k, &[], None).unwrap() {
            RulePolicy::Ready(pi) => first_argmax(&pi),
            RulePolicy::Solve(_) => unreachable!(),
        };
        assert_eq!(pick(PolicyRule::BtArgmax), 2);
        assert_eq!(pick(PolicyRule::Borda), 2);
        let s = bradley_terry_of_payoff(&a, k).unwrap();
        let order = |v: &[f64]| {
            let mut o: Vec<usize> = (0..k).collect();
            o.sort_by(|&x, &y| v[y].total_cmp(&v[x]));
            o
        };
        let row_sums: Vec<f64> = (0..k).map(|j| (0..k).map(|l| a[j * k + l]).sum()).collect();
        assert_eq!(order(&s), order(&row_sums));
    }

    /// Eq. 78 by hand on three records: a pair seen twice averages, a three-agent
    /// menu contributes each of its pairs, a pair never seen stays 0.
    #[test]
    fn pooled_margins_average_every_comparison_of_a_pair() {
        let log = ContextualLog {
            agents: ["a", "b", "c", "d"].map(String::from).to_vec(),
            contexts: ["x", "y", "z"].map(String::from).to_vec(),
            feature_names: Vec::new(),
            features: Vec::new(),
            menus: vec![vec![0, 1], vec![0, 1, 2]],
            feedback: vec![
                MenuFeedback {
                    context: 0,
                    menu: 0,
                    verdicts: vec![0.0, 1.0, -1.0, 0.0],
                    responses: 1,
                    logged_propensity: None,
                },
                MenuFeedback {
                    context: 1,
                    menu: 1,
                    #[rustfmt::skip]
                    verdicts: vec![
                        0.0, -0.5, 0.2,
                        0.5, 0.0, 1.0,
                        -0.2, -1.0, 0.0,
                    ],
                    responses: 2,
                    logged_propensity: None,
                },
                MenuFeedback {
                    context: 2,
                    menu: 0,
                    verdicts: vec![0.0, 0.0, 0.0, 0.0],
                    responses: 1,
                    logged_propensity: None,
                },
            ],
        };
        let m = pooled_margins(&log);
        let at = |j: usize, l: usize| m[j * 4 + l];
        assert!((at(0, 1) - (1.0 - 0.5 + 0.0) / 3.0).abs() < 1e-15);
        assert!((at(1, 0) + at(0, 1)).abs() < 1e-15);
        assert_eq!((at(0, 2), at(1, 2), at(2, 1)), (0.2, 1.0, -1.0));
        assert_eq!((at(0, 3), at(3, 2), at(3, 3)), (0.0, 0.0, 0.0));
    }

    /// The budgeted best reply against a brute force over a fine grid of the simplex
    /// (three agents, steps of 1/400).
    #[test]
    fn budgeted_best_reply_matches_a_grid_search() {
        let values = [0.8, 0.5, 0.2];
        let costs = [10.0, 4.0, 1.0];
        for budget in [1.0, 2.5, 4.0, 7.0, 10.0, 12.0] {
            let pi = budgeted_best_reply(&values, &costs, budget).unwrap();
            let value: f64 = pi.iter().zip(&values).map(|(p, v)| p * v).sum();
            let spent: f64 = pi.iter().zip(&costs).map(|(p, c)| p * c).sum();
            assert!(spent <= budget + 1e-12 && (pi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let n = 400;
            let best = simplex_grid3(n)
                .filter(|p| p.iter().zip(&costs).map(|(p, c)| p * c).sum::<f64>() <= budget + 1e-12)
                .map(|p| p.iter().zip(&values).map(|(p, v)| p * v).sum::<f64>())
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                value >= best - 1e-12,
                "budget {budget}: {value} < grid {best}"
            );
            assert!(
                value <= best + 0.6 * 0.8 / n as f64 * 10.0,
                "budget {budget}"
            );
        }
        assert!(budgeted_best_reply(&values, &costs, 0.5).is_none());
    }
}
