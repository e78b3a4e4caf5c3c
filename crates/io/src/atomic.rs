use std::io::Write;
use std::path::Path;

use crate::IoError;

/// The directory `path` lies in (`.` for a bare file name).
pub(crate) fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Writes a file atomically: `fill` writes into a temporary file beside `path`, which
/// is renamed onto `path` only when `fill` succeeds. On any error nothing is left.
///
/// # Errors
/// [`IoError::Write`] when the temporary file cannot be created, written or renamed;
/// errors of `fill` are passed through.
pub fn write_atomic<E, F>(path: &Path, fill: F) -> Result<(), E>
where
    E: From<IoError>,
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), E>,
{
    let write_error = |source| IoError::Write {
        path: path.to_path_buf(),
        source,
    };
    let directory = directory_of(path);
    let mut temporary = staging_file(directory, "").map_err(write_error)?;
    {
        let mut buffered = std::io::BufWriter::new(temporary.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush().map_err(write_error)?;
    }
    Ok(persist(temporary, path)?)
}

/// Writes `bytes` to `path` atomically ([`write_atomic`]).
///
/// # Errors
/// [`IoError::Write`] naming `path`.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    write_atomic::<IoError, _>(path, |w| {
        w.write_all(bytes).map_err(|source| IoError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// A temporary file in `directory` (named `.verdict-…SUFFIX`) to be renamed onto an
/// output: created with mode 0666 less the umask, as an ordinary new file would be
/// (temporary files are otherwise owner-only).
///
/// # Errors
/// When the file cannot be created.
pub fn staging_file(directory: &Path, suffix: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".verdict-").suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(directory)
}

/// Renames a finished temporary file (made by [`staging_file`]) onto `path`; a file
/// replaced there passes its permissions on (a user's `chmod 600` is kept).
///
/// # Errors
/// [`IoError::Write`] when the permissions cannot be set or the rename fails.
pub fn persist(temporary: tempfile::NamedTempFile, path: &Path) -> Result<(), IoError> {
    let write_error = |source| IoError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Ok(existing) = std::fs::metadata(path) {
        std::fs::set_permissions(temporary.path(), existing.permissions()).map_err(write_error)?;
    }
    temporary.persist(path).map_err(|e| write_error(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_fill_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let result: Result<(), IoError> = write_atomic(&target, |w| {
            w.write_all(b"partial").unwrap();
            Err(IoError::invalid_file("x", "boom"))
        });
        assert!(result.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn successful_fill_lands_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        write_atomic::<IoError, _>(&target, |w| {
            w.write_all(b"a,b\n").map_err(|source| IoError::Write {
                path: target.clone(),
                source,
            })
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a,b\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&target).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644);
        }
    }
}
