//! Helpers shared by the end-to-end tests: run the `verdict` binary and check how it
//! ended.
#![allow(dead_code)] // each module uses its own subset

use std::ffi::OsStr;
use std::fmt::Debug;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs the binary with `args`.
pub fn verdict<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .output()
        .expect("the verdict binary runs")
}

/// The standard output of a run that must have succeeded.
pub fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "verdict failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Runs verdict expecting success; returns stdout.
pub fn succeed<S: AsRef<OsStr> + Debug>(args: &[S]) -> String {
    let output = verdict(args);
    assert!(
        output.status.success(),
        "verdict {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs verdict expecting failure with exit code 2 and nothing on stdout; returns
/// stderr.
pub fn failure<S: AsRef<OsStr> + Debug>(args: &[S]) -> String {
    let output = verdict(args);
    assert_eq!(
        output.status.code(),
        Some(2),
        "expected exit 2 for {args:?}"
    );
    assert!(output.stdout.is_empty(), "no output on failure");
    String::from_utf8(output.stderr).unwrap()
}

/// Runs verdict expecting success and JSON on stdout.
pub fn json<S: AsRef<OsStr> + Debug>(args: &[S]) -> Value {
    serde_json::from_str(&succeed(args)).unwrap()
}

/// Writes `text` to `dir/name`; returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A small simulation — 300 training and 10 test contexts — written to `dir/sim`, for
/// tests that need some fitted model quickly; returns its directory.
pub fn small_simulation(dir: &Path) -> String {
    let sim = dir.join("sim").display().to_string();
    succeed(&[
        "simulate",
        "--contexts",
        "300",
        "--test-contexts",
        "10",
        "--out",
        &sim,
    ]);
    sim
}

/// The arguments of a quick `verdict --quiet fit`: the contexts and feedback tables,
/// the linear backbone, three folds, `--method method`, the model written to `out`,
/// then `extra`.
pub fn linear_fit_args<'a>(
    contexts: &'a str,
    feedback: &'a str,
    method: &'a str,
    out: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "--quiet",
        "fit",
        "--contexts",
        contexts,
        "--feedback",
        feedback,
        "--backbone",
        "linear",
        "--folds",
        "3",
        "--method",
        method,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}
