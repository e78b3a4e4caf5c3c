//! A judging run's result as every face shows it: each item's score with its interval,
//! the mean over items with its interval, the spend, the target error and what gold
//! labels say — computed once here, rendered by the report crate, the command line and
//! the Python module alike.

use crate::{
    gold_report, intervals, BiasStructure, Estimate, GoldReport, JudgeError, JudgingRun,
    ScoreInterval, SharedErrors, MIN_SHARED_ITEMS,
};

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
    /// The judges' shared mistakes: the item bias no repeated call averages away, and
    /// the intervals that cover the true scores (module `shared_errors`); `items`,
    /// `mean` and the rest above are the consensus.
    pub shared_errors: SharedMistakes,
}

/// A run's judges' shared mistakes, estimated from its calls (module
/// `shared_errors`, pooled structure).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SharedMistakes {
    /// Each judge's family, in the judges' order.
    pub families: Vec<String>,
    /// Whether the item bias could be estimated (judges of two families that share
    /// items).
    pub identified: bool,
    /// What the figures mean, or why the bias could not be estimated and what would
    /// estimate it.
    pub note: String,
    /// Each judge's variance of one call around its own view of an item (0 for a judge
    /// never called twice on an item).
    pub call_variance: Vec<f64>,
    /// The standard deviation of a judge's bias at an item, in score units.
    pub bias_sd: Option<f64>,
    /// The correlation of two judges' biases at an item within a family (None without
    /// two judges of one family).
    pub family_correlation: Option<f64>,
    /// The effective number of independent judges of one call of every judge.
    pub panel_effective_judges: Option<f64>,
    /// Each item's bias-aware score, interval (covering its true score) and effective
    /// judges (empty when not identified).
    pub items: Vec<BiasAwareItem>,
    /// The bias-aware mean over items with its interval (None when not identified).
    pub mean: Option<ScoreInterval>,
}

/// One item's bias-aware score.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BiasAwareItem {
    /// The item's id.
    pub id: String,
    /// Score, standard error and interval.
    #[serde(flatten)]
    pub interval: ScoreInterval,
    /// The effective number of independent judges behind the score.
    pub effective_judges: f64,
}

impl SharedMistakes {
    /// The shared mistakes of `estimate`'s calls on items `ids` by judges of
    /// `families` (one name per judge), intervals at `level`.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] for a level outside (0, 1).
    pub fn of(
        ids: &[String],
        estimate: &Estimate,
        families: &[String],
        level: f64,
    ) -> Result<Self, JudgeError> {
        let indices = family_indices(families);
        let model = SharedErrors::estimate(&estimate.pooled, &indices, BiasStructure::Pooled)?;
        let judges = families.len();
        let within = (0..judges)
            .flat_map(|i| ((i + 1)..judges).map(move |j| (i, j)))
            .find(|&(i, j)| indices[i] == indices[j]);
        let bias_variance = model.bias_variance().first().copied().unwrap_or(0.0);
        let mut found = Self {
            families: families.to_vec(),
            identified: model.identified(),
            note: String::new(),
            call_variance: model.call_variance.clone(),
            bias_sd: None,
            family_correlation: None,
            panel_effective_judges: None,
            items: Vec::new(),
            mean: None,
        };
        if !model.identified() {
            found.note = unidentified_note(&indices);
            return Ok(found);
        }
        found.bias_sd = Some(bias_variance.sqrt());
        found.family_correlation = within
            .map(|(i, j)| model.bias_correlation(i, j))
            .filter(|r| r.is_finite());
        found.panel_effective_judges = model.panel_effective_judges;
        let scored = model.scores(&estimate.pooled, estimate.range)?;
        let aware = crate::target::Scored::from_gls(&scored);
        let shown = intervals(&aware.scores, &aware.uncertainty, level, estimate.range)?;
        found.items = ids
            .iter()
            .zip(shown.items)
            .zip(&scored)
            .map(|((id, interval), g)| BiasAwareItem {
                id: id.clone(),
                interval,
                effective_judges: g.effective_judges,
            })
            .collect();
        found.mean = Some(shown.mean);
        found.note = "item biases estimated from the items judges of different families both scored: the bias-aware intervals cover the true scores, the consensus intervals what the judges would say on average".into();
        Ok(found)
    }
}

impl SharedMistakes {
    /// One line for a person: the bias, its correlation, the panel's worth and the
    /// bias-aware mean — or why they could not be estimated.
    pub fn summary(&self, percent: f64) -> String {
        match (&self.mean, self.bias_sd) {
            (Some(mean), Some(sd)) => {
                let within = self.family_correlation.map_or(String::new(), |r| {
                    format!(", correlation {r:.2} within a family")
                });
                let worth = self.panel_effective_judges.map_or(String::new(), |n| {
                    format!("; one call of each judge is worth {n:.2} independent ones")
                });
                format!(
                    "shared mistakes: a judge's bias at an item has sd {sd:.4}{within}{worth}; bias-aware mean {:.4} ({percent}% interval {:.4} to {:.4}, covering the true mean)",
                    mean.score, mean.low, mean.high
                )
            }
            _ => format!("shared mistakes not estimated: {}", self.note),
        }
    }
}

/// One index per distinct family name, in order of first appearance.
pub fn family_indices(families: &[String]) -> Vec<usize> {
    let mut seen: Vec<&String> = Vec::new();
    families
        .iter()
        .map(|f| match seen.iter().position(|s| *s == f) {
            Some(i) => i,
            None => {
                seen.push(f);
                seen.len() - 1
            }
        })
        .collect()
}

/// Why judges of these families left the item bias unidentified, and what to do.
fn unidentified_note(families: &[usize]) -> String {
    if families.len() < 2 {
        "one judge: its bias at an item cannot be told from the item's score; the intervals are the consensus".into()
    } else if families.iter().all(|&f| f == families[0]) {
        "every judge is of one family: a bias they share cannot be told from the true scores; have a judge of another family score some of the items (or give gold labels)".into()
    } else {
        format!(
            "no two judges of different families scored {MIN_SHARED_ITEMS} or more of the same items: the item bias cannot be estimated yet; call judges of two families on a few dozen common items"
        )
    }
}

impl JudgedScores {
    /// The result of `run`'s `estimate` on items `ids` by judges `judges` of
    /// `families` (one family name per judge; empty: each judge its own), intervals at
    /// `level`, and — with `gold` labels (one per item, `None` where unlabelled) — the
    /// gold report at the same level.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] for a level outside (0, 1), or gold labels the
    /// correction cannot use (fewer than two labelled or two unlabelled items).
    pub fn new(
        ids: &[String],
        judges: &[String],
        families: &[String],
        estimate: &Estimate,
        run: &JudgingRun,
        level: f64,
        gold: Option<&[Option<f64>]>,
    ) -> Result<Self, JudgeError> {
        let families: Vec<String> = if families.is_empty() {
            judges.to_vec()
        } else {
            families.to_vec()
        };
        let shared_errors = SharedMistakes::of(ids, estimate, &families, level)?;
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
            shared_errors,
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
        lines.push(self.shared_errors.summary(percent));
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
