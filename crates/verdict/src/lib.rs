#![warn(missing_docs)]
//! verdict: evaluation of LLMs and other agents from relative feedback.
//!
//! This crate is the facade: it re-exports the workspace's crates and holds the
//! pipelines that the command line and the Python module call, so that both give the
//! same numbers bit for bit.
//!
//! - [`feedback`]: models, outcomes, battle logs.
//! - [`game`]: payoff matrices, maximal lotteries, best responses, gaps, metrics.
//! - [`io`]: CSV / JSON Lines / JSON / Parquet with located errors, atomic writes.
//! - [`ratings`]: win matrix, Elo, Bradley–Terry, bootstrap and sandwich intervals.
//! - [`report`]: tables, JSON/CSV schemas, plots.
//! - [`sim`]: synthetic data with known ground truth.
//! - [`rank`]: the leaderboard pipeline behind `verdict rank`.
//! - [`lottery_bootstrap`]: bootstrap intervals and support shares of the maximal lottery.
//! - [`plackett_luce`]: the Plackett–Luce leaderboard of rankings.
//! - [`arrays`]: battles given as parallel arrays (the convention of evalica, choix).
//! - [`tutorial`]: the arena tutorial walked through (`verdict demo`).
//! - [`contextual`]: a contextual log made ready for a NashEval fit.
//! - [`experiment`]: NashEval's accuracy experiment on the Appendix G simulator.
//! - [`model_file`]: NashEval models saved, loaded and applied to new contexts.
//! - [`page`]: report pages written without overwriting a file verdict did not write.
//! - [`results`]: saved results read back and drawn as one page (`verdict report`).
//! - [`simulation`]: simulations with exact truth written to and opened from a
//!   directory, and a policy scored against that truth.
//!
//! # Features
//! All on by default. A program that only ranks, solves games and judges can turn off
//! the heavy ones (`default-features = false`) and build without CMake:
//! - `nasheval`: NashEval and everything contextual (`contextual`, `experiment`,
//!   `model_file`, `simulation`, `nasheval`); LightGBM is built from C++ source
//!   (CMake, libclang). Implies `parquet`.
//! - `parquet`: Parquet tables (otherwise a Parquet input is refused with a message).
//! - `plots`: SVG/PNG plots.
//! - `http`: OpenAI-compatible endpoints as judges.
//! - `clap`: the settings' enums parse from a command line.

pub use verdict_feedback as feedback;
pub use verdict_game as game;
pub use verdict_io as io;
pub use verdict_judges as judges;
#[cfg(feature = "nasheval")]
pub use verdict_nasheval as nasheval;
pub use verdict_ratings as ratings;
pub use verdict_report as report;
pub use verdict_sim as sim;

pub mod arrays;
#[cfg(feature = "nasheval")]
pub mod contextual;
#[cfg(feature = "nasheval")]
pub mod cost_curve;
pub mod equilibrium;
mod error;
#[cfg(feature = "nasheval")]
pub mod experiment;
#[cfg(feature = "nasheval")]
pub mod experiment_summary;
pub mod lottery_bootstrap;
#[cfg(feature = "nasheval")]
pub mod model_file;
pub mod page;
pub mod plackett_luce;
pub mod rank;
#[cfg(feature = "nasheval")]
pub mod real_benchmark;
#[cfg(feature = "plots")]
pub mod results;
#[cfg(feature = "nasheval")]
pub mod simulation;
pub mod style;
#[cfg(feature = "plots")]
pub mod tour;
#[cfg(all(feature = "plots", feature = "nasheval"))]
mod tour_nasheval;
pub mod tutorial;

pub use error::VerdictError;
