//! Choosing the cyclic rank of the structured outcome surface by what the equilibrium
//! needs: each candidate policy's exploitability, estimated on held-out contexts
//! against the doubly-robust pseudo-outcomes, rather than the battles' log loss.
//!
//! Why not log loss alone: where majorities cycle because groups of voters disagree
//! (each group transitive, their mix not), the cyclic part of `A(x)` can be a small
//! share of the battles' likelihood and still decide the equilibrium, so the held-out
//! log loss keeps the contextual Bradley–Terry surface (`r = 0`) whose Bradley–Terry
//! reading is exploitable (EXPERIMENTS.md, "Cycles from mixing groups").
//!
//! The estimate. Fold 0 of the cross-fit trains every candidate rank `r` on the other
//! folds; on fold 0's own contexts `i` (which no candidate saw) each candidate's surface
//! `Â_r(x_i)` gives its policy `π_r(x_i)`, the regularized equilibrium the fit would
//! play. The policy's exploitability `max_j (A(x) π_r)_j` is a maximum, which a noisy
//! target would bias upward, so the estimate fixes the response first: for each
//! candidate surface `s` (an "attacker"), `b_s(x_i) = argmax_j (Â_s(x_i) π_r(x_i))_j`,
//! chosen without fold 0's verdicts, and then
//!
//! ```text
//! V̂(r, s) = (1/n) Σ_i Σ_k Γ_i[b_s(x_i), k] π_r(x_i)_k,
//! ```
//!
//! with `Γ_i` the pseudo-outcomes of Eq. 42 from out-of-fold nuisances. `Γ` is
//! doubly robust (`E[Γ_i | x_i] = A(x_i)` when either nuisance is right) and linear
//! in the payoff, so `V̂(r, s)` is unbiased for the payoff of a fixed response, which
//! is at most the exploitability: every `V̂(r, s)` estimates a lower bound of it, and
//! the criterion keeps the largest, `Ê(r) = max_s V̂(r, s)` (the attacker that
//! exploits `π_r` most; a maximum over a handful of means over thousands of
//! contexts, so its upward bias is small beside the standard error).
//!
//! The choice. `Ê` has a standard error over contexts; the candidates share the
//! contexts and the pseudo-outcomes, so each rank's paired per-context difference
//! from the lowest is the comparison. Breiman's one-standard-error rule picks the
//! simplest rank (lowest `r`) whose paired difference from the lowest is within one
//! standard error of it — except that where the transitivity test below rejects on
//! the same held-out battles, `r = 0` is no candidate: it cannot hold the cycle the
//! battles show. Why the gate: with one battle per context the pseudo-outcomes'
//! inverse propensities make `Ê`'s standard error on a fifth of 30,000 contexts
//! 0.02–0.07 (EXPERIMENTS.md), wider than the true differences between ranks, so the
//! one-SE rule alone falls back to `r = 0` exactly where cycles matter.
//!
//! When it misleads: the bound is only as tight as the attackers' best responses (a
//! surface that misses a cycle cannot attack along it, so when every candidate
//! misses it, every estimate is low alike — on the worlds of EXPERIMENTS.md the
//! estimates are a fraction of the true exploitabilities); a wrong propensity *and*
//! outcome model bias `Γ`; with few held-out contexts the standard error is wide, so
//! the rule keeps the simplest rank the gate allows; and the transitivity test
//! compares trained models, so a Bradley–Terry candidate that trained worse than a
//! cyclic one can look like a cycle (its false alarms are counted in the tests).
//!
//! Beside it, a test of transitivity on the same held-out battles: the one-sided
//! paired z-test that a cyclic candidate's log loss is below the contextual
//! Bradley–Terry candidate's, Bonferroni-corrected over the cyclic ranks, at level
//! [`TRANSITIVITY_LEVEL`]. When the population's preferences are Bradley–Terry at
//! every context, the cyclic terms can only add variance out of sample, so the test
//! rejects at most at its level.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use verdict_feedback::ContextualLog;
use verdict_game::{Equilibrium, PayoffMatrix};
use verdict_ratings::normal_upper_tail;

