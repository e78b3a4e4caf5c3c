//! The spend ledger: an interrupted run resumes without paying twice and ends where
//! an uninterrupted run ends; failing judges are retried and recorded.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict_judges::{
    estimate, Estimate, EstimateSettings, Instance, JudgeError, JudgePool, Ledger, LedgerEntry,
    LedgerSpend, LedgeredPool, Method, Norm, Scenario, SimulatedJudges,
};

fn instance() -> Instance {
    Scenario::Random.draw(20, 3, &mut ChaCha8Rng::seed_from_u64(2))
}

/// Simulated judges that count calls and what they were paid for them (each call's
/// price, counted here, outside verdict's accounting), stop the process (an error that
/// is not retried) after `limit` calls, and, when `flaky`, answer garbage — NaN, a
/// score above R, a timeout — before a good score on every seventh call.
struct Scripted {
    inner: SimulatedJudges,
    limit: u64,
    calls: u64,
    paid: f64,
    flaky: bool,
}

impl Scripted {
    fn new(seed: u64, limit: u64, flaky: bool) -> Self {
        Self {
            inner: SimulatedJudges::new(instance(), seed),
            limit,
            calls: 0,
            paid: 0.0,
            flaky,
        }
    }
}

impl JudgePool for Scripted {
    fn items(&self) -> usize {
        self.inner.items()
    }
    fn costs(&self) -> &[f64] {
        self.inner.costs()
    }
    fn range(&self) -> f64 {
        self.inner.range()
    }
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
    }
    fn repeatable(&self, judge: usize) -> bool {
        self.inner.repeatable(judge)
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        if self.calls == self.limit {
            return Err(JudgeError::Stopped("killed".into()));
        }
        self.calls += 1;
        self.paid += self.inner.costs()[judge];
        match (self.flaky, self.calls % 7) {
            (true, 1) => Ok(f64::NAN),
            (true, 2) => Ok(7.5),
            (true, 3) => Err(JudgeError::Call {
                item,
                judge,
                message: "timed out after 30 s".into(),
            }),
            _ => self.inner.score(item, judge),
        }
    }
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn run(pool: &mut dyn JudgePool, ledger: &Path) -> Result<Estimate, JudgeError> {
    run_method(pool, ledger, &Method::EstIvwe)
}

/// `pool` through the ledger at `ledger`, its items and judges named as [`names`]
/// names them, the run's settings those of `method`.
fn open_ledger<'a>(
    pool: &'a mut dyn JudgePool,
    ledger: &Path,
    method: &Method,
) -> Result<LedgeredPool<'a>, JudgeError> {
    let items = names("item", pool.items());
    let judges = names("judge", pool.costs().len());
    LedgeredPool::open(pool, items, judges, settings(method), ledger)
}

fn run_method(
    pool: &mut dyn JudgePool,
    ledger: &Path,
    method: &Method,
) -> Result<Estimate, JudgeError> {
    let mut ledgered = open_ledger(pool, ledger, method)?;
    estimate(
        &mut ledgered,
        BUDGET,
        method,
        &EstimateSettings::new(Norm::P(2.0)),
    )
}

const BUDGET: f64 = 900.0;

/// What the ledger records of a run's settings.
fn settings(method: &Method) -> serde_json::Map<String, serde_json::Value> {
    let mut map = serde_json::Map::new();
    map.insert("method".into(), method.name().into());
    map.insert("budget".into(), BUDGET.into());
    map
}

/// The ended calls of a ledger, in call order.
fn entries(path: &Path) -> Vec<LedgerEntry> {
    Ledger::read(path).unwrap().ended().cloned().collect()
}

