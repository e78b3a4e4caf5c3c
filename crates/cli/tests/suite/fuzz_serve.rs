//! Mutation fuzzing of what `verdict serve` reads: HTTP request bodies of every
//! endpoint (sent to a running server), `upstreams.toml`, and decision logs read back
//! as a feedback table with their logged propensities. Each must answer with a value
//! or an error — a status below 500 for a request (or 502/503 where an upstream is
//! involved), never a panic — and the server must still be serving at the end.
//! Same driver and case counts as [`crate::fuzz`].

use serde_json::json;
use verdict::io::{read_contextual_log, ContextualOptions};

use crate::fuzz::{bytes_source, fuzz};
use crate::serving::{client, contexts, fitted, get, post, FakeUpstream, Server};

#[test]
fn http_request_bodies_never_panic_nor_stop_the_server() {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let upstream = FakeUpstream::start();
    let upstreams = upstream.upstreams_file(dir.path(), &fitted.agents);
    let server = Server::routing(&fitted.model, &upstreams, &["--upstream-timeout", "5"], "k");
    let agent = client();
    let context = contexts(1, 3).remove(0);
    let bodies = [
        (
            "/v1/predict",
            json!({"contexts": contexts(2, 3), "payoff": true}),
        ),
        (
            "/v1/route",
            json!({"context": context, "rule": "sample", "max_cost": 2.5, "menu_size": 2, "request_id": "r"}),
        ),
        (
            "/v1/chat/completions",
            json!({"model": "verdict", "messages": [{"role": "user", "content": "hi"}], "context": context, "rule": "argmax"}),
        ),
    ];
    for (endpoint, body) in bodies {
        let url = format!("{}{endpoint}", server.base);
        let seed = body.to_string().into_bytes();
        fuzz(&format!("HTTP body of {endpoint}"), &seed, |data| {
            let text = String::from_utf8_lossy(data);
            let reply = post(&agent, &url, &text, None);
            let upstream_status =
                endpoint.ends_with("completions") && matches!(reply.status, 502 | 503);
            assert!(
                reply.status < 500 || upstream_status,
                "{endpoint} answered {} to {text:?}: {}",
                reply.status,
                reply.body
            );
        });
    }
    assert_eq!(
        get(&agent, &format!("{}/health", server.base), None).status,
        200
    );
    let stderr = server.stop();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn upstreams_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("upstreams.toml");
    std::env::set_var("FUZZ_UPSTREAM_KEY", "k");
    let seed = b"[upstream.a]\nbase_url = \"http://127.0.0.1:9/a\"\napi_key_env = \"FUZZ_UPSTREAM_KEY\"\ncost = 2.5\nmodel = \"a-2025\"\n\n[upstream.b]\nbase_url = \"https://example.invalid/v1\"\ncost = 1\n".to_vec();
    fuzz("upstreams.toml", &seed, |data| {
        std::fs::write(&path, data).unwrap();
        if let Ok(agents) = verdict_serve::check_upstreams(&path) {
            assert!(!agents.is_empty());
        }
    });
}

/// A decision log as `serve --decisions` writes it, read back as the feedback table
/// of a refit with its logged propensities (the recipe of docs/serving.md).
#[test]
fn decision_logs_read_as_feedback_never_panic() {
    let contexts =
        b"{\"context_id\": \"c1\", \"x1\": 0.5}\n{\"context_id\": \"c2\", \"x1\": -0.5}\n".to_vec();
    let decisions = b"{\"request_id\":\"r1\",\"context_id\":\"c1\",\"menu\":\"a|b\",\"modality\":\"pairwise\",\"response\":\"a\",\"propensity\":0.25}\n{\"request_id\":\"r2\",\"context_id\":\"c2\",\"menu\":\"a|b\",\"modality\":\"pairwise\",\"response\":\"b\",\"propensity\":1e-7}\n".to_vec();
    let options = ContextualOptions {
        propensity_column: Some("propensity".into()),
        ..ContextualOptions::default()
    };
    fuzz("decision log", &decisions, |data| {
        if let Ok(log) = read_contextual_log(
            &bytes_source("contexts.jsonl", &contexts),
            &bytes_source("decisions.jsonl", data),
            &options,
        ) {
            for record in &log.feedback {
                if let Some(p) = record.logged_propensity {
                    assert!(p > 0.0 && p <= 1.0, "propensity {p} read");
                }
            }
        }
    });
}
