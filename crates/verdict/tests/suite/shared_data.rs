//! The shared data folder of real public data sets beside the repository, which tests
//! that read it name when it is absent (the lab's tests include this file too).

use std::path::{Path, PathBuf};

/// The shared data folder: `$VERDICT_SHARED_DATA`, else `../shared/data` beside the
/// repository. `None` (with a message on stderr) when it is absent.
pub fn shared_data(folder: &str) -> Option<PathBuf> {
    let root = std::env::var_os("VERDICT_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = root.join(folder);
    if path.is_dir() {
        Some(path)
    } else {
        // Written to the process's stderr directly: the test harness captures
        // `eprintln!` of passing tests, and a skip must never pass unseen.
        use std::io::Write;
        let message = format!(
            "SKIPPED: shared data folder {} is missing; this test needs it (set VERDICT_SHARED_DATA)\n",
            path.display()
        );
        let _ = std::io::stderr().write_all(message.as_bytes());
        None
    }
}