#[test]
fn an_interrupted_run_resumes_without_paying_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, cut) = (dir.path().join("whole.jsonl"), dir.path().join("cut.jsonl"));
    let mut never_stopped = Scripted::new(9, u64::MAX, false);
    let uninterrupted = run(&mut never_stopped, &whole).unwrap();
    let total_calls = never_stopped.calls;
    for limit in [0, 1, 137, total_calls - 1] {
        let _ = std::fs::remove_file(&cut);
        let mut first = Scripted::new(9, limit, false);
        assert!(matches!(run(&mut first, &cut), Err(JudgeError::Stopped(_))));
        assert_eq!(entries(&cut).len() as u64, limit);
        // Restart: a fresh process, the same settings and ledger.
        let mut second = Scripted::new(9, u64::MAX, false);
        let resumed = run(&mut second, &cut).unwrap();
        assert_eq!(
            second.calls,
            total_calls - limit,
            "limit {limit}: a call was repeated"
        );
        assert_eq!(resumed.scores, uninterrupted.scores, "limit {limit}");
        assert_eq!(resumed.spent, uninterrupted.spent);
        assert!(resumed.spent <= 900.0);
        let strip = |e: LedgerEntry| (e.call, e.item, e.judge, e.score, e.cost);
        let a: Vec<_> = entries(&whole).into_iter().map(strip).collect();
        let b: Vec<_> = entries(&cut).into_iter().map(strip).collect();
        assert_eq!(a.len(), b.len(), "limit {limit}: ledger lengths differ");
        let first_difference = a.iter().zip(&b).position(|(x, y)| x != y);
        assert_eq!(first_difference, None, "limit {limit}: ledgers differ");
        let charged: f64 = entries(&cut).iter().map(|e| e.cost).sum();
        assert!((charged - uninterrupted.spent).abs() < 1e-9);
    }
}

/// The adaptive method, whose screening depends on every score so far, resumes the
/// same way.
#[test]
fn an_interrupted_adaptive_run_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, cut) = (dir.path().join("whole.jsonl"), dir.path().join("cut.jsonl"));
    let mut never = SimulatedJudges::new(instance(), 5);
    let uninterrupted = run_method(&mut never, &whole, &Method::Adaptive).unwrap();
    let mut first = Scripted::new(5, 300, false);
    assert!(run_method(&mut first, &cut, &Method::Adaptive).is_err());
    let mut second = SimulatedJudges::new(instance(), 5);
    let resumed = run_method(&mut second, &cut, &Method::Adaptive).unwrap();
    assert_eq!(resumed.scores, uninterrupted.scores);
    assert_eq!(entries(&cut).len(), entries(&whole).len());
}

#[test]
fn a_line_cut_short_is_dropped_and_a_foreign_ledger_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let mut pool = SimulatedJudges::new(instance(), 1);
    let full = run(&mut pool, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Keep 10 whole lines and half of the 11th, as a kill mid-write would.
    let cut = format!(
        "{}\n{}",
        lines[..10].join("\n"),
        &lines[10][..lines[10].len() / 2]
    );
    std::fs::write(&path, cut).unwrap();
    let mut pool = SimulatedJudges::new(instance(), 1);
    let resumed = run(&mut pool, &path).unwrap();
    assert_eq!(resumed.scores, full.scores);
    // A ledger from another run (other judges) is refused, not silently mixed in.
    let before = std::fs::read(&path).unwrap();
    let mut other = SimulatedJudges::new(instance(), 1);
    let err = LedgeredPool::open(
        &mut other,
        names("item", 20),
        names("other", 3),
        settings(&Method::EstIvwe),
        &path,
    )
    .err()
    .unwrap();
    let message = err.to_string();
    assert!(message.contains("another run"), "{message}");
    assert!(message.contains("judges"), "{message}");
    assert!(message.contains("use a new ledger"), "{message}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the ledger was touched"
    );
}

