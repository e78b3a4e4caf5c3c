//! The maximal lottery of a ranking (NashEval Eq. 78 margins, solved as a zero-sum
//! game), its bootstrap and its robust variant over battle groups, and the margin
//! game every margin-reading method shares: pairs that never met are refused or
//! filled as `unobserved` says ([`MarginFill`]).

use verdict_game::{
    condorcet_winner, default_radius, exploitability, merge_near_ties, robust_lottery, Lottery,
    LotteryStatus, PayoffMatrix, SUPPORT_THRESHOLD, TIE_TOLERANCE,
};
use verdict_ratings::{FillModel, Interval, MarginFill, PairCounts, RatingKind, UnobservedPairs};
use verdict_report::{LotterySummary, RankOutput, RobustSummary};
use verdict_settings::Setting;

use crate::lottery_bootstrap::{bootstrap_lottery, ReplicateFill};
use crate::rank::{Context, Intervals, Pairwise};
use crate::unobserved::{diagnose_unobserved, diagnosis_note, solve_within, FilledGame};
use crate::VerdictError;

/// The margin game of a ranking's counts, its missing pairs filled as asked.
pub(crate) struct MarginGame {
    /// Every pair's margin: observed (NashEval Eq. 78) or filled.
    pub game: PayoffMatrix,
    /// The pairs that never met, `(j, k)` with `j < k`.
    pub unobserved: Vec<(usize, usize)>,
    /// `core`: the models kept.
    pub core: Option<Vec<usize>>,
    /// The model that predicted the missing margins, for the bootstrap to start from.
    pub model: FillModel,
}

