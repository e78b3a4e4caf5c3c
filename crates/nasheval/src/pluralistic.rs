//! The pluralistic leaderboard (NashEval Appendix I.3, Eq. 82–84), after Haghtalab et
//! al.'s Algorithms 1–2, as the NashEval paper adapts them to incomplete comparisons:
//!
//! 1. **Each training prompt is a voter.** Its scores come from the pairs observed
//!    there (Eq. 82): `û_x = argmin_u Σ_{(j,k) ∈ O_x} (u_j − u_k − Z_jk(x))² + ‖u‖²`,
//!    i.e. `(L_x + I) u = Σ Z_jk (e_j − e_k)` with `L_x` the Laplacian of the observed
//!    pairs. Its ranking sorts `û_x` best first, ties broken by a permutation fixed by
//!    the seed. (This completion is the adapter: the guarantees concern these inferred
//!    rankings, not the original cyclic preferences.)
//! 2. **Checkpoints of sizes 1, 2, 4, …** below `K`. At each, every committee `C_ℓ` of
//!    that size is enumerated, `b_aℓ` is the share of the prompts that rank `a` above
//!    every member of `C_ℓ` (Eq. 83), and the stable lottery over committees solves
//!    `min_{δ ∈ Δ_L} max_a Σ_ℓ δ_ℓ b_aℓ` exactly (Eq. 84; an LP in place of the
//!    multiplicative-weights routine, as the paper does for few models).
//! 3. **Iterated rounding.** A prompt's threshold under `δ` is the highest position `p`
//!    in its ranking such that a committee drawn from `δ` holds a member at or above
//!    `p` with probability at least `β − ε`; a committee leaves the prompt unsatisfied
//!    when its best member (for that prompt) is below `p`. Among the committees `δ`
//!    supports, the one leaving the smallest share unsatisfied is kept, and the step
//!    is repeated on the unsatisfied prompts until none remain or no progress is made.
//!    (This is our reading of "the fraction of unsatisfied prompts at threshold
//!    `β − ε`": under `δ` every prompt is satisfied with probability at least
//!    `β − ε`, so some supported committee satisfies at least that share.)
//! 4. **The ranking** lists each model when it first appears among the kept
//!    committees, checkpoint by checkpoint and round by round (within a committee,
//!    members representing more of the prompts first), then the remaining models by
//!    mean score. The policy is the uniform lottery over the top three.
//!
//! `ε = 0.01` and `β = 1/4 + 2ε` as in the paper; its `α = 1/2 + 4ε` bounds the stability
//! the analysis guarantees and enters none of these steps. The measured local
//! stability of each prefix of the ranking, `max_{a ∉ S} |a ≻ S| / n`, is reported.

use nalgebra::{DMatrix, DVector};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use verdict_feedback::ContextualLog;
use verdict_game::minimax_mixture;

use crate::error::FitError;

/// `ε` of Haghtalab et al.
pub const EPSILON: f64 = 0.01;
/// `β = 1/4 + 2ε`.
pub const BETA: f64 = 0.25 + 2.0 * EPSILON;
/// Most (committees × distinct rankings × agents) enumerated at one checkpoint: past
/// it the checkpoints stop and the rest of the ranking goes by mean score.
pub const ENUMERATION_LIMIT: f64 = 2e8;
/// Most rounding steps at one checkpoint (each removes at least one prompt's worth of
/// weight, or the checkpoint stops).
const MAX_ROUNDS: usize = 64;
/// `δ` entries above this count as supported.
const SUPPORTED: f64 = 1e-9;

/// One checkpoint: the committees kept by the rounding, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Committee size `k`.
    pub size: usize,
    /// The committees kept, as agent indices, in the order the rounding chose them.
    pub committees: Vec<Vec<usize>>,
    /// Eq. 84's value on all prompts: the largest share preferring one model to every
    /// member of a committee drawn from the stable lottery.
    pub value: f64,
}

/// The pluralistic leaderboard of a training log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluralisticBoard {
    /// Agents best first.
    pub ranking: Vec<usize>,
    /// The checkpoints computed.
    pub checkpoints: Vec<Checkpoint>,
    /// For each prefix size `k = 1, …, K − 1` of the ranking, `max_{a ∉ S} |a ≻ S| / n`.
    pub prefix_stability: Vec<f64>,
    /// Voters: training prompts with at least one comparison.
    pub prompts: usize,
    /// Whether the checkpoints stopped at [`ENUMERATION_LIMIT`].
    pub truncated: bool,
}

