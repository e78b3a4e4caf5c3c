//! `/metrics`: request counts by endpoint and status, a latency histogram by
//! endpoint, and reloads, in Prometheus's text exposition format (version 0.0.4).
//!
//! Written by hand: a handful of atomic counters. The Prometheus client crates bring
//! a registry, label sets and protobuf for what here is a fixed set of series.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The endpoints counted; anything else is `other`.
pub(crate) const ENDPOINTS: [&str; 8] = [
    "/v1/predict",
    "/v1/route",
    "/v1/chat/completions",
    "/v1/models",
    "/health",
    "/metrics",
    "/admin/reload",
    "other",
];

/// The histogram's upper bounds, in seconds.
const BOUNDS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// The status classes counted.
const CLASSES: [&str; 4] = ["2xx", "3xx", "4xx", "5xx"];

/// One endpoint's series.
#[derive(Default)]
struct Series {
    by_class: [AtomicU64; 4],
    /// Cumulative counts below each bound; the last slot is +Inf.
    buckets: [AtomicU64; 13],
    /// Total latency in microseconds.
    micros: AtomicU64,
}

/// Every series of a server.
#[derive(Default)]
pub(crate) struct Metrics {
    series: [Series; 8],
    reloads_done: AtomicU64,
    reloads_refused: AtomicU64,
    decisions: AtomicU64,
}

/// The index of `path` among [`ENDPOINTS`].
pub(crate) fn endpoint_index(path: &str) -> usize {
    ENDPOINTS
        .iter()
        .position(|e| *e == path)
        .unwrap_or(ENDPOINTS.len() - 1)
}

impl Metrics {
    /// Counts one answered request.
    pub fn observe(&self, endpoint: usize, status: u16, elapsed: Duration) {
        let series = &self.series[endpoint];
        let class = usize::from(status / 100).clamp(2, 5) - 2;
        series.by_class[class].fetch_add(1, Ordering::Relaxed);
        let seconds = elapsed.as_secs_f64();
        let slot = BOUNDS
            .iter()
            .position(|&b| seconds <= b)
            .unwrap_or(BOUNDS.len());
        series.buckets[slot].fetch_add(1, Ordering::Relaxed);
        series
            .micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// Counts a reload, done or refused.
    pub fn reloaded(&self, done: bool) {
        let counter = if done {
            &self.reloads_done
        } else {
            &self.reloads_refused
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a logged decision.
    pub fn decided(&self) {
        self.decisions.fetch_add(1, Ordering::Relaxed);
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        out.push_str("# HELP verdict_requests_total Requests answered, by endpoint and status class.\n# TYPE verdict_requests_total counter\n");
        for (endpoint, series) in ENDPOINTS.iter().zip(&self.series) {
            for (class, count) in CLASSES.iter().zip(&series.by_class) {
                let _ = writeln!(
                    out,
                    "verdict_requests_total{{endpoint=\"{endpoint}\",status=\"{class}\"}} {}",
                    load(count)
                );
            }
        }
        out.push_str("# HELP verdict_request_duration_seconds Time from request to response head.\n# TYPE verdict_request_duration_seconds histogram\n");
        for (endpoint, series) in ENDPOINTS.iter().zip(&self.series) {
            let mut cumulative = 0;
            for (slot, bucket) in series.buckets.iter().enumerate() {
                cumulative += load(bucket);
                let le = BOUNDS
                    .get(slot)
                    .map_or("+Inf".to_string(), |b| b.to_string());
                let _ = writeln!(
                    out,
                    "verdict_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "verdict_request_duration_seconds_sum{{endpoint=\"{endpoint}\"}} {}\nverdict_request_duration_seconds_count{{endpoint=\"{endpoint}\"}} {cumulative}",
                load(&series.micros) as f64 / 1e6
            );
        }
        let _ = writeln!(
            out,
            "# HELP verdict_reloads_total Model reloads, done or refused.\n# TYPE verdict_reloads_total counter\nverdict_reloads_total{{result=\"done\"}} {}\nverdict_reloads_total{{result=\"refused\"}} {}",
            load(&self.reloads_done),
            load(&self.reloads_refused)
        );
        let _ = writeln!(
            out,
            "# HELP verdict_decisions_total Routing decisions written to the decision log.\n# TYPE verdict_decisions_total counter\nverdict_decisions_total {}",
            load(&self.decisions)
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_lands_in_its_bucket_and_every_one_above() {
        let metrics = Metrics::default();
        metrics.observe(0, 200, Duration::from_micros(1500));
        metrics.observe(0, 404, Duration::from_secs(9));
        let text = metrics.render();
        assert!(text.contains("verdict_requests_total{endpoint=\"/v1/predict\",status=\"2xx\"} 1"));
        assert!(text.contains("verdict_requests_total{endpoint=\"/v1/predict\",status=\"4xx\"} 1"));
        assert!(text.contains("bucket{endpoint=\"/v1/predict\",le=\"0.001\"} 0"));
        assert!(text.contains("bucket{endpoint=\"/v1/predict\",le=\"0.002\"} 1"));
        assert!(text.contains("bucket{endpoint=\"/v1/predict\",le=\"5\"} 1"));
        assert!(text.contains("bucket{endpoint=\"/v1/predict\",le=\"+Inf\"} 2"));
        assert!(
            text.contains("verdict_request_duration_seconds_sum{endpoint=\"/v1/predict\"} 9.0015")
        );
    }
}
