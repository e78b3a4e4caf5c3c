//! The library's integration tests, one binary (linking the library once rather than
//! once per file).

mod both_bad;
mod counts_input;
mod hygiene;
mod lottery_bootstrap;
#[cfg(feature = "nasheval")]
mod ope;
#[cfg(feature = "nasheval")]
mod ope_duel;
mod plackett_luce;
mod real_data;
mod shared_data;
mod sparse_arena;
mod style_control;
