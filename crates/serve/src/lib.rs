#![warn(missing_docs)]
//! `verdict serve`: a fitted NashEval model behind HTTP.
//!
//! - `POST /v1/predict` — a batch of contexts → the equilibrium, winners and
//!   optionally payoff matrices of each, the same bytes `verdict predict --format
//!   json` writes;
//! - `POST /v1/route` — one context and a rule (`sample`, `argmax`), optionally a
//!   budget (`max_cost`, `surcharge`) → the routed model, `pi(x)`, the menu's
//!   propensity and the expected cost ([`verdict::routing`]);
//! - `POST /v1/chat/completions` — OpenAI-compatible: routed, forwarded to the chosen
//!   model's upstream, streamed back, with fallback;
//! - `GET /v1/models`, `GET /health`, `GET /metrics` (Prometheus), `POST
//!   /admin/reload` (and SIGHUP).
//!
//! The library owns every computation; this crate only translates HTTP to it.

mod app;
mod chat;
mod connection;
mod decisions;
mod handlers;
mod metrics;
mod options;
mod route;
mod served;
mod upstreams;

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

pub use options::{Limits, ServeError, ServeOptions};

use crate::app::App;
use crate::decisions::DecisionLog;
use crate::served::Served;
use crate::upstreams::Upstreams;

/// Loads the model, binds the address and serves until SIGINT or SIGTERM;
/// `announce` is told the bound address and the decision log's path before the first
/// request is accepted.
///
/// # Errors
/// [`ServeError`]: a model, upstreams file or decision directory that cannot be
/// used, an address that cannot be bound.
pub fn run(
    options: ServeOptions,
    announce: impl FnOnce(SocketAddr, Option<&std::path::Path>),
) -> Result<(), ServeError> {
    let upstreams = options
        .upstreams
        .as_deref()
        .map(Upstreams::read)
        .transpose()?;
    let served = Served::load(&options.model, upstreams.as_ref())?;
    let decisions = options
        .decisions
        .as_deref()
        .map(DecisionLog::create)
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Start(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| ServeError::Start(format!("cannot listen on {}: {e}", options.listen)))?;
        let address = listener
            .local_addr()
            .map_err(|e| ServeError::Start(format!("the bound address: {e}")))?;
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let app = Arc::new(App {
            served: RwLock::new(Arc::new(served)),
            model_path: options.model.clone(),
            upstreams,
            decisions,
            token: options.token.clone(),
            limits: options.limits,
            metrics: metrics::Metrics::default(),
            requests: AtomicU64::new(0),
            reloading: tokio::sync::Mutex::new(()),
            started,
        });
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        signals(app.clone(), stop_tx)?;
        announce(address, app.decisions.as_ref().map(DecisionLog::path));
        connection::serve(listener, app::router(app.clone()), options.limits, stop_rx).await;
        Ok(())
    })
}

/// SIGHUP reloads the model (a refused file is reported on standard error and the
/// old model keeps serving); SIGINT and SIGTERM stop the server gracefully.
fn signals(app: Arc<App>, stop: tokio::sync::watch::Sender<bool>) -> Result<(), ServeError> {
    use tokio::signal::unix::{signal, SignalKind};
    let listen = |kind: SignalKind, name: &str| {
        signal(kind).map_err(|e| ServeError::Start(format!("cannot listen for {name}: {e}")))
    };
    let mut hangup = listen(SignalKind::hangup(), "SIGHUP")?;
    let mut interrupt = listen(SignalKind::interrupt(), "SIGINT")?;
    let mut terminate = listen(SignalKind::terminate(), "SIGTERM")?;
    tokio::spawn(async move {
        while hangup.recv().await.is_some() {
            match handlers::reload_model(&app).await {
                Ok(id) => eprintln!("verdict serve: reloaded the model (model_id {id})"),
                Err(e) => eprintln!("verdict serve: {}", e.message),
            }
        }
    });
    tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        eprintln!("verdict serve: stopping after the requests in flight");
        let _ = stop.send(true);
    });
    Ok(())
}
