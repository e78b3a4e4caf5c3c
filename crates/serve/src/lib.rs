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
pub mod bench;
mod chat;
mod connection;
mod decisions;
pub mod fake_upstream;
mod handlers;
mod http;
pub mod load;
mod metrics;
mod model_string;
mod options;
mod route;
mod scrub;
mod served;
mod state;
mod upstreams;

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

pub use options::{Limits, ServeError, ServeOptions};

use crate::decisions::DecisionLog;
use crate::served::Served;
use crate::state::App;
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
    let prepared = prepare(options)?;
    let runtime = runtime()?;
    let served = runtime.block_on(async move {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        signals(prepared.app.clone(), stop_tx)?;
        announce(
            prepared.address,
            prepared.app.decisions.as_ref().map(DecisionLog::path),
        );
        let limits = prepared.app.limits;
        serve_on(
            prepared.listener,
            app::router(prepared.app),
            limits,
            stop_rx,
        )
        .await
    });
    // Exchanges still blocked on an upstream are left behind, not waited for.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    served
}

/// How long a stopping server waits, after its connections have drained (at most
/// 10 s), for work still on its threads: a stop takes at most 15 s however the
/// upstreams behave.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Reads and checks an upstreams file as `verdict serve --upstreams` does (TOML, URLs,
/// costs, key variables), returning the agents it names.
///
/// # Errors
/// [`ServeError::Verdict`] naming the file and the entry.
pub fn check_upstreams(path: &std::path::Path) -> Result<Vec<String>, ServeError> {
    Ok(Upstreams::read(path)?.agents())
}

/// A server running on threads of its own (for benchmarks and programs that embed
/// one); it stops when [`Running::stop`] is called or it is dropped.
pub struct Running {
    address: SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<Result<(), ServeError>>>,
}

impl Running {
    /// Where it listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops accepting, lets requests in flight finish, and waits.
    ///
    /// # Errors
    /// What stopped the server early, if anything did.
    pub fn stop(mut self) -> Result<(), ServeError> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<(), ServeError> {
        let _ = self.stop.send(true);
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(ServeError::Start("the server thread panicked".into())),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

/// Starts a server as [`run`] does, without signal handlers, on its own threads.
///
/// # Errors
/// As [`run`].
pub fn spawn(options: ServeOptions) -> Result<Running, ServeError> {
    let prepared = prepare(options)?;
    let limits = prepared.app.limits;
    let router = app::router(prepared.app);
    spawn_router(prepared.listener, prepared.address, router, limits)
}

/// Serves `router` on `listener` from a thread of its own.
pub(crate) fn spawn_router(
    listener: std::net::TcpListener,
    address: SocketAddr,
    router: axum::Router,
    limits: Limits,
) -> Result<Running, ServeError> {
    let runtime = runtime()?;
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("verdict-serve".into())
        .spawn(move || {
            let served = runtime.block_on(serve_on(listener, router, limits, stop_rx));
            runtime.shutdown_timeout(SHUTDOWN_GRACE);
            served
        })
        .map_err(|e| ServeError::Start(format!("cannot start the server thread: {e}")))?;
    Ok(Running {
        address,
        stop,
        thread: Some(thread),
    })
}

/// A server ready to accept: its state and its bound socket.
struct Prepared {
    app: Arc<App>,
    listener: std::net::TcpListener,
    address: SocketAddr,
}

/// Reads the upstreams and the model, opens the decision log and binds the address.
fn prepare(options: ServeOptions) -> Result<Prepared, ServeError> {
    let upstreams = options
        .upstreams
        .as_deref()
        .map(Upstreams::read)
        .transpose()?;
    let encoder = options
        .encoder
        .as_deref()
        .map(|dir| verdict::io::TextEncoder::load(dir, false))
        .transpose()
        .map_err(verdict::VerdictError::from)?;
    let served = Served::load(
        &options.model,
        &options.model.display().to_string(),
        upstreams.as_ref(),
        encoder.as_ref(),
    )?;
    let decisions = options
        .decisions
        .as_deref()
        .map(DecisionLog::create)
        .transpose()?;
    let (listener, address) = bind(options.listen)?;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let scrubber = scrub::KeyScrubber::new(upstreams.iter().flat_map(|u| u.keys()));
    let agents = served.model.agents.clone();
    let app = Arc::new(App {
        served: RwLock::new(Arc::new(served)),
        model_path: options.model.clone(),
        upstreams,
        encoder,
        upstream_client: chat::upstream_client(options.limits.upstream_timeout),
        decisions,
        token: options.token.clone(),
        limits: options.limits,
        metrics: metrics::Metrics::for_agents(&agents),
        requests: AtomicU64::new(0),
        reloading: tokio::sync::Mutex::new(()),
        started,
        draws: state::DrawSeeds::new(options.draw_seed),
        explore: options.explore,
        request_log: options.request_log,
        upstream_slots: Arc::new(tokio::sync::Semaphore::new(
            options.limits.max_upstream_calls,
        )),
        scrubber,
    });
    Ok(Prepared {
        app,
        listener,
        address,
    })
}

/// A non-blocking socket listening on `listen`, and the address it got.
pub(crate) fn bind(listen: SocketAddr) -> Result<(std::net::TcpListener, SocketAddr), ServeError> {
    let listener = std::net::TcpListener::bind(listen)
        .map_err(|e| ServeError::Start(format!("cannot listen on {listen}: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| ServeError::Start(format!("the listening socket: {e}")))?;
    let address = listener
        .local_addr()
        .map_err(|e| ServeError::Start(format!("the bound address: {e}")))?;
    Ok((listener, address))
}

/// The multi-threaded runtime a server runs on.
fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Start(format!("cannot start the runtime: {e}")))
}

/// Serves `router` on `listener` until `stop` turns true.
async fn serve_on(
    listener: std::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|e| ServeError::Start(format!("the listening socket: {e}")))?;
    connection::serve(listener, router, limits, stop).await;
    Ok(())
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