use crate::crossfit::{gather, verdict_targets, Nuisances, Observed};
use crate::error::FitError;
use crate::gap::GameSet;
use crate::pairs::PairMap;
use crate::payoff::{PairTargets, PseudoOutcomes};
use crate::selection::{mean_and_error, paired_difference};
use crate::settings::RankCriterion;
use crate::structured::{HeadTable, Objective, StructuredSurface};

/// Level of the transitivity test.
pub const TRANSITIVITY_LEVEL: f64 = 0.05;

/// Held-out contexts whose games are held at once (bounds the games to
/// `chunk × candidates × K²` values).
const CHUNK: usize = 2048;

/// One candidate rank, measured on the held-out contexts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankScore {
    /// Cyclic rank `r`.
    pub rank: usize,
    /// `Ê(r)`: the estimated exploitability of its policy.
    pub exploitability: f64,
    /// Its standard error over contexts.
    pub standard_error: f64,
    /// The paired difference of `Ê(r)` from the lowest estimate, and its standard
    /// error.
    pub difference: (f64, f64),
    /// The rank of the attacker surface that exploits its policy most.
    pub attacker: usize,
    /// Mean held-out log loss of the contexts' battles (per unit of weight).
    pub battle_log_loss: f64,
    /// Share of the surface's squared margins that is cyclic (module doc of
    /// [`cyclic_share`]).
    pub cyclic_share: f64,
}

/// The transitivity test on held-out battles (module doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitivityTest {
    /// Its level.
    pub level: f64,
    /// The largest z statistic over the cyclic ranks (log loss of `r = 0` minus the
    /// cyclic rank's, over its standard error).
    pub statistic: f64,
    /// Its one-sided p-value, Bonferroni-corrected over the cyclic ranks.
    pub p_value: f64,
    /// Whether transitivity is rejected at the level.
    pub rejects: bool,
}

/// What the choice of rank measured and chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankChoice {
    /// The criterion that chose.
    pub criterion: RankCriterion,
    /// Held-out contexts measured on (fold 0 of the cross-fit).
    pub contexts: usize,
    /// Every candidate, by rank.
    pub candidates: Vec<RankScore>,
    /// The rank of the lowest estimated exploitability.
    pub lowest: usize,
    /// The rank fold 0's validation log loss chose.
    pub by_log_loss: usize,
    /// The rank chosen.
    pub chosen: usize,
    /// The transitivity test.
    pub transitivity: TransitivityTest,
}

/// Share of the squared margins `d_jk = 2 atanh(A_jk)` (summed over pairs) that is
/// cyclic: the combinatorial Hodge decomposition of Jiang et al. 2011 (used for
/// evaluation by Balduzzi et al. 2018) splits `d` into a gradient `s_j − s_k`,
/// `s_j = (1/K) Σ_k d_jk` its least-squares fit, and a cyclic remainder. Returns
/// `(cyclic, total)` squared sums. A contextual Bradley–Terry surface is 0.
pub fn cyclic_share(a: &PayoffMatrix) -> (f64, f64) {
    let k = a.agents();
    let margin = |j: usize, l: usize| margin_of(a.get(j, l));
    let scores: Vec<f64> = (0..k)
        .map(|j| (0..k).map(|l| margin(j, l)).sum::<f64>() / k as f64)
        .collect();
    let (mut cyclic, mut total) = (0.0, 0.0);
    for j in 0..k {
        for l in j + 1..k {
            let d = margin(j, l);
            cyclic += (d - (scores[j] - scores[l])).powi(2);
            total += d * d;
        }
    }
    (cyclic, total)
}

/// The margin `d = 2 atanh(A)` of a payoff `A = tanh(d/2)`, `A` kept inside (−1, 1).
fn margin_of(a: f64) -> f64 {
    2.0 * a.clamp(-1.0 + 1e-12, 1.0 - 1e-12).atanh()
}

