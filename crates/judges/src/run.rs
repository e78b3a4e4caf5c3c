//! One judging run as `verdict judge` and the Python module make it: items read from
//! JSON Lines, the estimate made through a spend ledger (so an interrupted run resumes
//! without paying twice), and a failure explained by item and judge name with how to
//! resume.

use std::io::BufRead as _;
use std::path::Path;

use crate::{
    estimate, pilot_plan, BudgetPlan, Estimate, EstimateSettings, JudgeError, JudgePool,
    LedgerEntry, LedgeredPool, Method, ATTEMPTS,
};

/// Reads items: one JSON object per line (blank lines skipped).
///
/// # Errors
/// [`JudgeError::Setting`] naming the file and line that cannot be read or is not a
/// JSON object, or when the file holds no item.
pub fn read_items(path: &Path) -> Result<Vec<serde_json::Value>, JudgeError> {
    let fail = |message: String| JudgeError::Setting(format!("{}{message}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| fail(format!(": cannot open: {e}")))?;
    let mut items = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| fail(format!(":{}: {e}", number + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(value) if value.is_object() => items.push(value),
            _ => return Err(fail(format!(":{}: not a JSON object", number + 1))),
        }
    }
    if items.is_empty() {
        return Err(fail(": no items; add one JSON object per line".into()));
    }
    Ok(items)
}

/// The settings of a judging run that its ledger records: a ledger written under
/// other settings is refused rather than mixed in.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgingRun {
    /// Total budget `B`.
    pub budget: f64,
    /// The estimation method.
    pub method: Method,
    /// Norm, confidence, exploration and optimism.
    pub settings: EstimateSettings,
    /// Seed of replayed judges.
    pub seed: u64,
}

impl JudgingRun {
    /// The settings as the ledger records them.
    fn record(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut record = serde_json::Map::new();
        let mut put = |key: &str, value: serde_json::Value| {
            record.insert(key.into(), value);
        };
        put("method", self.method.name().into());
        put("budget", self.budget.into());
        put("p", self.settings.p.to_string().into());
        put("delta", self.settings.delta.into());
        put("n0", self.settings.exploration.into());
        put("tau", self.settings.tau.into());
        put("seed", self.seed.into());
        // Recorded only when set, so that a ledger of a run without a target (written
        // before there were targets) still belongs to the same run.
        if let Some(target) = self.settings.target_error {
            put("target_error", target.into());
        }
        record
    }
}

/// What a ledgered run did.
#[derive(Debug)]
pub struct JudgedItems<T = Estimate> {
    /// The estimate (or plan), or why the run stopped.
    pub result: Result<T, JudgeError>,
    /// Calls replayed from the ledger.
    pub replayed: u64,
    /// Calls made (and recorded).
    pub made: u64,
    /// Calls an earlier run left in flight: charged, not asked again.
    pub lost: Vec<LedgerEntry>,
}

impl<T> JudgedItems<T> {
    /// The same run with its result passed through `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> JudgedItems<U> {
        JudgedItems {
            result: self.result.map(f),
            replayed: self.replayed,
            made: self.made,
            lost: self.lost,
        }
    }
}

/// Runs `run` on `pool` (items `items`, judges `judges` by name) through the ledger at
/// `ledger`: recorded calls are replayed, new ones recorded before and after they are
/// made.
///
/// # Errors
/// [`JudgeError::Ledger`] when the ledger cannot be opened or belongs to another run
/// (it is left untouched); errors of the run itself are in [`JudgedItems::result`].
pub fn judge_with_ledger(
    pool: &mut dyn JudgePool,
    items: Vec<String>,
    judges: Vec<String>,
    run: &JudgingRun,
    ledger: &Path,
) -> Result<JudgedItems, JudgeError> {
    through_ledger(pool, items, judges, run.record(), ledger, |pool| {
        estimate(pool, run.budget, &run.method, &run.settings)
    })
}

/// The pilot of `verdict judge --plan` through the ledger at `ledger`: `run`'s budget
/// caps the pilot, its `n0` (if set) gives the calls per pair, and its target error is
/// what the plan is for ([`pilot_plan`]). The ledger records the run as a plan, so it
/// is never mixed with an estimate's.
///
/// # Errors
/// As [`judge_with_ledger`]; a run without a target error is a
/// [`JudgeError::Setting`].
pub fn plan_with_ledger(
    pool: &mut dyn JudgePool,
    items: Vec<String>,
    judges: Vec<String>,
    run: &JudgingRun,
    ledger: &Path,
) -> Result<JudgedItems<BudgetPlan>, JudgeError> {
    let target = run.settings.target_error.ok_or_else(|| {
        JudgeError::Setting(format!(
            "a plan is made for a target error: give one ({} E)",
            verdict_settings::Setting("target_error")
        ))
    })?;
    let mut record = run.record();
    record.insert("method".into(), "plan".into());
    through_ledger(pool, items, judges, record, ledger, |pool| {
        // A plan for the shared-error method plans for shared mistakes too.
        let families = run.method.shared_families(pool.costs().len());
        pilot_plan(
            pool,
            run.budget,
            run.settings.exploration,
            run.settings.p,
            target,
            families.as_deref(),
        )
    })
}

