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
use verdict_ratings::{
    observed_margins, Bootstrap, BootstrapDraws, CountResampler, FillModel, MarginFill, PairCounts,
    UnobservedPairs,
};

use crate::equilibrium::EquilibriumSettings;
use crate::unobserved::solve_within;
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

/// How a bootstrap replicate fills the pairs it has no battle for: the option of the
/// ranking, starting the low-rank completion from the full data's fit, and under
/// `core` the full data's core (a replicate's pairs that drew no battle count as ties
/// there).
#[derive(Debug, Clone)]
pub struct ReplicateFill<'a> {
    /// The ranking's option and models.
    pub fill: MarginFill,
    /// The full data's fitted model.
    pub start: &'a FillModel,
    /// The full data's core, under `core`.
    pub core: Option<&'a [usize]>,
}

/// The start of a fill that fits no model.
static NO_MODEL: FillModel = FillModel::None;

impl Default for ReplicateFill<'_> {
    /// Missing pairs count as ties: the lottery bootstrap as it was before any fill.
    fn default() -> Self {
        Self {
            fill: MarginFill {
                unobserved: UnobservedPairs::Ties,
                ..MarginFill::default()
            },
            start: &NO_MODEL,
            core: None,
        }
    }
}

/// Bootstrap replicates of the lottery of `counts` (models named `names`), each solved
/// with `settings`; `on_round` is called once per finished replicate. Pairs that never
/// met in the log, and pairs a replicate happens to leave without battles, are filled
/// in each replicate as `filling` says (refitting the predicting model to the
/// replicate, so the intervals carry its uncertainty).
///
/// # Errors
/// Zero rounds; a setting the solver refuses (costs naming unknown agents, say).
pub fn bootstrap_lottery(
    counts: &PairCounts,
    names: &[String],
    settings: &EquilibriumSettings,
    bootstrap: &Bootstrap,
    filling: &ReplicateFill,
    on_round: &(dyn Fn() + Sync),
) -> Result<LotteryDraws, VerdictError> {
    bootstrap.check()?;
    let unmet_in_log = observed_margins(counts).1.len();
    let fill = match (filling.core, filling.fill.unobserved) {
        (Some(_), _) | (None, UnobservedPairs::Refuse) => MarginFill {
            unobserved: UnobservedPairs::Ties,
            ..filling.fill.clone()
        },
        _ => filling.fill.clone(),
    };
    let resampler = CountResampler::new(counts);
    let replicates = (0..bootstrap.rounds)
        .into_par_iter()
        .map(|round| {
            let resampled = resampler.replicate(bootstrap.seed, round);
            let completed = fill.complete_from(&resampled, filling.start)?;
            let game = PayoffMatrix::from_row_major(&completed.margins, names.len())?;
            let lottery = solve_within(&game, names, settings, filling.core)?;
            on_round();
            Ok((
                lottery.probabilities,
                lottery.status == verdict_game::LotteryStatus::Uncertified,
                completed.unobserved.len() > unmet_in_log,
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
