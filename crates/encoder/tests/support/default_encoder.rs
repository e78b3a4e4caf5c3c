//! Where the tests find the default encoder `scripts/setup.sh` makes from the
//! `wordllama` wheel (the encoder's tests and the command line's include this file).

use std::path::{Path, PathBuf};

/// `encoders/wordllama-l2-supercat` at the workspace root, or `$VERDICT_ENCODER`;
/// a test fails, naming the set-up step, when it is missing.
pub fn wordllama_dir() -> PathBuf {
    let dir = std::env::var_os("VERDICT_ENCODER").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../encoders/wordllama-l2-supercat"),
        PathBuf::from,
    );
    assert!(
        dir.is_dir(),
        "{} is missing: run `bash scripts/setup.sh`, which copies WordLlama's table and tokenizer from its PyPI wheel there (or set VERDICT_ENCODER)",
        dir.display()
    );
    dir
}
