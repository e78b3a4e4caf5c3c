//! Every file the command line writes goes through the library's output policy
//! ([`verdict::io::OutputFile`]): atomic, and never over a file verdict did not write
//! unless `--force` was given. Each command checks its outputs before any work
//! ([`check`]) and writes them through the targets made here.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use verdict::io::OutputFile;

/// Whether `--force` was given (set once, by `main`).
static FORCE: OnceLock<bool> = OnceLock::new();

/// Records the global `--force` flag for every output of this run.
pub fn set_force(force: bool) {
    let _ = FORCE.set(force);
}

fn forced() -> bool {
    FORCE.get().copied().unwrap_or(false)
}

/// The output at `path`, named with `option` (`--out`, `--plot`, …).
pub fn target(path: &Path, option: &str) -> OutputFile {
    OutputFile::new(path, option).forced(forced())
}

/// The model file at `path`, named with `--out` ([`verdict::model_file::model_target`]).
#[cfg(feature = "nasheval")]
pub fn model_target(path: &Path) -> OutputFile {
    verdict::model_file::model_target(path, "--out", forced())
}

/// The page output at `path`, named with `option` (`--report`, `--out`).
pub fn page_target(path: &Path, option: &str) -> OutputFile {
    verdict::page::page_target(path, option, forced())
}

/// Refuses, before any work, each given output that would replace a file verdict did
/// not write (or go through a link).
pub fn check(outputs: &[Option<OutputFile>]) -> anyhow::Result<()> {
    for output in outputs.iter().flatten() {
        output.check()?;
    }
    Ok(())
}

/// [`check`], and refuses an output that is one of `inputs` (the run would replace a
/// file it reads).
pub fn check_with_inputs(outputs: &[Option<OutputFile>], inputs: &[&Path]) -> anyhow::Result<()> {
    for output in outputs.iter().flatten() {
        output.check_not_reading(inputs)?;
    }
    check(outputs)
}

/// `--out FILE` as a target, when given.
pub fn optional(path: Option<&Path>, option: &str) -> Option<OutputFile> {
    path.map(|path| target(path, option))
}

/// `--report FILE` as a page target, when given.
pub fn report(path: Option<&Path>) -> Option<OutputFile> {
    path.map(|path| page_target(path, "--report"))
}

/// Writes `text` to `out` (atomically, under the output policy), or to standard
/// output.
pub fn emit(text: &str, out: Option<&OutputFile>) -> anyhow::Result<()> {
    match out {
        Some(target) => target.write_bytes(text.as_bytes())?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    Ok(())
}

/// Writes a page to its target.
pub fn write_page(target: &OutputFile, page: &str) -> anyhow::Result<()> {
    verdict::page::write_page(target, page)?;
    Ok(())
}
