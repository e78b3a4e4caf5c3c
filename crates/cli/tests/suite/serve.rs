//! `verdict serve` end to end: the real server on a free loopback port, real HTTP,
//! and its answers checked against `verdict predict`, against `pi(x)` by a
//! chi-square test, against the budget, and against a fake upstream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{succeed, write};
use crate::serving::{
    client, contexts, fitted, get, post, raw_exchange, with_fields, FakeUpstream, Reply, Server,
};

/// `POST /v1/predict` answers with the bytes `verdict predict --format json` writes
/// for the same contexts, with and without payoff matrices; a context predicted alone
/// gets the bytes it gets in a batch.
#[test]
fn predictions_over_http_are_the_bytes_verdict_predict_writes() {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let batch = contexts(40, 1);
    let file = write(
        dir.path(),
        "contexts.json",
        &Value::Array(batch.clone()).to_string(),
    );
    let model = fitted.model.display().to_string();
    let server = Server::start(&fitted.model, &[], &[]);
    let agent = client();
    let url = format!("{}/v1/predict", server.base);
    for payoff in [false, true] {
        let mut args = vec![
            "predict",
            model.as_str(),
            "--contexts",
            file.as_str(),
            "--format",
            "json",
        ];
        if payoff {
            args.push("--payoff");
        }
        let expected = succeed(&args);
        let reply = post(
            &agent,
            &url,
            &json!({"contexts": batch, "payoff": payoff}).to_string(),
            None,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.body, expected, "payoff {payoff}");
    }
    // The bare array is a batch too; each context alone is its row of the batch.
    let whole = post(&agent, &url, &Value::Array(batch.clone()).to_string(), None).json();
    for (i, context) in batch.iter().enumerate().step_by(7) {
        let alone = post(&agent, &url, &json!([context]).to_string(), None).json();
        assert_eq!(alone[0], whole[i], "context {i}");
    }
    let models = get(&agent, &format!("{}/v1/models", server.base), None).json();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        fitted.agents.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let health = get(&agent, &format!("{}/health", server.base), None).json();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["agents"], 5);
}

/// Critical values of the chi-square distribution at p = 0.001 for 1 … 4 degrees of
/// freedom (any statistics table, e.g. NIST/SEMATECH e-Handbook, Table 1.3.6.7.4).
const CHI_SQUARE_999: [f64; 4] = [10.828, 13.816, 16.266, 18.467];

/// `sample` draws from `pi(x)`: over 3,000 requests, all with one request id, the
/// models come up with the equilibrium's frequencies (chi-square, p = 0.001);
/// `argmax` is the most probable model; a duel's propensity is the probability of
/// drawing that pair without replacement.
#[test]
fn sampled_routes_come_up_with_the_equilibrium_frequencies() {
    let fitted = fitted();
    // Seeded draws (`--seed`), so that the chi-square test is one fixed sample, not a
    // new one with a 0.1% chance to fail on every run.
    let server = Server::start(&fitted.model, &["--seed", "11"], &[]);
    let agent = client();
    let url = format!("{}/v1/route", server.base);
    let (context, _) = most_mixed_context(&agent, &server, contexts(200, 5));
    let route = |extra: Value| {
        let reply = post(
            &agent,
            &url,
            &with_fields(json!({"context": context}), extra),
            None,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    };
    let first = route(json!({"request_id": "r0"}));
    let pi = fitted.probabilities(&first);
    assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{pi:?}");
    // Every request carries the same id: each is still its own draw (seeding by the
    // id sent all of them to one model, and the decision log's propensities were
    // wrong), so the frequencies are pi(x)'s.
    let draws = 3000;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for _ in 0..draws {
        let routed = route(json!({"request_id": "same"}));
        let model = routed["model"].as_str().unwrap().to_string();
        let j = fitted.agents.iter().position(|a| *a == model).unwrap();
        assert_eq!(routed["propensity"].as_f64().unwrap(), pi[j]);
        *counts.entry(model).or_default() += 1;
    }
    // Models expected fewer than 5 times are pooled into one cell.
    let (mut statistic, mut cells) = (0.0, 0);
    let (mut pooled_observed, mut pooled_expected) = (0.0, 0.0);
    for (j, a) in fitted.agents.iter().enumerate() {
        let observed = *counts.get(a).unwrap_or(&0) as f64;
        let expected = pi[j] * f64::from(draws);
        if expected < 5.0 {
            pooled_observed += observed;
            pooled_expected += expected;
        } else {
            statistic += (observed - expected).powi(2) / expected;
            cells += 1;
        }
    }
    if pooled_expected >= 5.0 {
        statistic += (pooled_observed - pooled_expected).powi(2) / pooled_expected;
        cells += 1;
    } else {
        assert!(
            pooled_observed <= 5.0 + pooled_expected * 3.0,
            "{counts:?} vs {pi:?}"
        );
    }
    assert!(
        cells >= 2,
        "pi(x) {pi:?} is too concentrated to test this context"
    );
    assert!(
        statistic < CHI_SQUARE_999[cells - 2],
        "chi-square {statistic} on {} df: {counts:?} vs {pi:?}",
        cells - 1
    );
    let best = (0..5)
        .max_by(|&a, &b| pi[a].partial_cmp(&pi[b]).unwrap().then(b.cmp(&a)))
        .unwrap();
    assert_eq!(
        route(json!({"rule": "argmax"}))["model"],
        fitted.agents[best].as_str()
    );
    let duel = route(json!({"menu_size": 2, "request_id": "d1"}));
    let menu: Vec<usize> = duel["menu"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            fitted
                .agents
                .iter()
                .position(|a| a == m.as_str().unwrap())
                .unwrap()
        })
        .collect();
    let (j, k) = (menu[0], menu[1]);
    let expected = pi[j] * pi[k] / (1.0 - pi[j]) + pi[k] * pi[j] / (1.0 - pi[k]);
    assert!(
        (duel["propensity"].as_f64().unwrap() - expected).abs() < 1e-12,
        "{duel}"
    );
}

