//! The paper's global baselines (NashEval Appendix I.3): one lottery for every
//! context, computed from the training log's verdicts rather than from a fitted
//! payoff surface.
//!
//! - **Maximal lottery** (Eq. 78): the equilibrium (regularized by the fit's `ρ`) of
//!   the pooled training margins `M̂`.
//! - **Robust maximal lottery** (Eq. 79–81, after Khalaf et al.): per-group pooled
//!   margins `M̂^(g)` with the groups' shares of training prompts `w0`; the lottery
//!   maximising the worst case over the ambiguity set `{w : ½‖w − w0‖₁ ≤ τ}`, with
//!   Eq. 80's radius `τ_n = min{1, √(|G|/n) + √(2/n · ln(2/δ))}`, `δ = 0.05`, unless one
//!   is given. The groups are the values of a categorical context column.
//! - **Pluralistic leaderboard** (Eq. 82–84, after Haghtalab et al.): see
//!   [`crate::pluralistic`].

use serde::{Deserialize, Serialize};
use verdict_feedback::PairCountsBuilder;
use verdict_feedback::{ContextualLog, MenuFeedback};
use verdict_game::{default_radius, robust_lottery, Equilibrium, PayoffMatrix};
use verdict_ratings::{MarginFill, PairCounts, UnobservedPairs};

use crate::error::FitError;
use crate::groups::context_groups;
use crate::options::{checked_radius, groups_column, FitOptions};
use crate::pluralistic::{pluralistic_leaderboard, PluralisticBoard};
use crate::settings::PolicyRule;

/// A global baseline's lottery and how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobalPolicy {
    /// The probability of each agent, in the log's order, at every context.
    pub probabilities: Vec<f64>,
    /// What the method computed on the way.
    pub detail: GlobalDetail,
}

/// What a global baseline computed besides its lottery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum GlobalDetail {
    /// The maximal lottery of the pooled margins (Eq. 78).
    Lottery,
    /// The robust maximal lottery (Eq. 79–81).
    RobustLottery {
        /// The categorical context column whose values are the groups.
        column: String,
        /// The groups, as the column's values.
        groups: Vec<String>,
        /// `w0`: each group's share of the training prompts.
        weights: Vec<f64>,
        /// `τ`, given or Eq. 80's.
        radius: f64,
        /// `min_{w ∈ W} min_j πᵀ M_w e_j` at the answer (≤ 0).
        worst_case: f64,
    },
    /// The pluralistic leaderboard (Eq. 82–84).
    Pluralistic(PluralisticBoard),
}

/// The pooled training margins of NashEval Eq. 78 over the records `keep` accepts:
/// `M̂_jk` the mean over those records' comparisons of `j` and `k` (in any menu, at
/// any context) of the verdict oriented for `j`; `M̂_kj = −M̂_jk`, zero on the
/// diagonal and for pairs never compared. `K × K`, row-major, agents in log order.
pub fn pooled_margins_where(log: &ContextualLog, keep: impl Fn(&MenuFeedback) -> bool) -> Vec<f64> {
    pooled_sums(log, keep).0
}

/// [`pooled_margins_where`] and the pairs never compared, `(j, l)` with `j < l`.
fn pooled_sums(
    log: &ContextualLog,
    keep: impl Fn(&MenuFeedback) -> bool,
) -> (Vec<f64>, Vec<(usize, usize)>) {
    let k = log.agents.len();
    let (mut sum, mut count) = (vec![0.0; k * k], vec![0usize; k * k]);
    for record in log.feedback.iter().filter(|r| keep(r)) {
        let menu = &log.menus[record.menu];
        let size = menu.len();
        for a in 0..size {
            for b in a + 1..size {
                let (j, l) = (menu[a], menu[b]);
                let z = record.verdicts[a * size + b];
                sum[j * k + l] += z;
                sum[l * k + j] -= z;
                count[j * k + l] += 1;
                count[l * k + j] += 1;
            }
        }
    }
    let never = (0..k)
        .flat_map(|j| (j + 1..k).map(move |l| (j, l)))
        .filter(|&(j, l)| count[j * k + l] == 0)
        .collect();
    let margins = sum
        .iter()
        .zip(&count)
        .map(|(s, &n)| if n > 0 { s / n as f64 } else { 0.0 })
        .collect();
    (margins, never)
}

