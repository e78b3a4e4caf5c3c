//! Command judges under one deadline: a program that leaves a child holding its
//! output, or prints without end, cannot hold a call past `timeout_seconds` nor fill
//! memory.

use std::path::Path;
use std::time::{Duration, Instant};

use verdict_judges::{ConfiguredPool, JudgePool, JudgesConfig};

/// A pool of one command judge running `script` under `sh -c`, with `timeout` seconds
/// per call, over two items.
fn pool(dir: &Path, script: &str, timeout: f64) -> ConfiguredPool {
    let path = dir.join("judges.toml");
    std::fs::write(
        &path,
        format!(
            "range = 1.0\n[[judge]]\nname = \"cmd\"\ncost = 1.0\ncommand = [\"sh\", \"-c\", {script:?}]\ntimeout_seconds = {timeout}\n"
        ),
    )
    .unwrap();
    let config = JudgesConfig::read(&path).unwrap();
    let items = (0..2)
        .map(|i| serde_json::json!({"id": format!("q{i}")}))
        .collect();
    ConfiguredPool::new(items, config, 0).unwrap()
}

/// `sh -c "cat >/dev/null; sleep 60 & echo 0.5"` prints its score and leaves a
/// background child holding stdout. Before, each call waited for that child (60 s);
/// now the call ends with the program and its process group is killed. The bound is
/// generous (a call takes milliseconds; the old behaviour two minutes), so a busy
/// machine cannot fail it.
#[test]
fn a_command_judge_s_background_child_cannot_hold_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut pool = pool(dir.path(), "cat >/dev/null; sleep 60 & echo 0.5", 5.0);
    let started = Instant::now();
    for item in 0..2 {
        assert_eq!(pool.score(item, 0).unwrap(), 0.5);
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "two calls took {:?}",
        started.elapsed()
    );
}

/// A background child that keeps stdout open and a program that never ends are both
/// stopped by the call's deadline (1 s here; the children would run 60 s).
#[test]
fn a_command_judge_that_never_ends_is_stopped_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut pool = pool(dir.path(), "cat >/dev/null; echo 0.5; sleep 60", 1.0);
    let started = Instant::now();
    let err = pool.score(0, 0).unwrap_err();
    assert!(err.to_string().contains("timed out"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "{err}");
}

/// Output is capped like an HTTP reply (1 MiB): 50 MB printed is refused without
/// being held, and the program is stopped.
#[test]
fn a_command_judge_s_output_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let mut pool = pool(
        dir.path(),
        "cat >/dev/null; head -c 50000000 /dev/zero | tr '\\0' 1",
        30.0,
    );
    let err = pool.score(0, 0).unwrap_err();
    assert!(err.to_string().contains("over 1 MiB"), "{err}");
}
