//! The server's state, its router, and what every endpoint shares: the bearer-token
//! check, metrics, reading a bounded body in bounded time, and JSON errors.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use verdict::{ErrorKind, VerdictError};

use crate::decisions::DecisionLog;
use crate::metrics::{endpoint_index, Metrics};
use crate::options::Limits;
use crate::scrub::KeyScrubber;
use crate::served::Served;
use crate::upstreams::Upstreams;

/// What a routed request tells the request log beside its status and time (a response
/// extension; the routed agent is the answer's `x-verdict-model`).
#[derive(Debug, Clone)]
pub(crate) struct RequestNote {
    pub request_id: String,
    pub rule: &'static str,
    /// The status the upstream answered a chat with.
    pub upstream_status: Option<u16>,
}

/// Everything the handlers share.
pub(crate) struct App {
    /// The model serving now; a reload swaps the `Arc`, requests in flight keep the
    /// one they started with.
    pub served: RwLock<Arc<Served>>,
    /// The file reloads read.
    pub model_path: PathBuf,
    pub upstreams: Option<Upstreams>,
    /// The encoder of `--encoder`, loaded once; every reload is checked against it.
    pub encoder: Option<verdict::io::TextEncoder>,
    /// The client of every upstream call: one pool of connections for the run.
    pub upstream_client: ureq::Agent,
    pub decisions: Option<DecisionLog>,
    pub token: Option<String>,
    pub limits: Limits,
    pub metrics: Metrics,
    /// Numbers the requests that bring no id of their own.
    pub requests: AtomicU64,
    /// One reload at a time.
    pub reloading: tokio::sync::Mutex<()>,
    /// The moment the server started, for request ids.
    pub started: u128,
    /// The seeds of the routing draws.
    pub draws: DrawSeeds,
    /// The exploration share of every routed request.
    pub explore: f64,
    /// Whether every request gets a JSON line on standard error.
    pub request_log: bool,
    /// One permit per chat exchange with upstreams in flight
    /// ([`Limits::max_upstream_calls`]).
    pub upstream_slots: Arc<tokio::sync::Semaphore>,
    /// Every upstream's key, taken out of what is passed back: made once at start
    /// (the keys are read then), cloned for each exchange.
    pub scrubber: KeyScrubber,
}

/// The seeds of the routing draws: the first eight bytes of SHA-256 of a secret drawn
/// when the server starts and a counter. Every request gets a fresh, independent draw
/// — two requests with one `request_id` are two draws, as the decision log says, and
/// no client can pick an id that lands the model it wants. (Seeding by the request id
/// gave 200 requests named "same" one agent, and the log's propensities were wrong.)
pub(crate) struct DrawSeeds {
    secret: [u8; 16],
    next: AtomicU64,
}

impl DrawSeeds {
    /// Seeds from `seed` (the operator's `--seed`, for a run that can be replayed)
    /// or else from a secret of the operating system's randomness: the standard
    /// library's randomly keyed hasher, read twice (no generator crate needed for
    /// sixteen bytes).
    pub fn new(seed: Option<u64>) -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut secret = [0u8; 16];
        for (n, half) in secret.chunks_mut(8).enumerate() {
            let value = match seed {
                Some(seed) => seed.wrapping_add(n as u64),
                None => {
                    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
                    hasher.write_usize(n);
                    hasher.finish()
                }
            };
            half.copy_from_slice(&value.to_le_bytes());
        }
        Self {
            secret,
            next: AtomicU64::new(0),
        }
    }

    /// The next draw's seed.
    pub fn next(&self) -> u64 {
        use sha2::{Digest, Sha256};
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let digest = Sha256::new()
            .chain_update(self.secret)
            .chain_update(n.to_le_bytes())
            .finalize();
        u64::from_le_bytes(digest[..8].try_into().expect("eight bytes"))
    }
}

