//! The crate's integration tests, one binary (linking the crate once rather than once
//! per file).

mod command;
mod http;
mod intervals;
mod judges;
mod ledger;
mod shared_errors;
