//! The command line's end-to-end tests, one binary (linking the whole program once
//! rather than once per file): each module runs the real `verdict` binary.

mod common;
#[cfg(feature = "serve")]
#[path = "../../../encoder/tests/support/default_encoder.rs"]
mod default_encoder;

#[cfg(feature = "nasheval")]
mod baselines;
mod cli;
#[cfg(all(feature = "lightgbm", feature = "serve"))]
mod docs;
mod fuzz;
#[cfg(feature = "serve")]
mod fuzz_serve;
#[cfg(feature = "nasheval")]
mod global_baselines;
#[cfg(feature = "lightgbm")]
mod nasheval;
#[cfg(feature = "nasheval")]
mod nasheval_report;
#[cfg(feature = "serve")]
mod ope;
#[cfg(feature = "nasheval")]
mod outputs;
mod report_command;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serving;
#[cfg(feature = "nasheval")]
mod settings_parity;
mod shared_mistakes;
#[cfg(feature = "serve")]
mod text_routing;
