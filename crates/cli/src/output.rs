//! Every file the command line writes goes through the library's output policy
//! ([`verdict::outputs::Outputs`]), made once from the global `--force`; text with no
//! `--out` goes to standard output.

use std::io::Write;
use std::sync::OnceLock;

use verdict::io::OutputFile;
use verdict::outputs::Outputs;

/// This run's outputs (set once, by `main`, from `--force`).
static OUTPUTS: OnceLock<Outputs> = OnceLock::new();

/// Records the global `--force` flag for every output of this run.
pub fn set_force(force: bool) {
    let _ = OUTPUTS.set(Outputs::new(force));
}

/// This run's outputs.
pub fn outputs() -> Outputs {
    OUTPUTS.get().copied().unwrap_or_default()
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
