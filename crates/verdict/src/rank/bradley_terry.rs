//! Bradley–Terry's boards: the maximum-likelihood fit with bootstrap or sandwich
//! intervals (LMArena's), no certainty where the estimate does not exist, the
//! battles that flip an order, and "both bad" as an outcome of its own (the grounded
//! Rao–Kupper model of Prompt-to-Leaderboard).

use verdict_feedback::ModelId;
use verdict_ratings::{
    fragility, normal_intervals, normal_quantile, sandwich_covariance, BtFit, EloScale, FitStatus,
    GroundedCounts, GroundedRaoKupper, IntervalMethod, MleObstacle, RatingKind, Regularization,
};
use verdict_report::{FitSummary, RankOutput, TopFlip};
use verdict_settings::Setting;

use super::{Context, Intervals, Pairwise};
use crate::VerdictError;

impl Context<'_> {
    /// Bradley–Terry: [`Self::rated`], or with sandwich intervals (LMArena's), and the
    /// fit's summary.
    pub(super) fn bradley_terry(
        &self,
        on_round: &(dyn Fn() + Sync),
    ) -> Result<RankOutput, VerdictError> {
        let settings = self.settings;
        let fit = settings.bradley_terry.fit(self.counts)?;
        let notes = fit_notes(&fit, self.models.names());
        let mut output = if settings.intervals == Intervals::Sandwich {
            let scale = self.rating_scale();
            let scores = scale.scores(&fit.beta);
            let covariance = sandwich_covariance(self.counts, &fit)?;
            let standard_errors = scale
                .score_variances(&covariance)
                .into_iter()
                .map(f64::sqrt);
            let bounds = normal_intervals(&scores, standard_errors, settings.confidence);
            let intervals = Some((self.interval(IntervalMethod::Sandwich), bounds));
            let pairwise = Pairwise::WinProbability(&|i, j| fit.win_probability(i, j));
            self.finish(
                RatingKind::BradleyTerry,
                &scores,
                intervals,
                pairwise,
                None,
                notes,
            )
        } else {
            self.rated(&settings.bradley_terry, self.counts, &fit, notes, on_round)?
        };
        self.no_certainty_without_an_mle(&mut output, &fit.regularization);
        output.fit = Some(FitSummary::from(&fit));
        if settings.fragility {
            self.add_fragility(&mut output, &fit)?;
        }
        Ok(output)
    }

    /// Where the maximum-likelihood estimate does not exist (the fit carries the
    /// prior that keeps it finite), the models it cannot place at all — those that
    /// never won or never lost, whose MLE lies at infinity — get unbounded intervals and
    /// every `rank_ub` is taken again: a model with one battle, a win, was ranked 1
    /// with `rank_ub` 1 and a finite interval excluding everyone, a certainty the data
    /// do not hold. Groups that never met (or one that beat every outsider) keep their
    /// intervals, which compare models within a group; the fit's note says that the
    /// groups' offsets come from the prior.
    fn no_certainty_without_an_mle(
        &self,
        output: &mut RankOutput,
        regularization: &Regularization,
    ) {
        let Regularization::Prior { obstacles, .. } = regularization else {
            return;
        };
        if output.leaderboard.interval.is_none() {
            return;
        }
        let names = self.models.names();
        let mut unplaced: Vec<&str> = Vec::new();
        for obstacle in obstacles {
            match obstacle {
                MleObstacle::NeverWins { models } | MleObstacle::NeverLoses { models } => {
                    unplaced.extend(models.iter().map(|&m| names[m as usize].as_str()));
                }
                MleObstacle::Disconnected { .. } | MleObstacle::Dominant { .. } => {}
            }
        }
        unplaced.sort_unstable();
        unplaced.dedup();
        if unplaced.is_empty() {
            return;
        }
        output.leaderboard.without_certainty_for(&unplaced);
        output.notes.push(format!(
            "no interval for {}: the maximum-likelihood estimate does not exist there (see the fit's note), so the data bound neither end",
            unplaced.join(", ")
        ));
    }

    /// The grounded Rao–Kupper board ([`GroundedRaoKupper`]): scores
    /// `mean_rating + 400 log10(pi_i)` with the ground at `mean_rating`, sandwich
    /// intervals, each model's usable level.
    pub(super) fn grounded(&self) -> Result<RankOutput, VerdictError> {
        let log = self.log_for("the grounded Rao–Kupper model (both bad as its own outcome)")?;
        let counts = GroundedCounts::from_log(log);
        let fit = GroundedRaoKupper::default().fit(&counts)?;
        let factor = EloScale::default().factor();
        let ground = self.settings.mean_rating;
        let scores: Vec<f64> = fit.beta.iter().map(|b| ground + factor * b).collect();
        let intervals = match self.settings.intervals {
            Intervals::None => None,
            _ => {
                let z = normal_quantile(self.settings.confidence);
                let bounds = scores
                    .iter()
                    .zip(&fit.beta_se)
                    .map(|(s, se)| (s - z * factor * se, s + z * factor * se))
                    .collect();
                Some((self.interval(IntervalMethod::Sandwich), bounds))
            }
        };
        let decisive = |i: usize, j: usize| {
            let p = fit.probabilities(i, j);
            p[0] / (p[0] + p[1])
        };
        let notes = vec![format!(
            "grounded Rao–Kupper (P2L): {} of {} battles judged both bad, an outcome of their own against a ground scored {ground}; tie parameter theta = {:.4}; usable = P(beats the ground); intervals are sandwich normal intervals",
            counts.both_bad(),
            self.battles,
            fit.theta
        )];
        let mut output = self.finish(
            RatingKind::BradleyTerry,
            &scores,
            intervals,
            Pairwise::WinProbability(&decisive),
            None,
            notes,
        );
        for standing in &mut output.leaderboard.models {
            let m = self.models.get(&standing.name).expect("a model").index();
            standing.usable = Some(fit.usable(m));
        }
        Ok(output)
    }

    /// Each standing's [`verdict_ratings::Standing::flip`] and the board's top flip.
    fn add_fragility(&self, output: &mut RankOutput, fit: &BtFit) -> Result<(), VerdictError> {
        let board = &mut output.leaderboard;
        let order: Vec<usize> = board
            .models
            .iter()
            .map(|s| {
                self.models
                    .get(&s.name)
                    .expect("board names are the models'")
                    .index()
            })
            .collect();
        let found = fragility(&self.settings.bradley_terry, self.counts, fit, &order)?;
        for (standing, flip) in board.models.iter_mut().zip(found.adjacent) {
            standing.flip = Some(flip);
        }
        if let Some((challenger, flip)) = found.top {
            let (top, challenger) = (
                self.models.name(ModelId(order[0] as u32)).to_owned(),
                self.models.name(ModelId(challenger as u32)).to_owned(),
            );
            output.notes.push(match flip.battles {
                Some(battles) => format!(
                    "fragility: removing {battles} of {} battles puts {challenger:?} level with or above {top:?} (confirmed by a refit; first-order count {}); the flip column counts the battles that put the next model level with each one. Both are upper bounds on the fewest",
                    self.battles,
                    flip.approximate.map_or_else(|| "none".into(), |k| k.to_string())
                ),
                None => format!(
                    "fragility: no removal of battles found puts another model level with {top:?}"
                ),
            });
            output.top_flip = Some(TopFlip {
                top,
                challenger,
                flip,
            });
        }
        Ok(())
    }
}

