//! Writing a report page without losing anything a user gave: a page is an output
//! like any other ([`OutputFile`]: atomic, never over a file verdict did not write),
//! so a mistyped `--report results.json` or `--out battles.csv` is refused and the
//! file left as it was. A page counts as verdict's only by the output manifest's
//! record, not by the generator tag it carries: a page the user annotated keeps its
//! notes.

use std::path::PathBuf;

pub use verdict_io::shown_name;
use verdict_io::OutputFile;

use crate::VerdictError;

/// The page output at `path`, named by the user with `option` (`--report`, `--out`),
/// replacing a file verdict did not write only when `force` is set.
pub fn page_target(path: impl Into<PathBuf>, option: &str, force: bool) -> OutputFile {
    OutputFile::new(path, option).forced(force)
}

/// Writes `page` to `target` (see [`page_target`]); check the target before the
/// work whose page it will hold ([`OutputFile::check`]), so a refusal costs nothing.
///
/// # Errors
/// [`VerdictError::Io`] naming the file and the fix when it is refused; I/O errors
/// naming the file.
pub fn write_page(target: &OutputFile, page: &str) -> Result<(), VerdictError> {
    target.write_bytes(page.as_bytes())?;
    Ok(())
}