/// `argmax_j (A π)_j`.
fn best_response(a: &PayoffMatrix, pi: &[f64]) -> usize {
    let payoffs = a.apply(pi);
    (0..payoffs.len())
        .max_by(|&x, &y| payoffs[x].total_cmp(&payoffs[y]))
        .unwrap_or(0)
}

/// Per-context values: `responses[c][s]` the response value of candidate `c`'s
/// policy against attacker `s`, the cyclic and total squared margins of each
/// candidate, and each candidate's summed battle log loss (`None` without a battle).
struct ContextValues {
    responses: Vec<Vec<f64>>,
    cyclic: Vec<(f64, f64)>,
    battle_loss: Vec<Option<f64>>,
}

/// One candidate surface at the held-out contexts.
pub struct RankedGames<'a> {
    /// Its cyclic rank (candidates are simpler the lower it is).
    pub rank: usize,
    /// Its games, one per held-out context in order.
    pub games: &'a dyn GameSet,
}

/// [`choose_rank_among`] for fold 0's structured models `candidates` (one per rank, in
/// increasing order) on fold 0's contexts `held`.
///
/// # Errors
/// As [`choose_rank_among`].
#[allow(clippy::too_many_arguments)]
pub fn choose_rank(
    log: &ContextualLog,
    pairs: &PairMap,
    nuisances: &Nuisances,
    observed: &Observed,
    held: &[usize],
    candidates: &[StructuredSurface],
    equilibrium: &Equilibrium,
    by_log_loss: usize,
    criterion: RankCriterion,
) -> Result<RankChoice, FitError> {
    let x = gather(&log.features, log.feature_names.len(), held);
    let tables: Vec<HeadTable> = candidates.iter().map(|c| c.heads(&x)).collect();
    let ranked: Vec<RankedGames<'_>> = candidates
        .iter()
        .zip(&tables)
        .map(|(c, table)| RankedGames {
            rank: c.rank(),
            games: table,
        })
        .collect();
    choose_rank_among(
        log,
        pairs,
        nuisances,
        observed,
        held,
        &ranked,
        equilibrium,
        by_log_loss,
        criterion,
    )
}

