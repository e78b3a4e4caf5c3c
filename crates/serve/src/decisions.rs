//! The decision log: one JSON object per line for every routed request — the
//! context, the menu offered, `pi(x)`, the routed model and the exact probability of
//! the menu — so that the log joined with later verdicts is a NashEval log whose
//! propensities are known (`verdict fit --propensity-col propensity`).
//!
//! Each server run writes a new file `decisions-<unix ms>-<pid>.jsonl` in the
//! directory it is given, created only if no file of that name exists: a run never
//! writes into, let alone replaces, a file it did not create.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use verdict::VerdictError;

/// An open decision log.
pub(crate) struct DecisionLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl DecisionLog {
    /// A new log file in `dir` (made when missing).
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the directory or file.
    pub fn create(dir: &Path) -> Result<Self, VerdictError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            VerdictError::Data(format!(
                "{}: cannot make the decision directory: {e}",
                dir.display()
            ))
        })?;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let path = dir.join(format!("decisions-{millis}-{}.jsonl", std::process::id()));
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                VerdictError::Data(format!(
                    "{}: cannot create the decision log: {e}",
                    path.display()
                ))
            })?;
        Ok(Self {
            path,
            file: Mutex::new(file),
        })
    }

    /// Where the log is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one decision as a line, written whole.
    ///
    /// # Errors
    /// The write's error.
    pub fn append(&self, decision: &serde_json::Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(decision).expect("JSON values serialise");
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(&line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_logs_in_one_directory_never_share_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let first = DecisionLog::create(dir.path()).unwrap();
        first.append(&serde_json::json!({"a": 1})).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = DecisionLog::create(dir.path()).unwrap();
        second.append(&serde_json::json!({"b": 2})).unwrap();
        assert_ne!(first.path(), second.path());
        assert_eq!(
            std::fs::read_to_string(first.path()).unwrap(),
            "{\"a\":1}\n"
        );
        assert_eq!(
            std::fs::read_to_string(second.path()).unwrap(),
            "{\"b\":2}\n"
        );
    }
}
