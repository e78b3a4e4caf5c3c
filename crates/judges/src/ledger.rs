//! The spend ledger as a [`JudgePool`]: every judge call is written ahead (a start
//! line, flushed to disk before the call) and settled after (an end line with the
//! score or error and what it cost). Reopening the ledger replays the ended calls in
//! order, so a run interrupted at any point and restarted with the same settings
//! reaches the same state without paying twice.
//!
//! One run writes a ledger at a time: the pool holds the ledger's lock
//! ([`LedgerLock`]) from opening to its end, and a second run is refused.
//!
//! What a restart does with each recorded call:
//! - a score is handed back as it was, at the price recorded;
//! - a judge's failure is kept in the file but not replayed: the call is asked again,
//!   so a run stopped by a judge that was down resumes once it is back;
//! - a call started and never ended was in flight when the run stopped and may have
//!   been paid. A judge that asking again costs nothing extra for (a simulator,
//!   recorded scores, or a judge configured `idempotent`, which gets the same
//!   idempotency key again) is asked again; for any other judge the call is settled as
//!   lost: charged at its price, without a score, and reported — never paid twice.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::judge::one_call;
use crate::ledger_file::{
    ledger_error, Header, Ledger, LedgerCall, LedgerEntry, LedgerRun, LedgerStart, Line,
    LEDGER_FORMAT, LEDGER_VERSION, LOST_PREFIX,
};
use crate::ledger_lock::{lock_ledger, resolve_links, LedgerLock};
use crate::spend::in_range;
use crate::{duplicate_judge, first_duplicate, JudgeError, JudgePool};

/// A [`JudgePool`] whose calls go through a ledger file: recorded calls are replayed
/// (and checked against what the run asks for), new calls are written ahead, made and
/// recorded.
pub struct LedgeredPool<'a> {
    inner: &'a mut dyn JudgePool,
    replay: VecDeque<LedgerCall>,
    replayed: u64,
    recorder: Recorder,
    /// Held while the pool lives: no other run writes this ledger meanwhile.
    _lock: LedgerLock,
}

/// The writing half of the ledger: names, the file, and the number of the next call.
struct Recorder {
    items: Vec<String>,
    judges: Vec<String>,
    costs: Vec<f64>,
    range: f64,
    run: LedgerRun,
    key_prefix: String,
    /// The open file; `None` until the first call of a new ledger creates it.
    file: Option<File>,
    path: PathBuf,
    next_call: u64,
    made: u64,
    lost: Vec<LedgerEntry>,
}

