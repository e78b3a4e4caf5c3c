//! Output directories that never lose a user's file: the files of a run are written
//! to a staging directory beside the target, then published into it. A directory's
//! manifest lists every file verdict wrote there with its size and SHA-256, and only
//! files that still match it are ever replaced or removed; anything else in the
//! directory — notes, plots, an edited file — is left as it is, and a file the run
//! would write over that verdict did not write stops the run before anything moves.
//!
//! ```text
//! {
//!   "written_by": "verdict",
//!   "checksums": {"contexts.parquet": {"bytes": 81234, "sha256": "…"}, …},
//!   … the caller's own fields …
//! }
//! ```
//!
//! A run killed while staging leaves a hidden `.verdict-staging-PID-…` directory; the
//! next run beside it removes the ones whose process is gone.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::IoError;

/// The `written_by` value of a verdict manifest.
pub const WRITTEN_BY: &str = "verdict";
/// The name of the marker file inside a staging directory.
const MARKER: &str = ".verdict-staging";
/// The prefix of a staging directory's name.
const STAGING_PREFIX: &str = ".verdict-staging-";

/// One file verdict wrote: its size and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileChecksum {
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256 of the contents, in hex.
    pub sha256: String,
}

impl FileChecksum {
    /// The checksum of the file at `path`.
    ///
    /// # Errors
    /// [`IoError::Read`] when the file cannot be read.
    pub fn of(path: &Path) -> Result<Self, IoError> {
        let read_error = |source| IoError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::open(path).map_err(read_error)?;
        let mut digest = Sha256::new();
        let mut buffer = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let read = file.read(&mut buffer).map_err(read_error)?;
            if read == 0 {
                break;
            }
            bytes += read as u64;
            digest.update(&buffer[..read]);
        }
        Ok(Self {
            bytes,
            sha256: digest
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        })
    }
}

/// The part of a manifest that proves which files verdict wrote.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Ownership {
    written_by: String,
    checksums: BTreeMap<String, FileChecksum>,
    /// While a run publishes, the checksums of the files it is moving in.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    publishing: BTreeMap<String, FileChecksum>,
}

/// A staging directory for the files of one output directory.
pub struct StagedDir {
    staging: tempfile::TempDir,
    out: PathBuf,
    manifest: String,
}

impl StagedDir {
    /// Starts staging the files of `out`, whose manifest will be `manifest` (a file
    /// name); stale staging directories of killed runs beside `out` are removed.
    ///
    /// # Errors
    /// [`IoError::Write`] when the parent of `out` cannot be created or written.
    pub fn new(out: &Path, manifest: &str) -> Result<Self, IoError> {
        let parent = crate::atomic::directory_of(out);
        let write_error = |source| IoError::Write {
            path: parent.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(parent).map_err(write_error)?;
        remove_stale_stagings(parent);
        let staging = tempfile::Builder::new()
            .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
            .tempdir_in(parent)
            .map_err(write_error)?;
        std::fs::write(staging.path().join(MARKER), std::process::id().to_string())
            .map_err(write_error)?;
        Ok(Self {
            staging,
            out: out.to_path_buf(),
            manifest: manifest.to_string(),
        })
    }

    /// Where to write the files.
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// Publishes the staged files into `out` with a manifest made of `manifest`'s
    /// fields and the checksums of every staged file. `out` may be missing, empty, or
    /// an earlier output of verdict: its files that still match their checksums are
    /// replaced or, if this run does not write them, removed; any other file stays.
    ///
    /// # Errors
    /// [`IoError::NotOurs`] — before anything is moved — when `out` is not a directory,
    /// or would lose a file verdict did not write (naming it); [`IoError::Write`] when
    /// a file cannot be moved.
    pub fn publish(
        self,
        manifest: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), IoError> {
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| IoError::Write { path, source }
        };
        let staged = self.path().to_path_buf();
        std::fs::remove_file(staged.join(MARKER)).map_err(write_error(&staged))?;
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&staged).map_err(write_error(&staged))? {
            let entry = entry.map_err(write_error(&staged))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        let mut checksums = BTreeMap::new();
        for name in &names {
            checksums.insert(name.clone(), FileChecksum::of(&staged.join(name))?);
        }
        let owned = owned_files(&self.out, &self.manifest)?;
        let is_owned = |name: &String| match &owned {
            Some(files) => *name == self.manifest || files.contains_key(name),
            None => false,
        };
        // Refuse before anything moves: every file this run writes must be absent or
        // one verdict wrote and nobody changed since.
        for name in names.iter().chain(std::iter::once(&self.manifest)) {
            let target = self.out.join(name);
            if target.symlink_metadata().is_ok() && !is_owned(name) {
                return Err(IoError::NotOurs {
                    path: self.out.clone(),
                    message: format!(
                        "{} was not written by verdict (or was changed since); move it away or choose another directory",
                        target.display()
                    ),
                });
            }
        }
        let manifest_text = |ownership: &Ownership| {
            let mut fields = manifest.clone();
            let value = serde_json::to_value(ownership).expect("checksums serialise");
            if let serde_json::Value::Object(map) = value {
                fields.extend(map);
            }
            serde_json::to_string_pretty(&fields).expect("manifests serialise") + "\n"
        };
        let finished = Ownership {
            written_by: WRITTEN_BY.into(),
            checksums: checksums.clone(),
            publishing: BTreeMap::new(),
        };
        if !self.out.exists() {
            std::fs::write(staged.join(&self.manifest), manifest_text(&finished))
                .map_err(write_error(&staged))?;
            let kept = self.staging.keep();
            return std::fs::rename(&kept, &self.out).map_err(|source| {
                let _ = std::fs::remove_dir_all(&kept);
                IoError::Write {
                    path: self.out.clone(),
                    source,
                }
            });
        }
        // An interrupted publish leaves a manifest that accepts old and new versions.
        let owned = owned.unwrap_or_default();
        let interim = Ownership {
            written_by: WRITTEN_BY.into(),
            checksums: owned.clone(),
            publishing: checksums,
        };
        let manifest_path = self.out.join(&self.manifest);
        let write_manifest = |ownership: &Ownership| {
            crate::write_bytes_atomic(&manifest_path, manifest_text(ownership).as_bytes())
        };
        write_manifest(&interim)?;
        for name in &names {
            let target = self.out.join(name);
            std::fs::rename(staged.join(name), &target).map_err(write_error(&target))?;
        }
        for name in owned.keys().filter(|n| !names.contains(n)) {
            let stale = self.out.join(name);
            std::fs::remove_file(&stale).map_err(write_error(&stale))?;
        }
        write_manifest(&finished)
    }
}

