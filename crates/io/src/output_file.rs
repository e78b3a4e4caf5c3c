//! One policy for every file verdict writes at a path a user named (`--out`, `--plot`,
//! `--report`, a model file, a page): nothing a user made is ever replaced.
//!
//! - The file is written to a temporary file beside the target and renamed onto it,
//!   so a reader — or a run killed at any instant — sees the old file or the new one,
//!   never a torn one.
//! - An existing file is replaced only when verdict can tell it wrote it: the
//!   directory's output manifest ([`OUTPUTS_MANIFEST`]) records the size and SHA-256 of
//!   every file verdict wrote there, and a file that still matches its record is
//!   verdict's. Nothing else counts — not a tag inside the file, which a user's note
//!   or an annotated page also holds. Anything else is refused before any work, left
//!   byte-identical, unless the user sets `force`.
//! - Only regular files are written: a device, FIFO or socket (`/dev/null` included)
//!   is refused, `force` or not — it is never opened, so a FIFO cannot hang the run,
//!   and never renamed over. `-` is refused as a name (it is not standard output).
//! - A replaced file keeps its permissions (a user's `chmod 600` stays); a new one
//!   gets the usual mode for a new file (0666 less the umask).
//! - A symbolic link is never written through silently: it is refused, naming where
//!   it points; with `force` the file it points to is written and the link kept.
//!
//! The manifest is itself written atomically, under an advisory lock on the
//! directory, and lists the new file's checksum before the rename: a run killed
//! between the two leaves the old file, still recognised by its own record.
//!
//! ```text
//! .verdict-outputs.json
//! {"written_by":"verdict","files":{"board.csv":[{"bytes":412,"sha256":"…"}]}}
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use verdict_settings::Setting;

use crate::atomic::directory_of;
use crate::{persist, staging_file, FileChecksum, IoError, WRITTEN_BY};

/// The name of the output manifest in each directory verdict wrote a file to.
pub const OUTPUTS_MANIFEST: &str = ".verdict-outputs.json";

/// How many links a chain may hold before it is called a loop (as Linux's `ELOOP`).
const MAX_LINKS: usize = 40;

/// A file a user asked verdict to write: the path as named, how it was named (the
/// flag, for messages), and whether an existing file that verdict did not write may
/// be replaced (`force`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    path: PathBuf,
    option: String,
    force: bool,
}