impl<'a> LedgeredPool<'a> {
    /// Opens the ledger at `path` for `inner`, whose items and judges are named by
    /// `items` and `judges`; `settings` names everything else that decides which calls
    /// the run makes (method, budget, seed, …). A missing or empty file is a new
    /// ledger, created at the first call (so a run that fails before any call leaves
    /// no file). An existing ledger must be of the same run; a last line cut short by
    /// an interruption is dropped.
    ///
    /// # Errors
    /// [`JudgeError::Ledger`] when the file cannot be read or written, is not a verdict
    /// spend ledger (it is then left untouched), belongs to another run (naming what
    /// differs), or holds a malformed line.
    pub fn open(
        inner: &'a mut dyn JudgePool,
        items: Vec<String>,
        judges: Vec<String>,
        settings: serde_json::Map<String, serde_json::Value>,
        path: &Path,
    ) -> Result<Self, JudgeError> {
        let fail = |message: String| ledger_error(path, message);
        let (costs, range) = (inner.costs().to_vec(), inner.range());
        let run = LedgerRun {
            content_sha256: inner.content_digest(),
            ..LedgerRun::new(&items, &judges, &costs, range, settings)
        };
        if let Some(twice) = first_duplicate(&judges) {
            return Err(JudgeError::Setting(duplicate_judge(twice)));
        }
        // The ledger's identity, not the name it was given: a run reaching it through
        // a symbolic link locks the same lock file as one naming it directly.
        let path = &resolve_links(path).map_err(|e| fail(format!("cannot resolve it: {e}")))?;
        let fail = |message: String| ledger_error(path, message);
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(fail(
                "this is not a regular file (a folder, device or pipe); give a file path".into(),
            ));
        }
        // Before the ledger is read: a run that already holds it may be writing it.
        let lock = LedgerLock::acquire(path)?;
        // The file itself is locked too: a run reaching it through a hard link has
        // another lock file, but the same file.
        let mut held = match OpenOptions::new().read(true).append(true).open(path) {
            Ok(file) => Some(lock_ledger(path, file)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e.to_string())),
        };
        let mut bytes = Vec::new();
        if let Some(file) = &mut held {
            file.read_to_end(&mut bytes)
                .map_err(|e| fail(e.to_string()))?;
        }
        let existing = match bytes.is_empty() {
            false => Some(Ledger::parse(path, &bytes)?),
            true => None,
        };
        // A resumed ledger keeps the keys it started with: its own run's fingerprint
        // (a ledger written before the content digest was recorded has another).
        let (replay, file, key_prefix) = match existing {
            None => (VecDeque::new(), None, run.fingerprint()),
            Some(ledger) => {
                let differences = ledger.run.differences(&run);
                if !differences.is_empty() {
                    return Err(fail(format!(
                        "this ledger belongs to another run ({}); resume with the same items, judges, prices and settings, or use a new ledger",
                        differences.join("; ")
                    )));
                }
                let file = held
                    .take()
                    .expect("a ledger with lines was read from a file");
                // Only a line cut short by an interruption lies past the whole lines.
                file.set_len(ledger.whole_bytes)
                    .map_err(|e| fail(e.to_string()))?;
                let key_prefix = ledger.run.fingerprint();
                (ledger.calls.into_iter().collect(), Some(file), key_prefix)
            }
        };
        let next_call = replay.len() as u64;
        Ok(Self {
            inner,
            replay,
            replayed: 0,
            _lock: lock,
            recorder: Recorder {
                items,
                judges,
                costs,
                range,
                key_prefix,
                run,
                file,
                path: path.to_path_buf(),
                next_call,
                made: 0,
                lost: Vec::new(),
            },
        })
    }

    /// Calls replayed from the ledger so far.
    pub fn replayed(&self) -> u64 {
        self.replayed
    }

    /// Calls made to the judges (and recorded) so far.
    pub fn made(&self) -> u64 {
        self.recorder.made
    }

    /// Calls found in flight by this run's restart that were settled as lost: charged,
    /// without a score (their judge could not be asked again without paying twice).
    pub fn lost(&self) -> &[LedgerEntry] {
        &self.recorder.lost
    }

    /// Replays recorded calls of (`item`, `judge`) into `take` while `left` is
    /// positive; returns how many calls are still to be made.
    fn replay(
        &mut self,
        item: usize,
        judge: usize,
        mut left: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<u64, JudgeError> {
        while left > 0 {
            let Some(call) = self.replay.pop_front() else {
                break;
            };
            let recorder = &mut self.recorder;
            match call {
                // A judge's failure was not paid and is asked again now.
                LedgerCall::Ended(entry)
                    if entry.score.is_none() && !entry.is_charged_failure() =>
                {
                    recorder.check(&entry.item, &entry.judge, entry.call, item, judge)?;
                    self.inner.skip(item, judge);
                }
                LedgerCall::Ended(entry) => {
                    recorder.check(&entry.item, &entry.judge, entry.call, item, judge)?;
                    self.inner.skip(item, judge);
                    self.replayed += 1;
                    left -= 1;
                    take(match entry.score {
                        Some(score) => Ok(score),
                        None => Err(lost(item, judge, entry.cost, entry.error)),
                    })?;
                }
                LedgerCall::InDoubt(start) => {
                    recorder.check(&start.item, &start.judge, start.call, item, judge)?;
                    left -= 1;
                    if self.inner.repeatable(judge) {
                        self.inner.label_calls(std::slice::from_ref(&start.key));
                        let result = one_call(self.inner, item, judge);
                        take(recorder.settle(start.call, item, judge, result)?)?;
                    } else {
                        let entry = recorder.settle_lost(start.call, item, judge)?;
                        take(Err(lost(item, judge, entry.cost, entry.error)))?;
                    }
                }
            }
        }
        Ok(left)
    }
}

/// The error a lost call is handed on as: charged, no score.
fn lost(item: usize, judge: usize, cost: f64, error: Option<String>) -> JudgeError {
    JudgeError::Lost {
        item,
        judge,
        cost,
        message: error.unwrap_or_else(|| LOST_PREFIX.into()),
    }
}

impl Recorder {
    /// A recorded call must be the one the run asks for now.
    fn check(
        &self,
        recorded_item: &str,
        recorded_judge: &str,
        call: u64,
        item: usize,
        judge: usize,
    ) -> Result<(), JudgeError> {
        if recorded_item == self.items[item] && recorded_judge == self.judges[judge] {
            return Ok(());
        }
        Err(ledger_error(
            &self.path,
            format!(
                "call {call} was item {recorded_item:?} with judge {recorded_judge:?} but this run asks for item {:?} with judge {:?}; resume with the same items, judges, budget and settings, or use a new ledger",
                self.items[item], self.judges[judge]
            ),
        ))
    }

    /// Writes the start lines of `count` new calls of (`item`, `judge`) and returns
    /// their numbers and idempotency keys.
    fn start(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
    ) -> Result<(Vec<u64>, Vec<String>), JudgeError> {
        let numbers: Vec<u64> = (self.next_call..self.next_call + count).collect();
        let keys: Vec<String> = numbers
            .iter()
            .map(|n| format!("{}-{n}", self.key_prefix))
            .collect();
        let lines: Vec<Line> = numbers
            .iter()
            .zip(&keys)
            .map(|(&call, key)| {
                Line::Start(LedgerStart {
                    call,
                    item: self.items[item].clone(),
                    judge: self.judges[judge].clone(),
                    key: key.clone(),
                })
            })
            .collect();
        self.write(&lines)?;
        self.next_call += count;
        Ok((numbers, keys))
    }

