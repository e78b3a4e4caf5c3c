//! The crate's integration tests, one binary (linking the crate once rather than once
//! per file).

mod contextual;
mod damaged_parquet;
mod parquet;
mod write_battles;
