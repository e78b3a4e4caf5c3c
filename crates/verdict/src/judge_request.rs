//! One judging request — the run, its intervals' level, plan or estimate, the ledger
//! and the gold labels — made in one call ([`judge_request`]), so that `verdict judge`
//! and Python's `judge` each build their judges, call it and render the result. The
//! request's settings by name ([`JudgeParams`]) are what Python hands over.
//!
//! In order: the level is checked before any judge is paid; the run goes through the
//! ledger (every call written ahead, so an interrupted run resumes without paying
//! twice); calls an earlier run left in flight become warnings; a run that stopped
//! is explained by item and judge name; a finished estimate becomes the scores with
//! their intervals and the gold report.

use std::path::Path;

use serde::Deserialize;
use verdict_judges::{
    check_level, explain_failure, family_indices, judge_with_ledger, lost_call_warning,
    plan_with_ledger, BudgetPlan, Estimate, EstimateSettings, JudgeError, JudgePool, JudgedScores,
    JudgingRun, Method, Norm,
};

use crate::settings::{by_text, SettingError};
use crate::VerdictError;

/// A judging run to make through a ledger.
#[derive(Debug, Clone)]
pub struct JudgeRequest<'a> {
    /// Budget, method, estimation settings and seed.
    pub run: JudgingRun,
    /// Confidence level of the intervals, in (0, 1).
    pub level: f64,
    /// Only plan: a pilot, then the budget `run`'s target error needs.
    pub plan: bool,
    /// The spend ledger (created, or resumed).
    pub ledger: &'a Path,
    /// Gold labels, one per item (`None` where unlabelled).
    pub gold: Option<Vec<Option<f64>>>,
    /// Each judge's family (judges of one family may share their mistakes); empty:
    /// each judge its own.
    pub families: Vec<String>,
}

/// What a finished run gives.
#[derive(Debug, Clone)]
pub enum JudgeOutcome {
    /// The scores with their intervals (and gold report), and the estimate itself.
    Scores {
        /// The result as the faces render it.
        scores: Box<JudgedScores>,
        /// Spend, calls and Phase I of the run.
        estimate: Box<Estimate>,
    },
    /// The plan of a `plan` request.
    Plan(Box<BudgetPlan>),
}

/// A run that stopped: its error, and the error explained by item and judge name.
#[derive(Debug)]
pub struct JudgeStopped {
    /// What stopped it.
    pub error: JudgeError,
    /// The message a face shows.
    pub explained: String,
}

/// What a request did: its outcome or why it stopped, the warnings of calls an
/// earlier run left in flight, and the calls replayed from the ledger and made.
#[derive(Debug)]
pub struct Judged {
    /// The outcome, or why the run stopped (the ledger keeps what was paid).
    pub outcome: Result<JudgeOutcome, JudgeStopped>,
    /// One warning per call charged but not asked again.
    pub warnings: Vec<String>,
    /// Calls replayed from the ledger.
    pub replayed: u64,
    /// Calls made (and recorded).
    pub made: u64,
}

/// Makes `request` with the judges of `pool` on items `ids` (module docs).
///
/// # Errors
/// A level outside (0, 1), a damaged or foreign ledger, settings a run cannot use
/// (checked before any call); a run that stops after paying is [`Judged::outcome`].
pub fn judge_request(
    pool: &mut dyn JudgePool,
    ids: &[String],
    names: &[String],
    request: &JudgeRequest<'_>,
) -> Result<Judged, VerdictError> {
    check_level(request.level)?;
    let (items, judges) = (ids.to_vec(), names.to_vec());
    // A method that needs the judges' families gets the run's.
    let mut run = request.run.clone();
    if let Method::EstIvweShared { families } = &mut run.method {
        if families.is_empty() && !request.families.is_empty() {
            *families = family_indices(&request.families);
        }
    }
    let (result, replayed, made, lost) = if request.plan {
        let judged = plan_with_ledger(pool, items, judges, &run, request.ledger)?;
        let result = judged.result.map(|plan| JudgeOutcome::Plan(Box::new(plan)));
        (result, judged.replayed, judged.made, judged.lost)
    } else {
        let judged = judge_with_ledger(pool, items, judges, &run, request.ledger)?;
        let result = judged.result.and_then(|estimate| {
            let scores = JudgedScores::new(
                ids,
                names,
                &request.families,
                &estimate,
                &request.run,
                request.level,
                request.gold.as_deref(),
            )?;
            Ok(JudgeOutcome::Scores {
                scores: Box::new(scores),
                estimate: Box::new(estimate),
            })
        });
        (result, judged.replayed, judged.made, judged.lost)
    };
    Ok(Judged {
        outcome: result.map_err(|error| JudgeStopped {
            explained: explain_failure(&error, ids, names, request.ledger),
            error,
        }),
        warnings: lost.iter().map(lost_call_warning).collect(),
        replayed,
        made,
    })
}

/// A judging run's settings by name, as a settings document holds them
/// ([`crate::settings`]); names and meanings are `verdict judge`'s flags (`n0` is
/// `--n0`), and `range` is the score range of judges that are not configured (Python
/// callables). `budget` has no default.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct JudgeParams {
    pub budget: Option<f64>,
    pub p: Norm,
    #[serde(deserialize_with = "by_text", serialize_with = "method_name")]
    pub method: Method,
    pub delta: f64,
    pub n0: Option<u64>,
    pub tau: Option<f64>,
    pub seed: u64,
    pub range: f64,
    pub level: f64,
    pub target_error: Option<f64>,
    pub plan: bool,
}

/// The judging method by the name [`Method::from_str`](std::str::FromStr) reads.
fn method_name<S: serde::Serializer>(method: &Method, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(method.name())
}

impl Default for JudgeParams {
    /// `verdict judge`'s defaults (the method: Est-IVWE), and a score range of 1.
    fn default() -> Self {
        let settings = EstimateSettings::new(Norm::P(2.0));
        Self {
            budget: None,
            p: settings.p,
            method: Method::EstIvwe,
            delta: settings.delta,
            n0: None,
            tau: None,
            seed: 0,
            range: 1.0,
            level: 0.95,
            target_error: None,
            plan: false,
        }
    }
}

impl JudgeParams {
    /// The request these settings make with `ledger` and `gold`.
    ///
    /// # Errors
    /// A [`SettingError`] for a missing budget.
    pub fn request<'a>(
        &self,
        ledger: &'a Path,
        gold: Option<Vec<Option<f64>>>,
    ) -> Result<JudgeRequest<'a>, SettingError> {
        let budget = self
            .budget
            .ok_or_else(|| SettingError::new("budget", "a run needs a budget"))?;
        Ok(JudgeRequest {
            run: JudgingRun {
                budget,
                method: self.method.clone(),
                settings: EstimateSettings {
                    p: self.p,
                    delta: self.delta,
                    exploration: self.n0,
                    tau: self.tau,
                    target_error: self.target_error,
                },
                seed: self.seed,
            },
            level: self.level,
            plan: self.plan,
            ledger,
            gold,
            families: Vec::new(),
        })
    }
}