#[test]
fn failing_judges_are_retried_recorded_and_not_charged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let mut flaky = Scripted::new(4, u64::MAX, true);
    let result = run(&mut flaky, &path);
    let recorded = entries(&path);
    let failures = recorded.iter().filter(|e| e.score.is_none()).count();
    let charged: f64 = recorded.iter().map(|e| e.cost).sum();
    assert!(failures > 0);
    assert!(recorded
        .iter()
        .filter(|e| e.score.is_none())
        .all(|e| e.cost == 0.0 && e.error.is_some()));
    match result {
        Ok(estimate) => assert!((estimate.spent - charged).abs() < 1e-9),
        // Three failures in a row on one pair stop the run with the judge's message;
        // everything paid for is in the ledger.
        Err(e) => assert!(matches!(e, JudgeError::Call { .. }), "{e}"),
    }
    assert!(charged <= 900.0);
}

/// A paid judge service shared by every run: what it charged, per idempotency key.
#[derive(Default)]
struct Provider {
    payments: Vec<String>,
    answers: std::collections::HashMap<String, f64>,
}

/// Simulated judges behind a paid service. Each call is paid when made; when
/// `idempotent`, a key already paid gets its first answer again at no charge. The
/// `crash_at`-th new call is paid and then the run "dies" before hearing the answer,
/// as a kill between the judge's charge and the ledger's end line would.
struct Paid<'a> {
    inner: SimulatedJudges,
    provider: &'a mut Provider,
    idempotent: bool,
    keys: std::collections::VecDeque<String>,
    crash_at: Option<u64>,
    made: u64,
}

impl<'a> Paid<'a> {
    fn new(provider: &'a mut Provider, idempotent: bool, crash_at: Option<u64>) -> Self {
        Self {
            inner: SimulatedJudges::new(instance(), 3),
            provider,
            idempotent,
            keys: Default::default(),
            crash_at,
            made: 0,
        }
    }
}

impl JudgePool for Paid<'_> {
    verdict_judges::pool_shape_of!(inner);
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
    }
    fn repeatable(&self, _judge: usize) -> bool {
        self.idempotent
    }
    fn label_calls(&mut self, keys: &[String]) {
        self.keys = keys.iter().cloned().collect();
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let key = self.keys.pop_front().expect("a ledger labels every call");
        let score = self.inner.score(item, judge)?;
        let answer = match self.provider.answers.get(&key) {
            Some(&earlier) if self.idempotent => earlier,
            _ => {
                self.provider.payments.push(key.clone());
                self.provider.answers.insert(key, score);
                score
            }
        };
        self.made += 1;
        if Some(self.made) == self.crash_at {
            return Err(JudgeError::Stopped(
                "killed after the judge was paid".into(),
            ));
        }
        Ok(answer)
    }
}

/// Every key the provider charged, at most once.
fn assert_paid_once(provider: &Provider) {
    let mut keys = provider.payments.clone();
    keys.sort();
    let total = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), total, "a call was paid twice");
}

