//! `verdict bench serve`: the server under load on loopback — `/v1/predict` one
//! context at a time and in batches, `/v1/route`, and the router's own cost over a
//! fake upstream (the same chat request sent to the upstream directly and through
//! `/v1/chat/completions`) — at each level of concurrency asked for.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};
use verdict::io::{read_table, Source};
use verdict::VerdictError;

use crate::fake_upstream::spawn_fake_upstream;
use crate::load::{generate, LoadPlan, LoadReport};
use crate::{spawn, Limits, ServeError, ServeOptions};

/// What to measure.
#[derive(Debug, Clone)]
pub struct ServeBenchPlan {
    /// The model served.
    pub model: PathBuf,
    /// The encoder a model fitted with one embeds its text with.
    pub encoder: Option<PathBuf>,
    /// Contexts to send, as `/v1/predict` takes them (at least one).
    pub contexts: Vec<Map<String, Value>>,
    /// Levels of concurrency, each measured in turn.
    pub concurrency: Vec<usize>,
    /// Requests per single-context scenario and level.
    pub requests: usize,
    /// Contexts per batched prediction request.
    pub batch: usize,
    /// Batched requests per level.
    pub batch_requests: usize,
    /// Longest a scenario may run at one level.
    pub max_duration: Duration,
}

/// One scenario at one level of concurrency.
#[derive(Debug, Clone)]
pub struct BenchRow {
    /// What was sent where.
    pub scenario: &'static str,
    /// Clients at once.
    pub concurrency: usize,
    /// Contexts in each request.
    pub contexts_per_request: usize,
    /// The latencies and counts.
    pub report: LoadReport,
}

/// The contexts of a table (`verdict simulate`'s `test_contexts.parquet`, say) as
/// JSON objects: numbers as numbers, anything else as text, missing cells left out.
///
/// # Errors
/// [`VerdictError`] when the table cannot be read or has no rows.
pub fn context_objects(path: &std::path::Path) -> Result<Vec<Map<String, Value>>, VerdictError> {
    let table = read_table(&Source::File(path.to_path_buf()), None, None)?;
    if table.rows() == 0 {
        return Err(VerdictError::Data(format!(
            "{}: no contexts",
            path.display()
        )));
    }
    Ok((0..table.rows())
        .map(|row| {
            table
                .columns()
                .iter()
                .filter_map(|column| {
                    let text = column.value(row)?;
                    let value = match text.parse::<f64>() {
                        Ok(number) if number.is_finite() && column.name() != "context_id" => {
                            json!(number)
                        }
                        _ => json!(text),
                    };
                    Some((column.name().to_string(), value))
                })
                .collect()
        })
        .collect())
}

/// Runs every scenario of `plan` against a server and a fake upstream started for
/// it on loopback, and stops both.
///
/// # Errors
/// [`ServeError`] when the model cannot be served or a port cannot be bound.
pub fn run_serve_bench(plan: &ServeBenchPlan) -> Result<Vec<BenchRow>, ServeError> {
    let loopback: SocketAddr = ([127, 0, 0, 1], 0).into();
    let upstream = spawn_fake_upstream(loopback)?;
    let agents = verdict::model_file::load_model(&plan.model)?.agents;
    let dir =
        tempfile::tempdir().map_err(|e| ServeError::Start(format!("a scratch directory: {e}")))?;
    let upstreams = dir.path().join("upstreams.toml");
    let text: String = agents
        .iter()
        .enumerate()
        .map(|(j, agent)| {
            format!(
                "[upstream.{}]\nbase_url = \"http://{}/{agent}\"\ncost = {}\n\n",
                toml_key(agent),
                upstream.address(),
                j + 1
            )
        })
        .collect();
    std::fs::write(&upstreams, text)
        .map_err(|e| ServeError::Start(format!("the upstreams file: {e}")))?;
    let server = spawn(ServeOptions {
        model: plan.model.clone(),
        listen: loopback,
        upstreams: Some(upstreams),
        encoder: plan.encoder.clone(),
        decisions: None,
        token: None,
        limits: Limits::default(),
        draw_seed: None,
        explore: 0.0,
        request_log: false,
    })?;
    let base = format!("http://{}", server.address());
    let one = Value::Object(plan.contexts[0].clone());
    let batch: Vec<Value> = plan
        .contexts
        .iter()
        .cycle()
        .take(plan.batch.max(1))
        .enumerate()
        .map(|(i, c)| {
            let mut c = c.clone();
            c.insert("context_id".into(), json!(format!("b{i}")));
            Value::Object(c)
        })
        .collect();
    let chat = |context: Option<&Value>| {
        let mut body = json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": "Name a prime number."}],
        });
        if let Some(context) = context {
            body["context"] = context.clone();
            body["rule"] = json!("argmax");
        }
        body.to_string()
    };
    let scenarios: [(&'static str, String, String, usize, usize); 5] = [
        (
            "predict, one context",
            format!("{base}/v1/predict"),
            json!({"contexts": [one]}).to_string(),
            1,
            plan.requests,
        ),
        (
            "predict, batch",
            format!("{base}/v1/predict"),
            json!({"contexts": batch}).to_string(),
            batch.len(),
            plan.batch_requests,
        ),
        (
            "route, sample",
            format!("{base}/v1/route"),
            json!({"context": one}).to_string(),
            1,
            plan.requests,
        ),
        (
            "upstream alone",
            format!(
                "http://{}/{}/chat/completions",
                upstream.address(),
                agents[0]
            ),
            chat(None),
            1,
            plan.requests,
        ),
        (
            "chat via the router",
            format!("{base}/v1/chat/completions"),
            chat(Some(&one)),
            1,
            plan.requests,
        ),
    ];
    let mut rows = Vec::new();
    for &concurrency in &plan.concurrency {
        for (scenario, url, body, contexts_per_request, requests) in &scenarios {
            let report = generate(&LoadPlan {
                url: url.clone(),
                body: body.clone(),
                concurrency,
                requests: *requests,
                max_duration: plan.max_duration,
                warm_up: (requests / 10).clamp(concurrency, 500),
            });
            rows.push(BenchRow {
                scenario,
                concurrency,
                contexts_per_request: *contexts_per_request,
                report,
            });
        }
    }
    server.stop()?;
    upstream.stop()?;
    Ok(rows)
}

/// An agent name as a TOML key: bare when it can be, else quoted.
fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        Value::String(name.to_string()).to_string()
    }
}
