//! Elo's board: the online replay of the battles and its bootstrap.

use verdict_ratings::{shuffled_order, EloScale, PointEstimate, RatingKind};
use verdict_report::RankOutput;
use verdict_settings::Setting;

use super::{Context, EloOrder, Intervals, Pairwise};
use crate::VerdictError;

impl Context<'_> {
    /// Online Elo (Elo 1978): the replay in the log's order, a column's or a seeded
    /// shuffle; with bootstrap intervals each rating is the median of the replicates'
    /// replays, as FastChat reported it.
    pub(super) fn elo(&self, on_round: &(dyn Fn() + Sync)) -> Result<RankOutput, VerdictError> {
        let settings = self.settings;
        let elo = &settings.elo;
        let log = self.log_for("Elo (it replays the battles in order)")?;
        let in_log_order = |how: String| {
            (
                (0..log.len()).collect::<Vec<_>>(),
                vec![format!(
                    "Elo depends on the order of the battles: replayed in {how}"
                )],
            )
        };
        let (order, mut notes) = match &settings.elo_order {
            EloOrder::Log => in_log_order("log order".into()),
            EloOrder::SortedBy(column) => in_log_order(format!("{column} order")),
            &EloOrder::Shuffled(seed) => (
                shuffled_order(log.len(), seed),
                vec![format!("Elo depends on the order of the battles: replayed in a shuffled order (seed {seed})")],
            ),
        };
        let shift = |ratings: &[f64]| match self.anchor {
            Some((model, rating)) => rating - ratings[model],
            None => 0.0,
        };
        let mut ratings = elo.replay(log, order);
        let offset = shift(&ratings);
        ratings.iter_mut().for_each(|r| *r += offset);
        let mut point = PointEstimate::Fit;
        let intervals = match &settings.intervals {
            Intervals::None => None,
            Intervals::Sandwich => {
                notes.push(format!("sandwich intervals apply to Bradley–Terry only; Elo is shown without intervals (use {bootstrap})", bootstrap = Setting("bootstrap")));
                None
            }
            Intervals::Bootstrap(bootstrap) => {
                // Elo's resample replays drawn battles; it starts from no fit.
                let scale = EloScale::default();
                let mut draws =
                    verdict_ratings::bootstrap(elo, log, &ratings, &scale, bootstrap, on_round)?;
                for round in &mut draws.scores {
                    let offset = shift(round);
                    round.iter_mut().for_each(|r| *r += offset);
                }
                // The replay above depends on the battles' order and can fall outside
                // the interval of the resampled replays; the median of the replicates
                // cannot, and is what FastChat's leaderboards printed.
                ratings = draws.medians();
                point = PointEstimate::BootstrapMedian;
                notes.push(format!(
                    "Elo ratings are the medians of the {} bootstrap replays (each replays a resample of the battles in drawn order); without intervals the rating is the single replay described above",
                    bootstrap.rounds
                ));
                Some(self.bootstrap_intervals(bootstrap, &draws))
            }
        };
        let expected = |i: usize, j: usize| elo.expected(ratings[i], ratings[j]);
        let mut output = self.finish(
            RatingKind::Elo,
            &ratings,
            intervals,
            Pairwise::WinProbability(&expected),
            None,
            notes,
        );
        output.leaderboard.point = point;
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{battles, board, standing};
    use super::super::{EloOrder, Intervals, RankSettings};

    fn replayed(order: EloOrder, anchor: Option<(String, f64)>) -> RankSettings {
        RankSettings {
            method: super::super::Method::Elo,
            intervals: Intervals::None,
            elo_order: order,
            anchor,
            ..RankSettings::default()
        }
    }

    /// Two wins of `a` from 1000 each, K = 32: after the first `a` has 1016 and `b`
    /// 984; the second moves them by `32 (1 − E)` with `E = 1 / (1 + 10^(−32/400))`
    /// (Elo's expected score).
    #[test]
    fn a_replay_follows_elo_s_update() {
        let log = battles(&[("a", "b", "model_a", 2)]);
        let output = board(&log, &replayed(EloOrder::Log, None));
        let step = 32.0 * (1.0 - 1.0 / (1.0 + 10f64.powf(-32.0 / 400.0)));
        assert!((standing(&output, "a").score - (1016.0 + step)).abs() < 1e-9);
        assert!((standing(&output, "b").score - (984.0 - step)).abs() < 1e-9);
        assert!(output.notes[0].contains("log order"));
    }

    /// An anchor moves every rating by one offset: the anchored model reads its
    /// rating, the gaps stay.
    #[test]
    fn an_anchor_shifts_every_rating_by_one_offset() {
        let log = battles(&[("a", "b", "model_a", 3), ("b", "c", "model_a", 2)]);
        let free = board(&log, &replayed(EloOrder::Log, None));
        let pinned = board(&log, &replayed(EloOrder::Log, Some(("b".into(), 1200.0))));
        let offset = 1200.0 - standing(&free, "b").score;
        for name in ["a", "b", "c"] {
            let moved = standing(&pinned, name).score - standing(&free, name).score;
            assert!((moved - offset).abs() < 1e-9, "{name}");
        }
        assert!((standing(&pinned, "b").score - 1200.0).abs() < 1e-12);
    }

    /// A seeded shuffle replays the same permutation every time, and says so.
    #[test]
    fn a_shuffled_replay_is_seeded() {
        let log = battles(&[("a", "b", "model_a", 4), ("a", "b", "model_b", 3)]);
        let once = board(&log, &replayed(EloOrder::Shuffled(9), None));
        let again = board(&log, &replayed(EloOrder::Shuffled(9), None));
        assert_eq!(
            standing(&once, "a").score.to_bits(),
            standing(&again, "a").score.to_bits()
        );
        assert!(once.notes[0].contains("seed 9"));
    }
}