/// The files in `out` that verdict wrote and that are unchanged since — those its
/// manifest lists with a matching checksum (from a finished or an interrupted
/// publish), with that checksum — or `None` when `out` has no verdict manifest (the
/// manifest itself is then not verdict's either).
///
/// # Errors
/// [`IoError::NotOurs`] when `out` exists but is not a directory.
fn owned_files(
    out: &Path,
    manifest: &str,
) -> Result<Option<BTreeMap<String, FileChecksum>>, IoError> {
    if !out.exists() {
        return Ok(None);
    }
    if !out.is_dir() {
        return Err(IoError::NotOurs {
            path: out.to_path_buf(),
            message: "exists and is not a directory; choose a directory name".into(),
        });
    }
    let Some(ownership) = read_ownership(&out.join(manifest)) else {
        return Ok(None);
    };
    let mut owned = BTreeMap::new();
    for (name, recorded) in ownership.checksums.iter().chain(&ownership.publishing) {
        let plain = !name.contains('/') && !name.contains('\\') && name != ".." && name != ".";
        let path = out.join(name);
        let regular = path.symlink_metadata().is_ok_and(|m| m.is_file());
        if plain
            && regular
            && name != manifest
            && !owned.contains_key(name)
            && FileChecksum::of(&path).is_ok_and(|c| &c == recorded)
        {
            owned.insert(name.clone(), recorded.clone());
        }
    }
    Ok(Some(owned))
}

/// The ownership fields of a verdict manifest, or `None` for anything else.
fn read_ownership(path: &Path) -> Option<Ownership> {
    let text = std::fs::read_to_string(path).ok()?;
    let ownership: Ownership = serde_json::from_str(&text).ok()?;
    (ownership.written_by == WRITTEN_BY).then_some(ownership)
}

/// Removes staging directories of runs killed before they finished: those beside
/// `out` that carry the marker and whose process is gone. Best effort: anything it
/// cannot tell or remove is left.
fn remove_stale_stagings(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(STAGING_PREFIX) else {
            continue;
        };
        let path = entry.path();
        let marker = std::fs::read_to_string(path.join(MARKER)).ok();
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if let (Some(marker), Some(pid)) = (marker, pid) {
            if marker.trim() == pid.to_string() && !process_alive(pid) {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
}

/// Whether process `pid` is running (on systems without `/proc`, assumed so).
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}
