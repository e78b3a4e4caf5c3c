//! The spend ledger's file format: a JSON Lines file whose first line is a header
//! naming the format, its version and the run it belongs to, followed by one line
//! when a call is about to be made (`"event": "start"`, written and flushed to disk
//! before the call) and one when it has ended (`"event": "end"`, with its score or
//! error and what it cost).
//!
//! ```text
//! {"format":"verdict-spend-ledger","version":2,"run":{"items":6,"items_sha256":"…","judges":[{"name":"small","cost":0.1}],"range":1.0,"settings":{…}}}
//! {"event":"start","call":0,"item":"q1","judge":"small","key":"3f9c…-0"}
//! {"event":"end","call":0,"item":"q1","judge":"small","score":0.7,"error":null,"cost":0.1,"time":1764527000.1}
//! ```
//!
//! A call with a start and no end was in flight when the run stopped: it may have been
//! paid. Anything that is not a ledger — no header, another format, another run — is
//! refused and left untouched.

use std::collections::BTreeMap;
use std::path::Path;
use verdict_settings::Setting;

use sha2::{Digest, Sha256};

use crate::JudgeError;

/// The `format` field of a ledger's header.
pub const LEDGER_FORMAT: &str = "verdict-spend-ledger";
/// The version of the format this build writes and reads.
pub const LEDGER_VERSION: u32 = 2;

/// One judge of a run, as the ledger's header records it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LedgerJudge {
    /// Judge name.
    pub name: String,
    /// Price per call.
    pub cost: f64,
}

/// What a run is, recorded in the ledger's header: a ledger resumes only the run that
/// wrote it, so prices, items and settings cannot change under recorded calls.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LedgerRun {
    /// Number of items.
    pub items: usize,
    /// SHA-256 of the item ids, each followed by a newline, in order.
    pub items_sha256: String,
    /// The judges, in order, with their prices.
    pub judges: Vec<LedgerJudge>,
    /// Score range R.
    pub range: f64,
    /// Everything else that decides which calls the run makes (method, budget, seed,
    /// …), as the caller names it.
    pub settings: serde_json::Map<String, serde_json::Value>,
    /// SHA-256 of the items' content and the judges' definitions
    /// ([`crate::JudgePool::content_digest`]); absent for pools without one and in
    /// ledgers written before it was recorded (those resume by ids and names alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_sha256: Option<String>,
}

impl LedgerRun {
    /// The run of `items` and `judges` (name, price) with `range` and `settings`.
    pub fn new(
        items: &[String],
        judges: &[String],
        costs: &[f64],
        range: f64,
        settings: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        let mut digest = Sha256::new();
        for id in items {
            digest.update(id.as_bytes());
            digest.update(b"\n");
        }
        Self {
            items: items.len(),
            items_sha256: hex(&digest.finalize()),
            judges: judges
                .iter()
                .zip(costs)
                .map(|(name, &cost)| LedgerJudge {
                    name: name.clone(),
                    cost,
                })
                .collect(),
            range,
            settings,
            content_sha256: None,
        }
    }

    /// A short fingerprint of the run (16 hex digits of the SHA-256 of its JSON): the
    /// prefix of every call's idempotency key.
    pub fn fingerprint(&self) -> String {
        let text = serde_json::to_string(self).expect("runs serialise");
        sha256_hex(text.as_bytes())[..16].to_string()
    }

    /// What differs between the run that wrote a ledger (`self`) and `now`, one phrase
    /// per difference; empty when they are the same run.
    pub fn differences(&self, now: &LedgerRun) -> Vec<String> {
        let mut found = Vec::new();
        if self.items != now.items || self.items_sha256 != now.items_sha256 {
            found.push(format!(
                "the items differ ({} then, {} now, or other ids)",
                self.items, now.items
            ));
        }
        if let (Some(then), Some(later)) = (&self.content_sha256, &now.content_sha256) {
            if then != later {
                found.push(
                    "the items' content or a judge's definition (program, endpoint, model, prompt, recorded scores) changed".into(),
                );
            }
        }
        if self.range != now.range {
            found.push(format!("range {} then, {} now", self.range, now.range));
        }
        let names = |run: &LedgerRun| run.judges.iter().map(|j| j.name.clone()).collect();
        let (then, later): (Vec<String>, Vec<String>) = (names(self), names(now));
        if then != later {
            found.push(format!("judges {then:?} then, {later:?} now"));
        } else {
            for (a, b) in self.judges.iter().zip(&now.judges) {
                if a.cost != b.cost {
                    found.push(format!(
                        "judge {:?} cost {} then, {} now",
                        a.name, a.cost, b.cost
                    ));
                }
            }
        }
        let keys: std::collections::BTreeSet<&String> =
            self.settings.keys().chain(now.settings.keys()).collect();
        for key in keys {
            let (a, b) = (self.settings.get(key), now.settings.get(key));
            if a != b {
                let show = |v: Option<&serde_json::Value>| {
                    v.map_or_else(|| "unset".to_string(), ToString::to_string)
                };
                found.push(format!("{key} {} then, {} now", show(a), show(b)));
            }
        }
        found
    }
}

