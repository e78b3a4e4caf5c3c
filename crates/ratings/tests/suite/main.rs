//! The crate's integration tests, one binary (linking the crate once rather than once
//! per file).

mod properties;
mod ratings;