/// The context of `candidates` whose policy is most mixed (the largest second
/// probability), with its payoff matrix `Â(x)` (row agent's payoff), from
/// `/v1/predict`.
fn most_mixed_context(
    agent: &ureq::Agent,
    server: &Server,
    candidates: Vec<Value>,
) -> (Value, Vec<Vec<f64>>) {
    let url = format!("{}/v1/predict", server.base);
    let body = json!({"contexts": candidates, "payoff": true}).to_string();
    let predictions = post(agent, &url, &body, None).json();
    let second = |p: &Value| {
        let mut values: Vec<f64> = p["equilibrium"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .collect();
        values.sort_by(f64::total_cmp);
        values[values.len() - 2]
    };
    let best = (0..candidates.len())
        .max_by(|&a, &b| second(&predictions[a]).total_cmp(&second(&predictions[b])))
        .unwrap();
    let payoff = predictions[best]["payoff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        })
        .collect();
    (candidates[best].clone(), payoff)
}

/// How much the best feasible deviation gains against `pi` in the game `payoff`
/// with each player's choice of `j` charged `price_j`, deviations restricted to
/// `c^T q <= limit`: the best response of a bilinear game is a vertex of the
/// feasible polytope — a pure strategy within the limit, or a mix of a cheaper and a
/// dearer one on it — so enumerating those is exact (brute force, independent of the
/// library's solvers). 0 for an exact equilibrium of the skew-symmetric game.
fn exploitability(
    payoff: &[Vec<f64>],
    pi: &[f64],
    price: &[f64],
    costs: &[f64],
    limit: f64,
) -> f64 {
    let k = pi.len();
    let gain: Vec<f64> = (0..k)
        .map(|j| (0..k).map(|l| payoff[j][l] * pi[l]).sum::<f64>() - price[j])
        .collect();
    let own: f64 = (0..k).map(|j| pi[j] * gain[j]).sum();
    let mut best = f64::NEG_INFINITY;
    for j in 0..k {
        if costs[j] <= limit {
            best = best.max(gain[j]);
        }
        for l in 0..k {
            if costs[j] < limit && limit < costs[l] {
                let t = (costs[l] - limit) / (costs[l] - costs[j]);
                best = best.max(t * gain[j] + (1.0 - t) * gain[l]);
            }
        }
    }
    best - own
}

/// With costs 1 … 5 (from the upstreams file): under a `max_cost` the routed policy
/// spends at most the limit and no deviation within the limit gains more than the
/// regularizer allows (`rho/2 max‖pi − 1/K‖² < rho/2`, `rho` = 0.001 by default); a
/// surcharge `λ` gives an equilibrium of the game with each choice charged `λ c_j`;
/// a limit every model meets is the surcharge-free equilibrium; a limit below the
/// cheapest model, or both budgets at once, is refused.
#[test]
fn a_cost_limit_is_honoured_and_an_impossible_one_refused() {
    let fitted = fitted();
    let (_dir, _upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let server = Server::routing(&fitted.model, &upstreams, &[], "sk-test");
    let agent = client();
    let url = format!("{}/v1/route", server.base);
    let costs = [1.0, 2.0, 3.0, 4.0, 5.0];
    let tolerance = 0.001 / 2.0 + 1e-6;
    let (mixed, mixed_payoff) = most_mixed_context(&agent, &server, contexts(100, 9));
    for (context, payoff) in
        [(mixed, mixed_payoff)]
            .into_iter()
            .chain(contexts(3, 10).into_iter().map(|c| {
                let (c, p) = most_mixed_context(&agent, &server, vec![c]);
                (c, p)
            }))
    {
        let route = |extra: Value| {
            let base = json!({"context": context, "rule": "argmax"});
            post(&agent, &url, &with_fields(base, extra), None)
        };
        let pi_of = |answer: &Value| fitted.probabilities(answer);
        // The check has teeth: the uniform policy is far from an equilibrium here.
        let uniform = exploitability(&payoff, &[0.2; 5], &[0.0; 5], &costs, f64::INFINITY);
        assert!(uniform > 10.0 * tolerance, "uniform gains only {uniform}");
        let free = route(json!({})).json();
        let own: f64 = pi_of(&free).iter().zip(costs).map(|(p, c)| p * c).sum();
        assert!((free["expected_cost"].as_f64().unwrap() - own).abs() < 1e-12);
        for limit in [1.5, 2.5, 3.5] {
            let answer = route(json!({"max_cost": limit})).json();
            let pi = pi_of(&answer);
            let spent: f64 = pi.iter().zip(costs).map(|(p, c)| p * c).sum();
            assert!(spent <= limit + 1e-6, "limit {limit}: c^T pi = {spent}");
            assert!((answer["expected_cost"].as_f64().unwrap() - spent).abs() < 1e-9);
            assert!(pi.iter().all(|&p| p >= -1e-12) && (pi.iter().sum::<f64>() - 1.0).abs() < 1e-6);
            let gap = exploitability(&payoff, &pi, &[0.0; 5], &costs, limit);
            assert!(
                gap <= tolerance,
                "limit {limit}: a deviation gains {gap} against {pi:?}"
            );
        }
        for lambda in [0.0, 0.05, 0.5] {
            let pi = pi_of(&route(json!({"surcharge": lambda})).json());
            let price: Vec<f64> = costs.iter().map(|c| lambda * c).collect();
            let gap = exploitability(&payoff, &pi, &price, &costs, f64::INFINITY);
            assert!(
                gap <= tolerance,
                "surcharge {lambda}: a deviation gains {gap} against {pi:?}"
            );
        }
        let loose = pi_of(&route(json!({"max_cost": 5.0})).json());
        let unpriced = pi_of(&route(json!({"surcharge": 0.0})).json());
        for (a, b) in loose.iter().zip(&unpriced) {
            assert!(
                (a - b).abs() < 1e-6,
                "a limit nothing reaches changed pi: {loose:?} vs {unpriced:?}"
            );
        }
        // Limits far past the dearest model are the same game (1e12 came back near
        // uniform, 1e15 routed to another agent); values the arithmetic cannot carry
        // are the client's 422, not the server's 500.
        for limit in [1e9, 1e12, 1e15, 1e300] {
            let far = pi_of(&route(json!({"max_cost": limit})).json());
            for (a, b) in far.iter().zip(&unpriced) {
                assert!(
                    (a - b).abs() < 1e-6,
                    "max_cost {limit}: {far:?} vs {unpriced:?}"
                );
            }
        }
        for field in [json!({"surcharge": 1e100}), json!({"surcharge": 1e308})] {
            let refused = route(field.clone());
            assert_eq!(refused.status, 422, "{field}: {}", refused.body);
        }
        let refused = route(json!({"max_cost": 0.5}));
        assert_eq!(refused.status, 422, "{}", refused.body);
        let both = route(json!({"max_cost": 2.0, "surcharge": 1.0}));
        assert_eq!(both.status, 422);
        assert!(both.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not both"));
    }
}

/// The OpenAI-compatible router forwards to the routed model's upstream (with its
/// key and its own model name), names the model in the answer, passes a stream on
/// as it arrives, falls back by probability when an upstream fails (saying so), and
/// answers 502 naming every upstream when all fail. The key is in no answer, header,
/// metric, decision or log line.
#[test]
fn chat_completions_are_forwarded_streamed_and_fall_back() {
    let fitted = fitted();
    let (dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let decisions = dir.path().join("decisions");
    let key = "sk-very-secret-key-1234";
    let server = Server::routing(
        &fitted.model,
        &upstreams,
        &["--decisions", decisions.to_str().unwrap()],
        key,
    );
    let agent = client();
    let url = format!("{}/v1/chat/completions", server.base);
    let context = contexts(1, 13).remove(0);
    let routed = server
        .post("/v1/route", &json!({"context": context, "rule": "argmax"}))
        .json();
    let pi = fitted.probabilities(&routed);
    let mut by_probability: Vec<usize> = (0..5).filter(|&j| pi[j] > 0.0).collect();
    by_probability.sort_by(|&a, &b| pi[b].partial_cmp(&pi[a]).unwrap().then(a.cmp(&b)));
    let name = |j: usize| fitted.agents[j].clone();
    let chat = |stream: bool| {
        json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": "Which is larger, 9.11 or 9.9?"}],
            "context": context,
            "rule": "argmax",
            "stream": stream,
        })
        .to_string()
    };

    // A whole answer.
    let reply = post(&agent, &url, &chat(false), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let first = name(by_probability[0]);
    assert_eq!(reply.header("x-verdict-model"), Some(first.as_str()));
    assert!(reply.header("x-verdict-fallback").is_none());
    let answer = reply.json();
    assert_eq!(answer["model"], first.as_str());
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        format!("hello from {first}")
    );
    let seen = upstream.seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(seen.path, format!("/{first}/chat/completions"));
    assert_eq!(
        seen.authorization.as_deref(),
        Some(format!("Bearer {key}").as_str())
    );
    assert_eq!(seen.body["model"], format!("{first}-2025"));
    assert!(seen.body.get("context").is_none() && seen.body.get("rule").is_none());
    assert_eq!(
        seen.body["messages"][0]["content"],
        "Which is larger, 9.11 or 9.9?"
    );

    // A stream, passed on as it arrives: the first event reaches the client while
    // the upstream still holds the second.
    let started = Instant::now();
    let mut response = agent
        .post(&url)
        .header("content-type", "application/json")
        .send(chat(true).as_str())
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    let mut reader = response.body_mut().as_reader();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains("part 1") {
        let n = std::io::Read::read(&mut reader, &mut buffer).unwrap();
        assert!(n > 0, "the stream ended before its first event");
        received.extend_from_slice(&buffer[..n]);
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the first event waited for the rest"
    );
    upstream.proceed.lock().unwrap().send(()).unwrap();
    std::io::Read::read_to_end(&mut reader, &mut received).unwrap();
    let text = String::from_utf8(received).unwrap();
    assert!(
        text.contains(&format!("part 1 from {first}"))
            && text.contains("part 2")
            && text.ends_with("data: [DONE]\n\n"),
        "{text}"
    );

    // The routed model fails: the next by probability answers, and the header says so.
    upstream.failing.lock().unwrap().insert(first.clone());
    let reply = post(&agent, &url, &chat(false), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let second = name(by_probability[1]);
    assert_eq!(reply.header("x-verdict-model"), Some(second.as_str()));
    let fallback = reply.header("x-verdict-fallback").unwrap();
    assert!(
        fallback.contains(&format!("{first} failed (HTTP 500)")) && fallback.contains(&second),
        "{fallback}"
    );

    // Every upstream fails: 502 naming each.
    upstream
        .failing
        .lock()
        .unwrap()
        .extend(fitted.agents.iter().cloned());
    let reply = post(&agent, &url, &chat(false), None);
    assert_eq!(reply.status, 502, "{}", reply.body);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    for &j in &by_probability {
        assert!(
            message.contains(&format!("{} failed", name(j))),
            "{message}"
        );
    }

    // The key is nowhere a client or an operator looks.
    let metrics = get(&agent, &format!("{}/metrics", server.base), None).body;
    assert!(metrics.contains("verdict_requests_total"), "{metrics}");
    let log = std::fs::read_to_string(server.decisions.clone().unwrap()).unwrap();
    assert_eq!(
        log.lines().count(),
        5,
        "one decision per routed request:\n{log}"
    );
    let stderr = server.stop();
    for (place, text) in [
        ("reply", &reply.body),
        ("fallback", &fallback.to_string()),
        ("metrics", &metrics),
        ("decisions", &log),
        ("stderr", &stderr),
    ] {
        assert!(!text.contains(key), "the key is in the {place}");
    }
}

/// A reload under load: a damaged model file is refused (the old model keeps
/// answering), a good one is swapped in (by `POST /admin/reload`, then by SIGHUP),
/// and of the requests sent meanwhile by four clients none fails.
#[test]
fn reload_swaps_a_good_model_and_keeps_serving_through_a_bad_one_under_load() {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("serving.json");
    std::fs::copy(&fitted.model, &model).unwrap();
    let server = Server::start(&model, &[], &[]);
    let agent = client();
    let health =
        || get(&agent, &format!("{}/health", server.base), None).json()["model_id"].clone();
    let original = health();
    let stop = Arc::new(AtomicBool::new(false));
    let (sent, failed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let body = json!({"contexts": contexts(20, 3)}).to_string();
    let load: Vec<_> = (0..4)
        .map(|_| {
            let (stop, sent, failed) = (stop.clone(), sent.clone(), failed.clone());
            let (url, body) = (format!("{}/v1/predict", server.base), body.clone());
            std::thread::spawn(move || {
                let agent = client();
                let started = Instant::now();
                // Bounded: stops when told, after 4,000 requests, or after 60 s.
                while !stop.load(Ordering::Relaxed)
                    && sent.load(Ordering::Relaxed) < 4000
                    && started.elapsed() < Duration::from_secs(60)
                {
                    let reply = post(&agent, &url, &body, None);
                    sent.fetch_add(1, Ordering::Relaxed);
                    if reply.status != 200 {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    let reload = || post(&agent, &format!("{}/admin/reload", server.base), "", None);
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(&model, b"{\"not\": \"a model\"").unwrap();
    let refused = reload();
    refused.assert_refused(422, "the old model keeps serving");
    // The client learns the file's name, not where the server keeps it.
    let folder = model.parent().unwrap().display().to_string();
    assert!(!refused.body.contains(&folder), "{}", refused.body);
    assert_eq!(health(), original);
    // A model that loads but ranks other agents, or reads other features, is refused
    // (Served::refuses): clients would get agents the upstreams and logs do not know.
    // The files are the fitted model with one agent, or one feature, renamed.
    let text = std::fs::read_to_string(&fitted.other_model).unwrap();
    for (from, to, reason) in [
        ("\"agent_1\"", "\"agent_9\"", "other agents"),
        ("\"x1\"", "\"y1\"", "reads contexts differently"),
    ] {
        assert!(text.contains(from), "{from} is not in the model file");
        std::fs::write(&model, text.replace(from, to)).unwrap();
        let refused = reload();
        assert_eq!(refused.status, 422, "{}", refused.body);
        assert!(refused.body.contains(reason), "{}", refused.body);
        assert_eq!(health(), original);
    }
    std::fs::copy(&fitted.other_model, &model).unwrap();
    let swapped = reload();
    assert_eq!(swapped.status, 200, "{}", swapped.body);
    let other = swapped.json()["model_id"].clone();
    assert_ne!(other, original);
    assert_eq!(health(), other);
    // SIGHUP reads the file again too.
    std::fs::copy(&fitted.model, &model).unwrap();
    succeed_kill("-HUP", server.pid());
    let waited = Instant::now();
    while health() != original {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "SIGHUP did not reload"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for thread in load {
        thread.join().unwrap();
    }
    assert!(sent.load(Ordering::Relaxed) > 8, "the load ran");
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "requests failed during reloads"
    );
}

fn succeed_kill(signal: &str, pid: u32) {
    let status = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Malformed JSON (400), a body over the limit and too many contexts (413), a
/// missing or wrong token (401; `/health` needs none), an unknown endpoint (404), a
/// client too slow with its body (408) or its headers (closed): each refused, and
/// the server keeps serving.
#[test]
fn bad_requests_are_refused_with_their_status() {
    let fitted = fitted();
    let token = "tok-123";
    let server = Server::start(
        &fitted.model,
        &[
            "--token-env",
            "VERDICT_TEST_TOKEN",
            "--max-body-bytes",
            "4000",
            "--max-contexts",
            "3",
            "--read-timeout",
            "1",
        ],
        &[("VERDICT_TEST_TOKEN", token)],
    );
    let agent = client();
    let url = format!("{}/v1/predict", server.base);
    let good = json!({"contexts": contexts(2, 4)}).to_string();
    assert_eq!(post(&agent, &url, &good, Some(token)).status, 200);
    let unauthorized = post(&agent, &url, &good, None);
    assert_eq!(unauthorized.status, 401);
    assert_eq!(unauthorized.header("www-authenticate"), Some("Bearer"));
    assert_eq!(post(&agent, &url, &good, Some("tok-124")).status, 401);
    // A feature value past what a model's arithmetic carries is the client's 422,
    // naming the feature (1e308 gave a near-uniform policy; 5e307 blamed the model).
    for value in [1e308, 5e307, -1e16] {
        let mut context = contexts(1, 4).remove(0);
        context["x1"] = json!(value);
        let reply = post(
            &agent,
            &url,
            &json!({"contexts": [context]}).to_string(),
            Some(token),
        );
        assert_eq!(reply.status, 422, "{value}: {}", reply.body);
        assert!(reply.body.contains("x1"), "{}", reply.body);
        assert!(!reply.body.contains("refit"), "{}", reply.body);
    }
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
    for scheme in ["bearer", "BEARER"] {
        let status = agent
            .post(&url)
            .header("authorization", &format!("{scheme} {token}"))
            .header("content-type", "application/json")
            .send(good.as_str())
            .map(|r| r.status().as_u16());
        assert_eq!(status.ok(), Some(200), "{scheme}");
    }
    let status = agent
        .post(&url)
        .header("authorization", &format!("Bearer {}", token.to_uppercase()))
        .send(good.as_str())
        .map(|r| r.status().as_u16());
    assert_eq!(status.ok(), Some(401));
    assert_eq!(
        get(&agent, &format!("{}/metrics", server.base), None).status,
        401
    );
    assert_eq!(
        get(&agent, &format!("{}/health", server.base), None).status,
        200
    );
    let malformed = post(&agent, &url, "{\"contexts\": [", Some(token));
    assert_eq!(malformed.status, 400);
    assert!(malformed.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
    let oversize = post(
        &agent,
        &url,
        &format!("{{\"pad\": \"{}\"}}", "x".repeat(5000)),
        Some(token),
    );
    assert_eq!(oversize.status, 413, "{}", oversize.body);
    let many = post(
        &agent,
        &url,
        &json!({"contexts": contexts(4, 4)}).to_string(),
        Some(token),
    );
    many.assert_refused(413, "at most 3");
    let missing = post(&agent, &url, &json!([{"x1": 1.0}]).to_string(), Some(token));
    assert_eq!(missing.status, 422, "{}", missing.body);
    assert!(
        missing.body.contains("x2"),
        "the missing feature is named: {}",
        missing.body
    );
    assert_eq!(
        get(&agent, &format!("{}/v2/predict", server.base), Some(token)).status,
        404
    );

    // A body that stops arriving: 408 after the read timeout.
    let started = Instant::now();
    let head = format!(
        "POST /v1/predict HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"contexts\""
    );
    let answer = raw_exchange(&server.address(), head.as_bytes(), Duration::from_secs(10));
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(started.elapsed() < Duration::from_secs(8));
    // Headers that stop arriving: the connection is closed after the read timeout.
    let started = Instant::now();
    let answer = raw_exchange(
        &server.address(),
        b"POST /v1/predict HTTP/1.1\r\nhost: x\r\n",
        Duration::from_secs(10),
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "a slow client held the connection"
    );
    assert!(!answer.contains("200 OK"), "{answer:?}");
    assert_eq!(
        post(&agent, &url, &good, Some(token)).status,
        200,
        "still serving"
    );
}

/// Routed duels written to the decision log, joined with verdicts given later, make
/// a NashEval log whose propensities are known: `verdict fit --propensity-col`
/// divides by those (its summary says so) instead of fitting propensity models.
#[test]
fn a_decision_log_feeds_a_fit_with_logged_propensities() {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let decisions = dir.path().join("decisions");
    // Seeded draws: the same log every run.
    let server = Server::start(
        &fitted.model,
        &["--decisions", decisions.to_str().unwrap(), "--seed", "7"],
        &[],
    );
    let agent = client();
    let url = format!("{}/v1/route", server.base);
    let batch = contexts(400, 21);
    for (i, context) in batch.iter().enumerate() {
        let body = json!({"context": context, "menu_size": 2, "request_id": format!("q{i}")});
        assert_eq!(post(&agent, &url, &body.to_string(), None).status, 200);
    }
    let log_path = server.decisions.clone().unwrap();
    drop(server);
    let lines: Vec<Value> = std::fs::read_to_string(&log_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 400);
    // The join a user makes: each decision's context, and its duel judged later
    // (here: the agent of lower number wins when x1 > 0, else the other).
    let mut contexts_file = String::new();
    let mut feedback_file = String::new();
    for line in &lines {
        contexts_file += &(line["context"].to_string() + "\n");
        let menu: Vec<&str> = line["menu"].as_str().unwrap().split('|').collect();
        let mut sorted = menu.clone();
        sorted.sort();
        let winner = if line["context"]["x1"].as_f64().unwrap() > 0.0 {
            sorted[0]
        } else {
            sorted[1]
        };
        feedback_file += &(json!({
            "context_id": line["context_id"],
            "menu": line["menu"],
            "modality": "pairwise",
            "response": winner,
            "propensity": line["propensity"],
        })
        .to_string()
            + "\n");
    }
    let contexts_path = write(dir.path(), "contexts.jsonl", &contexts_file);
    let feedback_path = write(dir.path(), "feedback.jsonl", &feedback_file);
    let out = dir.path().join("refit.json").display().to_string();
    let args = crate::common::linear_fit_args(
        &contexts_path,
        &feedback_path,
        "nasheval",
        &out,
        &["--propensity-col", "propensity", "--allow-unobserved"],
    );
    succeed(&args);
    let model: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let summary = find_summary(&model).expect("the model file holds the fit's summary");
    assert_eq!(summary["logged_propensities"], true, "{summary}");
    assert!(summary["propensity_loss"].is_null());
    // The floor is at most 0.01 (the absolute one), so no more records are raised than
    // the log holds below 0.01 — counted here from the log itself.
    let base = summary["clipped_propensities"].as_u64().unwrap();
    let below: Vec<f64> = feedback_file
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["propensity"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert!(
        base as usize <= below.iter().filter(|&&p| p < 0.01).count(),
        "{base} raised"
    );
    // The same join without the column learns them.
    let learned_out = dir.path().join("learned.json").display().to_string();
    succeed(&crate::common::linear_fit_args(
        &contexts_path,
        &feedback_path,
        "nasheval",
        &learned_out,
        &["--allow-unobserved"],
    ));
    let learned: Value =
        serde_json::from_str(&std::fs::read_to_string(&learned_out).unwrap()).unwrap();
    let learned = find_summary(&learned).unwrap();
    assert_eq!(learned["logged_propensities"], false);
    assert!(learned["propensity_loss"].is_number());

    // A logged propensity no router gives (1e-7, 1e-150) is floored like a learned
    // one, with the warning, and the fit writes a model verdict loads: before, it was
    // divided by as given (risks ~1e9, NaN in the model at 1e-150).
    for tiny in ["1e-7", "1e-150"] {
        let mut rows: Vec<Value> = feedback_file
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // A record a router gave a propensity of at least 0.01, so that it was not
        // raised before.
        let row = below.iter().position(|&p| p >= 0.01).unwrap();
        rows[row]["propensity"] = json!(tiny.parse::<f64>().unwrap());
        let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
        let feedback_path = write(dir.path(), &format!("feedback-{tiny}.jsonl"), &text);
        let out = dir
            .path()
            .join(format!("tiny-{tiny}.json"))
            .display()
            .to_string();
        let output = crate::common::verdict(&crate::common::linear_fit_args(
            &contexts_path,
            &feedback_path,
            "nasheval",
            &out,
            &["--propensity-col", "propensity", "--allow-unobserved"],
        ));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{tiny}: {stderr}");
        assert!(stderr.contains("were raised to it"), "{tiny}: {stderr}");
        let model: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(
            find_summary(&model).unwrap()["clipped_propensities"],
            base + 1,
            "{tiny}"
        );
        let predicted = dir.path().join(format!("predicted-{tiny}.json"));
        succeed(&[
            "predict".into(),
            out.clone(),
            "--contexts".into(),
            contexts_path.clone(),
            "--out".into(),
            predicted.display().to_string(),
        ]);
    }
}

/// The object holding `logged_propensities`, wherever the model file keeps it.
fn find_summary(value: &Value) -> Option<&Value> {
    match value {
        Value::Object(map) if map.contains_key("logged_propensities") => Some(value),
        Value::Object(map) => map.values().find_map(find_summary),
        Value::Array(items) => items.iter().find_map(find_summary),
        _ => None,
    }
}

/// No upstream key reaches a client, however the upstream echoes it: in a 401 error
/// page, in a 200 completion, or in a stream whose events cut the key in two. The
/// answers still say what happened, with `[API key]` where the key was. Before, the
/// key was forwarded verbatim every time. A 200 whose body is not JSON is a failed
/// upstream (the next model answers, and the fallback header says why), not an answer
/// passed on as 200. OpenAI's `metadata` passes through untouched, never read.
#[test]
fn an_upstream_that_echoes_its_key_never_hands_it_to_the_client() {
    let fitted = fitted();
    let (_dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let key = "sk-echoed-secret-0123456789";
    let server = Server::routing(&fitted.model, &upstreams, &[], key);
    let agent = client();
    let url = format!("{}/v1/chat/completions", server.base);
    let context = contexts(1, 13).remove(0);
    let chat = |text: &str, stream: bool| {
        json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": text}],
            "context": context,
            "rule": "argmax",
            "stream": stream,
        })
        .to_string()
    };
    let leaked = |reply: &Reply| {
        reply.body.contains(key)
            || reply.body.contains(&key[..12])
            || reply.headers.iter().any(|(_, v)| v.contains(key))
    };
    for (text, stream, status) in [
        ("echo 401", false, 401),
        ("echo 401", true, 401),
        ("echo 200", false, 200),
        ("echo stream", true, 200),
    ] {
        let reply = post(&agent, &url, &chat(text, stream), None);
        assert_eq!(reply.status, status, "{text}: {}", reply.body);
        assert!(!leaked(&reply), "{text}, stream {stream}: {}", reply.body);
        assert!(reply.body.contains("[API key]"), "{text}: {}", reply.body);
    }
    // The upstream did see the key: what was scrubbed was really there.
    let seen = upstream.seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        seen.authorization.as_deref(),
        Some(format!("Bearer {key}").as_str())
    );

    // OpenAI's `metadata` is an application's own tags: forwarded as sent, never read
    // as features (`{"team": "eval"}` made every request a 422 before).
    let mut tagged: Value = serde_json::from_str(&chat("hello", false)).unwrap();
    tagged["metadata"] = json!({"team": "eval", "x1": "not a number"});
    let reply = post(&agent, &url, &tagged.to_string(), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let seen = upstream.seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        seen.body["metadata"],
        json!({"team": "eval", "x1": "not a number"})
    );

    let first = server.argmax_model(&context);
    upstream.garbled.lock().unwrap().insert(first.clone());
    let reply = post(&agent, &url, &chat("hello", false), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_ne!(reply.header("x-verdict-model"), Some(first.as_str()));
    let fallback = reply.header("x-verdict-fallback").unwrap_or_default();
    assert!(fallback.contains("not a JSON object"), "{fallback}");
    assert!(reply.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .starts_with("hello from"));
    server.stop();
}

/// An upstream that sends a head and then stalls cannot hold a request: with
/// `--upstream-timeout 1` the routed model's stall ends after a second of silence and
/// the next model answers. Stalled exchanges have their own cap: with
/// `--max-upstream-calls 1` and one held, a second chat request is 503 with
/// Retry-After, `/health` says "saturated" (503), and predictions are still served.
/// SIGTERM with an exchange stalled stops the server within its stated bound (15 s;
/// the check allows 40 s on a busy machine — the old server was still up after 30 s
/// and stayed until the upstream let go).
#[test]
fn stalled_upstreams_hold_no_request_nor_the_server() {
    let fitted = fitted();
    let (_dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let agent = client();
    let context = contexts(1, 13).remove(0);
    let chat = |stream: bool| {
        json!({
            "model": "verdict",
            "messages": [{"role": "user", "content": "hello"}],
            "context": context,
            "rule": "argmax",
            "stream": stream,
        })
        .to_string()
    };
    let server = Server::routing(&fitted.model, &upstreams, &["--upstream-timeout", "1"], "k");
    let first = server.argmax_model(&context);
    upstream.stalling.lock().unwrap().insert(first.clone());
    let started = Instant::now();
    let reply = post(
        &agent,
        &format!("{}/v1/chat/completions", server.base),
        &chat(false),
        None,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_ne!(reply.header("x-verdict-model"), Some(first.as_str()));
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "{:?}",
        started.elapsed()
    );
    server.stop();

    let server = Server::routing(
        &fitted.model,
        &upstreams,
        &["--upstream-timeout", "20", "--max-upstream-calls", "1"],
        "k",
    );
    let base = server.base.clone();
    let held = std::thread::spawn({
        let body = chat(true);
        move || {
            let _ = client()
                .post(&format!("{base}/v1/chat/completions"))
                .header("content-type", "application/json")
                .send(body.as_str())
                .map(|mut r| r.body_mut().read_to_string());
        }
    });
    let health = || get(&agent, &format!("{}/health", server.base), None);
    let waited = Instant::now();
    while health().status != 503 {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "the held exchange never showed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(health().body.contains("saturated"));
    let refused = post(
        &agent,
        &format!("{}/v1/chat/completions", server.base),
        &chat(false),
        None,
    );
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert_eq!(refused.header("retry-after"), Some("1"));
    let predicted = server.post("/v1/predict", &json!({"contexts": [context]}));
    assert_eq!(predicted.status, 200, "{}", predicted.body);
    let pid = server.pid();
    let stopping = Instant::now();
    succeed_kill("-TERM", pid);
    let _ = server.stop();
    assert!(
        stopping.elapsed() < Duration::from_secs(40),
        "stopped after {:?}",
        stopping.elapsed()
    );
    let _ = held.join();
}

/// Resident memory of process `pid` in KiB (Linux's `/proc/PID/status`).
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A bounded soak of `verdict serve` on loopback: four clients send mixed traffic —
/// predictions, sampled routes, whole and streamed chat — to upstreams of which one
/// fails (500), one stalls after its head, and some answers echo the key (401 pages,
/// completions, streams), while the model is reloaded every two seconds and the
/// decision log runs into a full disk (`ulimit -f`). Every request is answered (no
/// transport error) and answered rightly: predictions sum to 1, routes name an agent,
/// chats are completions, fallbacks or the documented 5xx, no answer holds the key,
/// and a route the full log could not record is a 500 saying so. The decision log
/// holds whole JSON lines only, resident memory stays flat (the last quarter's
/// median within 64 MiB of the second quarter's), and SIGTERM stops the server within
/// its bound. `VERDICT_SOAK_SECONDS` (default 15) sets the length; BENCHMARKS.md
/// reports a run of several minutes (`-- --nocapture` prints the figures).
#[test]
fn a_mixed_soak_loses_no_request_and_stays_flat() {
    let seconds: u64 = std::env::var("VERDICT_SOAK_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("serving.json");
    std::fs::copy(&fitted.model, &model).unwrap();
    let upstream = FakeUpstream::start();
    upstream.failing.lock().unwrap().insert("agent_2".into());
    upstream.stalling.lock().unwrap().insert("agent_4".into());
    let upstreams = upstream.upstreams_file(dir.path(), &fitted.agents);
    let decisions = dir.path().join("decisions");
    let key = "sk-soak-secret-0123456789";
    let server = Server::start_with_file_limit(
        &model,
        &[
            "--upstreams",
            upstreams.to_str().unwrap(),
            "--decisions",
            decisions.to_str().unwrap(),
            "--upstream-timeout",
            "1",
        ],
        &[("FAKE_UPSTREAM_KEY", key)],
        // About the first half of the run's decisions fit.
        Some(20 * seconds),
    );
    let base = server.base.clone();
    let pid = server.pid();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let stop = Arc::new(AtomicBool::new(false));
    let contexts_pool = contexts(50, 21);
    let outcomes: Arc<std::sync::Mutex<HashMap<String, usize>>> = Arc::default();
    let wrong: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let (base, outcomes, wrong, pool) = (
                base.clone(),
                outcomes.clone(),
                wrong.clone(),
                contexts_pool.clone(),
            );
            let agents = fitted.agents.clone();
            std::thread::spawn(move || {
                let agent = client();
                let mut n = c;
                while Instant::now() < deadline {
                    n += 4;
                    let context = &pool[n % pool.len()];
                    let (kind, url, body) = match n % 6 {
                        0 => ("predict", "/v1/predict", json!({"contexts": [context]})),
                        1 => ("route", "/v1/route", json!({"context": context})),
                        2 | 3 => {
                            let text = ["hello", "echo 200", "echo 401"][n % 3];
                            ("chat", "/v1/chat/completions", json!({"model": "verdict", "messages": [{"role": "user", "content": text}], "context": context}))
                        }
                        _ => ("stream", "/v1/chat/completions", json!({"model": "verdict", "messages": [{"role": "user", "content": "echo stream"}], "context": context, "stream": true})),
                    };
                    let reply = post(&agent, &format!("{base}{url}"), &body.to_string(), None);
                    *outcomes
                        .lock()
                        .unwrap()
                        .entry(format!("{kind} {}", reply.status))
                        .or_default() += 1;
                    let log_full = reply.status == 500 && reply.body.contains("decision log");
                    let right = !reply.body.contains(key)
                        && match (kind, reply.status) {
                            ("predict", 200) => {
                                let p = &reply.json()[0]["equilibrium"];
                                let total: f64 = agents.iter().map(|a| p[a].as_f64().unwrap_or(0.0)).sum();
                                (total - 1.0).abs() < 1e-6
                            }
                            ("route", 200) => agents.iter().any(|a| reply.json()["model"] == a.as_str()),
                            ("route", 500) | ("chat", 500) | ("stream", 500) => log_full,
                            ("chat", 200) => reply.json()["choices"].is_array(),
                            ("chat", 401) | ("stream", 200) | ("stream", 401) => true,
                            ("chat", 502) | ("stream", 502) => reply.body.contains("every upstream failed"),
                            _ => false,
                        };
                    if !right {
                        wrong.lock().unwrap().push(format!("{kind} {}: {}", reply.status, reply.body));
                    }
                }
            })
        })
        .collect();
    let reloads = {
        let (base, stop) = (base.clone(), stop.clone());
        std::thread::spawn(move || {
            let agent = client();
            let mut done = 0;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(2));
                let reply = post(&agent, &format!("{base}/admin/reload"), "", None);
                assert_eq!(reply.status, 200, "{}", reply.body);
                done += 1;
            }
            done
        })
    };
    let mut memory = Vec::new();
    while Instant::now() < deadline {
        memory.extend(resident_kib(pid));
        std::thread::sleep(Duration::from_millis(250));
    }
    for client in clients {
        client.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let reloads = reloads.join().unwrap();
    let stopping = Instant::now();
    let stderr = server.stop();
    let shutdown = stopping.elapsed();
    let outcomes = outcomes.lock().unwrap().clone();
    let total: usize = outcomes.values().sum();
    let quarter = memory.len() / 4;
    let median = |slice: &[u64]| {
        let mut sorted = slice.to_vec();
        sorted.sort_unstable();
        sorted[sorted.len() / 2]
    };
    let (early, late) = (
        median(&memory[quarter..2 * quarter]),
        median(&memory[3 * quarter..]),
    );
    let lines: Vec<String> = std::fs::read_dir(&decisions)
        .unwrap()
        .flat_map(|e| {
            std::fs::read_to_string(e.unwrap().path())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    println!(
        "soak {seconds} s: {total} requests ({:.0}/s), {reloads} reloads, outcomes {outcomes:?}; resident memory {early} KiB (second quarter) -> {late} KiB (last quarter), peak {} KiB; {} decision lines; stopped in {:.2} s",
        total as f64 / seconds as f64,
        memory.iter().max().unwrap(),
        lines.len(),
        shutdown.as_secs_f64()
    );
    let wrong = wrong.lock().unwrap();
    assert!(
        wrong.is_empty(),
        "{} wrong answers, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(3)]
    );
    assert!(total > 20, "{outcomes:?}");
    assert!(
        outcomes.keys().any(|k| k.ends_with(" 500")),
        "the decision log never filled: {outcomes:?}"
    );
    for line in &lines {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("a torn decision line ({e}): {line}"));
    }
    assert!(
        late <= early + 64 * 1024,
        "resident memory grew {early} -> {late} KiB"
    );
    assert!(
        shutdown < Duration::from_secs(40),
        "stopped after {shutdown:?}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--explore 0.3`: with `argmax`, each agent comes up with frequency
/// `0.7 [j = argmax] + 0.3 / 5` (chi-square over 3,000 seeded requests), every answer
/// carrying that exact propensity; with duels at `--explore 0.5`, a decision log of
/// 400 requests offers all ten pairs, each logged at no less than `0.5 / 10`, and the
/// recipe of docs/serving.md (join, then `fit --propensity-col`) fits without
/// `--allow-unobserved`.
#[test]
fn an_exploring_router_offers_every_agent_and_pair_above_its_floor() {
    let fitted = fitted();
    let server = Server::start(&fitted.model, &["--seed", "3", "--explore", "0.3"], &[]);
    let agent = client();
    let url = format!("{}/v1/route", server.base);
    let context = contexts(1, 8).remove(0);
    let route = |extra: Value| {
        let reply = post(
            &agent,
            &url,
            &with_fields(json!({"context": context}), extra),
            None,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    };
    let pi = fitted.probabilities(&route(json!({})));
    let best = (0..5)
        .max_by(|&a, &b| pi[a].partial_cmp(&pi[b]).unwrap().then(b.cmp(&a)))
        .unwrap();
    let expected_share = |j: usize| 0.7 * f64::from(u8::from(j == best)) + 0.3 / 5.0;
    let draws = 3000;
    let mut counts = [0usize; 5];
    for _ in 0..draws {
        let routed = route(json!({"rule": "argmax"}));
        let j = fitted
            .agents
            .iter()
            .position(|a| a == routed["model"].as_str().unwrap())
            .unwrap();
        let logged = routed["propensity"].as_f64().unwrap();
        assert!(
            (logged - expected_share(j)).abs() < 1e-12,
            "{logged} vs {}",
            expected_share(j)
        );
        counts[j] += 1;
    }
    let statistic: f64 = (0..5)
        .map(|j| {
            let expected = expected_share(j) * f64::from(draws);
            (counts[j] as f64 - expected).powi(2) / expected
        })
        .sum();
    assert!(
        statistic < CHI_SQUARE_999[3],
        "chi-square {statistic} on 4 df: {counts:?}"
    );
    server.stop();

    let dir = tempfile::tempdir().unwrap();
    let decisions = dir.path().join("decisions");
    let server = Server::start(
        &fitted.model,
        &[
            "--decisions",
            decisions.to_str().unwrap(),
            "--seed",
            "5",
            "--explore",
            "0.5",
        ],
        &[],
    );
    let url = format!("{}/v1/route", server.base);
    for (i, context) in contexts(400, 31).iter().enumerate() {
        let body = json!({"context": context, "menu_size": 2, "request_id": format!("e{i}")});
        assert_eq!(post(&agent, &url, &body.to_string(), None).status, 200);
    }
    let log_path = server.decisions.clone().unwrap();
    server.stop();
    let lines: Vec<Value> = std::fs::read_to_string(&log_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut pairs = std::collections::HashSet::new();
    let (mut contexts_file, mut feedback_file) = (String::new(), String::new());
    for line in &lines {
        let mut menu: Vec<&str> = line["menu"].as_str().unwrap().split('|').collect();
        menu.sort_unstable();
        pairs.insert(menu.join("|"));
        assert!(
            line["propensity"].as_f64().unwrap() >= 0.05 - 1e-12,
            "{line}"
        );
        contexts_file += &(line["context"].to_string() + "\n");
        let winner = if line["context"]["x1"].as_f64().unwrap() > 0.0 {
            menu[0]
        } else {
            menu[1]
        };
        feedback_file += &(json!({
            "context_id": line["context_id"], "menu": line["menu"], "modality": "pairwise",
            "response": winner, "propensity": line["propensity"],
        })
        .to_string()
            + "\n");
    }
    assert_eq!(pairs.len(), 10, "{pairs:?}");
    let contexts_path = write(dir.path(), "contexts.jsonl", &contexts_file);
    let feedback_path = write(dir.path(), "feedback.jsonl", &feedback_file);
    let out = dir.path().join("next.json").display().to_string();
    succeed(&crate::common::linear_fit_args(
        &contexts_path,
        &feedback_path,
        "nasheval",
        &out,
        &["--propensity-col", "propensity"],
    ));
    let refused = crate::common::verdict(&["serve", "m.json", "--explore", "1.5"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--explore 1.5 is not a share"));
}

/// The OpenAI `model` field: an agent's name pins that agent (even one the router would
/// not pick, with no decision logged and no fallback), `verdict-argmax` is the argmax
/// rule, and an unknown name is refused with the grammar; routing fields sent in the
/// namespaced `verdict` object are read and never forwarded, OpenAI's `metadata` is
/// forwarded untouched, and a field given inside and beside the namespace is refused.
#[test]
fn the_model_field_pins_an_agent_and_the_namespace_is_never_forwarded() {
    let fitted = fitted();
    let (dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let decisions = dir.path().join("decisions");
    let server = Server::routing(
        &fitted.model,
        &upstreams,
        &["--decisions", decisions.to_str().unwrap()],
        "sk-pin",
    );
    let agent = client();
    let url = format!("{}/v1/chat/completions", server.base);
    let context = contexts(1, 4).remove(0);
    let argmax = server.argmax_model(&context);
    let least = {
        let routed = server
            .post("/v1/route", &json!({"context": context}))
            .json();
        let pi = fitted.probabilities(&routed);
        let j = (0..5)
            .min_by(|&a, &b| pi[a].partial_cmp(&pi[b]).unwrap())
            .unwrap();
        fitted.agents[j].clone()
    };
    assert_ne!(least, argmax, "this context's policy must not be uniform");
    let chat = |model: &str, extra: Value| {
        let mut body = json!({
            "model": model,
            "messages": [{"role": "user", "content": "hello"}],
            "metadata": {"team": "eval"},
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        post(&agent, &url, &body.to_string(), None)
    };
    let decisions_before = |server: &Server| {
        std::fs::read_to_string(server.decisions.as_ref().unwrap())
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let logged = decisions_before(&server);
    let pinned = chat(&least, json!({"verdict": {"context": context}}));
    assert_eq!(pinned.status, 200, "{}", pinned.body);
    assert_eq!(pinned.header("x-verdict-model"), Some(least.as_str()));
    assert_eq!(
        decisions_before(&server),
        logged,
        "a pinned request is no routing decision"
    );

    let routed = chat("verdict-argmax", json!({"verdict": {"context": context}}));
    assert_eq!(routed.status, 200, "{}", routed.body);
    assert_eq!(routed.header("x-verdict-model"), Some(argmax.as_str()));
    assert_eq!(decisions_before(&server), logged + 1);
    let seen = upstream.seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(seen.body["metadata"], json!({"team": "eval"}));
    for own in ["verdict", "context", "rule"] {
        assert!(
            seen.body.get(own).is_none(),
            "{own} was forwarded: {}",
            seen.body
        );
    }

    let unknown = chat("gpt-3.5", json!({"verdict": {"context": context}}));
    unknown.assert_refused(422, "verdict[-sample|-argmax]");
    let twice = chat(
        "verdict",
        json!({"verdict": {"context": context}, "context": context}),
    );
    twice.assert_refused(422, "given both inside verdict and beside it");
    let stray = chat(
        "verdict",
        json!({"verdict": {"context": context, "temperature": 0}}),
    );
    stray.assert_refused(422, "verdict.temperature is not a routing field");
    server.stop();
}

/// `--request-log`: one JSON line per request on standard error with its endpoint,
/// status, latency and, for routed requests, id, rule, routed agent and upstream
/// status — and never the prompt or the key; `/metrics` counts per agent the routes,
/// the chats answered as a fallback, the upstream failures and the upstream latency.
#[test]
fn requests_are_logged_one_line_each_and_agents_counted_in_metrics() {
    let fitted = fitted();
    let (_dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let key = "sk-log-secret-5678";
    let server = Server::routing(&fitted.model, &upstreams, &["--request-log"], key);
    let agent = client();
    let context = contexts(1, 6).remove(0);
    let argmax = server.argmax_model(&context);
    let prompt = "a private prompt 31337";
    let chat = |request_id: &str| {
        let body = json!({
            "model": "verdict-argmax",
            "messages": [{"role": "user", "content": prompt}],
            "verdict": {"context": context, "request_id": request_id},
        });
        server.post("/v1/chat/completions", &body)
    };
    assert_eq!(chat("chat-1").status, 200);
    // The routed agent fails: the next one answers as a fallback.
    upstream.failing.lock().unwrap().insert(argmax.clone());
    let fell_back = chat("chat-2");
    assert_eq!(fell_back.status, 200, "{}", fell_back.body);
    let second = fell_back.header("x-verdict-model").unwrap().to_owned();
    assert_ne!(second, argmax);
    let metrics = crate::serving::get(&agent, &format!("{}/metrics", server.base), None).body;
    let value = |series: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(series))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in {metrics}"))
    };
    // server.argmax_model routed once through /v1/route; each chat routed once.
    assert_eq!(
        value(&format!("verdict_agent_routed_total{{agent=\"{argmax}\"}}")),
        3.0
    );
    assert_eq!(
        value(&format!(
            "verdict_agent_upstream_failures_total{{agent=\"{argmax}\"}}"
        )),
        1.0
    );
    assert_eq!(
        value(&format!(
            "verdict_agent_fallback_total{{agent=\"{second}\"}}"
        )),
        1.0
    );
    assert_eq!(
        value(&format!(
            "verdict_agent_upstream_seconds_count{{agent=\"{argmax}\"}}"
        )),
        2.0
    );
    let stderr = server.stop();
    assert!(!stderr.contains(prompt), "the prompt reached the log");
    assert!(!stderr.contains(key), "the key reached the log");
    let lines: Vec<Value> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chats: Vec<&Value> = lines
        .iter()
        .filter(|l| l["endpoint"] == "/v1/chat/completions")
        .collect();
    assert_eq!(chats.len(), 2, "{stderr}");
    assert_eq!(chats[0]["request_id"], "chat-1");
    assert_eq!(chats[0]["rule"], "argmax");
    assert_eq!(chats[0]["agent"], argmax.as_str());
    assert_eq!(chats[0]["upstream_status"], 200);
    assert_eq!(chats[1]["agent"], second.as_str());
    assert!(chats
        .iter()
        .all(|l| l["status"] == 200 && l["latency_ms"].as_f64().unwrap() > 0.0));
    assert!(lines.iter().any(|l| l["endpoint"] == "/v1/route"
        && l["agent"] == argmax.as_str()
        && l["rule"] == "argmax"));
    assert!(lines
        .iter()
        .any(|l| l["endpoint"] == "/metrics" && l["request_id"].is_null()));
}

/// `cost_cap` (and `verdict-cap-X` as the model string): no agent dearer than the cap
/// is ever chosen — not by the rule (`pi(x)` puts no mass on it), not by exploration
/// (`--explore 1`: every menu uniform among the agents within the cap, logged at that
/// exact probability), not as a chat's fallback (502 naming only the agents within it);
/// a cap below every cost is refused naming the cheapest.
#[test]
fn a_cost_cap_is_never_passed_not_by_exploration_nor_by_fallback() {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let upstream = FakeUpstream::start();
    // Costs 1, 2, 3, 4, 5 in agent order: a cap of 2.5 leaves the first two.
    let upstreams = upstream.upstreams_file(dir.path(), &fitted.agents);
    let within = &fitted.agents[..2];
    let context = contexts(1, 12).remove(0);
    let start = |extra: &[&str]| {
        let mut args = vec!["--upstreams", upstreams.to_str().unwrap(), "--seed", "4"];
        args.extend_from_slice(extra);
        Server::start(&fitted.model, &args, &[("FAKE_UPSTREAM_KEY", "sk-cap")])
    };
    let agent = client();
    let route = |server: &Server, extra: Value| {
        let reply = post(
            &agent,
            &format!("{}/v1/route", server.base),
            &with_fields(json!({"context": context, "cost_cap": 2.5}), extra),
            None,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    };
    let exploring = start(&["--explore", "1"]);
    for _ in 0..100 {
        let one = route(&exploring, json!({}));
        assert!(within.iter().any(|a| one["model"] == a.as_str()), "{one}");
        assert!(
            (one["propensity"].as_f64().unwrap() - 0.5).abs() < 1e-12,
            "{one}"
        );
        let duel = route(&exploring, json!({"menu_size": 2}));
        assert_eq!(duel["propensity"].as_f64().unwrap(), 1.0, "{duel}");
    }
    exploring.stop();

    let server = start(&[]);
    let capped = route(&server, json!({"rule": "argmax"}));
    let pi = fitted.probabilities(&capped);
    assert!(pi[2..].iter().all(|&p| p == 0.0), "{pi:?}");
    assert!((pi[0] + pi[1] - 1.0).abs() < 1e-9, "{pi:?}");
    // Both agents within the cap fail: the chat is refused, and no dearer agent asked.
    for a in within {
        upstream.failing.lock().unwrap().insert(a.clone());
    }
    let asked_before = upstream.seen.lock().unwrap().len();
    let chat = json!({
        "model": "verdict-cap-2.5",
        "messages": [{"role": "user", "content": "hello"}],
        "verdict": {"context": context},
    });
    let reply = server.post("/v1/chat/completions", &chat);
    assert_eq!(reply.status, 502, "{}", reply.body);
    let asked: Vec<String> = upstream.seen.lock().unwrap()[asked_before..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|path| within
            .iter()
            .any(|a| path == &format!("/{a}/chat/completions"))),
        "{asked:?}"
    );
    let refused = server.post("/v1/route", &json!({"context": context, "cost_cap": 0.5}));
    refused.assert_refused(422, "no model costs at most 0.5");
    server.stop();
}

/// One rule for fields a request carries that verdict does not read: its own objects
/// (`/v1/predict`, `/v1/route`) refuse them naming the field; a chat forwards them to
/// the upstream untouched (P2L's `cost`, say).
#[test]
fn unknown_fields_are_refused_on_verdicts_own_objects_and_forwarded_in_chat() {
    let fitted = fitted();
    let (_dir, upstream, upstreams) = FakeUpstream::with_file(&fitted.agents);
    let server = Server::routing(&fitted.model, &upstreams, &[], "sk-fields");
    let context = contexts(1, 2).remove(0);
    let predict = server.post(
        "/v1/predict",
        &json!({"contexts": [context], "payof": true}),
    );
    predict.assert_refused(422, "unknown field \\\"payof\\\"");
    let route = server.post("/v1/route", &json!({"context": context, "max_cots": 1.0}));
    route.assert_refused(422, "max_cots");
    let chat = json!({
        "model": "verdict",
        "messages": [{"role": "user", "content": "hello"}],
        "verdict": {"context": context},
        "cost": 5,
        "temperature": 0.2,
    });
    let reply = server.post("/v1/chat/completions", &chat);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let seen = upstream.seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (seen.body["cost"].clone(), seen.body["temperature"].clone()),
        (json!(5), json!(0.2))
    );
    server.stop();
}
