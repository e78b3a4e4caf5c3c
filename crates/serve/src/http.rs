//! What every endpoint shares on the wire: JSON errors in OpenAI's shape, reading a
//! bounded body in bounded time, parsing it, and running a computation off the async
//! threads.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use verdict::{ErrorKind, VerdictError};

use crate::state::App;

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
