//! What `verdict serve` is told: the model, where to listen, the upstreams, the
//! decision log, the token and the limits that keep one client from holding the
//! server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How a server is started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// A model file written by `verdict fit`; `POST /admin/reload` and SIGHUP read it
    /// again from this path.
    pub model: PathBuf,
    /// Where to listen; port 0 takes a free port (the bound address is announced).
    pub listen: SocketAddr,
    /// A TOML file naming each model's upstream endpoint, API-key variable and cost.
    pub upstreams: Option<PathBuf>,
    /// The encoder directory a model fitted with one embeds request text with.
    pub encoder: Option<PathBuf>,
    /// A directory that receives one new JSON Lines file of routing decisions per run.
    pub decisions: Option<PathBuf>,
    /// The bearer token every endpoint but `/health` asks for, when set.
    pub token: Option<String>,
    /// Size, count and time limits.
    pub limits: Limits,
    /// Seeds the routing draws, for a run that can be replayed; without it the server
    /// draws a secret of its own. Either way no draw depends on what a client sends.
    pub draw_seed: Option<u64>,
    /// The exploration share of every routed request (`RouteRequest::explore`): each
    /// agent, or each pair of a duel, offered with probability at least its floor.
    pub explore: f64,
    /// One JSON line per request on standard error (status, time, request id, rule,
    /// routed agent, upstream status; never a body, prompt or key).
    pub request_log: bool,
}

/// Limits on what one request or connection may take.
///
/// | Limit | Default | Over it |
/// |---|---|---|
/// | `max_body_bytes` | 8 MiB | 413 |
/// | `max_contexts` | 10,000 per `/v1/predict` | 413 |
/// | `read_timeout` | 10 s for a request's headers, and again for its body | connection closed / 408 |
/// | `write_timeout` | 30 s for any one write to a client that stopped reading | connection closed |
/// | `max_connections` | 1,024 open at once | further clients wait to be accepted |
/// | `upstream_timeout` | 60 s to connect to an upstream, to get its reply's head, and between any two reads of its body (a stalled stream ends) | next upstream, or the stream ends |
/// | `max_upstream_calls` | 256 chat exchanges with upstreams at once, apart from the threads predictions use | 503 with `Retry-After`, and `/health` says `saturated` |
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most contexts in one prediction request.
    pub max_contexts: usize,
    /// Time allowed for a request's headers, and then for its body.
    pub read_timeout: Duration,
    /// Time allowed for one write to the client.
    pub write_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Time allowed for an upstream's connection, its reply's head, and each read of
    /// its body.
    pub upstream_timeout: Duration,
    /// Chat exchanges with upstreams at once.
    pub max_upstream_calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 8 << 20,
            max_contexts: 10_000,
            read_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            max_connections: 1024,
            upstream_timeout: Duration::from_secs(60),
            max_upstream_calls: 256,
        }
    }
}

/// Why a server did not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The model, the upstreams file or the decision directory.
    #[error(transparent)]
    Verdict(#[from] verdict::VerdictError),
    /// Binding the address, the runtime, a signal handler.
    #[error("{0}")]
    Start(String),
}