impl Context<'_> {
    /// The margin matrix of the counts (NashEval Eq. 78), its missing pairs filled as
    /// `unobserved` says; `method` names what needs it in the refusal.
    ///
    /// # Errors
    /// Missing pairs under `refuse` (the refusal names every remedy); a fit that fails.
    pub(crate) fn margin_game(&self, method: &str) -> Result<MarginGame, VerdictError> {
        let fill = self.settings.margin_fill();
        let completed = fill.complete(self.counts)?;
        if let (UnobservedPairs::Refuse, Some(&(j, k))) =
            (fill.unobserved, completed.unobserved.first())
        {
            let names = self.models.names();
            let models = names.len();
            return Err(VerdictError::Settings(format!(
                "{method} needs every pair's margin, but {} of the {} pairs of models never met (first: {} vs {}); {}",
                completed.unobserved.len(),
                models * (models - 1) / 2,
                names[j],
                names[k],
                UnobservedPairs::remedies()
            )));
        }
        Ok(MarginGame {
            game: PayoffMatrix::from_row_major(&completed.margins, self.models.len())?,
            unobserved: completed.unobserved,
            core: completed.core,
            model: completed.model,
        })
    }

    /// The maximal lottery of the margin matrix: probabilities as scores, the winner
    /// set, each model's exploitability alone, the Condorcet winner. Under `core`, the
    /// lottery of the core's game, every model outside it at probability 0.
    pub(crate) fn lottery(&self, on_round: &(dyn Fn() + Sync)) -> Result<RankOutput, VerdictError> {
        let names = self.models.names();
        let margins = self.margin_game("the maximal lottery")?;
        let game = &margins.game;
        let core = margins.core.as_deref();
        let (lottery, robust) = match self.settings.robust {
            None => (
                solve_within(game, names, &self.settings.equilibrium, core)?,
                None,
            ),
            Some(radius) => self.robust_lottery(game, radius)?,
        };
        // Probabilities the solver cannot tell apart share a rank and a value.
        let merged = merge_near_ties(&lottery.probabilities, TIE_TOLERANCE);
        let probabilities = &merged;
        let mut notes = Vec::new();
        let (intervals, support_shares) = self.lottery_intervals(&margins, &mut notes, on_round)?;
        let diagnosis = if margins.unobserved.is_empty() || self.settings.robust.is_some() {
            None
        } else {
            let predicted = match self.settings.unobserved {
                // The core's diagnosis names the core; no margin is predicted there.
                UnobservedPairs::Core => Vec::new(),
                UnobservedPairs::BradleyTerry => game.values().to_vec(),
                _ => {
                    MarginFill {
                        unobserved: UnobservedPairs::BradleyTerry,
                        ..self.settings.margin_fill()
                    }
                    .complete(self.counts)?
                    .margins
                }
            };
            let filled = FilledGame {
                game,
                unobserved: &margins.unobserved,
                filled_by: self.settings.unobserved,
                core,
                predicted: &predicted,
            };
            let diagnosis =
                diagnose_unobserved(&filled, names, probabilities, &self.settings.equilibrium)?;
            notes.push(diagnosis_note(&diagnosis));
            Some(diagnosis)
        };
        if lottery.status == LotteryStatus::Uncertified {
            notes.push(format!(
                "the equilibrium is not certified: gap {:.3e} exceeds 1e-9",
                lottery.gap
            ));
        }
        // Under `core` the game the lottery answers is the core's.
        let inside = |m: usize| core.is_none_or(|core| core.contains(&m));
        let mut output = self.finish(
            RatingKind::MaximalLottery,
            probabilities,
            intervals,
            Pairwise::Margin(&|i, j| game.get(i, j)),
            None,
            notes,
        );
        for standing in &mut output.leaderboard.models {
            let m = self.model_index(&standing.name);
            standing.probability = Some(probabilities[m]);
            standing.support_share = support_shares.as_ref().map(|shares| shares[m]);
            standing.exploitability = inside(m).then(|| {
                (0..game.agents())
                    .filter(|&j| inside(j))
                    .map(|j| game.get(j, m))
                    .fold(0.0, f64::max)
            });
        }
        let (answered, kept): (PayoffMatrix, Vec<usize>) = match core {
            None => (game.clone(), (0..names.len()).collect()),
            Some(core) => (game.restricted(core), core.to_vec()),
        };
        let kept_probabilities: Vec<f64> = kept.iter().map(|&m| probabilities[m]).collect();
        output.lottery = Some(LotterySummary {
            support: output
                .leaderboard
                .models
                .iter()
                .filter(|s| s.probability.unwrap_or(0.0) > SUPPORT_THRESHOLD)
                .map(|s| s.name.clone())
                .collect(),
            exploitability: exploitability(&answered, &kept_probabilities),
            gap: lottery.gap,
            rho: self.settings.equilibrium.rho,
            budget: self.settings.equilibrium.budget,
            robust,
            status: lottery.status,
            unique: lottery.unique,
            condorcet_winner: condorcet_winner(&answered).map(|m| names[kept[m]].clone()),
            unobserved_pairs: margins
                .unobserved
                .iter()
                .map(|&(j, k)| (names[j].clone(), names[k].clone()))
                .collect(),
            unobserved_diagnosis: diagnosis,
        });
        Ok(output)
    }
}