impl OutputFile {
    /// The output at `path`, named by the user with `option` (`--out`, `--plot`, …);
    /// existing files verdict did not write are refused until [`OutputFile::forced`].
    pub fn new(path: impl Into<PathBuf>, option: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            option: option.into(),
            force: false,
        }
    }

    /// The same output, replacing any existing file (and writing through a link to the
    /// file it points to) when `force` is true.
    #[must_use]
    pub fn forced(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// The path as the user named it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Refuses the output now — before the work whose result it will hold — when it
    /// would replace a file verdict did not write, a directory, or go through a link.
    ///
    /// # Errors
    /// [`IoError::NotOurs`] naming the file and the fix.
    pub fn check(&self) -> Result<(), IoError> {
        let destination = self.destination()?;
        self.check_replaceable(&destination, FileChecksum::of(&destination).ok().as_ref())
    }

    /// Refuses the output when it is one of the run's own inputs (the same file, by
    /// any name or link): verdict's earlier output may be replaced, but not while the
    /// run reads it — `verdict report board.json --out board.json` would lose the
    /// result it draws.
    ///
    /// # Errors
    /// [`IoError::NotOurs`] naming the file and the fix.
    pub fn check_not_reading(&self, inputs: &[&Path]) -> Result<(), IoError> {
        for input in inputs {
            if same_file(&self.path, input) {
                return Err(self.refusal(&format!(
                    "is also an input of this run ({}); name another file with {}",
                    input.display(),
                    self.option
                )));
            }
        }
        Ok(())
    }

    /// Writes the output from `fill` ([`OutputFile::check`] first, then a temporary
    /// file beside the target, recorded in the manifest and renamed onto it).
    ///
    /// # Errors
    /// As [`OutputFile::check`]; [`IoError::Write`] naming the file; errors of `fill`.
    pub fn write_with<E, F>(&self, fill: F) -> Result<(), E>
    where
        E: From<IoError>,
        F: FnOnce(&mut (dyn Write + Send)) -> Result<(), E>,
    {
        self.write_through_path(|temporary| {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(temporary)
                .map_err(|source| self.write_error(source))?;
            let mut buffered = std::io::BufWriter::new(file);
            fill(&mut buffered)?;
            buffered
                .into_inner()
                .map_err(|e| self.write_error(e.into_error()))?
                .sync_all()
                .map_err(|source| self.write_error(source).into())
        })
    }

    /// Writes `bytes` as the output ([`OutputFile::write_with`]).
    ///
    /// # Errors
    /// As [`OutputFile::write_with`].
    pub fn write_bytes(&self, bytes: &[u8]) -> Result<(), IoError> {
        self.write_with::<IoError, _>(|w| {
            w.write_all(bytes)
                .map_err(|source| self.write_error(source))
        })
    }

    /// Writes the output with a writer that needs a path of its own (a plotting
    /// backend, a Parquet writer): `fill` writes the temporary file it is given, which
    /// keeps the target's extension, and the policy publishes it as
    /// [`OutputFile::write_with`] does.
    ///
    /// # Errors
    /// As [`OutputFile::write_with`].
    pub fn write_through_path<E, F>(&self, fill: F) -> Result<(), E>
    where
        E: From<IoError>,
        F: FnOnce(&Path) -> Result<(), E>,
    {
        let destination = self.destination()?;
        self.check_replaceable(&destination, FileChecksum::of(&destination).ok().as_ref())?;
        let directory = directory_of(&destination);
        let suffix = destination
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let temporary =
            staging_file(directory, &suffix).map_err(|source| self.write_error(source))?;
        fill(temporary.path())?;
        // The file is checked again, and published, with the directory locked: two
        // runs writing beside each other keep both records.
        let _lock = DirectoryLock::acquire(directory);
        let current = FileChecksum::of(&destination).ok();
        self.check_replaceable(&destination, current.as_ref())?;
        let written = FileChecksum::of(temporary.path())?;
        record(directory, &destination, current, written)
            .map_err(|source| self.write_error(source))?;
        persist(temporary, &destination)?;
        Ok(())
    }

    /// Where the bytes go: the path itself, or — forced — the file a link points to;
    /// only ever a regular file or none yet.
    fn destination(&self) -> Result<PathBuf, IoError> {
        if self.path.as_os_str() == "-" {
            return Err(self.refusal(&format!(
                "is not a file name here (verdict does not read `-` as standard output); name a file with {}",
                self.option
            )));
        }
        let Ok(metadata) = std::fs::symlink_metadata(&self.path) else {
            return Ok(self.path.clone());
        };
        if metadata.is_dir() {
            return Err(self.refusal("is a directory; name a file"));
        }
        if !metadata.file_type().is_symlink() {
            return self.regular(&self.path, &metadata);
        }
        let target = link_target(&self.path)
            .ok_or_else(|| self.refusal("is a symbolic link in a loop; name a file"))?;
        if target.is_dir() {
            return Err(self.refusal(&format!(
                "links to the directory {}; name a file",
                target.display()
            )));
        }
        if let Ok(metadata) = std::fs::metadata(&target) {
            self.regular(&target, &metadata)?;
        }
        if !self.force {
            return Err(self.refusal(&format!(
                "is a symbolic link to {}; verdict does not write through a link unasked: name the file itself with {}, or set {force} to write to {}",
                target.display(),
                self.option,
                target.display(), force = Setting("force")
            )));
        }
        Ok(target)
    }

    /// `path` when its `metadata` is a regular file's; a device, FIFO or socket is
    /// refused whatever `force` says.
    fn regular(&self, path: &Path, metadata: &std::fs::Metadata) -> Result<PathBuf, IoError> {
        if metadata.is_file() {
            return Ok(path.to_path_buf());
        }
        Err(self.refusal(&format!(
            "{} is a device, pipe or socket, not a regular file; verdict writes only regular files (even with {force}): name a file with {}",
            path.display(),
            self.option,
            force = Setting("force")
        )))
    }

    /// Refuses `destination` when it holds a file verdict cannot tell it wrote;
    /// `current` is that file's checksum (`None` when there is none to read).
    fn check_replaceable(
        &self,
        destination: &Path,
        current: Option<&FileChecksum>,
    ) -> Result<(), IoError> {
        if self.force || !destination.exists() || self.written_by_verdict(destination, current) {
            return Ok(());
        }
        let shown = if destination == self.path {
            String::new()
        } else {
            format!(" (through the link {})", self.path.display())
        };
        Err(IoError::NotOurs {
            path: destination.to_path_buf(),
            message: format!(
                "exists and was not written by verdict{shown}; it was left untouched: name another file with {}, or set {force} to replace it",
                self.option, force = Setting("force")
            ),
        })
    }

    /// Whether the file at `destination`, whose checksum is `current`, matches the
    /// manifest's record of it.
    fn written_by_verdict(&self, destination: &Path, current: Option<&FileChecksum>) -> bool {
        let (Some(name), Some(current)) = (file_name(destination), current) else {
            return false;
        };
        Manifest::read(directory_of(destination)).is_some_and(|manifest| {
            manifest
                .files
                .get(&name)
                .is_some_and(|r| r.contains(current))
        })
    }

    fn refusal(&self, what: &str) -> IoError {
        IoError::NotOurs {
            path: self.path.clone(),
            message: what.to_string(),
        }
    }

    fn write_error(&self, source: std::io::Error) -> IoError {
        IoError::Write {
            path: self.path.clone(),
            source,
        }
    }
}

