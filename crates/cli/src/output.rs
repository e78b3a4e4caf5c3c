use std::io::Write;
use std::path::Path;

use verdict::io::write_bytes_atomic;

/// Writes `text` to `out` atomically, or to standard output.
pub fn emit(text: &str, out: Option<&Path>) -> anyhow::Result<()> {
    match out {
        Some(path) => write_bytes_atomic(path, text.as_bytes())?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    Ok(())
}