impl PluralisticBoard {
    /// The uniform lottery over the top three of the ranking (all agents when fewer).
    pub fn top_three_lottery(&self, k: usize) -> Vec<f64> {
        let top = self.ranking.len().min(3);
        let mut pi = vec![0.0; k];
        self.ranking[..top]
            .iter()
            .for_each(|&j| pi[j] = 1.0 / top as f64);
        pi
    }
}

/// Eq. 82: the ridge scores of one prompt from its comparisons `(j, k, Z_jk)`, `Z`
/// oriented for `j`.
pub fn prompt_scores(k: usize, comparisons: &[(usize, usize, f64)]) -> Vec<f64> {
    let mut system = DMatrix::<f64>::identity(k, k);
    let mut rhs = DVector::<f64>::zeros(k);
    for &(j, l, z) in comparisons {
        system[(j, j)] += 1.0;
        system[(l, l)] += 1.0;
        system[(j, l)] -= 1.0;
        system[(l, j)] -= 1.0;
        rhs[j] += z;
        rhs[l] -= z;
    }
    // L + I is symmetric positive definite: Cholesky always succeeds.
    system
        .cholesky()
        .map(|c| c.solve(&rhs).iter().copied().collect())
        .unwrap_or_else(|| vec![0.0; k])
}

/// The voters: distinct rankings with their weights (numbers of prompts).
struct Profile {
    /// Each distinct ranking, best first.
    orders: Vec<Vec<usize>>,
    /// `ranks[x][a]`: the position of agent `a` in ranking `x`.
    ranks: Vec<Vec<usize>>,
    /// How many prompts hold each ranking.
    weights: Vec<f64>,
}

impl Profile {
    /// The best position a member of `committee` takes in ranking `x`.
    fn best(&self, x: usize, committee: &[usize]) -> usize {
        committee
            .iter()
            .map(|&c| self.ranks[x][c])
            .min()
            .unwrap_or(usize::MAX)
    }

    /// Eq. 83 over the rankings `voters`: `rows[ℓ][a]`, the share preferring `a` to
    /// every member of committee `ℓ`.
    fn preference_rows(&self, voters: &[usize], committees: &[Vec<usize>]) -> Vec<Vec<f64>> {
        let k = self.ranks.first().map_or(0, Vec::len);
        let total: f64 = voters.iter().map(|&x| self.weights[x]).sum();
        committees
            .iter()
            .map(|committee| {
                let mut row = vec![0.0; k];
                for &x in voters {
                    let best = self.best(x, committee);
                    for &a in &self.orders[x][..best] {
                        row[a] += self.weights[x] / total;
                    }
                }
                row
            })
            .collect()
    }
}

/// All subsets of `0..k` of size `size`, in lexicographic order.
fn committees_of(k: usize, size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current: Vec<usize> = (0..size).collect();
    loop {
        out.push(current.clone());
        let Some(i) = (0..size).rev().find(|&i| current[i] < k - size + i) else {
            return out;
        };
        current[i] += 1;
        for t in i + 1..size {
            current[t] = current[t - 1] + 1;
        }
    }
}

/// `C(k, size)` as a float (no overflow for the sizes compared with the limit).
fn binomial(k: usize, size: usize) -> f64 {
    (0..size).fold(1.0, |acc, i| acc * (k - i) as f64 / (i + 1) as f64)
}