fn game_of(margins: &[f64], k: usize) -> Result<PayoffMatrix, FitError> {
    PayoffMatrix::from_row_major(margins, k)
        .map_err(|e| FitError::Model(format!("pooled training margins: {e}")))
}

/// The pooled verdicts of the records `keep` accepts as pair counts: per pair, the
/// first agent's wins `Σ max(z, 0)`, its losses `Σ max(−z, 0)` and ties `Σ (1 − |z|)`
/// (exact for verdicts in {−1, 0, 1}; for any verdict in [−1, 1] the count's margin is
/// the pooled mean verdict of Eq. 78).
pub fn pooled_counts_where(
    log: &ContextualLog,
    keep: impl Fn(&MenuFeedback) -> bool,
) -> PairCounts {
    let mut builder = PairCountsBuilder::default();
    for record in log.feedback.iter().filter(|r| keep(r)) {
        let menu = &log.menus[record.menu];
        let size = menu.len();
        for a in 0..size {
            for b in a + 1..size {
                let z = record.verdicts[a * size + b];
                builder.add(
                    menu[a] as u32,
                    menu[b] as u32,
                    [z.max(0.0), (-z).max(0.0), 1.0 - z.abs()],
                );
            }
        }
    }
    builder.finish(log.agents.len())
}

/// The game of the pooled training margins of the whole log, pairs never compared
/// filled as `fill` says (the pooled mean of Eq. 78 elsewhere, unchanged), and under
/// `core` the agents kept.
///
/// # Errors
/// [`FitError::Setting`] for pairs never compared under `refuse`; the completion's
/// fit failing.
pub fn pooled_game(
    log: &ContextualLog,
    fill: &MarginFill,
) -> Result<(PayoffMatrix, Option<Vec<usize>>), FitError> {
    pooled_game_where(log, |_| true, fill)
}

/// [`pooled_game`] of the records `keep` accepts.
///
/// # Errors
/// As [`pooled_game`].
pub fn pooled_game_where(
    log: &ContextualLog,
    keep: impl Fn(&MenuFeedback) -> bool,
    fill: &MarginFill,
) -> Result<(PayoffMatrix, Option<Vec<usize>>), FitError> {
    let k = log.agents.len();
    let (mut margins, never) = pooled_sums(log, &keep);
    // The counts and the completion are made only when a pair is missing and a
    // fill other than ties was asked for.
    let core = match (fill.unobserved, never.first()) {
        (_, None) | (UnobservedPairs::Ties, _) => None,
        (UnobservedPairs::Refuse, Some(&(j, l))) => {
            return Err(FitError::setting(
                "unobserved",
                format!(
                    "the global lottery reads every pair's pooled margin, but {} pairs of agents were never compared (first: {} vs {}); {}",
                    never.len(),
                    log.agents[j],
                    log.agents[l],
                    UnobservedPairs::remedies()
                ),
            ));
        }
        _ => {
            let completed = fill
                .complete(&pooled_counts_where(log, &keep))
                .map_err(|e| FitError::Model(format!("the pooled margins' completion: {e}")))?;
            for &(j, l) in &never {
                margins[j * k + l] = completed.margins[j * k + l];
                margins[l * k + j] = completed.margins[l * k + j];
            }
            completed.core
        }
    };
    Ok((game_of(&margins, k)?, core))
}

/// The maximal lottery of the pooled training margins (Eq. 78), regularized by `rho`
/// (the plain maximal lottery when `rho` is 0), pairs never compared filled as `fill`
/// says; under `core`, agents outside the core at probability 0.
///
/// # Errors
/// As [`pooled_game`]; [`FitError::Solver`] should the solver fail.
pub fn global_lottery(
    log: &ContextualLog,
    rho: f64,
    fill: &MarginFill,
) -> Result<Vec<f64>, FitError> {
    let (game, core) = pooled_game(log, fill)?;
    let kept: Vec<usize> = core.unwrap_or_else(|| (0..game.agents()).collect());
    let lottery = Equilibrium::new(rho, Vec::new(), None, None)
        .solve(&game.restricted(&kept))
        .map_err(|e| FitError::Solver {
            context: 0,
            message: format!("the global lottery: {e}"),
        })?;
    let mut probabilities = vec![0.0; game.agents()];
    for (&m, &p) in kept.iter().zip(&lottery.probabilities) {
        probabilities[m] = p;
    }
    Ok(probabilities)
}

