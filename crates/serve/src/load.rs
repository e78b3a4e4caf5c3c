//! A bounded load generator for loopback benchmarks: `concurrency` clients, each a
//! thread with its own keep-alive connection, send one request body over and over
//! until the plan's count or time runs out; the latencies of every request are kept
//! and summarised. It talks to the address it is given only and always stops by
//! itself.
//!
//! Hand-written because the maintained tools (`oha`, `wrk`) are separate programs,
//! not libraries, and a benchmark that must run on any machine with the repository
//! cannot assume them; the client is `ureq`, the same one the router forwards with.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to send, how often and how hard.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// `POST` target.
    pub url: String,
    /// The JSON body of every request.
    pub body: String,
    /// Clients sending at once.
    pub concurrency: usize,
    /// Requests in all (after the warm-up).
    pub requests: usize,
    /// The run stops at this time even when requests remain.
    pub max_duration: Duration,
    /// Requests sent first and not counted (connections opened, caches warm).
    pub warm_up: usize,
}

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Requests answered and counted.
    pub requests: usize,
    /// Of those, answers other than 200 and transport errors.
    pub failures: usize,
    /// Wall time of the counted requests.
    pub seconds: f64,
    /// Latencies in seconds, ascending.
    pub latencies: Vec<f64>,
    /// What the first failure was (a status or a transport error), if any failed.
    pub first_failure: Option<String>,
}

impl LoadReport {
    /// The `q`-quantile of the latencies (nearest rank: the smallest latency with at
    /// least `q` of the requests at or below it), in seconds.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        let rank = (q * self.latencies.len() as f64).ceil() as usize;
        self.latencies[rank.clamp(1, self.latencies.len()) - 1]
    }

    /// Requests per second.
    pub fn throughput(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

/// Runs `plan`: the warm-up, then the counted requests shared among the clients.
pub fn generate(plan: &LoadPlan) -> LoadReport {
    let concurrency = plan.concurrency.max(1);
    let warm = LoadPlan {
        requests: plan.warm_up,
        warm_up: 0,
        ..plan.clone()
    };
    if plan.warm_up > 0 {
        send_all(&warm, concurrency);
    }
    let started = Instant::now();
    let (mut latencies, failures, first_failure) = send_all(plan, concurrency);
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    LoadReport {
        requests: latencies.len(),
        failures,
        seconds,
        latencies,
        first_failure,
    }
}

/// `plan.requests` requests from `concurrency` clients; each client takes the next
/// request from a shared counter, so fast clients do more.
fn send_all(plan: &LoadPlan, concurrency: usize) -> (Vec<f64>, usize, Option<String>) {
    let next = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + plan.max_duration;
    let clients: Vec<_> = (0..concurrency)
        .map(|_| {
            let (next, plan) = (next.clone(), plan.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(30)))
                    .build()
                    .into();
                let (mut latencies, mut failures, mut first) = (Vec::new(), 0, None);
                while next.fetch_add(1, Ordering::Relaxed) < plan.requests
                    && Instant::now() < deadline
                {
                    let sent = Instant::now();
                    let outcome = agent
                        .post(&plan.url)
                        .header("content-type", "application/json")
                        .send(plan.body.as_str())
                        .and_then(|mut r| {
                            let status = r.status().as_u16();
                            r.body_mut().read_to_vec().map(|_| status)
                        });
                    latencies.push(sent.elapsed().as_secs_f64());
                    let failure = match outcome {
                        Ok(200) => None,
                        Ok(status) => Some(format!("HTTP {status}")),
                        Err(e) => Some(e.to_string()),
                    };
                    if let Some(failure) = failure {
                        failures += 1;
                        first.get_or_insert(failure);
                    }
                }
                (latencies, failures, first)
            })
        })
        .collect();
    let (mut all, mut failures, mut first) = (Vec::new(), 0, None);
    for client in clients {
        let (latencies, failed, failure) = client.join().expect("a load client panicked");
        all.extend(latencies);
        failures += failed;
        first = first.or(failure);
    }
    (all, failures, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_ranks() {
        let report = LoadReport {
            requests: 100,
            failures: 0,
            seconds: 2.0,
            latencies: (1..=100).map(f64::from).collect(),
            first_failure: None,
        };
        assert_eq!(report.quantile(0.5), 50.0);
        assert_eq!(report.quantile(0.99), 99.0);
        assert_eq!(report.quantile(1.0), 100.0);
        assert_eq!(report.quantile(0.0), 1.0);
        assert_eq!(report.throughput(), 50.0);
    }
}
