//! The library's integration tests, one binary (linking the library once rather than
//! once per file).

#[cfg(feature = "lightgbm")]
mod cost_curve;
mod counts_input;
mod lottery_bootstrap;
#[cfg(feature = "lightgbm")]
mod nasheval_library;
mod plackett_luce;
mod real_data;
#[cfg(feature = "lightgbm")]
mod simulation;
mod style_control;