/// The robust maximal lottery over the groups of the categorical context column
/// `column` (Eq. 79–81), with radius `radius` or Eq. 80's for the number of training
/// prompts.
///
/// # Errors
/// As [`context_groups`]; [`FitError::Setting`] for a radius outside `[0, 1]`;
/// [`FitError::Solver`] should the LP fail.
pub fn robust_global_lottery(
    log: &ContextualLog,
    column: &str,
    radius: Option<f64>,
    fill: &MarginFill,
) -> Result<GlobalPolicy, FitError> {
    let fill = fill.for_groups();
    let (names, of_context) = context_groups(log, column)?;
    // The training prompts: contexts with at least one record.
    let mut prompted = vec![false; log.contexts.len()];
    log.feedback.iter().for_each(|r| prompted[r.context] = true);
    let n = prompted.iter().filter(|&&p| p).count();
    let mut counts = vec![0usize; names.len()];
    (0..log.contexts.len())
        .filter(|&i| prompted[i])
        .for_each(|i| counts[of_context[i]] += 1);
    // Groups without a training prompt carry no margins and no weight.
    let kept: Vec<usize> = (0..names.len()).filter(|&g| counts[g] > 0).collect();
    let weights: Vec<f64> = kept.iter().map(|&g| counts[g] as f64 / n as f64).collect();
    let matrices = kept
        .iter()
        .map(|&g| Ok(pooled_game_where(log, |r| of_context[r.context] == g, &fill)?.0))
        .collect::<Result<Vec<_>, FitError>>()?;
    let radius = checked_radius(radius)?.unwrap_or_else(|| default_radius(kept.len(), n));
    let robust = robust_lottery(&matrices, &weights, radius).map_err(|e| FitError::Solver {
        context: 0,
        message: format!("the robust lottery: {e}"),
    })?;
    Ok(GlobalPolicy {
        probabilities: robust.probabilities,
        detail: GlobalDetail::RobustLottery {
            column: column.to_string(),
            groups: kept.iter().map(|&g| names[g].clone()).collect(),
            weights,
            radius,
            worst_case: robust.worst_case,
        },
    })
}

