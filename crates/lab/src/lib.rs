#![warn(missing_docs)]
//! verdict's research lab: what measures the methods rather than what a user's
//! pipeline calls. The product library, [`verdict`], holds no experiment, benchmark or
//! simulation; `verdict bench`, `simulate`, `evaluate`, `demo` and their Python
//! equivalents are the only faces that use this crate.
//!
//! - [`worlds`]: data-generating processes with known truth — a synthetic arena, the
//!   NashEval Appendix G simulator and an arena-shaped contextual world.
//! - [`simulation`]: those worlds written to and opened from a directory with their
//!   exact truth, and a policy scored against that truth.
//! - [`experiment`], [`experiment_summary`]: NashEval's accuracy experiment
//!   (Section 5, RQ1) and its summary over seeds.
//! - [`real_benchmark`]: NashEval on AlpacaEval's real prompts; [`router_benchmark`]:
//!   verdict's router against kNN, the best single model and the oracle there.
//! - [`cost_curve`]: the paper's cost analysis.
//! - [`decision_world`]: a router's decision log with known truth, for `verdict ope`.
//! - [`results`]: saved lab results (an evaluation, an experiment) read back and drawn
//!   beside the product's results (`verdict report`).
//! - [`tutorial`], [`tour`]: the arena tutorial walked through and the tour of all
//!   three parts (`verdict demo`).
//!
//! # Features
//! - `nasheval` (default): everything contextual — simulations, experiments, the
//!   real-prompt benchmark, the cost curves; `lightgbm` adds NashEval's `gbdt`
//!   backbone.
//! - `plots` (default): the tour's page.
//! - `commands`: the lab's commands and their flags ([`commands`]), which the
//!   command line mounts.

pub mod worlds;

#[cfg(feature = "commands")]
pub mod commands;

#[cfg(feature = "nasheval")]
pub mod cost_curve;
pub mod decision_world;
#[cfg(feature = "nasheval")]
pub mod experiment;
#[cfg(feature = "nasheval")]
pub mod experiment_summary;
#[cfg(feature = "nasheval")]
pub mod real_benchmark;
#[cfg(feature = "plots")]
pub mod results;
#[cfg(feature = "nasheval")]
pub mod route_metrics;
#[cfg(feature = "nasheval")]
pub mod router_benchmark;
#[cfg(feature = "nasheval")]
pub mod simulation;
#[cfg(feature = "plots")]
pub mod tour;
#[cfg(all(feature = "plots", feature = "nasheval"))]
mod tour_nasheval;
pub mod tutorial;
