//! Bootstrap replicates of the maximal lottery.
//!
//! A lottery read from a finite log is as uncertain as a rating. Each replicate
//! resamples the log's battles with replacement — the same (pair, outcome) count draws
//! as the Bradley–Terry bootstrap, [`CountResampler`] — rebuilds the margin matrix and
//! solves its game with the same settings (ρ, costs, budget). Per model this gives a
//! percentile interval of its probability and the share of replicates in which it is
//! in the winner set.
//!
//! What the interval means: a model outside the support has probability exactly 0,
//! so its probability's bootstrap distribution has an atom at 0. When more than
//! `(1 − level)/2` of the replicates leave a model out, its lower bound is 0 and the
//! interval says "0 is plausible" rather than bracketing a smooth estimate; the upper
//! bound still bounds how much weight it plausibly earns. The support share is the
//! direct answer to "is this model in the winner set?". Percentile intervals of a
//! probability pinned at a boundary are not exact confidence intervals; their coverage
//! was measured where the equilibrium is interior and unique (the tests, and
//! EXPERIMENTS.md).

use rayon::prelude::*;
use verdict_game::{PayoffMatrix, SUPPORT_THRESHOLD};
use verdict_ratings::{Bootstrap, BootstrapDraws, CountResampler, PairCounts};

use crate::equilibrium::{solve, EquilibriumSettings};
use crate::VerdictError;

/// The lotteries of every bootstrap replicate.
#[derive(Debug, Clone, PartialEq)]
pub struct LotteryDraws {
    /// `draws.scores[r][m]`: model m's probability in replicate r;
    /// `draws.unconverged_rounds`: replicates whose equilibrium was not certified.
    pub draws: BootstrapDraws,
    /// Replicates in which a pair that met in the log drew no battle, so its margin
    /// counted as a tie (0).
    pub lost_pair_rounds: usize,
}

impl LotteryDraws {
    /// Per model, the share of replicates in which its probability exceeds
    /// [`SUPPORT_THRESHOLD`] (it is in the winner set).
    pub fn support_shares(&self) -> Vec<f64> {
        let rounds = self.draws.scores.len().max(1) as f64;
        let models = self.draws.scores.first().map_or(0, Vec::len);
        (0..models)
            .map(|m| {
                let inside = self
                    .draws
                    .scores
                    .iter()
                    .filter(|round| round[m] > SUPPORT_THRESHOLD)
                    .count();
                inside as f64 / rounds
            })
            .collect()
    }
}

/// Bootstrap replicates of the lottery of `counts` (models named `names`), each solved
/// with `settings`; `on_round` is called once per finished replicate. Pairs that never
/// met in the log, and pairs a replicate happens to leave without battles, have margin
/// 0 in that replicate.
///
/// # Errors
/// Zero rounds; a setting the solver refuses (costs naming unknown agents, say).
pub fn bootstrap_lottery(
    counts: &PairCounts,
    names: &[String],
    settings: &EquilibriumSettings,
    bootstrap: &Bootstrap,
    on_round: &(dyn Fn() + Sync),
) -> Result<LotteryDraws, VerdictError> {
    bootstrap.check()?;
    let met = |c: &PairCounts| -> Result<usize, VerdictError> {
        let (_, unobserved) = PayoffMatrix::from_counts(&c.win_matrix(), &c.tie_matrix(), true)?;
        Ok(unobserved.len())
    };
    let unmet_in_log = met(counts)?;
    let resampler = CountResampler::new(counts);
    let replicates = (0..bootstrap.rounds)
        .into_par_iter()
        .map(|round| {
            let resampled = resampler.replicate(bootstrap.seed, round);
            let (game, unobserved) =
                PayoffMatrix::from_counts(&resampled.win_matrix(), &resampled.tie_matrix(), true)?;
            let lottery = solve(&game, names, settings)?;
            on_round();
            Ok((
                lottery.probabilities,
                lottery.status == verdict_game::LotteryStatus::Uncertified,
                unobserved.len() > unmet_in_log,
            ))
        })
        .collect::<Result<Vec<_>, VerdictError>>()?;
    Ok(LotteryDraws {
        lost_pair_rounds: replicates.iter().filter(|r| r.2).count(),
        draws: BootstrapDraws {
            prior_rounds: 0,
            unconverged_rounds: replicates.iter().filter(|r| r.1).count(),
            scores: replicates.into_iter().map(|r| r.0).collect(),
        },
    })
}