/// Remarks a reader of a Bradley–Terry fit must see.
fn fit_notes(fit: &BtFit, names: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Regularization::Prior { l2, obstacles } = &fit.regularization {
        let reasons: Vec<String> = obstacles.iter().map(|o| o.describe(names)).collect();
        notes.push(format!(
            "the maximum-likelihood estimate does not exist ({}); a weak Gaussian prior (l2 = {l2}) keeps every score finite. Scores of the models named are bounds more than estimates; set {l2_setting} to choose the penalty yourself",
            reasons.join("; "), l2_setting = Setting("l2")
        ));
    }
    if fit.status == FitStatus::MaxIterations {
        notes.push(format!(
            "the fit stopped at the iteration cap ({} iterations) with gradient norm {:.3e}; raise {max_iter} or use the Newton solver",
            fit.iterations, fit.gradient_norm, max_iter = Setting("max_iter")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{battles, board, standing};
    use super::super::{Intervals, RankSettings};

    /// Two models, 30 wins to 10: the maximum-likelihood gap is `400 log10(30/10)`
    /// points, and the sandwich variance of the log-odds gap is the binomial's
    /// `1 / (n p (1 - p))` (its scores' outer products equal its Hessian at the MLE),
    /// split evenly between the two mean-centred scores: each 95% interval is the
    /// score ± 1.959963984540054 · (400 / ln 10) · sqrt(1 / (40 · 0.75 · 0.25)) / 2.
    #[test]
    fn sandwich_intervals_of_two_models_are_the_binomial_closed_form() {
        let log = battles(&[("a", "b", "model_a", 30), ("a", "b", "model_b", 10)]);
        let settings = RankSettings {
            intervals: Intervals::Sandwich,
            ..RankSettings::default()
        };
        let output = board(&log, &settings);
        let (a, b) = (standing(&output, "a"), standing(&output, "b"));
        assert!((a.score - b.score - 400.0 * 3f64.log10()).abs() < 1e-6);
        assert!(((a.score + b.score) / 2.0 - 1000.0).abs() < 1e-9);
        let factor = 400.0 / std::f64::consts::LN_10;
        let half = 1.959963984540054 * factor * (1.0f64 / (40.0 * 0.75 * 0.25)).sqrt() / 2.0;
        for s in [a, b] {
            assert!((s.ci_high.unwrap() - s.score - half).abs() < 1e-6, "{s:?}");
            assert!((s.score - s.ci_low.unwrap() - half).abs() < 1e-6, "{s:?}");
        }
    }

    /// A model that never wins has no maximum-likelihood score: its interval is
    /// unbounded (the data bound neither end), every upper rank bound is taken again,
    /// and the notes say why, whatever the prior made of its score.
    #[test]
    fn a_model_that_never_wins_gets_no_interval_and_a_note() {
        let log = battles(&[
            ("a", "b", "model_a", 5),
            ("a", "b", "model_b", 4),
            ("a", "c", "model_a", 3),
            ("b", "c", "model_a", 3),
        ]);
        let output = board(&log, &RankSettings::default());
        let c = standing(&output, "c");
        assert_eq!(
            (c.ci_low, c.ci_high),
            (Some(f64::NEG_INFINITY), Some(f64::INFINITY))
        );
        assert!(standing(&output, "a").ci_low.unwrap().is_finite());
        // c's unbounded interval reaches every model's: no one is surely above it.
        assert_eq!(c.rank_ub, Some(1));
        assert!(output.notes.iter().any(|n| n.contains("no interval for c")));
        assert!(output.notes.iter().any(|n| n.contains("does not exist")));
    }
}
