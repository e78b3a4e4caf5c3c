//! The spend ledger: every judge call — item, judge, score or error, cost, time — is
//! appended to a JSON Lines file and flushed to disk before the next call. Reopening
//! the ledger replays the recorded calls in order, so a run interrupted at any point
//! and restarted with the same settings reaches the same state without paying twice.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::spend::in_range;
use crate::{JudgeError, JudgePool};

/// One recorded call.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LedgerEntry {
    /// Position of the call in the run, from 0.
    pub call: u64,
    /// Item id.
    pub item: String,
    /// Judge name.
    pub judge: String,
    /// The score, when the call succeeded.
    pub score: Option<f64>,
    /// What went wrong, when it failed.
    pub error: Option<String>,
    /// Amount charged (0 for a failed call).
    pub cost: f64,
    /// Seconds since the Unix epoch when the call ended.
    pub time: f64,
}

/// A [`JudgePool`] whose calls go through a ledger file: recorded calls are replayed
/// (and checked against what the run asks for), new calls are made and recorded.
pub struct LedgeredPool<'a> {
    inner: &'a mut dyn JudgePool,
    replay: VecDeque<LedgerEntry>,
    replayed: u64,
    recorder: Recorder,
}

/// The writing half of the ledger: names, the file, and the position of the next call.
struct Recorder {
    items: Vec<String>,
    judges: Vec<String>,
    costs: Vec<f64>,
    range: f64,
    file: File,
    path: PathBuf,
    next_call: u64,
    made: u64,
}

impl<'a> LedgeredPool<'a> {
    /// Opens (or creates) the ledger at `path` for `inner`, whose items and judges are
    /// named by `items` and `judges`. A last line cut short by an interruption is
    /// dropped (that call is made again; it was never charged).
    ///
    /// # Errors
    /// [`JudgeError::Ledger`] when the file cannot be read or written or holds a
    /// malformed line before the last.
    pub fn open(
        inner: &'a mut dyn JudgePool,
        items: Vec<String>,
        judges: Vec<String>,
        path: &Path,
    ) -> Result<Self, JudgeError> {
        let fail = |message: String| JudgeError::Ledger {
            path: path.display().to_string(),
            message,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| fail(e.to_string()))?;
        let mut replay = VecDeque::new();
        let mut complete_bytes = 0u64;
        let mut reader = BufReader::new(&mut file);
        let mut line = String::new();
        let mut number = 0;
        loop {
            line.clear();
            let read = reader
                .read_line(&mut line)
                .map_err(|e| fail(e.to_string()))?;
            if read == 0 {
                break;
            }
            number += 1;
            if !line.ends_with('\n') {
                break; // cut short by an interruption: drop it
            }
            let entry: LedgerEntry = serde_json::from_str(line.trim_end()).map_err(|e| {
                fail(format!(
                    "line {number}: {e}; the ledger is not a verdict spend ledger or was edited"
                ))
            })?;
            complete_bytes += read as u64;
            replay.push_back(entry);
        }
        file.set_len(complete_bytes)
            .map_err(|e| fail(e.to_string()))?;
        file.seek(SeekFrom::End(0))
            .map_err(|e| fail(e.to_string()))?;
        let (costs, range) = (inner.costs().to_vec(), inner.range());
        Ok(Self {
            inner,
            replay,
            replayed: 0,
            recorder: Recorder {
                items,
                judges,
                costs,
                range,
                file,
                path: path.to_path_buf(),
                next_call: 0,
                made: 0,
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

    /// The next recorded call, checked against what the run asks for.
    fn replay_one(&mut self, item: usize, judge: usize) -> Option<Result<f64, JudgeError>> {
        let entry = self.replay.pop_front()?;
        let recorder = &mut self.recorder;
        let call = recorder.next_call;
        recorder.next_call += 1;
        if entry.item != recorder.items[item] || entry.judge != recorder.judges[judge] {
            return Some(Err(JudgeError::Ledger {
                path: recorder.path.display().to_string(),
                message: format!(
                    "call {call} was item {} with judge {} but this run asks for item {} with judge {}; resume with the same items, judges, budget and settings, or use a new ledger",
                    entry.item, entry.judge, recorder.items[item], recorder.judges[judge]
                ),
            }));
        }
        self.replayed += 1;
        self.inner.skip(item, judge);
        Some(match (entry.score, entry.error) {
            (Some(score), _) => Ok(score),
            (None, message) => Err(JudgeError::Call {
                item,
                judge,
                message: message.unwrap_or_else(|| "recorded failure".into()),
            }),
        })
    }
}

impl Recorder {
    /// Records the outcome of a new call and passes it on. Only a judge's own failure
    /// is part of the run; anything else (the run being stopped, a broken pool) leaves
    /// no trace, so the call is made on restart. A score outside `[0, R]` (or NaN) is
    /// a failed call: recorded, not charged.
    fn settle(
        &mut self,
        item: usize,
        judge: usize,
        result: Result<f64, JudgeError>,
    ) -> Result<f64, JudgeError> {
        if let Err(e) = &result {
            if !matches!(e, JudgeError::Call { .. }) {
                return result;
            }
        }
        let result = result.and_then(|score| in_range(item, judge, score, self.range));
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let entry = LedgerEntry {
            call: self.next_call,
            item: self.items[item].clone(),
            judge: self.judges[judge].clone(),
            score: result.as_ref().ok().copied(),
            error: result.as_ref().err().map(ToString::to_string),
            cost: if result.is_ok() {
                self.costs[judge]
            } else {
                0.0
            },
            time,
        };
        self.record(&entry)?;
        self.next_call += 1;
        self.made += 1;
        result
    }

    fn record(&mut self, entry: &LedgerEntry) -> Result<(), JudgeError> {
        let fail = |e: std::io::Error| JudgeError::Ledger {
            path: self.path.display().to_string(),
            message: e.to_string(),
        };
        let mut line = serde_json::to_string(entry).expect("entries serialise");
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(fail)?;
        self.file.sync_data().map_err(fail)
    }
}

impl JudgePool for LedgeredPool<'_> {
    fn items(&self) -> usize {
        self.inner.items()
    }

    fn costs(&self) -> &[f64] {
        self.inner.costs()
    }

    fn range(&self) -> f64 {
        self.inner.range()
    }

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        if let Some(replayed) = self.replay_one(item, judge) {
            return replayed;
        }
        let result = self.inner.score(item, judge);
        self.recorder.settle(item, judge, result)
    }

    /// Recorded calls first, in order; the rest go to the inner pool (concurrently,
    /// if it can) and are recorded one by one as they end, so an interruption loses
    /// at most the calls still in flight, which were never charged.
    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let mut left = count;
        while left > 0 {
            let Some(replayed) = self.replay_one(item, judge) else {
                break;
            };
            if let Err(e @ JudgeError::Ledger { .. }) = replayed {
                return Err(e);
            }
            left -= 1;
            take(replayed)?;
        }
        if left == 0 {
            return Ok(());
        }
        let recorder = &mut self.recorder;
        self.inner.score_pair(item, judge, left, &mut |result| {
            let settled = recorder.settle(item, judge, result);
            if let Err(e @ (JudgeError::Ledger { .. } | JudgeError::Stopped(_))) = settled {
                return Err(e);
            }
            take(settled)
        })
    }
}
