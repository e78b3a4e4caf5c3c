//! A battle log folded to its pair counts, as Arrow columns: the map side of a
//! leaderboard on any engine that runs Python on a batch (Spark's `mapInArrow`, Ray's
//! `map_batches`), whose concatenated outputs [`verdict::io::read_pair_counts`] reads
//! as the whole log's counts.

use pyo3::prelude::*;

use verdict::io::{dataset_files, fold_record_batches, read_pair_counts, CountsTable};
use verdict::rank_params::RankParams;
use verdict::settings::from_document;

use crate::failure;
use crate::tables::TableArg;

/// The counts table's columns: `model_a, model_b, wins_a, wins_b, ties`.
type CountColumns = (Vec<String>, Vec<String>, Vec<u64>, Vec<u64>, Vec<u64>);

/// The pair counts of `battles` — a path (a file, a directory or glob of Parquet
/// files: a whole log, refused without battles) or an Arrow stream (a partition of
/// one, [`fold_record_batches`]: empty when its filters drop every row), holding a raw
/// log or counts tables — read with the reading settings of `settings` (a
/// [`RankParams`] document: column names, filters, self-battles), a chunk of rows at a
/// time: [`CountsTable`]'s columns.
#[pyfunction]
pub fn battle_counts(py: Python<'_>, settings: &str, battles: TableArg) -> PyResult<CountColumns> {
    let params: RankParams = from_document(settings).map_err(failure)?;
    let options = params.reading().options;
    let label = "<battles table>";
    let table = match battles {
        TableArg::Path(path) => py.detach(|| {
            let loaded = read_pair_counts(&dataset_files(std::path::Path::new(&path))?, &options)?;
            CountsTable::new(loaded.models.names(), &loaded.counts, &path)
        }),
        TableArg::Stream(producer) => {
            let reader = crate::tables::stream_reader(producer.bind(py))?;
            let schema = arrow::record_batch::RecordBatchReader::schema(&reader);
            py.detach(|| fold_record_batches(reader, &schema, label, &options))
        }
    }
    .map_err(failure)?;
    Ok((
        table.model_a,
        table.model_b,
        table.wins_a,
        table.wins_b,
        table.ties,
    ))
}