/// Opens the ledger, runs `work` on the ledgered pool and says what it replayed and
/// made.
fn through_ledger<T>(
    pool: &mut dyn JudgePool,
    items: Vec<String>,
    judges: Vec<String>,
    record: serde_json::Map<String, serde_json::Value>,
    ledger: &Path,
    work: impl FnOnce(&mut dyn JudgePool) -> Result<T, JudgeError>,
) -> Result<JudgedItems<T>, JudgeError> {
    let mut ledgered = LedgeredPool::open(pool, items, judges, record, ledger)?;
    let result = work(&mut ledgered);
    Ok(JudgedItems {
        result,
        replayed: ledgered.replayed(),
        made: ledgered.made(),
        lost: ledgered.lost().to_vec(),
    })
}

/// A run's failure for a person: judges and items by name, and — where calls were
/// made and the run can go on — how to resume.
pub fn explain_failure(
    error: &JudgeError,
    items: &[String],
    judges: &[String],
    ledger: &Path,
) -> String {
    match error {
        JudgeError::Call {
            item,
            judge,
            message,
        } => format!(
            "judge {:?} failed on item {:?} {ATTEMPTS} times in a row (last: {message}); every call so far is recorded in {}: rerun the same command to resume, and the failed calls are asked again",
            judges[*judge],
            items[*item],
            ledger.display()
        ),
        JudgeError::Stopped(why) => format!(
            "stopped ({why}); every call so far is recorded in {}: rerun the same command to resume",
            ledger.display()
        ),
        other => other.to_string(),
    }
}

/// The warning for a call an earlier run left in flight.
pub fn lost_call_warning(entry: &LedgerEntry) -> String {
    format!(
        "warning: call {} (judge {:?}, item {:?}) was in flight when an earlier run stopped; it may have been paid, so it is charged ({}) and not asked again",
        entry.call, entry.judge, entry.item, entry.cost
    )
}

/// Whether a run should stop before its next calls: `Some(reason)` stops it (see
/// [`JudgePool::stop_requested`]).
pub type StopCheck<'a> = &'a mut (dyn FnMut() -> Option<String> + Send);

/// A pool that reports the price of every paid call (a score, or a call skipped as
/// already paid) to `paid` — what a progress display of the budget needs — and, with
/// [`PaidCalls::stopping_when`], asks before each wave of calls whether to stop (an
/// interpreter's Ctrl-C).
pub struct PaidCalls<'a> {
    inner: &'a mut dyn JudgePool,
    paid: &'a (dyn Fn(f64) + Sync),
    stop: Option<StopCheck<'a>>,
}

impl<'a> PaidCalls<'a> {
    /// `inner`, reporting to `paid`.
    pub fn new(inner: &'a mut dyn JudgePool, paid: &'a (dyn Fn(f64) + Sync)) -> Self {
        Self {
            inner,
            paid,
            stop: None,
        }
    }

    /// The same pool, also stopping when `stop` says so.
    pub fn stopping_when(self, stop: StopCheck<'a>) -> Self {
        Self {
            stop: Some(stop),
            ..self
        }
    }
}

impl JudgePool for PaidCalls<'_> {
    crate::pool_shape_of!(inner);
    fn repeatable(&self, judge: usize) -> bool {
        self.inner.repeatable(judge)
    }
    fn label_calls(&mut self, keys: &[String]) {
        self.inner.label_calls(keys);
    }
    fn concurrency(&self, judge: usize) -> u64 {
        self.inner.concurrency(judge)
    }
    fn stop_requested(&mut self) -> Option<String> {
        self.stop
            .as_mut()
            .and_then(|stop| stop())
            .or_else(|| self.inner.stop_requested())
    }
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
        (self.paid)(self.inner.costs()[judge]);
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let score = self.inner.score(item, judge)?;
        (self.paid)(self.inner.costs()[judge]);
        Ok(score)
    }
    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let cost = self.inner.costs()[judge];
        let paid = self.paid;
        self.inner.score_pair(item, judge, count, &mut |outcome| {
            if outcome.is_ok() {
                paid(cost);
            }
            take(outcome)
        })
    }
}
