//! `POST /v1/chat/completions`, OpenAI-compatible: the last user message (and the
//! request's `context` object) become the context — OpenAI's own `metadata` is passed
//! on untouched, never read — the router picks a
//! model as `/v1/route` would, and the request goes to that model's upstream with the
//! answer passed back — streamed as it arrives when `"stream": true`.
//!
//! An upstream that cannot be reached, times out, answers 429 or 5xx, or answers a
//! success whose body is not a JSON object (not streamed) is followed by the next
//! model by probability, said in the header `x-verdict-fallback`; when all fail the
//! answer is 502 naming each. No upstream's API key is ever passed back: an answer
//! that echoes one (streamed or whole) has it replaced by `[API key]`. The routed model is in `x-verdict-model` and, for
//! a whole (not streamed) answer, in its `model` field.

use std::io::Read;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::http::{parse_json, read_body, ApiError};
use crate::model_string::{self, ModelChoice};
use crate::route::{route_context, RouteFields, ROUTE_FIELDS};
use crate::scrub::KeyScrubber;
use crate::state::{App, RequestNote};
use crate::upstreams::Upstream;

/// The request fields verdict reads and does not forward.
const OWN_FIELDS: [&str; 1] = ["context"];

/// The head of the answer, sent once an upstream accepted the request.
struct Head {
    status: u16,
    content_type: Option<String>,
    agent: String,
    failures: Vec<String>,
    /// The routed context's warning (categories unseen in training).
    warning: Option<String>,
    /// What the request log shows of it.
    note: Option<RequestNote>,
}

pub(crate) async fn completions(State(app): State<Arc<App>>, body: Body) -> Response {
    match completions_inner(app, body).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn completions_inner(app: Arc<App>, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(&app, body).await?;
    if app.upstreams.is_none() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "this server has no upstreams to forward to: start it with --upstreams FILE",
        ));
    }
    // Upstream exchanges hold a blocking thread each for as long as the upstream
    // answers: they have their own cap, so stalled upstreams cannot take the threads
    // predictions and routing run on.
    let Ok(slot) = app.upstream_slots.clone().try_acquire_owned() else {
        return Ok(saturated(&app));
    };
    let served = app.current();
    let worker = app.clone();
    let (head_tx, head_rx) = oneshot::channel::<Result<Head, ApiError>>();
    let (chunks_tx, chunks_rx) = mpsc::channel::<Result<Vec<u8>, std::io::Error>>(16);
    // The whole exchange runs on the blocking pool: routing, then the upstream calls,
    // then the reply's body pumped chunk by chunk into the response stream.
    // Detached: it ends when the upstream's body does or the client goes away.
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        match prepare(&worker, &served, &bytes) {
            Ok(prepared) => forward(&worker, prepared, head_tx, &chunks_tx),
            Err(e) => {
                let _ = head_tx.send(Err(e));
            }
        }
    });
    let head = head_rx.await.map_err(|_| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the router stopped before answering",
        )
    })??;
    let stream = tokio_stream::wrappers::ReceiverStream::new(chunks_rx);
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::from_u16(head.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let headers = response.headers_mut();
    if let Some(Ok(value)) = head.content_type.map(|c| HeaderValue::from_str(&c)) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(&head.agent) {
        headers.insert("x-verdict-model", value);
    }
    crate::handlers::warn_in(&mut response, head.warning.as_deref());
    if let Some(note) = head.note {
        response.extensions_mut().insert(note);
    }
    let headers = response.headers_mut();
    if !head.failures.is_empty() {
        let text = format!("{}; served by {}", head.failures.join("; "), head.agent);
        if let Ok(value) = HeaderValue::from_str(&text.replace(['\r', '\n'], " ")) {
            headers.insert("x-verdict-fallback", value);
        }
    }
    Ok(response)
}

/// 503 with `Retry-After: 1`: every upstream slot is taken.
fn saturated(app: &App) -> Response {
    let mut response = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the router is saturated: {} exchanges with upstreams are in flight; retry shortly",
            app.limits.max_upstream_calls
        ),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A request ready to forward.
struct Prepared {
    /// The agents to try in order (the routed one, then by falling probability; a
    /// pinned agent alone) with their upstreams.
    order: Vec<(String, Upstream)>,
    /// The body to send.
    body: Map<String, Value>,
    /// The context's warning (categories unseen in training).
    warning: Option<String>,
    /// What the request log shows of a routed request (none for a pinned one).
    note: Option<RequestNote>,
}

