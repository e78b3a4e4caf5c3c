//! The decision log: one JSON object per line for every routed request — the
//! context, the menu offered, `pi(x)`, the routed model and the exact probability of
//! the menu — so that the log joined with later verdicts is a NashEval log whose
//! propensities are known (`verdict fit --propensity-col propensity`).
//!
//! Each server run writes a new file `decisions-<unix ms>-<pid>.jsonl` in the
//! directory it is given (`-1`, `-2`, … added when that name is taken), created only
//! if no file of that name exists: a run never writes into, let alone replaces, a file
//! it did not create. Lines are written whole or not at all: a line cut short by a
//! full disk is removed before the next.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use verdict::VerdictError;

/// An open decision log.
pub(crate) struct DecisionLog {
    path: PathBuf,
    lines: Mutex<WholeLines<File>>,
}

/// Names tried in one directory before giving up: `-1`, `-2`, … after the first.
const NAMES_TRIED: u32 = 1000;

impl DecisionLog {
    /// A new log file in `dir` (made when missing).
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the directory or file.
    pub fn create(dir: &Path) -> Result<Self, VerdictError> {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        Self::create_stamped(dir, millis)
    }

    /// A new log file in `dir` named for `millis` and this process: the first of
    /// `decisions-MILLIS-PID.jsonl`, `decisions-MILLIS-PID-1.jsonl`, … that does not
    /// exist, created only as a new file (never opening one that does).
    fn create_stamped(dir: &Path, millis: u128) -> Result<Self, VerdictError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            VerdictError::Data(format!(
                "{}: cannot make the decision directory: {e}",
                dir.display()
            ))
        })?;
        let pid = std::process::id();
        for n in 0..NAMES_TRIED {
            let name = match n {
                0 => format!("decisions-{millis}-{pid}.jsonl"),
                n => format!("decisions-{millis}-{pid}-{n}.jsonl"),
            };
            let path = dir.join(name);
            match OpenOptions::new().append(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(Self {
                        path,
                        lines: Mutex::new(WholeLines::new(file)),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(VerdictError::Data(format!(
                        "{}: cannot create the decision log: {e}",
                        path.display()
                    )))
                }
            }
        }
        Err(VerdictError::Data(format!(
            "{}: {NAMES_TRIED} decision logs of this instant and process exist already; give another --decisions directory",
            dir.display()
        )))
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one decision as a line, written whole or not at all.
    ///
    /// # Errors
    /// The write's error (the log then holds the lines before it, whole).
    pub fn append(&self, decision: &serde_json::Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(decision).expect("JSON values serialise");
        line.push(b'\n');
        self.lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .append(&line)
    }
}

/// What an append-only log is written to: bytes added at its end, and a way to cut it
/// back to a length.
trait AppendOnly: Write {
    /// Cuts the file to its first `length` bytes.
    fn cut_to(&mut self, length: u64) -> std::io::Result<()>;
}

impl AppendOnly for File {
    fn cut_to(&mut self, length: u64) -> std::io::Result<()> {
        self.set_len(length)
    }
}

/// Whole lines or nothing: a line whose write fails part way (a full disk) is cut off
/// again, so the next line never continues it — one line, two records, not JSON, and
/// a log no reader can take. A cut that fails itself is tried again before the next
/// line.
struct WholeLines<W> {
    out: W,
    /// Bytes of whole lines written.
    whole: u64,
    /// A failed line may still be in the file.
    torn: bool,
}

impl<W: AppendOnly> WholeLines<W> {
    fn new(out: W) -> Self {
        Self {
            out,
            whole: 0,
            torn: false,
        }
    }

    fn append(&mut self, line: &[u8]) -> std::io::Result<()> {
        if self.torn {
            self.out.cut_to(self.whole)?;
            self.torn = false;
        }
        match self.out.write_all(line).and_then(|()| self.out.flush()) {
            Ok(()) => {
                self.whole += line.len() as u64;
                Ok(())
            }
            Err(e) => {
                self.torn = self.out.cut_to(self.whole).is_err();
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new log never opens a file already at its name: with files at the first two
    /// names it would take (one holding a user's data), it takes the third, and the
    /// others are left byte-identical. (Dropping the create-only open would write into
    /// the user's file and fail this test.)
    #[test]
    fn a_new_log_never_opens_a_file_at_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        let taken = [
            dir.path().join(format!("decisions-7-{pid}.jsonl")),
            dir.path().join(format!("decisions-7-{pid}-1.jsonl")),
        ];
        for path in &taken {
            std::fs::write(path, b"user data\n").unwrap();
        }
        let log = DecisionLog::create_stamped(dir.path(), 7).unwrap();
        assert_eq!(
            log.path(),
            dir.path().join(format!("decisions-7-{pid}-2.jsonl"))
        );
        log.append(&serde_json::json!({"a": 1})).unwrap();
        for path in &taken {
            assert_eq!(std::fs::read(path).unwrap(), b"user data\n");
        }
        assert_eq!(std::fs::read_to_string(log.path()).unwrap(), "{\"a\":1}\n");
        // A second log of the same instant takes the next name.
        let second = DecisionLog::create_stamped(dir.path(), 7).unwrap();
        assert_ne!(second.path(), log.path());
    }

    /// A disk that fills up part way through a line: written bytes up to a capacity,
    /// then the error a full disk gives.
    struct FullDisk {
        bytes: Vec<u8>,
        capacity: usize,
    }

    impl Write for FullDisk {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.capacity.saturating_sub(self.bytes.len());
            if room == 0 {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
            }
            let n = room.min(buf.len());
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl AppendOnly for FullDisk {
        fn cut_to(&mut self, length: u64) -> std::io::Result<()> {
            self.bytes.truncate(length as usize);
            Ok(())
        }
    }

    /// After a full disk the log holds whole lines only, and once there is room again
    /// the next decision is a line of its own: every line parses as JSON (pandas'
    /// `pd.read_json(lines=True)` reads it). Before, the torn line stayed and the next
    /// one was appended to it.
    #[test]
    fn a_full_disk_leaves_whole_lines_and_the_next_line_starts_clean() {
        let mut log = WholeLines::new(FullDisk {
            bytes: Vec::new(),
            capacity: 30,
        });
        let line = |n: u32| format!("{{\"decision\":{n:>3}}}\n").into_bytes();
        assert_eq!(line(1).len(), 17);
        log.append(&line(1)).unwrap();
        let err = log.append(&line(2)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(log.out.bytes, line(1));
        log.out.capacity = 1000;
        log.append(&line(3)).unwrap();
        let text = String::from_utf8(log.out.bytes.clone()).unwrap();
        for row in text.lines() {
            serde_json::from_str::<serde_json::Value>(row).unwrap();
        }
        assert_eq!(text.lines().count(), 2);
    }
}