impl App {
    /// The model serving now.
    pub fn current(&self) -> Arc<Served> {
        self.served
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// A fresh request id: the start time and a counter, unique within a run and
    /// across runs.
    pub fn next_request_id(&self) -> String {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        format!("{:x}-{n}", self.started)
    }
}

/// The router of every endpoint, with the token check and metrics around it.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/v1/predict", post(crate::handlers::predict))
        .route("/v1/route", post(crate::handlers::route))
        .route("/v1/chat/completions", post(crate::chat::completions))
        .route("/v1/models", get(crate::handlers::models))
        .route("/health", get(crate::handlers::health))
        .route("/metrics", get(crate::handlers::metrics))
        .route("/admin/reload", post(crate::handlers::reload))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

async fn not_found() -> Response {
    ApiError::new(StatusCode::NOT_FOUND, "no such endpoint: see GET /v1/models, POST /v1/predict, POST /v1/route, POST /v1/chat/completions").into_response()
}

/// The token check (every endpoint but `/health`) and the request's metrics.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let endpoint = endpoint_index(request.uri().path());
    let response = match &app.token {
        Some(token)
            if request.uri().path() != "/health" && !bearer_matches(request.headers(), token) =>
        {
            let mut response = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token: send the header Authorization: Bearer TOKEN",
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
        _ => next.run(request).await,
    };
    app.metrics
        .observe(endpoint, response.status().as_u16(), started.elapsed());
    if app.request_log {
        eprintln!("{}", request_line(endpoint, &response, started.elapsed()));
    }
    response
}

/// One request as a JSON line: when, where, the status and time, and for a routed
/// request its id, rule, routed agent and the upstream's status — never a body, a
/// prompt or a key.
fn request_line(endpoint: usize, response: &Response, elapsed: std::time::Duration) -> String {
    let note = response.extensions().get::<RequestNote>();
    let agent = response
        .headers()
        .get("x-verdict-model")
        .and_then(|v| v.to_str().ok());
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    serde_json::json!({
        "time_ms": now_ms,
        "endpoint": crate::metrics::ENDPOINTS[endpoint],
        "status": response.status().as_u16(),
        "latency_ms": elapsed.as_secs_f64() * 1e3,
        "request_id": note.map(|n| n.request_id.as_str()),
        "rule": note.map(|n| n.rule),
        "agent": agent,
        "upstream_status": note.and_then(|n| n.upstream_status),
    })
    .to_string()
}

/// Whether `Authorization: Bearer T` carries `token`, compared in time independent
/// of where the two first differ; the scheme's case does not matter (RFC 9110 §11.1:
/// `bearer` and `BEARER` are `Bearer`).
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim_start())
    else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An error answered as JSON in OpenAI's shape: `{"error": {"message", "type"}}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// A library error with the status its kind calls for.
    pub fn from_verdict(error: &VerdictError) -> Self {
        let status = match error.kind() {
            ErrorKind::Input | ErrorKind::Setting => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::Budget => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, error.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let kind = match self.status.as_u16() {
            401 => "authentication_error",
            400..=499 => "invalid_request_error",
            _ => "server_error",
        };
        let body = serde_json::json!({"error": {"message": self.message, "type": kind}});
        (self.status, json_headers(), body.to_string()).into_response()
    }
}

/// `Content-Type: application/json`.
pub(crate) fn json_headers() -> [(header::HeaderName, HeaderValue); 1] {
    [(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    )]
}

/// The request body, at most `limits.max_body_bytes`, read within
/// `limits.read_timeout`.
///
/// # Errors
/// 413 over the size, 408 past the time, 400 for a broken transfer.
pub(crate) async fn read_body(app: &App, body: Body) -> Result<Bytes, ApiError> {
    let limit = app.limits.max_body_bytes;
    let read = Limited::new(body, limit).collect();
    match tokio::time::timeout(app.limits.read_timeout, read).await {
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                app.limits.read_timeout.as_secs_f64()
            ),
        )),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is over {limit} bytes (the server's --max-body-bytes)"),
        )),
        Ok(Err(e)) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {e}"),
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// The body as a JSON value.
///
/// # Errors
/// 400 naming the line and column where the JSON breaks.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<serde_json::Value, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the request body is not valid JSON: {e}"),
        )
    })
}

/// Runs `work` (a model evaluation: CPU-bound) on the blocking pool.
pub(crate) async fn compute<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the computation stopped: {e}"),
        ))
    })
}
