//! The server's router: every endpoint, with the bearer-token check, the metrics and
//! the request log around it. The handlers sit below it; nothing imports this module
//! but the server's start.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::http::ApiError;
use crate::metrics::endpoint_index;
use crate::state::{App, RequestNote};

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