/// One checkpoint's iterated rounding: the committees kept and Eq. 84's value on all
/// prompts.
fn round_checkpoint(
    profile: &Profile,
    committees: &[Vec<usize>],
) -> Result<(Vec<Vec<usize>>, f64), FitError> {
    let threshold = BETA - EPSILON;
    let mut remaining: Vec<usize> = (0..profile.orders.len()).collect();
    let mut kept = Vec::new();
    let mut value = None;
    for _ in 0..MAX_ROUNDS {
        let rows = profile.preference_rows(&remaining, committees);
        let lottery = minimax_mixture(&rows).map_err(|e| FitError::Solver {
            context: 0,
            message: format!("the stable lottery over committees (Eq. 84): {e}"),
        })?;
        value.get_or_insert(lottery.value);
        let supported: Vec<usize> = (0..committees.len())
            .filter(|&l| lottery.mixture[l] > SUPPORTED)
            .collect();
        // Each remaining prompt's threshold position under δ.
        let thresholds: Vec<usize> = remaining
            .iter()
            .map(|&x| {
                let mut reach = vec![0.0; profile.ranks[x].len()];
                for &l in &supported {
                    reach[profile.best(x, &committees[l])] += lottery.mixture[l];
                }
                let mut cumulative = 0.0;
                reach
                    .iter()
                    .position(|r| {
                        cumulative += r;
                        cumulative >= threshold - 1e-12
                    })
                    .unwrap_or(reach.len() - 1)
            })
            .collect();
        let unsatisfied = |l: usize| -> Vec<usize> {
            remaining
                .iter()
                .zip(&thresholds)
                .filter(|&(&x, &p)| profile.best(x, &committees[l]) > p)
                .map(|(&x, _)| x)
                .collect()
        };
        let weight = |voters: &[usize]| voters.iter().map(|&x| profile.weights[x]).sum::<f64>();
        let (chosen, left) = supported
            .iter()
            .map(|&l| (l, unsatisfied(l)))
            .fold(
                None,
                |best: Option<(usize, Vec<usize>)>, (l, left)| match best {
                    Some((_, ref b)) if weight(b) <= weight(&left) => best,
                    _ => Some((l, left)),
                },
            )
            .ok_or_else(|| FitError::Solver {
                context: 0,
                message: "the stable lottery over committees supports no committee".into(),
            })?;
        kept.push(committees[chosen].clone());
        if left.is_empty() || weight(&left) >= weight(&remaining) - 1e-12 {
            break;
        }
        remaining = left;
    }
    Ok((kept, value.unwrap_or(0.0)))
}

/// The members of `committee` ordered by the prompts they represent (those whose best
/// member of the committee they are), most first, then by index.
fn by_representation(profile: &Profile, committee: &[usize]) -> Vec<usize> {
    let mut share = vec![0.0; committee.len()];
    for x in 0..profile.orders.len() {
        let best = profile.best(x, committee);
        let member = committee
            .iter()
            .position(|&c| profile.ranks[x][c] == best)
            .unwrap_or(0);
        share[member] += profile.weights[x];
    }
    let mut order: Vec<usize> = (0..committee.len()).collect();
    order.sort_by(|&a, &b| share[b].total_cmp(&share[a]).then(a.cmp(&b)));
    order.into_iter().map(|i| committee[i]).collect()
}

