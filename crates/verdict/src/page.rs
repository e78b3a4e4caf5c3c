//! Writing a report page without losing anything a user gave: a page goes to its
//! path atomically, and never over a file verdict did not write (a file without
//! verdict's generator tag, [`GENERATOR_META`]) — a mistyped `--report results.json`
//! or `--out battles.csv` is refused, and the file is left as it was.

use std::path::Path;

use verdict_report::GENERATOR_META;

use crate::VerdictError;

/// How far into a file the generator tag is looked for: a page's head.
const HEAD_BYTES: usize = 4096;

/// Refuses `path` when a file there was not written by verdict; call it before the
/// work whose page it will hold, so a refusal costs nothing. `option` is how the user
/// named the page (`--report`, `--out`), for the message.
///
/// # Errors
/// [`VerdictError::Data`] naming the file and the fix.
pub fn check_page_target(path: &Path, option: &str) -> Result<(), VerdictError> {
    if path.exists() && !written_by_verdict(path) {
        return Err(VerdictError::Data(format!(
            "{} exists and was not written by verdict; it was left untouched: name another file with {option}",
            path.display()
        )));
    }
    Ok(())
}

/// Writes `page` to `path` atomically (the whole page or nothing), after
/// [`check_page_target`].
///
/// # Errors
/// As [`check_page_target`]; I/O errors naming the file.
pub fn write_page(path: &Path, option: &str, page: &str) -> Result<(), VerdictError> {
    check_page_target(path, option)?;
    verdict_io::write_bytes_atomic(path, page.as_bytes())?;
    Ok(())
}

/// Whether the file at `path` starts like a page verdict wrote.
fn written_by_verdict(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    std::fs::File::open(path)
        .and_then(|file| file.take(HEAD_BYTES as u64).read_to_end(&mut head))
        .map(|_| String::from_utf8_lossy(&head).contains(GENERATOR_META))
        .unwrap_or(false)
}