    /// Records the end of call `call` and passes its outcome on. Only a judge's own
    /// failure is part of the run; anything else (the run being stopped, a broken
    /// pool) leaves the call in doubt. A score outside `[0, R]` (or NaN) is a failed
    /// call: recorded, not charged. A call its judge answered without a usable score
    /// ([`JudgeError::Lost`]) is recorded charged.
    fn settle(
        &mut self,
        call: u64,
        item: usize,
        judge: usize,
        result: Result<f64, JudgeError>,
    ) -> Result<Result<f64, JudgeError>, JudgeError> {
        if let Err(e) = &result {
            if !matches!(e, JudgeError::Call { .. } | JudgeError::Lost { .. }) {
                return Err(result.expect_err("an error"));
            }
        }
        let result = result.and_then(|score| in_range(item, judge, score, self.range));
        let (error, cost) = match &result {
            Ok(_) => (None, self.costs[judge]),
            Err(JudgeError::Lost { message, .. }) => (Some(message.clone()), self.costs[judge]),
            Err(other) => (Some(other.to_string()), 0.0),
        };
        let entry = LedgerEntry {
            call,
            item: self.items[item].clone(),
            judge: self.judges[judge].clone(),
            score: result.as_ref().ok().copied(),
            error,
            cost,
            time: now(),
        };
        self.write(&[Line::End(entry)])?;
        self.made += 1;
        Ok(result)
    }

    /// Settles call `call`, found in flight, as lost: charged, no score.
    fn settle_lost(
        &mut self,
        call: u64,
        item: usize,
        judge: usize,
    ) -> Result<LedgerEntry, JudgeError> {
        let entry = LedgerEntry {
            call,
            item: self.items[item].clone(),
            judge: self.judges[judge].clone(),
            score: None,
            error: Some(format!(
                "{LOST_PREFIX}: the run stopped during this call, which may have been paid; it is charged and not asked again (mark the judge idempotent = true if it honours the call key)"
            )),
            cost: self.costs[judge],
            time: now(),
        };
        self.write(&[Line::End(entry.clone())])?;
        self.lost.push(entry.clone());
        Ok(entry)
    }

    /// Appends `lines` and flushes them to disk; the first write of a new ledger
    /// creates the file with its header, atomically and never over another file.
    fn write(&mut self, lines: &[Line]) -> Result<(), JudgeError> {
        let path = self.path.clone();
        let fail = |e: std::io::Error| ledger_error(&path, e.to_string());
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(line).expect("ledger lines serialise"));
            text.push('\n');
        }
        if self.file.is_none() {
            self.file = Some(create(&self.path, &self.run).map_err(fail)?);
        }
        let file = self.file.as_mut().expect("the ledger is open");
        file.write_all(text.as_bytes()).map_err(fail)?;
        file.sync_data().map_err(fail)
    }
}

/// Creates the ledger at `path` with its header: written to a temporary file beside
/// it and linked into place only if `path` still does not exist (or is empty).
fn create(path: &Path, run: &LedgerRun) -> std::io::Result<File> {
    let header = Header {
        format: LEDGER_FORMAT.into(),
        version: LEDGER_VERSION,
        run: run.clone(),
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut staged = tempfile::Builder::new()
        .prefix(".verdict-ledger-")
        .tempfile_in(dir)?;
    // Locked before it has a name: no run can open it by a link and write first.
    staged.as_file().try_lock().map_err(std::io::Error::from)?;
    let mut line = serde_json::to_string(&header).expect("headers serialise");
    line.push('\n');
    staged.write_all(line.as_bytes())?;
    staged.as_file().sync_all()?;
    // An empty file the user made beforehand holds nothing to lose.
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        std::fs::remove_file(path)?;
    }
    staged.persist_noclobber(path).map_err(|e| e.error)
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl JudgePool for LedgeredPool<'_> {
    crate::pool_shape_of!(inner);

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        one_call(self, item, judge)
    }

    /// Recorded calls first, in order; the rest are written ahead, then go to the
    /// inner pool (concurrently, if it can) and are recorded one by one as they end.
    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let left = self.replay(item, judge, count, take)?;
        if left == 0 {
            return Ok(());
        }
        // Calls are written ahead in waves of at most the judge's concurrency, so a
        // stop leaves in doubt only calls that may really have been in flight.
        let wave = self.inner.concurrency(judge).max(1);
        let mut left = left;
        while left > 0 {
            let size = left.min(wave);
            if let Some(why) = self.inner.stop_requested() {
                return Err(JudgeError::Stopped(why));
            }
            let recorder = &mut self.recorder;
            let (numbers, keys) = recorder.start(item, judge, size)?;
            self.inner.label_calls(&keys);
            let mut numbers = numbers.into_iter();
            self.inner.score_pair(item, judge, size, &mut |result| {
                let call = numbers.next().expect("no more outcomes than calls");
                take(recorder.settle(call, item, judge, result)?)
            })?;
            left -= size;
        }
        Ok(())
    }
}
