#![warn(missing_docs)]
//! verdict: evaluation of LLMs and other agents from relative feedback.
//!
//! This crate is the facade: it re-exports the workspace's crates and holds the
//! pipelines that the command line and the Python module call, so that both give the
//! same numbers bit for bit. It holds what a user's pipeline calls and nothing that
//! measures the methods: experiments, benchmarks, simulated worlds and the tour live
//! in the lab crate (`verdict-lab`).
//!
//! - [`feedback`]: models, outcomes, battle logs.
//! - [`game`]: payoff matrices, maximal lotteries, best responses, gaps, metrics.
//! - [`io`]: CSV / JSON Lines / JSON / Parquet with located errors, atomic writes.
//! - [`ratings`]: win matrix, Elo, Bradley–Terry, bootstrap and sandwich intervals.
//! - [`report`]: tables, JSON/CSV schemas, plots.
//! - [`rank`]: the leaderboard pipeline behind `verdict rank`; [`unobserved`]: which
//!   members of a lottery's winner set owe their place to pairs that never met.
//! - [`rank_params`]: a ranking's settings by name, as a settings document holds them.
//! - [`rank_request`]: one ranking request (input, reading, settings) routed to the
//!   reader and leaderboard it needs — what `verdict rank` and Python's `rank` call.
//! - [`judge_request`]: one judging request through a ledger, made in one call —
//!   what `verdict judge` and Python's `judge` call.
//! - [`lottery_bootstrap`]: bootstrap intervals and support shares of the maximal lottery.
//! - [`plackett_luce`]: the Plackett–Luce leaderboard of rankings.
//! - [`arrays`]: battles given as parallel arrays (the convention of evalica, choix).
//! - [`contextual`]: a contextual log made ready for a NashEval fit.
//! - [`fit_params`]: a fit's settings by name, as a settings document holds them.
//! - [`fit_request`]: one NashEval fit request (log, featurizing, settings) made in
//!   one call — what `verdict fit` and Python's `NashEval.fit` call.
//! - [`model_file`]: NashEval models saved, loaded and applied to new contexts (a
//!   model fitted with a text encoder records it and reads text only through it).
//! - [`embedding`]: a table's text column through a text encoder (`verdict embed`);
//!   the encoder itself is `io::TextEncoder` (the `verdict-encoder` crate).
//! - [`ope`]: off-policy evaluation of a router from its decision log (IPS, SNIPS,
//!   doubly robust, with intervals and overlap diagnostics); [`ope_duel`]: the same for
//!   duels, a candidate's payoff against an opponent; [`ope_log`]: decision logs (a
//!   `verdict serve` log or a table) joined with outcomes; [`ope_report`]: candidates
//!   scored on them, with costs and differences (`verdict ope`); [`ope_view`]:
//!   its text and report page.
//! - [`routing`]: one context routed with a fitted model: `pi(x)` under a request's
//!   budget, a model or a duel drawn per request id, and its exact propensity.
//! - [`outputs`]: the files one run writes, each checked before any work.
//! - [`page`]: report pages written without overwriting a file verdict did not write.
//! - [`settings`]: settings by name, read from a settings document, each failure
//!   naming its setting.
//! - [`results`]: saved results read back and drawn as one page (`verdict report`).
//!
//! # Features
//! All on by default. A program that only ranks, solves games and judges can turn off
//! the heavy ones (`default-features = false`) and build without CMake:
//! - `nasheval`: NashEval and everything contextual (`contextual`, `model_file`,
//!   `embedding`, `nasheval`); LightGBM is built from C++ source
//!   (CMake, libclang). Implies `parquet`.
//! - `parquet`: Parquet tables (otherwise a Parquet input is refused with a message).
//! - `plots`: SVG/PNG plots.
//! - `http`: OpenAI-compatible endpoints as judges.

pub use verdict_feedback as feedback;
pub use verdict_game as game;
pub use verdict_io as io;
pub use verdict_judges as judges;
#[cfg(feature = "nasheval")]
pub use verdict_nasheval as nasheval;
pub use verdict_ratings as ratings;
pub use verdict_report as report;

pub mod arrays;
#[cfg(feature = "nasheval")]
pub mod contextual;
pub mod documents;
#[cfg(feature = "nasheval")]
pub mod embedding;
pub mod equilibrium;
mod error;
#[cfg(feature = "nasheval")]
pub mod fit_params;
#[cfg(feature = "nasheval")]
pub mod fit_request;
pub mod hygiene;
pub mod judge_request;
pub mod lottery_bootstrap;
mod lottery_rank;
#[cfg(feature = "nasheval")]
pub mod model_file;
#[cfg(feature = "nasheval")]
pub mod ope;
#[cfg(feature = "nasheval")]
pub mod ope_duel;
#[cfg(feature = "nasheval")]
pub mod ope_log;
#[cfg(feature = "nasheval")]
pub mod ope_report;
#[cfg(feature = "nasheval")]
pub mod ope_view;
pub mod outputs;
pub mod page;
pub mod plackett_luce;
pub mod rank;
pub mod rank_params;
pub mod rank_request;
#[cfg(feature = "plots")]
pub mod results;
#[cfg(feature = "nasheval")]
pub mod routing;
pub mod settings;
mod social_rank;
pub mod style;
pub mod unobserved;

pub use error::{ErrorKind, VerdictError};