/// What the candidate surfaces say about the rank, on held-out contexts `held`
/// (sorted; no candidate and no nuisance at them was trained on their verdicts), from
/// out-of-fold nuisances; `by_log_loss` is the rank the validation log loss chose.
///
/// # Errors
/// [`FitError::Solver`] when an equilibrium fails.
#[allow(clippy::too_many_arguments)]
pub fn choose_rank_among(
    log: &ContextualLog,
    pairs: &PairMap,
    nuisances: &Nuisances,
    observed: &Observed,
    held: &[usize],
    candidates: &[RankedGames<'_>],
    equilibrium: &Equilibrium,
    by_log_loss: usize,
    criterion: RankCriterion,
) -> Result<RankChoice, FitError> {
    let targets = verdict_targets(log, observed, pairs, held);
    // Targets come context by context in `held`'s order: each context's range.
    let mut battles = vec![0..0; held.len()];
    let mut position = 0;
    for (r, &i) in held.iter().enumerate() {
        let start = position;
        while position < targets.len() && targets[position].row == i {
            position += 1;
        }
        battles[r] = start..position;
    }
    let gamma = PseudoOutcomes {
        log,
        observed,
        pairs,
        nuisances,
    };
    let k = log.agents.len();
    let m = candidates.len();
    let mut values: Vec<ContextValues> = Vec::with_capacity(held.len());
    for start in (0..held.len()).step_by(CHUNK) {
        let rows = start..held.len().min(start + CHUNK);
        let mut policies = Vec::with_capacity(m);
        let mut games = Vec::with_capacity(m);
        for candidate in candidates {
            let chunk = candidate.games.games(rows.clone());
            let solved = equilibrium.solve_all(&chunk);
            let mut chunk_policies = Vec::with_capacity(chunk.len());
            for (offset, lottery) in solved.into_iter().enumerate() {
                let lottery = lottery.map_err(|e| FitError::Solver {
                    context: held[start + offset],
                    message: e.to_string(),
                })?;
                chunk_policies.push(lottery.probabilities);
            }
            policies.push(chunk_policies);
            games.push(chunk);
        }
        let chunk_values: Vec<ContextValues> = rows
            .clone()
            .into_par_iter()
            .map(|row| {
                let offset = row - start;
                let i = held[row];
                let mut g = vec![0.0; k * k];
                for (p, &(a, b)) in pairs.pairs.iter().enumerate() {
                    let v = gamma.value(i, p);
                    g[a * k + b] = v;
                    g[b * k + a] = -v;
                }
                let responses = (0..m)
                    .map(|c| {
                        let pi = &policies[c][offset];
                        (0..m)
                            .map(|s| {
                                let j = best_response(&games[s][offset], pi);
                                g[j * k..(j + 1) * k]
                                    .iter()
                                    .zip(pi)
                                    .map(|(x, y)| x * y)
                                    .sum()
                            })
                            .collect()
                    })
                    .collect();
                let cyclic = (0..m).map(|c| cyclic_share(&games[c][offset])).collect();
                let battle_loss = (0..m)
                    .map(|c| {
                        let battles = &targets[battles[row].clone()];
                        (!battles.is_empty()).then(|| {
                            battles
                                .iter()
                                .map(|t| {
                                    let d = margin_of(games[c][offset].get(t.first, t.second));
                                    t.weight * Objective::Verdict.at(d, t.target).0
                                })
                                .sum()
                        })
                    })
                    .collect();
                ContextValues {
                    responses,
                    cyclic,
                    battle_loss,
                }
            })
            .collect();
        values.extend(chunk_values);
    }
    let total_weight: f64 = targets.iter().map(|t| t.weight).sum();
    let losses = BattleLosses {
        per_context: (0..m)
            .map(|c| values.iter().filter_map(|v| v.battle_loss[c]).collect())
            .collect(),
        mean: (0..m)
            .map(|c| {
                values.iter().filter_map(|v| v.battle_loss[c]).sum::<f64>()
                    / total_weight.max(f64::MIN_POSITIVE)
            })
            .collect(),
    };
    let mut scores: Vec<RankScore> = Vec::with_capacity(m);
    let mut chosen_values: Vec<Vec<f64>> = Vec::with_capacity(m);
    for (c, candidate) in candidates.iter().enumerate() {
        let (mut best, mut attacker) = ((f64::NEG_INFINITY, 0.0), 0);
        let mut kept = Vec::new();
        for s in 0..m {
            let per_context: Vec<f64> = values.iter().map(|v| v.responses[c][s]).collect();
            let estimate = mean_and_error(per_context.iter().copied());
            if estimate.0 > best.0 {
                (best, attacker) = (estimate, s);
                kept = per_context;
            }
        }
        let (cyclic, total) = values.iter().fold((0.0, 0.0), |(a, b), v| {
            (a + v.cyclic[c].0, b + v.cyclic[c].1)
        });
        scores.push(RankScore {
            rank: candidate.rank,
            exploitability: best.0,
            standard_error: best.1,
            difference: (0.0, 0.0),
            attacker: candidates[attacker].rank,
            battle_log_loss: losses.mean[c],
            cyclic_share: if total > 0.0 { cyclic / total } else { 0.0 },
        });
        chosen_values.push(kept);
    }
    let estimates: Vec<f64> = scores.iter().map(|s| s.exploitability).collect();
    let ranks: Vec<usize> = scores.iter().map(|s| s.rank).collect();
    let lowest_of = |eligible: &dyn Fn(usize) -> bool| {
        (0..m)
            .filter(|&c| eligible(c))
            .min_by(|&a, &b| estimates[a].total_cmp(&estimates[b]))
    };
    let paired = |c: usize, reference: usize| {
        paired_difference(&chosen_values[c], &chosen_values[reference])
    };
    let lowest = lowest_of(&|_| true).unwrap_or(0);
    for (c, score) in scores.iter_mut().enumerate() {
        score.difference = paired(c, lowest);
    }
    let transitivity = transitivity_test(&losses, candidates);
    // Where the held-out battles reject transitivity, rank 0 cannot hold what they
    // show and is no candidate.
    let refuses_bradley_terry = transitivity.rejects && ranks.iter().any(|&r| r > 0);
    let eligible = |c: usize| !(refuses_bradley_terry && ranks[c] == 0);
    let chosen = match (criterion, lowest_of(&eligible)) {
        (RankCriterion::LogLoss, _) | (_, None) => by_log_loss,
        (RankCriterion::Exploitability, Some(best)) => (0..m)
            .filter(|&c| eligible(c))
            .find(|&c| {
                let (difference, error) = paired(c, best);
                difference <= error
            })
            .map_or(ranks[best], |c| ranks[c]),
    };
    Ok(RankChoice {
        criterion,
        contexts: held.len(),
        lowest: scores.get(lowest).map_or(0, |s| s.rank),
        by_log_loss,
        chosen,
        transitivity,
        candidates: scores,
    })
}

/// Held-out battle log losses (the verdict objective, ties half a win) of each
/// candidate: per held context with a battle (summed over its battles' weights) and
/// the mean per unit weight.
struct BattleLosses {
    /// `[candidate][context]` summed losses; contexts without a battle are left out.
    per_context: Vec<Vec<f64>>,
    /// Mean per unit weight, per candidate.
    mean: Vec<f64>,
}

/// The one-sided paired z-test of each cyclic candidate's held-out battle log loss
/// against the first candidate's (`r = 0`), Bonferroni-corrected.
fn transitivity_test(losses: &BattleLosses, candidates: &[RankedGames<'_>]) -> TransitivityTest {
    let base = candidates.iter().position(|c| c.rank == 0);
    let mut statistic = f64::NEG_INFINITY;
    let mut tests = 0;
    if let Some(base) = base {
        for (c, candidate) in candidates.iter().enumerate() {
            if candidate.rank == 0 {
                continue;
            }
            // The log loss `r = 0` loses to the cyclic rank, per context.
            let (mean, se) = paired_difference(&losses.per_context[base], &losses.per_context[c]);
            let z = if se > 0.0 { mean / se } else { 0.0 };
            statistic = statistic.max(z);
            tests += 1;
        }
    }
    if tests == 0 {
        statistic = 0.0;
    }
    let p_value = (normal_upper_tail(statistic) * tests.max(1) as f64).min(1.0);
    TransitivityTest {
        level: TRANSITIVITY_LEVEL,
        statistic,
        p_value,
        rejects: p_value <= TRANSITIVITY_LEVEL,
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use verdict_feedback::{ContextualLogBuilder, Response};
    use verdict_game::exploitability;

    use super::*;
    use crate::crossfit::Outcomes;
    use crate::pairs::AggregatorKind;

    /// Three agents, every pair a menu offered with probability 1/3, one battle per
    /// context (no tie), and a known surface: Bradley–Terry scores `(x, 0, −x)` plus a
    /// rock–paper–scissors margin `c` on every pair (`d_01 = d_12 = d_20 = c`), with
    /// `x ~ U(−1, 1)`. Returns the log, its pairs and the true games.
    fn planted(contexts: usize, c: f64, seed: u64) -> (ContextualLog, PairMap, Vec<PayoffMatrix>) {
        let names = ["a", "b", "c"].map(String::from);
        let menus: Vec<Vec<String>> = vec![
            vec![names[0].clone(), names[1].clone()],
            vec![names[0].clone(), names[2].clone()],
            vec![names[1].clone(), names[2].clone()],
        ];
        let mut builder = ContextualLogBuilder::with_catalogue(&menus).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut features, mut games) = (Vec::new(), Vec::new());
        for i in 0..contexts {
            let x: f64 = rng.random_range(-1.0..1.0);
            features.push(x);
            let s = [x, 0.0, -x];
            let cyclic = |j: usize, k: usize| match (k + 3 - j) % 3 {
                1 => c,
                2 => -c,
                _ => 0.0,
            };
            let a: Vec<Vec<f64>> = (0..3)
                .map(|j| {
                    (0..3)
                        .map(|k| ((s[j] - s[k] + cyclic(j, k)) / 2.0).tanh())
                        .collect()
                })
                .collect();
            let menu = rng.random_range(0..3usize);
            let (j, k) = [(0, 1), (0, 2), (1, 2)][menu];
            let first_wins = rng.random::<f64>() < f64::midpoint(1.0, a[j][k]);
            let winner = if first_wins { j } else { k };
            builder
                .add_to_menu(i, menu, &Response::Duel(Some(names[winner].clone())))
                .unwrap();
            games.push(PayoffMatrix::new(&a).unwrap());
        }
        let log = builder.finish(
            (0..contexts).map(|i| format!("c{i}")).collect(),
            vec!["x".into()],
            features,
        );
        let pairs = PairMap::new(3, &log.menus, AggregatorKind::Mean).unwrap();
        (log, pairs, games)
    }

    /// The true nuisances of [`planted`]: propensity 1/3, outcome means `A(x)`.
    fn true_nuisances(log: &ContextualLog, pairs: &PairMap, games: &[PayoffMatrix]) -> Nuisances {
        let mut columns = vec![0.0; games.len() * pairs.columns];
        for (i, a) in games.iter().enumerate() {
            for (p, holders) in pairs.holders.iter().enumerate() {
                let (j, k) = pairs.pairs[p];
                for h in holders {
                    columns[i * pairs.columns + h.column] = a.get(j, k);
                }
            }
        }
        Nuisances {
            propensity: vec![1.0 / 3.0; log.feedback.len()],
            outcome: Outcomes::Columns(columns),
        }
    }

    /// The Bradley–Terry part alone of each game (the cycle dropped): what a rank-0
    /// surface of this world would learn at best.
    fn without_cycle(games: &[PayoffMatrix], log: &ContextualLog) -> Vec<PayoffMatrix> {
        games
            .iter()
            .zip(&log.features)
            .map(|(_, &x)| {
                let s = [x, 0.0, -x];
                let a: Vec<Vec<f64>> = (0..3)
                    .map(|j| (0..3).map(|k| ((s[j] - s[k]) / 2.0).tanh()).collect())
                    .collect();
                PayoffMatrix::new(&a).unwrap()
            })
            .collect()
    }

    /// The rank choice among `candidates` (rank, games) on every context of a planted
    /// log, with its true nuisances.
    fn choose_planted(
        (log, pairs, truth): &(ContextualLog, PairMap, Vec<PayoffMatrix>),
        candidates: &[(usize, &Vec<PayoffMatrix>)],
    ) -> RankChoice {
        let ranked: Vec<RankedGames<'_>> = candidates
            .iter()
            .map(|&(rank, games)| RankedGames { rank, games })
            .collect();
        choose_rank_among(
            log,
            pairs,
            &true_nuisances(log, pairs, truth),
            &Observed::new(log),
            &(0..log.contexts.len()).collect::<Vec<_>>(),
            &ranked,
            &Equilibrium::new(0.001, Vec::new(), None, None),
            0,
            RankCriterion::Exploitability,
        )
        .unwrap()
    }

    /// With the true surface among the attackers and the true nuisances, the
    /// estimate of the cycle-blind candidate's exploitability is unbiased for its true
    /// exploitability (computed exactly from the planted games): within 3 standard
    /// errors, and the standard error under 0.025 at 6,000 contexts (when written:
    /// 0.364 ± 0.019 against the true 0.358; the true surface's own policy −0.003 ±
    /// 0.009 against 0.00006). The true
    /// surface's own policy is estimated near its true exploitability (about 0), and
    /// the choice keeps the cyclic rank, which the one-SE rule may only give up for
    /// a simpler rank within a standard error.
    #[test]
    fn the_estimate_is_unbiased_for_the_true_exploitability_on_a_planted_world() {
        let world = planted(6000, 1.5, 7);
        let (log, _, truth) = &world;
        let blind = without_cycle(truth, log);
        let choice = choose_planted(&world, &[(0, &blind), (1, truth)]);
        let equilibrium = Equilibrium::new(0.001, Vec::new(), None, None);
        let true_exploitability = |games: &[PayoffMatrix]| -> f64 {
            let policies = equilibrium.solve_all(games);
            truth
                .iter()
                .zip(policies)
                .map(|(a, pi)| exploitability(a, &pi.unwrap().probabilities))
                .sum::<f64>()
                / truth.len() as f64
        };
        let (blind_truth, own_truth) = (true_exploitability(&blind), true_exploitability(truth));
        let [blind_score, own_score] = [&choice.candidates[0], &choice.candidates[1]];
        assert!(
            blind_truth > 0.2,
            "the cycle-blind policy is exploitable: {blind_truth}"
        );
        assert_eq!(blind_score.attacker, 1, "the true surface attacks best");
        assert!(blind_score.standard_error < 0.025, "{blind_score:?}");
        assert!(
            (blind_score.exploitability - blind_truth).abs() < 3.0 * blind_score.standard_error,
            "estimate {} ± {} against the truth {blind_truth}",
            blind_score.exploitability,
            blind_score.standard_error
        );
        assert!(
            (own_score.exploitability - own_truth).abs() < 3.0 * own_score.standard_error,
            "{own_score:?} against {own_truth}"
        );
        assert_eq!(choice.chosen, 1, "{choice:?}");
        assert_eq!(choice.lowest, 1);
        assert!(blind_score.cyclic_share < 1e-20 && own_score.cyclic_share > 0.1);
        assert!(choice.transitivity.rejects, "{:?}", choice.transitivity);
    }

    /// Without a cycle in the world, a candidate that adds a spurious one is no
    /// better: the one-SE rule keeps the Bradley–Terry rank, and the transitivity
    /// test does not reject.
    #[test]
    fn a_spurious_cycle_is_not_chosen_on_a_transitive_planted_world() {
        let world = planted(3000, 0.0, 11);
        let (_, _, spurious) = planted(3000, 0.8, 11);
        let choice = choose_planted(&world, &[(0, &world.2), (1, &spurious)]);
        assert_eq!(choice.chosen, 0, "{choice:?}");
        assert!(!choice.transitivity.rejects, "{:?}", choice.transitivity);
    }

    /// Closed forms: a Bradley–Terry game has no cyclic part; rock–paper–scissors
    /// (`d` = ±c on the three pairs, row sums 0) is all cycle.
    #[test]
    fn the_cyclic_share_of_a_transitive_and_a_cyclic_game() {
        let scores = [0.7, -0.2, 1.3, 0.1];
        let bt: Vec<Vec<f64>> = scores
            .iter()
            .map(|a| scores.iter().map(|b| ((a - b) / 2.0f64).tanh()).collect())
            .collect();
        let (cyclic, total) = cyclic_share(&PayoffMatrix::new(&bt).unwrap());
        assert!(cyclic / total < 1e-20, "{cyclic} of {total}");
        let w = 0.4;
        let rps =
            PayoffMatrix::new(&[vec![0.0, w, -w], vec![-w, 0.0, w], vec![w, -w, 0.0]]).unwrap();
        let (cyclic, total) = cyclic_share(&rps);
        assert!((cyclic / total - 1.0).abs() < 1e-12);
    }
}
