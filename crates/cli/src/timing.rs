//! Timing for the benchmarks.

use std::time::Instant;

/// Median seconds of `runs` calls of `f` (at least one), with the last result.
pub fn median_seconds<T>(
    runs: usize,
    mut f: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        last = Some(f()?);
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], last.expect("at least one run")))
}
