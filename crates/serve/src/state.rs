//! The server's shared state: the model serving now, the upstreams, the decision log,
//! the limits, the metrics and the seeds of the routing draws — what every handler
//! reads, below the handlers and the router.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::decisions::DecisionLog;
use crate::metrics::Metrics;
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