/// Reads the chat request, routes it and logs the decision.
fn prepare(app: &App, served: &crate::served::Served, bytes: &[u8]) -> Result<Prepared, ApiError> {
    let Value::Object(mut request) = parse_json(bytes)? else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "a chat completion request is a JSON object",
        ));
    };
    let upstreams = app.upstreams.as_ref().expect("checked above");
    let upstream_of = |j: usize| {
        let agent = served.model.agents[j].clone();
        let upstream = upstreams
            .get(&agent)
            .expect("the upstreams cover every agent")
            .clone();
        (agent, upstream)
    };
    let defaults = match model_string::parse(request.get("model"), &served.model.agents)? {
        ModelChoice::Pin(j) => {
            for field in ROUTE_FIELDS.iter().chain(&OWN_FIELDS).chain(&[NAMESPACE]) {
                request.remove(*field);
            }
            return Ok(Prepared {
                order: vec![upstream_of(j)],
                body: request,
                warning: None,
                note: None,
            });
        }
        ModelChoice::Route(defaults) => defaults,
    };
    lift_namespaced(&mut request)?;
    for (field, value) in defaults {
        request.entry(field).or_insert(value);
    }
    let fields = RouteFields::from_object(&request)?;
    let route_request = fields.request(app)?;
    let mut context = match request.get("context") {
        None => Map::new(),
        Some(Value::Object(context)) => context.clone(),
        Some(_) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "context must be an object of feature values",
            ))
        }
    };
    // OpenAI's `metadata` (tags an application attaches, e.g. {"team": "eval"}) is
    // the client's business: passed on untouched, never read as features — reading
    // it made every such request a 422 for a feature the model never saw.
    if let Some(column) = &served.featurizer.text_column {
        context.insert(column.clone(), Value::String(last_user_message(&request)?));
    }
    let routed = route_context(served, context.clone(), route_request)?;
    routed.log(app, served, &context)?;
    let order = std::iter::once(routed.route.menu[0])
        .chain(
            routed
                .route
                .fallbacks
                .iter()
                .copied()
                .filter(|&j| routed.route.probabilities[j] > 0.0),
        )
        .map(upstream_of)
        .collect();
    for field in ROUTE_FIELDS.iter().chain(&OWN_FIELDS) {
        request.remove(*field);
    }
    Ok(Prepared {
        order,
        body: request,
        note: Some(routed.note(None)),
        warning: routed.warning,
    })
}

/// Moves the routing fields and the context of the namespaced object `verdict` (what
/// an OpenAI client sends as `extra_body={"verdict": {...}}`) beside OpenAI's own, where
/// they are read and then removed before forwarding: the namespace is never forwarded.
///
/// # Errors
/// 422 for a `verdict` that is not an object, a field in it that is not verdict's, or
/// a field given both inside and outside it.
fn lift_namespaced(request: &mut Map<String, Value>) -> Result<(), ApiError> {
    let namespaced = match request.remove(NAMESPACE) {
        None => return Ok(()),
        Some(Value::Object(fields)) => fields,
        Some(_) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "verdict must be an object of routing fields: {\"context\": {...}, \"rule\": \"argmax\", ...}",
            ))
        }
    };
    for (field, value) in namespaced {
        if !ROUTE_FIELDS.contains(&field.as_str()) && !OWN_FIELDS.contains(&field.as_str()) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("verdict.{field} is not a routing field; verdict holds context, rule, max_cost, surcharge, cost_cap, menu_size, request_id"),
            ));
        }
        if request.contains_key(&field) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{field} is given both inside verdict and beside it; give it once"),
            ));
        }
        request.insert(field, value);
    }
    Ok(())
}

/// The namespace of verdict's own fields in a chat request.
const NAMESPACE: &str = "verdict";

/// The text of the last message whose role is `user` (a string, or the text parts of
/// a list of content parts).
fn last_user_message(request: &Map<String, Value>) -> Result<String, ApiError> {
    let none = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "the request has no message with role \"user\" to route on",
        )
    };
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(none)?;
    let message = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .ok_or_else(none)?;
    match message.get("content") {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")),
        _ => Err(none()),
    }
}