/// The first line of a ledger.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Header {
    pub(crate) format: String,
    pub(crate) version: u32,
    pub(crate) run: LedgerRun,
}

/// One recorded call's end.
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
    /// Amount charged: the judge's price for a score, 0 for a failed call, and the
    /// price for a call that may have been paid without giving a score (lost in
    /// flight, or billed by an endpoint that answered without a usable score).
    pub cost: f64,
    /// Seconds since the Unix epoch when the call ended.
    pub time: f64,
}

impl LedgerEntry {
    /// Whether this is a call found in flight by a restart and settled as lost
    /// (charged, no score), as opposed to a judge's own failure (not charged).
    pub fn is_lost(&self) -> bool {
        self.score.is_none()
            && self
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with(LOST_PREFIX))
    }

    /// Whether this call was charged without a score: lost in flight, or answered by
    /// its judge (and so maybe billed) without a usable score. Such a call is never
    /// asked again under the same number: a restart replays it as paid.
    pub fn is_charged_failure(&self) -> bool {
        self.score.is_none()
            && self
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with(LOST_PREFIX) || e.starts_with(BILLED_PREFIX))
    }
}

/// A call about to be made.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LedgerStart {
    /// Position of the call in the run, from 0.
    pub call: u64,
    /// Item id.
    pub item: String,
    /// Judge name.
    pub judge: String,
    /// The call's idempotency key (given to judges that accept one).
    pub key: String,
}

/// A line after the header.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum Line {
    Start(LedgerStart),
    End(LedgerEntry),
}

/// One call of a ledger, in call order.
#[derive(Debug, Clone, PartialEq)]
pub enum LedgerCall {
    /// Started and ended.
    Ended(LedgerEntry),
    /// Started, never ended: in flight when the run stopped.
    InDoubt(LedgerStart),
}

/// A ledger read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Ledger {
    /// The run that wrote it.
    pub run: LedgerRun,
    /// Every started call, in call order.
    pub calls: Vec<LedgerCall>,
    /// Bytes of whole lines: a last line cut short by an interruption lies beyond.
    pub(crate) whole_bytes: u64,
}

impl Ledger {
    /// Reads the ledger at `path`. A last line cut short by an interruption is
    /// ignored (it was a start not yet flushed, so its call was never made, or an end,
    /// whose call is then in doubt).
    ///
    /// # Errors
    /// [`JudgeError::Ledger`] when the file cannot be read, does not start with a
    /// ledger header of this version, or holds a malformed or inconsistent line.
    pub fn read(path: &Path) -> Result<Self, JudgeError> {
        let bytes = std::fs::read(path).map_err(|e| ledger_error(path, e.to_string()))?;
        Self::parse(path, &bytes)
    }

    /// The items its calls name, each once, in the order of its first call. The
    /// ledger keeps only the number and a digest of the run's items, so items never
    /// called are not among them.
    pub fn called_items(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.calls
            .iter()
            .map(|call| match call {
                LedgerCall::Ended(entry) => &entry.item,
                LedgerCall::InDoubt(start) => &start.item,
            })
            .filter(|item| seen.insert(item.as_str()))
            .cloned()
            .collect()
    }