#[test]
fn a_call_in_flight_at_a_crash_is_never_paid_twice() {
    let dir = tempfile::tempdir().unwrap();
    // An idempotent judge is asked again with the same key: nothing is paid twice and
    // the run ends exactly where an uninterrupted one does.
    let mut provider = Provider::default();
    let whole = run(
        &mut Paid::new(&mut provider, true, None),
        &dir.path().join("a"),
    )
    .unwrap();
    let mut provider = Provider::default();
    let path = dir.path().join("b");
    for crash in [1, 57, 400] {
        let err = run(&mut Paid::new(&mut provider, true, Some(crash)), &path).unwrap_err();
        assert!(matches!(err, JudgeError::Stopped(_)), "{err}");
    }
    let resumed = run(&mut Paid::new(&mut provider, true, None), &path).unwrap();
    assert_paid_once(&provider);
    assert_eq!(resumed.scores, whole.scores);
    assert_eq!(resumed.spent, whole.spent);
    let ledger = Ledger::read(&path).unwrap();
    assert!((ledger.spent() - resumed.spent).abs() < 1e-9);

    // Any other judge: the call in flight is charged as lost, not asked again.
    let mut provider = Provider::default();
    let path = dir.path().join("c");
    let err = run(&mut Paid::new(&mut provider, false, Some(57)), &path).unwrap_err();
    assert!(matches!(err, JudgeError::Stopped(_)), "{err}");
    let in_doubt = Ledger::read(&path).unwrap();
    let mut pool = Paid::new(&mut provider, false, None);
    let mut ledgered = open_ledger(&mut pool, &path, &Method::EstIvwe).unwrap();
    let resumed = estimate(
        &mut ledgered,
        BUDGET,
        &Method::EstIvwe,
        &EstimateSettings::new(Norm::P(2.0)),
    )
    .unwrap();
    let lost = ledgered.lost().to_vec();
    assert_eq!(lost.len(), 1);
    assert!(lost[0].cost > 0.0 && lost[0].score.is_none());
    assert_eq!(lost[0].call, in_doubt.ended().count() as u64);
    drop(ledgered);
    assert_paid_once(&provider);
    let ledger = Ledger::read(&path).unwrap();
    let costs = instance().costs().to_vec();
    let paid: f64 = provider
        .payments
        .iter()
        .map(|key| {
            let call: usize = key.rsplit('-').next().unwrap().parse().unwrap();
            let judge = match &ledger.calls[call] {
                verdict_judges::LedgerCall::Ended(e) => &e.judge,
                verdict_judges::LedgerCall::InDoubt(s) => &s.judge,
            };
            costs[judge.trim_start_matches("judge").parse::<usize>().unwrap()]
        })
        .sum();
    assert!((ledger.spent() - resumed.spent).abs() < 1e-9);
    assert!(ledger.spent() >= paid - 1e-9, "the ledger missed a payment");
    assert!(resumed.spent <= BUDGET + 1e-9);
}

#[test]
fn a_file_that_is_not_a_ledger_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for text in [
        "{\"id\": \"q1\", \"truth\": 0.4}",
        "notes: ask the large judge first\nthen the small one\n",
        "{\"call\":0,\"item\":\"item0\",\"judge\":\"judge0\",\"score\":0.5,\"error\":null,\"cost\":1.0,\"time\":0.0}\n",
    ] {
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, text).unwrap();
        let mut pool = SimulatedJudges::new(instance(), 1);
        let err = run(&mut pool, &path).unwrap_err();
        assert!(
            err.to_string().contains("not a verdict spend ledger"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
    // An empty file holds nothing to lose: it becomes the ledger.
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let mut pool = SimulatedJudges::new(instance(), 1);
    run(&mut pool, &path).unwrap();
    assert!(!entries(&path).is_empty());
}

/// Simulated judges at other prices.
struct Repriced {
    inner: SimulatedJudges,
    costs: Vec<f64>,
}

impl JudgePool for Repriced {
    fn items(&self) -> usize {
        self.inner.items()
    }
    fn costs(&self) -> &[f64] {
        &self.costs
    }
    fn range(&self) -> f64 {
        self.inner.range()
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        self.inner.score(item, judge)
    }
}

#[test]
fn a_run_resumed_at_other_prices_is_refused_and_spend_is_what_the_ledger_says() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let mut first = Scripted::new(9, 150, false);
    assert!(run(&mut first, &path).is_err());
    let before = std::fs::read(&path).unwrap();
    let inner = SimulatedJudges::new(instance(), 9);
    let costs = inner.costs().iter().map(|c| c * 0.5).collect();
    let err = run(&mut Repriced { inner, costs }, &path).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("cost"), "{message}");
    assert!(message.contains("then"), "{message}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the ledger was touched"
    );
    // At the recorded prices the run resumes. Its spend, the ledger's and what the
    // judges were paid over both processes (counted by the judges) are one figure: a
    // ledger that missed a paid call, or an estimator that counted a replayed one
    // again, fails here.
    let mut second = Scripted::new(9, u64::MAX, false);
    let resumed = run(&mut second, &path).unwrap();
    let paid = first.paid + second.paid;
    let recorded = Ledger::read(&path).unwrap().spent();
    assert!(
        (resumed.spent - paid).abs() < 1e-9,
        "{} vs {paid}",
        resumed.spent
    );
    assert!((recorded - paid).abs() < 1e-9, "{recorded} vs {paid}");
    assert!(paid <= BUDGET + 1e-9);
}

