//! The spend ledger: an interrupted run resumes without paying twice and ends where
//! an uninterrupted run ends; failing judges are retried and recorded.

use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use verdict_judges::{
    estimate, Estimate, EstimateSettings, Instance, JudgeError, JudgePool, LedgerEntry,
    LedgeredPool, Method, Norm, Scenario, SimulatedJudges,
};

fn instance() -> Instance {
    Scenario::Random.draw(20, 3, &mut ChaCha8Rng::seed_from_u64(2))
}

/// Simulated judges that count calls, stop the process (an error that is not
/// retried) after `limit` calls, and, when `flaky`, answer garbage — NaN, a score
/// above R, a timeout — before a good score on every seventh call.
struct Scripted {
    inner: SimulatedJudges,
    limit: u64,
    calls: u64,
    flaky: bool,
}

impl Scripted {
    fn new(seed: u64, limit: u64, flaky: bool) -> Self {
        Self {
            inner: SimulatedJudges::new(instance(), seed),
            limit,
            calls: 0,
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
    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        if self.calls == self.limit {
            return Err(JudgeError::Stopped("killed".into()));
        }
        self.calls += 1;
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

fn run_method(
    pool: &mut dyn JudgePool,
    ledger: &Path,
    method: &Method,
) -> Result<Estimate, JudgeError> {
    let items = names("item", pool.items());
    let judges = names("judge", pool.costs().len());
    let mut ledgered = LedgeredPool::open(pool, items, judges, ledger)?;
    estimate(
        &mut ledgered,
        900.0,
        method,
        &EstimateSettings::new(Norm::P(2.0)),
    )
}

fn entries(path: &Path) -> Vec<LedgerEntry> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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
    let mut other = SimulatedJudges::new(instance(), 1);
    let mut ledgered =
        LedgeredPool::open(&mut other, names("item", 20), names("other", 3), &path).unwrap();
    let err = estimate(
        &mut ledgered,
        900.0,
        &Method::EstIvwe,
        &EstimateSettings::new(Norm::P(2.0)),
    )
    .unwrap_err();
    assert!(err.to_string().contains("use a new ledger"), "{err}");
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