    /// Parses a ledger's bytes (`path` names it in errors), as [`Ledger::read`].
    ///
    /// # Errors
    /// As [`Ledger::read`].
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Self, JudgeError> {
        let fail = |m: String| ledger_error(path, m);
        let not_ours = || {
            fail(format!(
                "not a verdict spend ledger (its first line is not a {LEDGER_FORMAT} header); it was left untouched: give {ledger} a new file name", ledger = Setting("ledger")
            ))
        };
        let mut lines = bytes.split_inclusive(|&b| b == b'\n');
        let first = lines.next().ok_or_else(not_ours)?;
        let header: Header = std::str::from_utf8(first)
            .ok()
            .filter(|l| l.ends_with('\n'))
            .and_then(|l| serde_json::from_str(l).ok())
            .filter(|h: &Header| h.format == LEDGER_FORMAT)
            .ok_or_else(not_ours)?;
        if header.version != LEDGER_VERSION {
            return Err(fail(format!(
                "ledger format version {} (this verdict reads version {LEDGER_VERSION}); finish the run with the verdict that started it, or use a new ledger",
                header.version
            )));
        }
        let mut whole_bytes = first.len() as u64;
        let mut calls: Vec<LedgerCall> = Vec::new();
        let mut ends: BTreeMap<u64, LedgerEntry> = BTreeMap::new();
        for (index, raw) in lines.enumerate() {
            let number = index + 2;
            if !raw.ends_with(b"\n") {
                break; // cut short by an interruption
            }
            let line: Line = std::str::from_utf8(raw)
                .ok()
                .and_then(|l| serde_json::from_str(l).ok())
                .ok_or_else(|| {
                    fail(format!(
                        "line {number} is not a ledger line; the ledger was edited or damaged: restore it, or use a new ledger"
                    ))
                })?;
            match line {
                Line::Start(start) => {
                    if start.call != calls.len() as u64 {
                        return Err(fail(format!(
                            "line {number} starts call {} where call {} was expected; the ledger was edited: restore it, or use a new ledger",
                            start.call,
                            calls.len()
                        )));
                    }
                    calls.push(LedgerCall::InDoubt(start));
                }
                Line::End(end) => {
                    let started = match calls.get(end.call as usize) {
                        Some(LedgerCall::InDoubt(s)) => s,
                        _ => {
                            return Err(fail(format!(
                                "line {number} ends call {}, which was not started or already ended; the ledger was edited: restore it, or use a new ledger",
                                end.call
                            )))
                        }
                    };
                    if started.item != end.item || started.judge != end.judge {
                        return Err(fail(format!(
                            "line {number}: call {} started as item {:?} with judge {:?} but ended as item {:?} with judge {:?}; the ledger was edited",
                            end.call, started.item, started.judge, end.item, end.judge
                        )));
                    }
                    check_end(&header.run, &end)
                        .map_err(|m| fail(format!("line {number}: {m}")))?;
                    ends.insert(end.call, end);
                }
            }
            whole_bytes += raw.len() as u64;
        }
        for (call, end) in ends {
            calls[call as usize] = LedgerCall::Ended(end);
        }
        Ok(Self {
            run: header.run,
            calls,
            whole_bytes,
        })
    }

    /// Everything the ledger says was spent: the sum of the recorded costs.
    pub fn spent(&self) -> f64 {
        self.ended().map(|e| e.cost).sum()
    }

    /// The ended calls, in call order.
    pub fn ended(&self) -> impl Iterator<Item = &LedgerEntry> {
        self.calls.iter().filter_map(|c| match c {
            LedgerCall::Ended(e) => Some(e),
            LedgerCall::InDoubt(_) => None,
        })
    }
}

/// An end's cost must be what the run's price list says it is: the judge's price for
/// a score or a lost call, 0 for a failure.
fn check_end(run: &LedgerRun, end: &LedgerEntry) -> Result<(), String> {
    let judge = run
        .judges
        .iter()
        .find(|j| j.name == end.judge)
        .ok_or_else(|| format!("judge {:?} is not one of the run's judges", end.judge))?;
    let expected = match (&end.score, &end.error) {
        (Some(_), None) => judge.cost,
        (None, Some(_)) if end.is_charged_failure() => judge.cost,
        (None, Some(_)) => 0.0,
        _ => return Err("a call has either a score or an error".into()),
    };
    if end.cost != expected {
        return Err(format!(
            "call {} cost {} but judge {:?} is priced {}; the ledger was edited",
            end.call, end.cost, end.judge, judge.cost
        ));
    }
    Ok(())
}

/// How the error of a call lost in flight begins.
pub(crate) const LOST_PREFIX: &str = "lost in flight";

/// How the error of a call its judge answered without a usable score begins: the
/// endpoint served it, so it is charged.
pub(crate) const BILLED_PREFIX: &str = "billed without a score";

pub(crate) fn ledger_error(path: &Path, message: String) -> JudgeError {
    JudgeError::Ledger {
        path: path.display().to_string(),
        message,
    }
}

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