impl Context<'_> {
    /// The lottery's bootstrap intervals and support shares, when asked for.
    #[allow(clippy::type_complexity)]
    fn lottery_intervals(
        &self,
        margins: &MarginGame,
        notes: &mut Vec<String>,
        on_round: &(dyn Fn() + Sync),
    ) -> Result<(Option<(Interval, Vec<(f64, f64)>)>, Option<Vec<f64>>), VerdictError> {
        let bootstrap = match &self.settings.intervals {
            Intervals::Bootstrap(bootstrap) if self.settings.lottery_bootstrap => bootstrap,
            _ => return Ok((None, None)),
        };
        if self.settings.robust.is_some() {
            notes.push("bootstrap intervals are not computed for the robust lottery (its groups would need resampling too)".into());
            return Ok((None, None));
        }
        let draws = bootstrap_lottery(
            self.counts,
            self.models.names(),
            &self.settings.equilibrium,
            bootstrap,
            &ReplicateFill {
                fill: self.settings.margin_fill(),
                start: &margins.model,
                core: margins.core.as_deref(),
            },
            on_round,
        )?;
        if draws.lost_pair_rounds > 0 {
            let filled = match self.settings.unobserved {
                UnobservedPairs::BradleyTerry | UnobservedPairs::LowRank => {
                    format!(
                        "was predicted ({} {})",
                        Setting("unobserved"),
                        self.settings.unobserved.name()
                    )
                }
                _ => "counted as a tie".to_owned(),
            };
            notes.push(format!(
                "{} of {} bootstrap replicates drew no battle for a pair that met in the log; its margin {filled} there",
                draws.lost_pair_rounds, bootstrap.rounds
            ));
        }
        if !margins.unobserved.is_empty()
            && matches!(
                self.settings.unobserved,
                UnobservedPairs::BradleyTerry | UnobservedPairs::LowRank
            )
        {
            notes.push(format!(
                "each bootstrap replicate fills the pairs that never met afresh ({} {}), so the intervals carry the fill's own uncertainty",
                Setting("unobserved"),
                self.settings.unobserved.name()
            ));
        }
        if draws.draws.unconverged_rounds > 0 {
            notes.push(format!(
                "{} of {} bootstrap replicates' equilibria were not certified (gap above 1e-9)",
                draws.draws.unconverged_rounds, bootstrap.rounds
            ));
        }
        notes.push("lottery intervals are bootstrap percentiles of each probability; a model often outside the winner set has lower bound 0 (see `in support`, the share of replicates that keep it)".into());
        Ok((
            Some(self.bootstrap_intervals(bootstrap, &draws.draws)),
            Some(draws.support_shares()),
        ))
    }
}

impl Context<'_> {
    /// The robust lottery over the battle groups: per-group margins (Eq. 78), weights
    /// by battle share, radius given or Eq. 80's.
    pub(crate) fn robust_lottery(
        &self,
        pooled: &PayoffMatrix,
        radius: Option<f64>,
    ) -> Result<(Lottery, Option<RobustSummary>), VerdictError> {
        let log = self.log_for("the robust lottery (it splits the battles by group)")?;
        let groups = self.groups.ok_or_else(|| {
            VerdictError::Settings(format!(
                "the robust lottery needs battle groups ({group_by} COLUMN)",
                group_by = Setting("group_by")
            ))
        })?;
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups.names.len()];
        for (battle, &g) in groups.of_battle.iter().enumerate() {
            members[g].push(battle);
        }
        let mut matrices = Vec::new();
        let mut weights = Vec::new();
        let mut used = Vec::new();
        // A group's pairs that never met are predicted from the group's own battles
        // under `bradley-terry` and `low-rank`, ties otherwise (refused only pooled).
        let fill = self.settings.margin_fill().for_groups();
        for (g, battles) in members.iter().enumerate().filter(|(_, b)| !b.is_empty()) {
            let counts = PairCounts::from_log(&log.reordered(battles));
            let completed = fill.complete(&counts)?;
            let matrix = PayoffMatrix::from_row_major(&completed.margins, counts.models())?;
            matrices.push(matrix);
            weights.push(battles.len() as f64 / log.len() as f64);
            used.push(groups.names[g].clone());
        }
        let tau = radius.unwrap_or_else(|| default_radius(matrices.len(), log.len()));
        let robust = robust_lottery(&matrices, &weights, tau)?;
        // The robust LP is solved to the interior point's tolerance; `gap` reports the
        // pooled game's exploitability, which a robust lottery need not drive to zero.
        let gap = exploitability(pooled, &robust.probabilities);
        let lottery = Lottery {
            status: LotteryStatus::Certified,
            probabilities: robust.probabilities,
            gap,
            iterations: 0,
            unique: false,
        };
        Ok((
            lottery,
            Some(RobustSummary {
                groups: used,
                radius: tau,
                worst_case: robust.worst_case,
            }),
        ))
    }
}