/// Simulated judges where every call for one item fails while `down`; they count
/// the calls that reached the item while down, and what the answered calls were paid
/// (a refused connection is not billed).
struct Down {
    inner: SimulatedJudges,
    down: bool,
    asked_while_down: usize,
    paid: f64,
}

impl Down {
    fn new(down: bool) -> Self {
        Self {
            inner: SimulatedJudges::new(instance(), 2),
            down,
            asked_while_down: 0,
            paid: 0.0,
        }
    }
}

impl JudgePool for Down {
    fn items(&self) -> usize {
        self.inner.items()
    }
    fn costs(&self) -> &[f64] {
        self.inner.costs()
    }
    fn range(&self) -> f64 {
        self.inner.range()
    }
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        let score = self.inner.score(item, judge)?;
        if self.down && item == 3 {
            self.asked_while_down += 1;
            return Err(JudgeError::Call {
                item,
                judge,
                message: "connection refused".into(),
            });
        }
        self.paid += self.inner.costs()[judge];
        Ok(score)
    }
}

#[test]
fn recorded_failures_are_asked_again_when_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let failed = |path: &Path| entries(path).iter().filter(|e| e.error.is_some()).count();
    let mut down = Down::new(true);
    let err = run(&mut down, &path).unwrap_err();
    assert!(matches!(err, JudgeError::Call { item: 3, .. }), "{err}");
    let failures = failed(&path);
    assert!(failures >= verdict_judges::ATTEMPTS);
    assert_eq!(failures, down.asked_while_down, "a failed call unrecorded");
    // Still down: the rerun asks the judges again (they count the calls: a ledger that
    // replayed its recorded failures would make none) and records each new failure.
    let mut still = Down::new(true);
    assert!(run(&mut still, &path).is_err());
    assert!(
        still.asked_while_down >= verdict_judges::ATTEMPTS,
        "not asked again"
    );
    assert_eq!(failed(&path), failures + still.asked_while_down);
    // Back up: the run finishes; the failures stay in the ledger, uncharged, and the
    // spend is what the judges were paid over the three runs.
    let mut up = Down::new(false);
    let finished = run(&mut up, &path).unwrap();
    assert!(finished.scores.iter().all(|s| s.is_finite()));
    let recorded = entries(&path);
    assert_eq!(
        failed(&path),
        down.asked_while_down + still.asked_while_down
    );
    assert!(recorded
        .iter()
        .filter(|e| e.error.is_some())
        .all(|e| e.cost == 0.0));
    let paid = down.paid + still.paid + up.paid;
    assert!(
        (finished.spent - paid).abs() < 1e-9,
        "{} vs {paid}",
        finished.spent
    );
    assert!((Ledger::read(&path).unwrap().spent() - paid).abs() < 1e-9);
}

/// Judges that cannot be asked again for free (`repeatable` false) and a stop request
/// (an interpreter's Ctrl-C) after `limit` calls.
struct StopAfter {
    inner: Scripted,
    limit: u64,
}

impl JudgePool for StopAfter {
    verdict_judges::pool_shape_of!(inner);
    fn skip(&mut self, item: usize, judge: usize) {
        self.inner.skip(item, judge);
    }
    fn stop_requested(&mut self) -> Option<String> {
        (self.inner.calls >= self.limit).then(|| "interrupted".to_owned())
    }
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        self.inner.score(item, judge)
    }
}

