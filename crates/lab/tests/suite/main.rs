//! The lab's integration tests, one binary (linking the library once rather than once
//! per file): the worlds against their closed forms, NashEval's estimators on worlds
//! with known truth, simulations written to disk, the experiments and cost curves.

#[cfg(feature = "lightgbm")]
mod cost_curve;
#[cfg(feature = "lightgbm")]
mod nasheval_crossfit;
#[cfg(feature = "lightgbm")]
mod nasheval_library;
#[cfg(feature = "lightgbm")]
mod nasheval_policy;
#[cfg(feature = "lightgbm")]
mod nasheval_pseudo;
#[cfg(feature = "nasheval")]
mod real_benchmark;
#[path = "../../../verdict/tests/suite/shared_data.rs"]
mod shared_data;
#[cfg(feature = "lightgbm")]
mod simulation;
mod world_arena_world;
mod world_nasheval;