/// The pluralistic leaderboard of `log` (see the module documentation); `seed` fixes
/// the tie-breaking permutation.
///
/// # Errors
/// [`FitError::Log`] for a log without comparisons; [`FitError::Solver`] should an LP
/// fail.
pub fn pluralistic_leaderboard(
    log: &ContextualLog,
    seed: u64,
) -> Result<PluralisticBoard, FitError> {
    let k = log.agents.len();
    let mut comparisons: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); log.contexts.len()];
    for record in &log.feedback {
        let menu = &log.menus[record.menu];
        let size = menu.len();
        for a in 0..size {
            for b in a + 1..size {
                comparisons[record.context].push((menu[a], menu[b], record.verdicts[a * size + b]));
            }
        }
    }
    let mut tie_order: Vec<usize> = (0..k).collect();
    tie_order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut tie_position = vec![0; k];
    tie_order
        .iter()
        .enumerate()
        .for_each(|(p, &j)| tie_position[j] = p);
    let mut mean_score = vec![0.0; k];
    let mut counted: std::collections::BTreeMap<Vec<usize>, f64> = Default::default();
    let mut prompts = 0;
    for observed in comparisons.iter().filter(|c| !c.is_empty()) {
        let u = prompt_scores(k, observed);
        // Scores equal to 12 decimals are tied (a model never compared here sits at 0).
        let key: Vec<i64> = u.iter().map(|s| (s * 1e12).round() as i64).collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| {
            key[b]
                .cmp(&key[a])
                .then(tie_position[a].cmp(&tie_position[b]))
        });
        *counted.entry(order).or_default() += 1.0;
        mean_score.iter_mut().zip(&u).for_each(|(m, s)| *m += s);
        prompts += 1;
    }
    if prompts == 0 {
        return Err(FitError::Log(
            "the pluralistic leaderboard needs comparisons at some training prompt".into(),
        ));
    }
    let (orders, weights): (Vec<Vec<usize>>, Vec<f64>) = counted.into_iter().unzip();
    let ranks = orders
        .iter()
        .map(|order| {
            let mut rank = vec![0; k];
            order.iter().enumerate().for_each(|(p, &a)| rank[a] = p);
            rank
        })
        .collect();
    let profile = Profile {
        orders,
        ranks,
        weights,
    };
    let mut ranking: Vec<usize> = Vec::new();
    let mut checkpoints = Vec::new();
    let mut truncated = false;
    let mut size = 1;
    while size < k {
        if binomial(k, size) * profile.orders.len() as f64 * k as f64 > ENUMERATION_LIMIT {
            truncated = true;
            break;
        }
        let committees = committees_of(k, size);
        let (kept, value) = round_checkpoint(&profile, &committees)?;
        for committee in &kept {
            for member in by_representation(&profile, committee) {
                if !ranking.contains(&member) {
                    ranking.push(member);
                }
            }
        }
        checkpoints.push(Checkpoint {
            size,
            committees: kept,
            value,
        });
        size *= 2;
    }
    let mut rest: Vec<usize> = (0..k).filter(|j| !ranking.contains(j)).collect();
    rest.sort_by(|&a, &b| mean_score[b].total_cmp(&mean_score[a]).then(a.cmp(&b)));
    ranking.extend(rest);
    let all: Vec<usize> = (0..profile.orders.len()).collect();
    let prefix_stability = (1..k)
        .map(|top| {
            profile.preference_rows(&all, &[ranking[..top].to_vec()])[0]
                .iter()
                .copied()
                .fold(0.0, f64::max)
        })
        .collect();
    Ok(PluralisticBoard {
        ranking,
        checkpoints,
        prefix_stability,
        prompts,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_feedback::MenuFeedback;

    /// Two agents, one comparison `Z`: by symmetry `u = (d, −d)` with
    /// `(2d − Z)² + 2d²` least at `d = Z/3` (closed form).
    #[test]
    fn two_agent_scores_are_a_third_of_the_verdict() {
        for z in [-1.0, 0.4, 1.0] {
            let u = prompt_scores(2, &[(0, 1, z)]);
            assert!((u[0] - z / 3.0).abs() < 1e-14 && (u[1] + z / 3.0).abs() < 1e-14);
        }
        // A model never compared at the prompt scores 0.
        assert_eq!(prompt_scores(3, &[(0, 1, 1.0)])[2], 0.0);
    }

    #[test]
    fn committees_are_every_subset_of_the_size() {
        assert_eq!(
            committees_of(4, 2),
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
        );
        assert_eq!(committees_of(5, 3).len(), 10);
        assert_eq!(binomial(16, 8), 12870.0);
    }

    /// A log whose prompts give complete pairwise verdicts following `order` (best
    /// first), `copies` prompts per order.
    fn profile_log(k: usize, profiles: &[(Vec<usize>, usize)]) -> ContextualLog {
        let menus: Vec<Vec<usize>> = (0..k)
            .flat_map(|j| (j + 1..k).map(move |l| vec![j, l]))
            .collect();
        let mut feedback = Vec::new();
        let mut contexts = Vec::new();
        for (order, copies) in profiles {
            let position = |a: usize| order.iter().position(|&o| o == a).unwrap();
            for _ in 0..*copies {
                let c = contexts.len();
                contexts.push(format!("p{c}"));
                for (m, menu) in menus.iter().enumerate() {
                    let z = if position(menu[0]) < position(menu[1]) {
                        1.0
                    } else {
                        -1.0
                    };
                    feedback.push(MenuFeedback {
                        context: c,
                        menu: m,
                        verdicts: vec![0.0, z, -z, 0.0],
                        responses: 1,
                        logged_propensity: None,
                    });
                }
            }
        }
        ContextualLog {
            agents: (0..k).map(|j| format!("m{j}")).collect(),
            feature_names: Vec::new(),
            features: Vec::new(),
            contexts,
            menus,
            feedback,
        }
    }

    /// Six prompts rank A > B > C > D and four rank C > B > A > D. By hand:
    /// - size 1: `{A}` leaves 0.4 preferring B (and C) to it, `{B}` and `{C}` 0.6 each;
    ///   Eq. 84 mixes them, `δ = (9, 6, 4)/19` equalising the three columns at 6/19
    ///   (A's `0.6(δ_B + δ_C)`, B's `0.4δ_A + 0.6δ_C`, C's `0.4(δ_A + δ_B)`). At
    ///   threshold β − ε = 0.26 the first camp is satisfied only by `{A}` (it holds its
    ///   top choice with probability 9/19), the second by `{B}` or `{C}` (its top two
    ///   with 10/19): `{A}` leaves 0.4 unsatisfied, the others 0.6, so `{A}` is kept,
    ///   then `{C}` for the second camp alone (value 0 there);
    /// - size 2: `{A, C}` has no model preferred to both by anyone (value 0);
    /// - then B before D by mean score. Prefix stability: `{A}` 0.4, `{A, C}` 0, and
    ///   `{A, C, B}` 0.
    #[test]
    fn a_two_camp_profile_ranks_each_camps_favourite_first() {
        let log = profile_log(4, &[(vec![0, 1, 2, 3], 6), (vec![2, 1, 0, 3], 4)]);
        let board = pluralistic_leaderboard(&log, 7).unwrap();
        assert_eq!(board.ranking, [0, 2, 1, 3]);
        assert_eq!(board.prompts, 10);
        assert_eq!(board.checkpoints.len(), 2);
        assert_eq!(board.checkpoints[0].committees, [vec![0], vec![2]]);
        assert!((board.checkpoints[0].value - 6.0 / 19.0).abs() < 1e-8);
        assert_eq!(board.checkpoints[1].committees, [vec![0, 2]]);
        assert!(board.checkpoints[1].value.abs() < 1e-8);
        let expected = [0.4, 0.0, 0.0];
        for (got, want) in board.prefix_stability.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{:?}", board.prefix_stability);
        }
        let pi = board.top_three_lottery(4);
        assert_eq!(pi, [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0]);
    }

    /// Eq. 84 against enumeration: on a three-camp profile of five models, with
    /// `b_a(C)` counted directly, the LP's value at size 2 is sandwiched by brute
    /// force. Above: the best mixture of any two of the ten committees (steps of
    /// 1/200). Below: the best mixed outside model `q` on a grid of `Δ_5` (steps of
    /// 1/40), `max_q min_ℓ qᵀ b_ℓ`, which weak duality keeps under the value.
    #[test]
    fn stable_lottery_value_matches_enumeration() {
        let log = profile_log(
            5,
            &[
                (vec![0, 1, 2, 3, 4], 4),
                (vec![3, 4, 2, 1, 0], 3),
                (vec![4, 2, 3, 0, 1], 3),
            ],
        );
        let board = pluralistic_leaderboard(&log, 0).unwrap();
        let two = &board.checkpoints[1];
        assert_eq!(two.size, 2);
        let profile = [
            (vec![0, 1, 2, 3, 4], 0.4),
            (vec![3, 4, 2, 1, 0], 0.3),
            (vec![4, 2, 3, 0, 1], 0.3),
        ];
        let committees = committees_of(5, 2);
        // b_a(C) by direct counting.
        let b = |c: &[usize]| -> Vec<f64> {
            (0..5)
                .map(|a| {
                    profile
                        .iter()
                        .filter(|(order, _)| {
                            let pos = |m: usize| order.iter().position(|&o| o == m).unwrap();
                            c.iter().all(|&m| pos(a) < pos(m))
                        })
                        .map(|(_, w)| w)
                        .sum()
                })
                .collect()
        };
        let rows: Vec<Vec<f64>> = committees.iter().map(|c| b(c)).collect();
        let worst = |mix: &dyn Fn(usize) -> f64| {
            (0..5)
                .map(|a| (0..rows.len()).map(|l| mix(l) * rows[l][a]).sum::<f64>())
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let mut best = f64::INFINITY;
        for l in 0..rows.len() {
            for m in 0..rows.len() {
                for step in 0..=200 {
                    let t = step as f64 / 200.0;
                    let mix = |i: usize| {
                        (if i == l { t } else { 0.0 }) + (if i == m { 1.0 - t } else { 0.0 })
                    };
                    best = best.min(worst(&mix));
                }
            }
        }
        assert!(
            two.value <= best + 1e-8,
            "LP {} above enumeration {best}",
            two.value
        );
        let n = 40;
        let mut dual = f64::NEG_INFINITY;
        for q0 in 0..=n {
            for q1 in 0..=n - q0 {
                for q2 in 0..=n - q0 - q1 {
                    for q3 in 0..=n - q0 - q1 - q2 {
                        let q =
                            [q0, q1, q2, q3, n - q0 - q1 - q2 - q3].map(|v| v as f64 / n as f64);
                        let guaranteed = rows
                            .iter()
                            .map(|row| row.iter().zip(&q).map(|(b, q)| b * q).sum::<f64>())
                            .fold(f64::INFINITY, f64::min);
                        dual = dual.max(guaranteed);
                    }
                }
            }
        }
        assert!(
            two.value >= dual - 1e-8,
            "LP {} below the dual grid {dual}",
            two.value
        );
        assert!(
            two.value - dual < 0.02,
            "LP {}, dual grid {dual}",
            two.value
        );
    }
}