/// The output manifest of one directory: for each file name, the checksums of the
/// versions verdict wrote that may still be there.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Manifest {
    written_by: String,
    files: BTreeMap<String, Vec<FileChecksum>>,
}

impl Manifest {
    /// The manifest of `directory`: `None` when there is none, or when the file of
    /// that name is not verdict's (it is then never written).
    fn read(directory: &Path) -> Option<Self> {
        let bytes = std::fs::read(directory.join(OUTPUTS_MANIFEST)).ok()?;
        serde_json::from_slice::<Self>(&bytes)
            .ok()
            .filter(|m| m.written_by == WRITTEN_BY)
    }
}

/// Records `written` as the next version of `destination` in its directory's
/// manifest, keeping the record of `current`, the version there now (so a run killed
/// before the rename leaves a file still recognised), and dropping records of files
/// gone.
fn record(
    directory: &Path,
    destination: &Path,
    current: Option<FileChecksum>,
    written: FileChecksum,
) -> std::io::Result<()> {
    let manifest_path = directory.join(OUTPUTS_MANIFEST);
    let mut manifest = match Manifest::read(directory) {
        Some(manifest) => manifest,
        // A file of that name that is not a manifest is someone else's: leave it, and
        // leave this output unrecorded (a later run then asks for `force`).
        None if manifest_path.exists() => return Ok(()),
        None => Manifest {
            written_by: WRITTEN_BY.into(),
            files: BTreeMap::new(),
        },
    };
    let Some(name) = file_name(destination) else {
        return Ok(());
    };
    manifest
        .files
        .retain(|other, _| directory.join(other).exists());
    let versions = manifest.files.entry(name).or_default();
    versions.retain(|version| Some(version) == current.as_ref());
    if !versions.contains(&written) {
        versions.push(written);
    }
    let text = serde_json::to_vec(&manifest).expect("a manifest serialises");
    let mut temporary = staging_file(directory, "")?;
    temporary.write_all(&text)?;
    temporary.as_file().sync_all()?;
    persist(temporary, &manifest_path).map_err(std::io::Error::other)
}

/// An advisory lock on a directory, held while a file is published into it; released
/// when dropped. Best effort: where directories cannot be locked, publishing goes on
/// unlocked (two runs writing beside each other at once may then lose a record, which
/// only makes a later run ask for `force`).
struct DirectoryLock(Option<std::fs::File>);

impl DirectoryLock {
    fn acquire(directory: &Path) -> Self {
        let file = std::fs::File::open(directory)
            .ok()
            .filter(|file| file.lock().is_ok());
        Self(file)
    }
}

impl Drop for DirectoryLock {
    fn drop(&mut self) {
        if let Some(file) = &self.0 {
            let _ = file.unlock();
        }
    }
}

/// The file a chain of symbolic links ends at (which need not exist); `None` for a
/// loop.
fn link_target(link: &Path) -> Option<PathBuf> {
    let mut at = link.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::read_link(&at) {
            Ok(next) => at = directory_of(&at).join(next),
            Err(_) => return Some(at),
        }
    }
    None
}

