//! What every leaderboard of one input shares: the board sorted with its intervals,
//! its matrices in the board's order, the notes of weighted battles, the rating
//! scale, and the one path of a refitting rating method ([`Context::rated`]).

use verdict_feedback::BattleLog;
use verdict_ratings::{
    Bootstrap, BootstrapDraws, Center, EloScale, Interval, IntervalMethod, Leaderboard, RatingKind,
    RatingMethod,
};
use verdict_report::{FitSummary, Matrices, RankOutput};
use verdict_settings::Setting;

use super::{percentile_intervals, refit_intervals, Context, Intervals, Pairwise};
use crate::VerdictError;

impl Context<'_> {
    /// The battle log, which `method` needs; counts alone are refused by name.
    /// The index of a model of the board, by name.
    pub(crate) fn model_index(&self, name: &str) -> usize {
        self.models
            .get(name)
            .expect("names come from the models")
            .index()
    }

    pub(crate) fn log_for(&self, method: &str) -> Result<&BattleLog, VerdictError> {
        if let Some(weights) = self.weights {
            return Err(VerdictError::Settings(format!(
                "{method} takes no battle weights (column {:?}); drop {weight_col}, or use the Bradley–Terry or lottery method",
                weights.column,
                weight_col = Setting("weight_col")
            )));
        }
        self.log.ok_or_else(|| {
            VerdictError::Settings(format!(
                "{method} needs the battles themselves, but this input holds only pair counts; use the Bradley–Terry or lottery method, or read the raw log"
            ))
        })
    }

    pub(super) fn interval(&self, method: IntervalMethod) -> Interval {
        Interval {
            method,
            confidence: self.settings.confidence,
        }
    }

    /// The percentile intervals of bootstrap `draws`.
    pub(crate) fn bootstrap_intervals(
        &self,
        bootstrap: &Bootstrap,
        draws: &BootstrapDraws,
    ) -> (Interval, Vec<(f64, f64)>) {
        percentile_intervals(bootstrap, self.settings.confidence, draws)
    }

    /// Sorts `scores` into a leaderboard and wraps it with the matrices (`pairwise`:
    /// the method's predicted win probabilities, or the lottery's margins), the fit
    /// and the notes.
    pub(crate) fn finish(
        &self,
        method: RatingKind,
        scores: &[f64],
        intervals: Option<(Interval, Vec<(f64, f64)>)>,
        pairwise: Pairwise<'_>,
        fit: Option<FitSummary>,
        notes: Vec<String>,
    ) -> RankOutput {
        let board = Leaderboard::new(
            method,
            self.models.names(),
            scores,
            intervals,
            &self.counts.tallies(),
        );
        let matrices = self.matrices(&board, pairwise);
        self.output(board, fit, matrices, notes)
    }

    fn output(
        &self,
        leaderboard: Leaderboard,
        fit: Option<FitSummary>,
        matrices: Option<Matrices>,
        mut notes: Vec<String>,
    ) -> RankOutput {
        if let Some(weights) = self.weights {
            notes.insert(0, format!(
                "battles weighted by {:?}: total weight {} over {} battles; the win and tie matrices hold weights, the battle counts battles",
                weights.column,
                (self.counts.battles() * 1e6).round() / 1e6,
                self.battles
            ));
        }
        RankOutput {
            leaderboard,
            fit,
            lottery: None,
            matrices,
            coefficients: None,
            battles: self.battles,
            source: self.source.to_owned(),
            top_flip: None,
            notes,
        }
    }

    /// Observed matrices plus the method's pairwise matrix, in leaderboard order.
    fn matrices(&self, board: &Leaderboard, pairwise: Pairwise<'_>) -> Option<Matrices> {
        if !self.settings.matrices {
            return None;
        }
        let order: Vec<usize> = board
            .models
            .iter()
            .map(|s| {
                self.models
                    .get(&s.name)
                    .expect("leaderboard names come from the models")
                    .index()
            })
            .collect();
        let (wins, ties) = (self.counts.win_matrix(), self.counts.tie_matrix());
        let pick = |m: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
            order
                .iter()
                .map(|&r| order.iter().map(|&c| m[r][c]).collect())
                .collect()
        };
        let (function, diagonal) = match pairwise {
            Pairwise::WinProbability(f) => (f, 0.5),
            Pairwise::Margin(f) => (f, 0.0),
        };
        let values: Vec<Vec<f64>> = order
            .iter()
            .map(|&r| {
                order
                    .iter()
                    .map(|&c| if r == c { diagonal } else { function(r, c) })
                    .collect()
            })
            .collect();
        let (win_probability, margins) = match pairwise {
            Pairwise::WinProbability(_) => (Some(values), None),
            Pairwise::Margin(_) => (None, Some(values)),
        };
        Some(Matrices {
            models: board.models.iter().map(|s| s.name.clone()).collect(),
            wins: pick(&wins),
            ties: pick(&ties),
            win_probability,
            margins,
        })
    }

    /// The LMArena scale of a strength model's scores: mean `mean_rating`, or the
    /// anchor pinned.
    pub(crate) fn rating_scale(&self) -> EloScale {
        EloScale {
            center: match self.anchor {
                Some((model, rating)) => Center::Anchor { model, rating },
                None => Center::Mean(self.settings.mean_rating),
            },
            ..EloScale::default()
        }
    }

    /// The leaderboard of a refitting rating method (`RatingMethod`) on `data`: its
    /// fit's scores on the rating scale, bootstrap intervals when asked for (sandwich
    /// intervals are Bradley–Terry's own, [`Self::bradley_terry`]), its predicted
    /// win probabilities for `--matrix`. A new method's arm in [`Self::rank`] is one
    /// call of this.
    pub(super) fn rated<M: RatingMethod>(
        &self,
        method: &M,
        data: &M::Data,
        fit: &M::Fit,
        mut notes: Vec<String>,
        on_round: &(dyn Fn() + Sync),
    ) -> Result<RankOutput, VerdictError> {
        let scale = self.rating_scale();
        let intervals = match &self.settings.intervals {
            Intervals::None => None,
            Intervals::Bootstrap(bootstrap) => Some(refit_intervals(
                method,
                data,
                fit,
                &scale,
                bootstrap,
                self.settings.confidence,
                &mut notes,
                on_round,
            )?),
            Intervals::Sandwich => {
                notes.push(format!(
                    "sandwich intervals apply to Bradley–Terry only; {} is shown without intervals (use {})",
                    M::KIND.title(),
                    Setting("bootstrap")
                ));
                None
            }
        };
        if let Some((_, bounds)) = &intervals {
            let flat: Vec<&str> = bounds
                .iter()
                .zip(self.models.names())
                .zip(self.counts.tallies())
                .filter(|((bound, _), tally)| bound.0 == bound.1 && tally.battles() > 0)
                .map(|((_, name), _)| name.as_str())
                .collect();
            if !flat.is_empty() {
                notes.push(format!(
                    "warning: the bootstrap interval of {} has zero width: every resample gave the same estimate (their battles have one outcome, or are too few to vary), which is no evidence of certainty; for Bradley–Terry, {} sandwich gives an interval from the model instead",
                    flat.join(", "),
                    Setting("ci")
                ));
            }
        }
        Ok(self.finish(
            M::KIND,
            &method.scores(fit, &scale),
            intervals,
            Pairwise::WinProbability(&|i, j| method.win_probability(fit, i, j)),
            None,
            notes,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{battles, board};
    use super::super::{Intervals, RankSettings};

    /// The matrices follow the board's order (best first), whatever order the models
    /// met in; the win-probability diagonal is one half.
    #[test]
    fn matrices_are_in_the_board_s_order() {
        let log = battles(&[
            ("a", "b", "model_b", 6),
            ("a", "b", "model_a", 2),
            ("b", "c", "model_b", 5),
            ("b", "c", "model_a", 1),
            ("a", "c", "model_b", 4),
        ]);
        let settings = RankSettings {
            matrices: true,
            intervals: Intervals::None,
            ..RankSettings::default()
        };
        let output = board(&log, &settings);
        let matrices = output.matrices.expect("asked for");
        assert_eq!(matrices.models, ["c", "b", "a"]);
        // c beat b five times and a four times; b beat a six times.
        assert_eq!(matrices.wins[0], [0.0, 5.0, 4.0]);
        assert_eq!(matrices.wins[1], [1.0, 0.0, 6.0]);
        let p = matrices.win_probability.expect("Bradley–Terry predicts");
        assert_eq!((p[0][0], p[1][1], p[2][2]), (0.5, 0.5, 0.5));
        assert!((p[0][1] + p[1][0] - 1.0).abs() < 1e-12 && p[0][1] > 0.5);
    }

    /// Without `matrices` no matrix is made.
    #[test]
    fn no_matrices_unless_asked() {
        let log = battles(&[("a", "b", "model_a", 2), ("a", "b", "model_b", 1)]);
        let settings = RankSettings {
            intervals: Intervals::None,
            ..RankSettings::default()
        };
        assert!(board(&log, &settings).matrices.is_none());
    }
}