/// A stop requested between calls leaves no call in flight: nothing is charged as
/// lost, and the resumed run makes exactly the calls the first one did not.
#[test]
fn a_stop_request_leaves_no_call_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, cut) = (dir.path().join("whole.jsonl"), dir.path().join("cut.jsonl"));
    let mut never = StopAfter {
        inner: Scripted::new(3, u64::MAX, false),
        limit: u64::MAX,
    };
    let uninterrupted = run(&mut never, &whole).unwrap();
    let mut first = StopAfter {
        inner: Scripted::new(3, u64::MAX, false),
        limit: 40,
    };
    let stopped = run(&mut first, &cut);
    assert!(matches!(stopped, Err(JudgeError::Stopped(ref why)) if why == "interrupted"));
    let made = first.inner.calls;
    assert!(made >= 40);
    assert_eq!(entries(&cut).len() as u64, made, "every started call ended");
    assert!(entries(&cut).iter().all(|e| !e.is_lost()));
    let mut second = StopAfter {
        inner: Scripted::new(3, u64::MAX, false),
        limit: u64::MAX,
    };
    let resumed = run(&mut second, &cut).unwrap();
    assert_eq!(second.inner.calls, never.inner.calls - made);
    assert!(entries(&cut).iter().all(|e| !e.is_lost()));
    assert_eq!(resumed.scores, uninterrupted.scores);
    assert!(resumed.spent <= BUDGET);
}

/// The spend read back from a ledger adds up to what the run reported spending, and
/// every scored call lands in its (item, judge) cell: checked against the ledger's
/// own entries counted here; a flaky run's failed calls are counted and not charged.
#[test]
fn ledger_spend_adds_up_per_judge_and_per_item() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let mut judges = Scripted::new(3, u64::MAX, false);
    let result = run(&mut judges, &path).unwrap();
    let ledger = Ledger::read(&path).unwrap();
    let items = names("item", 20);
    let spend = LedgerSpend::of(&ledger, &items);
    assert_eq!(spend.judges, names("judge", 3));
    assert!((spend.total() - result.spent).abs() < 1e-9);
    let per_judge = spend.per_judge();
    let per_item = spend.per_item();
    for (j, judge) in spend.judges.iter().enumerate() {
        let counted: f64 = entries(&path)
            .iter()
            .filter(|e| &e.judge == judge)
            .map(|e| e.cost)
            .sum();
        assert!((per_judge[j] - counted).abs() < 1e-9, "{judge}");
    }
    for (i, item) in items.iter().enumerate() {
        let scored = entries(&path)
            .iter()
            .filter(|e| &e.item == item && e.score.is_some())
            .count();
        assert_eq!(
            spend.scored[i].iter().sum::<u32>() as usize,
            scored,
            "{item}"
        );
        let cost: f64 = entries(&path)
            .iter()
            .filter(|e| &e.item == item)
            .map(|e| e.cost)
            .sum();
        assert!((per_item[i] - cost).abs() < 1e-9);
    }
    assert_eq!((spend.failed, spend.lost, spend.in_doubt), (0, 0, 0));

    // Flaky judges: three failures in a row on one pair stop the run.
    let flaky_path = dir.path().join("flaky.jsonl");
    let _ = run(&mut Scripted::new(4, u64::MAX, true), &flaky_path);
    let spend = LedgerSpend::of(&Ledger::read(&flaky_path).unwrap(), &items);
    let recorded = entries(&flaky_path);
    let failed = recorded.iter().filter(|e| e.score.is_none()).count();
    assert!(failed > 0, "the flaky judges failed some calls");
    assert_eq!(spend.failed, failed);
    let charged: f64 = recorded.iter().map(|e| e.cost).sum();
    assert!((spend.total() - charged).abs() < 1e-9);
}