/// The global policy of `options.rule`, which must be one of the global rules
/// ([`PolicyRule::is_global`]).
///
/// # Errors
/// As the method's own function; [`FitError::Setting`] for the robust lottery
/// without [`FitOptions::groups_by`].
pub fn fit_global(log: &ContextualLog, options: &FitOptions) -> Result<GlobalPolicy, FitError> {
    match options.rule {
        PolicyRule::Lottery => Ok(GlobalPolicy {
            probabilities: global_lottery(log, options.rho, &options.margin_fill())?,
            detail: GlobalDetail::Lottery,
        }),
        PolicyRule::RobustLottery => robust_global_lottery(
            log,
            groups_column(options)?,
            options.robust_radius,
            &options.margin_fill(),
        ),
        PolicyRule::Pluralistic => {
            let board = pluralistic_leaderboard(log, options.seed)?;
            Ok(GlobalPolicy {
                probabilities: board.top_three_lottery(log.agents.len()),
                detail: GlobalDetail::Pluralistic(board),
            })
        }
        rule => Err(FitError::setting(
            "rule",
            format!("{rule:?} is computed per context, not globally"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::simplex_grid3;
    use verdict_game::{exploitability, worst_case_payoff};

    /// A log of four contexts in two groups (`src=a`, `src=b`), three agents, one
    /// pairwise record per context and pair with the given verdicts for agent `j`.
    fn grouped_log(verdicts: [[f64; 3]; 4]) -> ContextualLog {
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let mut feedback = Vec::new();
        for (c, row) in verdicts.iter().enumerate() {
            for (m, z) in row.iter().enumerate() {
                feedback.push(MenuFeedback {
                    context: c,
                    menu: m,
                    verdicts: vec![0.0, *z, -*z, 0.0],
                    responses: 1,
                    logged_propensity: None,
                });
            }
        }
        ContextualLog {
            agents: ["x", "y", "z"].map(String::from).to_vec(),
            contexts: ["c0", "c1", "c2", "c3"].map(String::from).to_vec(),
            feature_names: vec!["len".into(), "src=a".into(), "src=b".into()],
            features: vec![
                1.0, 1.0, 0.0, //
                2.0, 1.0, 0.0, //
                3.0, 0.0, 1.0, //
                4.0, 0.0, 1.0,
            ],
            menus: pairs.iter().map(|&(j, l)| vec![j, l]).collect(),
            feedback,
        }
    }

    /// Group a prefers a cycle x > y > z > x, group b a transitive order z > y > x.
    fn two_group_log() -> ContextualLog {
        grouped_log([
            [1.0, -1.0, 1.0],
            [1.0, -0.6, 0.8],
            [-1.0, -1.0, -1.0],
            [-0.4, -1.0, -0.6],
        ])
    }

    #[test]
    fn groups_are_read_back_from_one_hot_features() {
        let (names, groups) = context_groups(&two_group_log(), "src").unwrap();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(groups, [0, 0, 1, 1]);
        let missing = context_groups(&two_group_log(), "language").unwrap_err();
        assert!(missing
            .to_string()
            .contains("no one-hot categorical column \"language\""));
    }

    /// With radius 0 the adversary cannot move weight: the robust lottery is a
    /// maximal lottery of the weighted mixture `Σ w0_g M^(g)`, here the pooled margins
    /// (equal groups, one record per pair and context), so nothing beats it there.
    #[test]
    fn radius_zero_is_the_maximal_lottery_of_the_mixture() {
        let log = two_group_log();
        let policy = robust_global_lottery(&log, "src", Some(0.0), &MarginFill::default()).unwrap();
        let mixture = game_of(&pooled_margins_where(&log, |_| true), 3).unwrap();
        assert!(exploitability(&mixture, &policy.probabilities) < 1e-7);
        let GlobalDetail::RobustLottery { weights, .. } = policy.detail else {
            panic!("robust detail")
        };
        assert_eq!(weights, [0.5, 0.5]);
    }

    /// With radius 1 the adversary may put all weight on either group: the lottery
    /// maximises `min_g min_j πᵀ M^(g) e_j`, checked against a grid of the simplex in
    /// steps of 1/300.
    #[test]
    fn full_radius_matches_a_grid_search_of_the_worst_group() {
        let log = two_group_log();
        let policy = robust_global_lottery(&log, "src", Some(1.0), &MarginFill::default()).unwrap();
        let groups: Vec<PayoffMatrix> = (0..2)
            .map(|g| game_of(&pooled_margins_where(&log, |r| r.context / 2 == g), 3).unwrap())
            .collect();
        let worst = |pi: &[f64]| {
            groups
                .iter()
                .flat_map(|m| (0..3).map(move |j| (0..3).map(|i| pi[i] * m.get(i, j)).sum::<f64>()))
                .fold(f64::INFINITY, f64::min)
        };
        let n = 300;
        let best = simplex_grid3(n)
            .map(|pi| worst(&pi))
            .fold(f64::NEG_INFINITY, f64::max);
        let got = worst(&policy.probabilities);
        assert!(got >= best - 1e-7, "robust {got} below grid {best}");
        assert!(got <= best + 2.0 / n as f64, "robust {got}, grid {best}");
        assert!(
            (worst_case_payoff(&groups, &[0.5, 0.5], 1.0, &policy.probabilities) - got).abs()
                < 1e-9
        );
    }

    /// Eq. 80 for 2 groups and 4 prompts caps at 1; a radius outside [0, 1] and the
    /// robust rule without groups are refused by name.
    #[test]
    fn radius_defaults_to_eq_80_and_bad_settings_are_refused() {
        let log = two_group_log();
        let GlobalDetail::RobustLottery { radius, .. } =
            robust_global_lottery(&log, "src", None, &MarginFill::default())
                .unwrap()
                .detail
        else {
            panic!("robust detail")
        };
        assert_eq!(radius, default_radius(2, 4));
        let err =
            robust_global_lottery(&log, "src", Some(1.5), &MarginFill::default()).unwrap_err();
        assert!(matches!(
            err,
            FitError::Setting {
                setting: "robust_radius",
                ..
            }
        ));
        let options = FitOptions {
            rule: PolicyRule::RobustLottery,
            ..FitOptions::default()
        };
        let err = fit_global(&log, &options).unwrap_err();
        assert!(matches!(
            err,
            FitError::Setting {
                setting: "groups_by",
                ..
            }
        ));
    }
}
