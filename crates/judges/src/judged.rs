//! A judging run's result as every face shows it: each item's score with its interval,
//! the mean over items with its interval, the spend, the target error and what gold
//! labels say — computed once here, rendered by the report crate, the command line and
//! the Python module alike.

use crate::{gold_report, Estimate, GoldReport, JudgeError, JudgingRun, ScoreInterval};

/// One item's score and interval.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ItemScore {
    /// The item's id.
    pub id: String,
    /// Score, standard error and interval.
    #[serde(flatten)]
    pub interval: ScoreInterval,
}

/// What a judging run found (module docs).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgedScores {
    /// The method's name.
    pub method: String,
    /// Confidence level of every interval.
    pub level: f64,
    /// One per item, in the order given.
    pub items: Vec<ItemScore>,
    /// The mean over the items of their scores, with its interval (the mean of these
    /// items' true scores; module `uncertainty`).
    pub mean: ScoreInterval,
    /// The norm the allocation targets.
    pub p: String,
    /// The estimated `l_p` error `||se||_p` of the scores.
    pub estimated_error: f64,
    /// The stopping target, when the run had one.
    pub target_error: Option<f64>,
    /// Whether the estimated error reached the target within the budget.
    pub target_reached: Option<bool>,
    /// What was spent.
    pub spent: f64,
    /// The budget (a cap with a target).
    pub budget: f64,
    /// Successful calls.
    pub calls: u64,
    /// Phase-I (screening) calls per pair, for the methods that explore.
    pub exploration: Option<u64>,
    /// The judges' names, in the pool's order.
    pub judges: Vec<String>,
    /// With gold labels: the corrected mean, each judge against them and the judges'
    /// agreement.
    pub gold: Option<GoldReport>,
}

impl JudgedScores {
    /// The result of `run`'s `estimate` on items `ids` and judges `judges`, intervals at
    /// `level`, and — with `gold` labels (one per item, `None` where unlabelled) — the
    /// gold report at the same level.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] for a level outside (0, 1), or gold labels the
    /// correction cannot use (fewer than two labelled or two unlabelled items).
    pub fn new(
        ids: &[String],
        judges: &[String],
        estimate: &Estimate,
        run: &JudgingRun,
        level: f64,
        gold: Option<&[Option<f64>]>,
    ) -> Result<Self, JudgeError> {
        let intervals = estimate.intervals(level)?;
        let gold = gold
            .map(|labels| gold_report(estimate, labels, level))
            .transpose()?;
        Ok(Self {
            method: run.method.name().into(),
            level,
            items: ids
                .iter()
                .zip(intervals.items)
                .map(|(id, interval)| ItemScore {
                    id: id.clone(),
                    interval,
                })
                .collect(),
            mean: intervals.mean,
            p: run.settings.p.to_string(),
            estimated_error: estimate.estimated_error(run.settings.p),
            target_error: run.settings.target_error,
            target_reached: estimate.target_reached,
            spent: estimate.spent,
            budget: run.budget,
            calls: estimate.calls,
            exploration: estimate.exploration,
            judges: judges.to_vec(),
            gold,
        })
    }

    /// The run in a few lines for a person: spend, the mean with its interval, the
    /// target and the gold correction.
    pub fn summary(&self) -> Vec<String> {
        let percent = 100.0 * self.level;
        let mut lines = vec![format!(
            "mean score {:.4} ({percent}% interval {:.4} to {:.4}); estimated l_{} error of the scores {:.4}",
            self.mean.score, self.mean.low, self.mean.high, self.p, self.estimated_error
        )];
        if let (Some(target), Some(reached)) = (self.target_error, self.target_reached) {
            lines.push(if reached {
                format!(
                    "target error {target} reached after spending {:.4} of the cap {}",
                    self.spent, self.budget
                )
            } else {
                format!(
                    "target error {target} not reached: the cap {} was spent (estimated error {:.4}); raise --budget or the target",
                    self.budget, self.estimated_error
                )
            });
        }
        if let Some(gold) = &self.gold {
            let m = &gold.mean;
            lines.push(format!(
                "gold labels on {} of {} items: corrected mean {:.4} ({percent}% interval {:.4} to {:.4}; lambda {:.3}), judged mean {:.4}, labels alone {:.4} ± {:.4}",
                m.labelled,
                m.labelled + m.unlabelled,
                m.corrected.score,
                m.corrected.low,
                m.corrected.high,
                m.lambda,
                m.judged,
                m.gold_only.score,
                m.gold_only.high - m.gold_only.score
            ));
        }
        lines
    }
}
