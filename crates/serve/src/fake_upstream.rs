//! A stand-in for the models behind a router: an OpenAI-compatible endpoint on
//! loopback that answers every `POST /{model}/chat/completions` at once with a fixed
//! completion naming the model. What `verdict bench serve` measures the router's own
//! overhead against; it calls nothing and costs nothing.

use std::net::SocketAddr;

use axum::extract::Path;
use axum::routing::post;
use axum::Router;
use serde_json::json;

use crate::http::json_headers;

use crate::{bind, spawn_router, Limits, Running, ServeError};

/// Starts the fake upstream on `listen` (port 0: a free port); each model's base URL
/// is `http://ADDRESS/MODEL`.
///
/// # Errors
/// [`ServeError::Start`] when the address cannot be bound.
pub fn spawn_fake_upstream(listen: SocketAddr) -> Result<Running, ServeError> {
    let (listener, address) = bind(listen)?;
    let router = Router::new().route("/{model}/chat/completions", post(complete));
    spawn_router(listener, address, router, Limits::default())
}

async fn complete(Path(model): Path<String>) -> impl axum::response::IntoResponse {
    let body = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": "a fixed answer"},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4},
    });
    (json_headers(), body.to_string())
}
