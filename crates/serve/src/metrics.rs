//! `/metrics`: request counts by endpoint and status, a latency histogram by
//! endpoint, reloads, and per agent the requests routed to it, the chats it answered
//! after another agent failed, its upstream's failures and its upstream's latency, in
//! Prometheus's text exposition format (version 0.0.4).
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

/// A latency histogram over [`BOUNDS`].
#[derive(Default)]
struct Histogram {
    /// Counts in each slot (not cumulative); the last slot is +Inf.
    buckets: [AtomicU64; 13],
    /// Total latency in microseconds.
    micros: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let slot = BOUNDS
            .iter()
            .position(|&b| seconds <= b)
            .unwrap_or(BOUNDS.len());
        self.buckets[slot].fetch_add(1, Ordering::Relaxed);
        self.micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// The series of metric `name` with the label `label`, cumulative as Prometheus
    /// reads them.
    fn render(&self, out: &mut String, name: &str, label: &str) {
        let mut cumulative = 0;
        for (slot, bucket) in self.buckets.iter().enumerate() {
            cumulative += bucket.load(Ordering::Relaxed);
            let le = BOUNDS
                .get(slot)
                .map_or("+Inf".to_string(), |b| b.to_string());
            let _ = writeln!(out, "{name}_bucket{{{label},le=\"{le}\"}} {cumulative}");
        }
        let _ = writeln!(
            out,
            "{name}_sum{{{label}}} {}\n{name}_count{{{label}}} {cumulative}",
            self.micros.load(Ordering::Relaxed) as f64 / 1e6
        );
    }
}

/// One endpoint's series.
#[derive(Default)]
struct Series {
    by_class: [AtomicU64; 4],
    latency: Histogram,
}

/// One agent's series.
#[derive(Default)]
struct AgentSeries {
    /// Routing decisions whose routed model is this agent.
    routed: AtomicU64,
    /// Chats this agent answered after the routed one (and any before it) failed.
    fallback: AtomicU64,
    /// Calls to this agent's upstream that failed (transport, 429, 5xx, not JSON).
    failures: AtomicU64,
    /// Its upstream's time to answer, failures included.
    upstream: Histogram,
}

/// Every series of a server.
#[derive(Default)]
pub(crate) struct Metrics {
    series: [Series; 8],
    reloads_done: AtomicU64,
    reloads_refused: AtomicU64,
    decisions: AtomicU64,
    /// The served agents (a reload keeps them), and their series in that order.
    agents: Vec<String>,
    per_agent: Vec<AgentSeries>,
}

/// The index of `path` among [`ENDPOINTS`].
pub(crate) fn endpoint_index(path: &str) -> usize {
    ENDPOINTS
        .iter()
        .position(|e| *e == path)
        .unwrap_or(ENDPOINTS.len() - 1)
}

impl Metrics {
    /// The series of a server routing among `agents`.
    pub fn for_agents(agents: &[String]) -> Self {
        Self {
            agents: agents.to_vec(),
            per_agent: agents.iter().map(|_| AgentSeries::default()).collect(),
            ..Self::default()
        }
    }

    /// Counts one answered request.
    pub fn observe(&self, endpoint: usize, status: u16, elapsed: Duration) {
        let series = &self.series[endpoint];
        let class = usize::from(status / 100).clamp(2, 5) - 2;
        series.by_class[class].fetch_add(1, Ordering::Relaxed);
        series.latency.observe(elapsed);
    }

    fn agent(&self, name: &str) -> Option<&AgentSeries> {
        let j = self.agents.iter().position(|a| a == name)?;
        self.per_agent.get(j)
    }

    /// Counts a routing decision for `agent`.
    pub fn routed(&self, agent: &str) {
        if let Some(series) = self.agent(agent) {
            series.routed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts one call to `agent`'s upstream: its time, whether it failed, and whether
    /// it answered a chat as a fallback.
    pub fn upstream_call(&self, agent: &str, elapsed: Duration, failed: bool, fallback: bool) {
        if let Some(series) = self.agent(agent) {
            series.upstream.observe(elapsed);
            if failed {
                series.failures.fetch_add(1, Ordering::Relaxed);
            } else if fallback {
                series.fallback.fetch_add(1, Ordering::Relaxed);
            }
        }
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
            series.latency.render(
                &mut out,
                "verdict_request_duration_seconds",
                &format!("endpoint=\"{endpoint}\""),
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
        self.render_agents(&mut out);
        out
    }

    /// The per-agent series.
    fn render_agents(&self, out: &mut String) {
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let counters: [(&str, &str, CounterOf); 3] = [
            (
                "verdict_agent_routed_total",
                "Routing decisions whose routed model is the agent.",
                |s| &s.routed,
            ),
            (
                "verdict_agent_fallback_total",
                "Chats the agent answered after the routed agent failed.",
                |s| &s.fallback,
            ),
            (
                "verdict_agent_upstream_failures_total",
                "Calls to the agent's upstream that failed.",
                |s| &s.failures,
            ),
        ];
        for (name, help, counter) in counters {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for (agent, series) in self.agents.iter().zip(&self.per_agent) {
                let _ = writeln!(
                    out,
                    "{name}{{agent=\"{}\"}} {}",
                    label_value(agent),
                    load(counter(series))
                );
            }
        }
        out.push_str("# HELP verdict_agent_upstream_seconds Time the agent's upstream took to answer a chat (or fail).\n# TYPE verdict_agent_upstream_seconds histogram\n");
        for (agent, series) in self.agents.iter().zip(&self.per_agent) {
            series.upstream.render(
                out,
                "verdict_agent_upstream_seconds",
                &format!("agent=\"{}\"", label_value(agent)),
            );
        }
    }
}

/// Which counter of an agent's series a metric reads.
type CounterOf = fn(&AgentSeries) -> &AtomicU64;

/// A label value as the exposition format escapes it: backslash, quote and newline.
fn label_value(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
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

    #[test]
    fn agents_count_routes_fallbacks_and_failures() {
        let metrics = Metrics::for_agents(&["a".into(), "b\"x".into()]);
        metrics.routed("a");
        metrics.routed("a");
        metrics.upstream_call("a", Duration::from_millis(3), true, false);
        metrics.upstream_call("b\"x", Duration::from_millis(30), false, true);
        metrics.routed("unknown");
        let text = metrics.render();
        assert!(
            text.contains("verdict_agent_routed_total{agent=\"a\"} 2"),
            "{text}"
        );
        assert!(text.contains("verdict_agent_upstream_failures_total{agent=\"a\"} 1"));
        assert!(
            text.contains("verdict_agent_fallback_total{agent=\"b\\\"x\"} 1"),
            "{text}"
        );
        assert!(text.contains("verdict_agent_upstream_seconds_bucket{agent=\"a\",le=\"0.005\"} 1"));
        assert!(text.contains("verdict_agent_upstream_seconds_count{agent=\"b\\\"x\"} 1"));
    }
}