/// One run at a time per ledger *file*, whatever name reaches it: while a run holds
/// a ledger, a second one opening it through a symbolic link (to it, or to a ledger
/// not yet made) or through a hard link is refused before it reads or pays anything.
/// Before, the lock was `.NAME.lock` beside the name as given, so each name had its
/// own lock and two runs paid for the same calls.
#[test]
fn a_ledger_reached_through_a_link_is_locked_as_the_file_itself() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("spend.jsonl");
    let mut stopped = Scripted::new(9, 20, false);
    assert!(matches!(
        run(&mut stopped, &ledger),
        Err(JudgeError::Stopped(_))
    ));
    let symbolic = dir.path().join("symbolic.jsonl");
    std::os::unix::fs::symlink(&ledger, &symbolic).unwrap();
    let hard = dir.path().join("hard.jsonl");
    std::fs::hard_link(&ledger, &hard).unwrap();
    let before = std::fs::read(&ledger).unwrap();
    let open =
        |pool: &mut Scripted, path: &Path| open_ledger(pool, path, &Method::EstIvwe).map(|_| ());
    let (mut holder_pool, mut second) = (
        Scripted::new(9, u64::MAX, false),
        Scripted::new(9, u64::MAX, false),
    );
    let holder = open_ledger(&mut holder_pool, &ledger, &Method::EstIvwe).unwrap();
    for other in [&symbolic, &hard] {
        let err = open(&mut second, other).unwrap_err().to_string();
        assert!(
            err.contains("another verdict judge run"),
            "{}: {err}",
            other.display()
        );
    }
    assert_eq!(second.calls, 0);
    drop(holder);
    assert_eq!(
        std::fs::read(&ledger).unwrap(),
        before,
        "a refused run wrote"
    );
    // A link to a ledger not yet made locks the file it will be.
    let (fresh, dangling) = (
        dir.path().join("fresh.jsonl"),
        dir.path().join("dangling.jsonl"),
    );
    std::os::unix::fs::symlink(&fresh, &dangling).unwrap();
    let mut first = Scripted::new(9, u64::MAX, false);
    let holder = open_ledger(&mut first, &fresh, &Method::EstIvwe).unwrap();
    let err = open(&mut second, &dangling).unwrap_err().to_string();
    assert!(err.contains("another verdict judge run"), "{err}");
    drop(holder);
    // Once free, the run through a link resumes the same ledger and finishes it.
    let mut resumed = Scripted::new(9, u64::MAX, false);
    run(&mut resumed, &symbolic).unwrap();
    assert!(std::fs::symlink_metadata(&symbolic)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(entries(&ledger).len() > 20);
}

/// A ledger is the record of one run's calls: asked again with the same ids and judge
/// names but another item text, another judge program or prompt, or other recorded
/// scores, it is refused instead of replaying the old answers ("6 replayed, 0 made"
/// before). The same run resumes from it without a call.
#[test]
fn a_ledger_never_replays_scores_after_items_or_judges_changed() {
    use verdict_judges::{ConfiguredPool, JudgesConfig};
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("spend.jsonl");
    let attempt = |text: &str, program: &str| {
        let path = dir.path().join("judges.toml");
        std::fs::write(
            &path,
            format!("range = 1.0\n[[judge]]\nname = \"j\"\ncost = 1.0\ncommand = [\"sh\", \"-c\", \"cat >/dev/null; {program}\"]\n"),
        )
        .unwrap();
        let config = JudgesConfig::read(&path).unwrap();
        let items: Vec<serde_json::Value> = (0..3)
            .map(|i| serde_json::json!({"id": format!("q{i}"), "text": format!("{text} {i}")}))
            .collect();
        let mut pool = ConfiguredPool::new(items, config, 0).unwrap();
        let mut ledgered = LedgeredPool::open(
            &mut pool,
            names("q", 3),
            vec!["j".into()],
            settings(&Method::Uniform),
            &ledger,
        )?;
        estimate(
            &mut ledgered,
            6.0,
            &Method::Uniform,
            &EstimateSettings::new(Norm::P(2.0)),
        )?;
        Ok::<_, JudgeError>((ledgered.made(), ledgered.replayed()))
    };
    assert_eq!(attempt("first", "echo 0.5").unwrap(), (6, 0));
    assert_eq!(attempt("first", "echo 0.5").unwrap(), (0, 6));
    for (text, program) in [("edited", "echo 0.5"), ("first", "echo 0.7")] {
        let err = attempt(text, program).unwrap_err().to_string();
        assert!(
            err.contains("another run") && err.contains("a judge's definition"),
            "{text}, {program}: {err}"
        );
    }
    assert_eq!(entries(&ledger).len(), 6);
}
