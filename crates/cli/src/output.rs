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

/// Refuses `--report FILE` before any work when FILE exists and is not a page
/// verdict wrote ([`verdict::page`]).
pub fn check_report(report: Option<&Path>) -> anyhow::Result<()> {
    if let Some(path) = report {
        verdict::page::check_page_target(path, "--report")?;
    }
    Ok(())
}

/// Writes the `--report` page (atomically, never over a file verdict did not write).
pub fn write_report(path: &Path, page: &str) -> anyhow::Result<()> {
    verdict::page::write_page(path, "--report", page)?;
    Ok(())
}