/// Whether `a` and `b` name the same existing file (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(dir: &Path, name: &str) -> OutputFile {
        OutputFile::new(dir.join(name), "--out")
    }

    #[test]
    fn a_users_file_is_refused_and_left_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.png");
        std::fs::write(&path, b"my photo").unwrap();
        let error = out(dir.path(), "keep.png")
            .write_bytes(b"plot")
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("keep.png"), "{message}");
        assert!(message.contains("not written by verdict"), "{message}");
        assert!(message.contains("`force`"), "{message}");
        assert_eq!(std::fs::read(&path).unwrap(), b"my photo");
        assert!(out(dir.path(), "keep.png").check().is_err());
    }

    #[test]
    fn verdicts_own_output_is_replaced_until_someone_edits_it() {
        let dir = tempfile::tempdir().unwrap();
        let target = out(dir.path(), "board.csv");
        target.write_bytes(b"first").unwrap();
        target.write_bytes(b"second").unwrap();
        assert_eq!(std::fs::read(target.path()).unwrap(), b"second");
        // The user edits it: it is theirs now.
        std::fs::write(target.path(), b"edited").unwrap();
        assert!(target.write_bytes(b"third").is_err());
        assert_eq!(std::fs::read(target.path()).unwrap(), b"edited");
    }

    #[test]
    fn force_replaces_a_users_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, b"notes").unwrap();
        out(dir.path(), "notes.txt")
            .forced(true)
            .write_bytes(b"new")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        // And it is verdict's from then on.
        out(dir.path(), "notes.txt").write_bytes(b"newer").unwrap();
    }

    /// A file that merely holds verdict's generator tag — a page the user annotated, a
    /// note quoting the tag — is the user's: only the manifest's record makes a file
    /// verdict's. (Before, a tag in the first 4 KiB did, and such files were replaced.)
    #[test]
    fn a_tag_inside_a_file_does_not_make_it_verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        let mine = b"<meta name=\"generator\" content=\"verdict\">my notes on the page";
        std::fs::write(&path, mine).unwrap();
        assert!(out(dir.path(), "page.html").write_bytes(b"new").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), mine);
    }

    /// `/dev/null`, a FIFO and `-` are refused even with `force`: before, `--force
    /// --out /dev/null` as root renamed a regular file over the device, and a FIFO hung
    /// the run (it was opened to checksum it).
    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_a_dash_are_refused_even_forced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let link = dir.path().join("to-null.csv");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        for path in [Path::new("/dev/null"), &fifo, &link, Path::new("-")] {
            for force in [false, true] {
                let target = OutputFile::new(path, "--out").forced(force);
                let error = target.check().unwrap_err().to_string();
                assert!(
                    error.contains("not a regular file") || error.contains("not a file name"),
                    "{}: {error}",
                    path.display()
                );
                assert!(target.write_bytes(b"x").is_err());
            }
        }
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(!null.is_file(), "/dev/null was replaced by a file");
        assert!(!Path::new("-").exists());
    }

    /// A replaced file keeps its mode (a user's `chmod 600`); a new file gets 0666 less
    /// the umask, not a fixed 0644.
    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = out(dir.path(), "board.csv");
        target.write_bytes(b"first").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // A new file: what the process's umask allows of 0666 (read back from a file
        // made the ordinary way, so the test holds under any umask).
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        assert_eq!(mode(target.path()), mode(&plain));
        std::fs::set_permissions(target.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
        target.write_bytes(b"second").unwrap();
        assert_eq!(mode(target.path()), 0o600);
        assert_eq!(std::fs::read(target.path()).unwrap(), b"second");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_refused_unless_forced_and_then_its_target_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        std::fs::write(&real, b"mine").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let error = out(dir.path(), "link.csv").write_bytes(b"x").unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(std::fs::read(&real).unwrap(), b"mine");
        out(dir.path(), "link.csv")
            .forced(true)
            .write_bytes(b"x")
            .unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"x");
    }

    #[test]
    fn an_output_that_is_also_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = out(dir.path(), "board.json");
        target.write_bytes(b"{}").unwrap();
        let input = dir.path().join(".").join("board.json");
        let error = target.check_not_reading(&[&input]).unwrap_err();
        assert!(error.to_string().contains("also an input"), "{error}");
        let other = dir.path().join("other.json");
        std::fs::write(&other, b"{}").unwrap();
        target.check_not_reading(&[&other]).unwrap();
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let error = out(dir.path(), "sub").forced(true).check().unwrap_err();
        assert!(error.to_string().contains("is a directory"), "{error}");
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = out(dir.path(), "board.json");
        target.write_bytes(b"old").unwrap();
        let result: Result<(), IoError> = target.write_with(|w| {
            w.write_all(b"partial").unwrap();
            Err(IoError::invalid_file("x", "boom"))
        });
        assert!(result.is_err());
        assert_eq!(std::fs::read(target.path()).unwrap(), b"old");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}"); // the file and the manifest
    }

    #[test]
    fn a_file_named_like_the_manifest_that_is_not_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(OUTPUTS_MANIFEST);
        std::fs::write(&manifest, b"user data").unwrap();
        out(dir.path(), "a.csv").write_bytes(b"a").unwrap();
        assert_eq!(std::fs::read(&manifest).unwrap(), b"user data");
    }
}
