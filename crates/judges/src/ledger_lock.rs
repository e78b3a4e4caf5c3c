//! One writer per ledger: a run holds an exclusive advisory lock (`flock`) on a lock
//! file beside its ledger (`.NAME.lock`, holding the run's process id) for as long as
//! it may call a judge — the ledger named by its identity, every symbolic link
//! followed ([`resolve_links`]) — and, once the ledger exists, on the ledger file
//! itself ([`lock_ledger`]), which a hard link reaches too. A second run on the same
//! ledger is refused at once, naming the holder's pid, before it reads the ledger or
//! pays for anything: two runs resuming one ledger would both replay it and both pay
//! for the next calls.
//!
//! The operating system releases the lock when its holder ends, however it ends
//! (SIGKILL included), so a killed run never leaves a ledger locked. The lock file is
//! removed when the run ends normally; a run that finds the file replaced after it
//! locked it (removed by a holder ending, then made anew by a third run) locks the
//! new one instead, so two runs never hold locks on different files of one path.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use verdict_settings::Setting;

use crate::ledger_file::ledger_error;
use crate::JudgeError;

/// An exclusive lock on a ledger, held until dropped.
#[derive(Debug)]
pub struct LedgerLock {
    file: File,
    path: PathBuf,
}

impl LedgerLock {
    /// Locks the ledger at `ledger` for this process.
    ///
    /// # Errors
    /// [`JudgeError::Ledger`] when another run holds it (naming its pid and the fix),
    /// or the lock file cannot be created.
    pub fn acquire(ledger: &Path) -> Result<Self, JudgeError> {
        let path = lock_path(ledger);
        let fail = |message: String| ledger_error(ledger, message);
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| {
                    fail(format!(
                        "cannot create its lock file {}: {e}",
                        path.display()
                    ))
                })?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let holder = match holder_pid(&mut file) {
                        Some(pid) => format!(" (pid {pid})"),
                        None => String::new(),
                    };
                    return Err(held_by_another(ledger, &holder));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(fail(format!("cannot lock {}: {e}", path.display())))
                }
            }
            if !is_the_file_at(&file, &path) {
                continue; // removed by a holder that ended: lock the file there now
            }
            file.set_len(0)
                .and_then(|()| file.write_all(std::process::id().to_string().as_bytes()))
                .and_then(|()| file.flush())
                .map_err(|e| {
                    fail(format!(
                        "cannot write its lock file {}: {e}",
                        path.display()
                    ))
                })?;
            return Ok(Self { file, path });
        }
    }
}

impl Drop for LedgerLock {
    fn drop(&mut self) {
        // Removed while still held, so a run waiting on this file sees it replaced.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// `path` with every symbolic link of its last part followed (a link to a file not
/// yet made included) and its folder made canonical: the name every run of this
/// ledger agrees on, whatever link it was given.
pub(crate) fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    let mut links = 0;
    while std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        links += 1;
        if links > 40 {
            return Err(std::io::Error::other(
                "more than 40 symbolic links in a row",
            ));
        }
        let target = std::fs::read_link(&path)?;
        path = match path.parent() {
            Some(dir) => dir.join(target),
            None => target,
        };
    }
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?
        .to_owned();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize()?,
        _ => std::env::current_dir()?,
    };
    Ok(dir.join(name))
}

/// `file` (the ledger at `path`) locked for this run alone.
///
/// # Errors
/// [`JudgeError::Ledger`] when another run holds it, through any name.
pub(crate) fn lock_ledger(path: &Path, file: File) -> Result<File, JudgeError> {
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(held_by_another(
            path,
            " (through another name: a hard link)",
        )),
        Err(TryLockError::Error(e)) => Err(ledger_error(path, format!("cannot lock it: {e}"))),
    }
}

/// The refusal of a run that finds the ledger held by another run; `holder` says
/// which (its pid) or how (through another name).
fn held_by_another(ledger: &Path, holder: &str) -> JudgeError {
    ledger_error(
        ledger,
        format!(
            "another verdict judge run{holder} is using this ledger; wait for it to end, or give this run another {}",
            Setting("ledger")
        ),
    )
}

/// Tries to read the lock holder's pid for so long: a holder writes it right after it
/// locks the file, so a run that finds the lock taken a moment before may find the
/// file still empty.
const HOLDER_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// The pid the holder of `file`'s lock wrote into it, waiting up to [`HOLDER_WAIT`]
/// for it to be written; `None` when it never is.
fn holder_pid(file: &mut File) -> Option<String> {
    let started = std::time::Instant::now();
    loop {
        let mut holder = String::new();
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_string(&mut holder));
        let holder = holder.trim();
        if read.is_ok() && !holder.is_empty() {
            return Some(holder.to_string());
        }
        if started.elapsed() >= HOLDER_WAIT {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The lock file of the ledger at `ledger`: `.NAME.lock` beside it.
pub fn lock_path(ledger: &Path) -> PathBuf {
    let name = ledger
        .file_name()
        .map_or_else(|| "ledger".into(), |n| n.to_string_lossy().into_owned());
    ledger.with_file_name(format!(".{name}.lock"))
}

/// Whether `file` is the file now at `path` (same device and inode).
#[cfg(unix)]
fn is_the_file_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// Elsewhere an open file cannot be removed, so the file at the path is the one open.
#[cfg(not(unix))]
fn is_the_file_at(_: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("spend.jsonl");
        let first = LedgerLock::acquire(&ledger).unwrap();
        let message = LedgerLock::acquire(&ledger).unwrap_err().to_string();
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        assert!(message.contains("spend.jsonl"), "{message}");
        drop(first);
        assert!(!lock_path(&ledger).exists());
        let again = LedgerLock::acquire(&ledger).unwrap();
        drop(again);
    }

    #[test]
    fn the_lock_file_is_hidden_beside_the_ledger() {
        assert_eq!(
            lock_path(Path::new("runs/spend.jsonl")),
            Path::new("runs/.spend.jsonl.lock")
        );
    }
}
