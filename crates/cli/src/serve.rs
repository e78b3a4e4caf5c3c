//! `verdict serve`: flags → [`verdict_serve::ServeOptions`], then the server.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use verdict_serve::{Limits, ServeOptions};

use crate::args::ServeArgs;

/// A number of seconds as a duration, refused unless positive and finite.
fn seconds(value: f64, flag: &str) -> anyhow::Result<Duration> {
    if !(value.is_finite() && value > 0.0) {
        bail!("{flag} {value}: give a positive number of seconds");
    }
    Duration::try_from_secs_f64(value).with_context(|| format!("{flag} {value}"))
}

/// The bearer token read from the variable `--token-env` names; an unset or empty
/// variable is an error rather than a server without the token the user asked for.
fn token(variable: Option<&str>) -> anyhow::Result<Option<String>> {
    let Some(variable) = variable else {
        return Ok(None);
    };
    match std::env::var(variable) {
        Ok(token) if !token.trim().is_empty() => Ok(Some(token.trim().to_string())),
        _ => {
            bail!("--token-env {variable}: the variable is unset or empty; export the token in it")
        }
    }
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.explore) {
        bail!(
            "--explore {} is not a share: give a number from 0 (no exploration) to 1 (every menu uniform)",
            args.explore
        );
    }
    if args.max_body_bytes == 0
        || args.max_contexts == 0
        || args.max_connections == 0
        || args.max_upstream_calls == 0
    {
        bail!("--max-body-bytes, --max-contexts, --max-connections and --max-upstream-calls must be at least 1");
    }
    let options = ServeOptions {
        model: args.model.clone(),
        listen: args.listen,
        upstreams: args.upstreams.clone(),
        encoder: args.encoder.clone(),
        decisions: args.decisions.clone(),
        token: token(args.token_env.as_deref())?,
        limits: Limits {
            max_body_bytes: args.max_body_bytes,
            max_contexts: args.max_contexts,
            read_timeout: seconds(args.read_timeout, "--read-timeout")?,
            write_timeout: seconds(args.write_timeout, "--write-timeout")?,
            max_connections: args.max_connections,
            upstream_timeout: seconds(args.upstream_timeout, "--upstream-timeout")?,
            max_upstream_calls: args.max_upstream_calls,
        },
        draw_seed: args.seed,
        explore: args.explore,
        request_log: args.request_log,
    };
    if !options.listen.ip().is_loopback() {
        eprintln!(
            "verdict serve: listening on {}, reachable from other machines{}",
            options.listen,
            if options.token.is_some() {
                ""
            } else {
                " without a token (--token-env)"
            }
        );
    }
    verdict_serve::run(options, |address, decisions| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{address}");
        if let Some(path) = decisions {
            let _ = writeln!(out, "decisions to {}", path.display());
        }
        let _ = out.flush();
    })?;
    Ok(())
}

/// `verdict bench serve`: the load scenarios of [`verdict_serve::bench`], printed as a
/// table with the router's overhead over the upstream alone.
pub fn bench(args: &crate::args::BenchServeArgs) -> anyhow::Result<()> {
    use verdict_serve::bench::{context_objects, run_serve_bench, ServeBenchPlan};
    if args.concurrency.is_empty() || args.concurrency.contains(&0) {
        bail!("--concurrency: give positive numbers of clients, e.g. 1,16,64");
    }
    if args.requests == 0 || args.batch == 0 || args.batch_requests == 0 {
        bail!("--requests, --batch and --batch-requests must be at least 1");
    }
    let plan = ServeBenchPlan {
        model: args.model.clone(),
        encoder: args.encoder.clone(),
        contexts: context_objects(&args.contexts)?,
        concurrency: args.concurrency.clone(),
        requests: args.requests,
        batch: args.batch,
        batch_requests: args.batch_requests,
        max_duration: seconds(args.max_seconds, "--max-seconds")?,
    };
    let rows = run_serve_bench(&plan)?;
    println!(
        "| scenario | clients | requests | failed | p50 ms | p99 ms | max ms | requests/s | contexts/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let ms = |s: f64| s * 1e3;
    for row in &rows {
        let r = &row.report;
        println!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.0} | {:.0} |",
            row.scenario,
            row.concurrency,
            r.requests,
            r.failures,
            ms(r.quantile(0.5)),
            ms(r.quantile(0.99)),
            ms(r.quantile(1.0)),
            r.throughput(),
            r.throughput() * row.contexts_per_request as f64
        );
    }
    for row in rows.iter().filter(|r| r.report.failures > 0) {
        println!(
            "{} at {} clients: {} failed, the first: {}",
            row.scenario,
            row.concurrency,
            row.report.failures,
            row.report.first_failure.as_deref().unwrap_or("?")
        );
    }
    for &clients in &args.concurrency {
        let find = |scenario: &str| {
            rows.iter()
                .find(|r| r.scenario == scenario && r.concurrency == clients)
                .map(|r| &r.report)
        };
        if let (Some(direct), Some(routed)) = (find("upstream alone"), find("chat via the router"))
        {
            println!(
                "router overhead at {clients} clients: p50 {:+.3} ms, p99 {:+.3} ms",
                ms(routed.quantile(0.5) - direct.quantile(0.5)),
                ms(routed.quantile(0.99) - direct.quantile(0.99))
            );
        }
    }
    Ok(())
}
