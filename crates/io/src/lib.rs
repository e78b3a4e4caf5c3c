#![warn(missing_docs)]
//! Reading and writing tables of records: CSV, JSON Lines, a JSON array, and Parquet.
//!
//! Every error names its place — file, line or row, column — and how to fix it, e.g.
//! `battles.csv:1042: column "winner": expected model_a | model_b | tie | tie (bothbad),
//! found "draw"`. Outputs are written to a temporary file beside the target and renamed
//! on success, so no half-written file is ever left behind, and never over a file
//! verdict did not write ([`OutputFile`]).

mod atomic;
mod battles;
mod contextual;
mod costs;
mod count_columns;
mod counts;
mod error;
mod filter;
mod format;
mod matrix;
mod numeric;
mod output_dir;
mod output_file;
#[cfg(feature = "parquet")]
mod parquet_io;
mod rankings;
mod table;
mod text;
mod text_encoder;

pub use atomic::{persist, staging_file, write_atomic, write_bytes_atomic};
pub use battles::{
    battle_columns, battles_from_table, not_a_regular_file, read_battles, read_table, shown_name,
    write_battles, BattleSchema, LoadedBattles, ReadOptions, Source, WinnerColumns,
};
pub use contextual::{
    category_code, context_ids, read_battles_as_contextual, read_contexts, read_contextual_log,
    text_features, CategoricalEncoding, ContextTable, ContextualOptions,
};
pub use costs::read_costs;
#[cfg(feature = "parquet")]
pub use counts::fold_record_batches;
pub use counts::{
    counts_table_csv, dataset_files, pair_count_columns, read_pair_counts, CountsTable,
    DatasetFile, LoadedCounts,
};
pub use error::{shown_value, IoError, Location, RowRef, SHOWN_CHARS};
pub use filter::{Filter, FilterOp};
pub use format::Format;
pub use matrix::{read_named_matrix, NamedMatrix};
pub use numeric::{has_path, numeric_columns, path_column};
pub use output_dir::{FileChecksum, StagedDir, WRITTEN_BY};
pub use output_file::{OutputFile, OUTPUTS_MANIFEST};
#[cfg(feature = "parquet")]
pub use parquet_io::{
    read_record_batches, stream_record_batches, write_battles_parquet, write_parquet_table,
    ColumnData,
};
pub use rankings::{read_rankings, LoadedRankings};
pub use table::{Column, Table, NAMES_SHOWN};
pub use text::json_objects_table;
pub use text_encoder::{EncoderError, EncoderIdentity, StaticEncoder, TextEncoder};
