use std::io::Write;
use std::path::Path;

use verdict::io::{write_atomic, IoError};

/// Writes `text` to `out` atomically, or to standard output.
pub fn emit(text: &str, out: Option<&Path>) -> anyhow::Result<()> {
    match out {
        Some(path) => write_atomic::<IoError, _>(path, |w| {
            w.write_all(text.as_bytes())
                .map_err(|source| IoError::Write {
                    path: path.to_path_buf(),
                    source,
                })
        })?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    Ok(())
}