/// The HTTP client of upstream calls: `timeout` to connect, to receive a reply's
/// head, and for every read of its body — an upstream that sends a head and then
/// stalls ends there instead of holding the request and its thread; statuses are
/// answers, not errors (a 5xx moves on to the next upstream).
pub(crate) fn upstream_client(timeout: std::time::Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(timeout))
        .timeout_recv_response(Some(timeout))
        .timeout_per_read(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Tries the upstreams in order; the first that answers sends the head and then its
/// body, chunk by chunk, as it arrives.
fn forward(
    app: &App,
    prepared: Prepared,
    head: oneshot::Sender<Result<Head, ApiError>>,
    chunks: &mpsc::Sender<Result<Vec<u8>, std::io::Error>>,
) {
    let Prepared {
        order,
        mut body,
        warning,
        note,
    } = prepared;
    let agent = &app.upstream_client;
    let streaming = body.get("stream").and_then(Value::as_bool) == Some(true);
    let mut scrubber = app.scrubber.clone();
    let mut failures = Vec::new();
    for (name, upstream) in &order {
        body.insert("model".into(), Value::String(upstream.model.clone()));
        let mut call = agent
            .post(&upstream.url)
            .header("content-type", "application/json");
        if let Some(key) = &upstream.key {
            call = call.header("authorization", &format!("Bearer {key}"));
        }
        let payload = serde_json::to_vec(&body).expect("JSON serialises");
        let started = std::time::Instant::now();
        let fallback = !failures.is_empty();
        let count = |failed: bool| {
            app.metrics
                .upstream_call(name, started.elapsed(), failed, fallback);
        };
        let mut response = match call.send(&payload[..]) {
            Ok(response) => response,
            Err(e) => {
                count(true);
                failures.push(format!("{name} failed ({})", transport_failure(&e)));
                continue;
            }
        };
        let status = response.status().as_u16();
        if status == 429 || status >= 500 {
            count(true);
            failures.push(format!("{name} failed (HTTP {status})"));
            continue;
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if streaming {
            count(false);
            let _ = head.send(Ok(Head {
                status,
                content_type,
                agent: name.clone(),
                failures,
                warning,
                note: note.map(|n| RequestNote {
                    upstream_status: Some(status),
                    ..n
                }),
            }));
            pump(response.body_mut().as_reader(), &mut scrubber, chunks);
            return;
        }
        let whole = match response.body_mut().read_to_vec() {
            Ok(bytes) => bytes,
            Err(e) => {
                count(true);
                failures.push(format!(
                    "{name} failed while answering ({})",
                    transport_failure(&e)
                ));
                continue;
            }
        };
        let named = match serde_json::from_slice::<Value>(&whole) {
            Ok(Value::Object(mut answer)) if (200..300).contains(&status) => {
                answer.insert("model".into(), Value::String(name.clone()));
                serde_json::to_vec(&answer).expect("JSON serialises")
            }
            // A success that is no chat completion is a failed upstream, not an answer.
            _ if (200..300).contains(&status) => {
                count(true);
                failures.push(format!(
                    "{name} failed (HTTP {status} with a body that is not a JSON object)"
                ));
                continue;
            }
            _ => whole,
        };
        count(false);
        let named = scrubber.whole(&named);
        let _ = head.send(Ok(Head {
            status,
            content_type,
            agent: name.clone(),
            failures,
            warning,
            note: note.map(|n| RequestNote {
                upstream_status: Some(status),
                ..n
            }),
        }));
        let _ = chunks.blocking_send(Ok(named));
        return;
    }
    let _ = head.send(Err(ApiError::new(
        StatusCode::BAD_GATEWAY,
        format!("every upstream failed: {}", failures.join("; ")),
    )));
}

/// A transport error as text without the URL's query or any header.
fn transport_failure(error: &ureq::Error) -> String {
    match error {
        ureq::Error::Timeout(_) => "timed out".into(),
        ureq::Error::Io(e) => e.kind().to_string(),
        ureq::Error::ConnectionFailed => "connection failed".into(),
        ureq::Error::HostNotFound => "host not found".into(),
        other => other.to_string(),
    }
}

/// Copies `reader` into the response stream as it arrives, keys scrubbed; stops when
/// the client goes away.
fn pump(
    mut reader: impl Read,
    scrubber: &mut KeyScrubber,
    chunks: &mpsc::Sender<Result<Vec<u8>, std::io::Error>>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => {
                let _ = chunks.blocking_send(Ok(scrubber.finish()));
                return;
            }
            Ok(n) => {
                if chunks
                    .blocking_send(Ok(scrubber.push(&buffer[..n])))
                    .is_err()
                {
                    return;
                }
            }
            Err(e) => {
                let _ = chunks.blocking_send(Err(e));
                return;
            }
        }
    }
}
