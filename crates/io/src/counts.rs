//! Battle logs of any size as pair counts: a raw log (one battle per row) or a counts
//! table (one row per pair, or per pair and outcome), from one file or a dataset of
//! many, reduced to `[wins of a, wins of b, ties]` per pair while it is read.
//!
//! Bradley–Terry, its bootstrap and the maximal lottery read nothing else, so a log of
//! any length becomes 3 × K(K−1)/2 numbers. Parquet files are read a chunk of record
//! batches at a time, the files of a dataset in parallel, so memory holds one chunk per
//! core and the counts, whatever the number of battles. Two accepted counts layouts
//! (detected from the columns):
//!
//! | Layout | Columns |
//! |---|---|
//! | wide | `model_a, model_b, wins_a, wins_b[, ties]` |
//! | long | `model_a, model_b, winner, count` (winner labels as in a battle log) |
//!
//! Rows of the same pair add up, in either orientation. `sql/battle_counts.sql` turns a
//! raw log into the wide layout on any SQL engine.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use verdict_settings::Setting;

use verdict_feedback::{Interner, Outcome, PairCounts, PairCountsBuilder};

use crate::battles::{build_log, filtered_rows, no_battles, require_column};
use crate::count_columns::CountColumns;
use crate::{read_table, BattleSchema, Format, IoError, ReadOptions, Source, Table, WinnerColumns};

/// Rows decoded at a time from a Parquet file: about 50 MB of column codes for a
/// three-column log, and few enough chunks that merging their counts costs nothing.
const CHUNK_ROWS: usize = 1 << 20;

/// One file of a dataset (or a table handed over in memory), with the `key=value`
/// directories above it (Hive partitioning), which read as columns holding that value
/// in every row.
#[derive(Debug, Clone)]
pub struct DatasetFile {
    /// The file or table.
    pub source: Source,
    /// Partition columns and their values, outermost first.
    pub partition: Vec<(String, String)>,
}

impl DatasetFile {
    /// A single file or table, without partition columns.
    pub fn single(source: Source) -> Self {
        Self {
            source,
            partition: Vec::new(),
        }
    }
}

/// The files a path names: a file; a directory, whose Parquet files at any depth (in
/// path order; names starting with `_` or `.`, like Spark's `_SUCCESS`, skipped) form
/// one log, with Hive `key=value` directories as columns; or a glob pattern such as
/// `logs/*.parquet` (quoted so that the shell leaves it alone).
///
/// # Errors
/// A path that does not exist and matches nothing, an unreadable directory, or a
/// directory without Parquet files.
pub fn dataset_files(path: &Path) -> Result<Vec<DatasetFile>, IoError> {
    let shown = path.display().to_string();
    if path.is_file() {
        return Ok(vec![DatasetFile::single(Source::File(path.to_path_buf()))]);
    }
    let mut files = Vec::new();
    if path.is_dir() {
        collect_parquet(path, &mut files)?;
        if files.is_empty() {
            return Err(IoError::invalid_file(
                &shown,
                "this directory holds no .parquet file; name a file, or a directory or glob of Parquet files",
            ));
        }
    } else if shown.contains(['*', '?', '[']) {
        let matches = glob::glob(&shown)
            .map_err(|e| IoError::invalid_file(&shown, format!("not a glob pattern: {e}")))?;
        for entry in matches {
            let file = entry.map_err(|e| IoError::Read {
                path: e.path().to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            })?;
            if file.is_file() {
                files.push(file);
            }
        }
        if files.is_empty() {
            return Err(IoError::invalid_file(
                &shown,
                "no file matches this pattern",
            ));
        }
    } else {
        // A broken link exists as a name but leads nowhere; anything else is absent.
        let problem = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                "a symbolic link to nothing: point it at the log, or name the log itself"
            }
            Ok(_) => "not a file, directory or glob of Parquet files; name the log itself",
            Err(_) => {
                "no such file or directory; check the path (a glob of Parquet files goes in quotes)"
            }
        };
        return Err(IoError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, problem),
        });
    }
    files.sort();
    Ok(files
        .into_iter()
        .map(|file| {
            let partition = hive_partition(&file);
            DatasetFile {
                source: Source::File(file),
                partition,
            }
        })
        .collect())
}

/// Every `.parquet` file below `dir` (hidden and `_`-prefixed entries skipped).
fn collect_parquet(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), IoError> {
    let read_error = |source| IoError::Read {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with(['.', '_']) {
            continue;
        }
        if path.is_dir() {
            collect_parquet(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "parquet") {
            files.push(path);
        }
    }
    Ok(())
}

/// The `key=value` directories of `file`'s path, values percent-decoded as Hive and
/// Spark escape them.
fn hive_partition(file: &Path) -> Vec<(String, String)> {
    let Some(parent) = file.parent() else {
        return Vec::new();
    };
    parent
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .filter_map(|part| part.split_once('='))
        .filter(|(key, _)| !key.is_empty())
        .map(|(key, value)| (key.to_owned(), percent_decode(value)))
        .collect()
}

/// `%XX` escapes replaced by their byte (Hive's partition-value escaping); anything
/// else kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every column [`read_pair_counts`] may use with `options`: the battle log's (see
/// [`crate::battle_columns`]) and the counts tables'.
pub fn pair_count_columns(options: &ReadOptions) -> Vec<String> {
    let mut wanted = crate::battle_columns(options);
    wanted.extend(CountColumns::columns().map(str::to_owned));
    wanted
}

/// Pair counts as the wide counts table: one row per pair that met, in pair order
/// (`model_a` before `model_b` in name order), whole battle counts. It is mergeable:
/// the rows of several tables — the counts of a log's partitions, folded where the
/// partitions live — concatenated read as the counts of the whole log, since
/// [`read_pair_counts`] adds up the rows of a pair in either orientation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountsTable {
    /// The first model of each pair.
    pub model_a: Vec<String>,
    /// The second model of each pair.
    pub model_b: Vec<String>,
    /// Battles `model_a` won.
    pub wins_a: Vec<u64>,
    /// Battles `model_b` won.
    pub wins_b: Vec<u64>,
    /// Ties (`tie` and `tie (bothbad)`).
    pub ties: Vec<u64>,
}

impl CountsTable {
    /// The column names, in order: `model_a, model_b, wins_a, wins_b, ties`.
    pub const COLUMNS: [&'static str; 5] = ["model_a", "model_b", "wins_a", "wins_b", "ties"];

    /// `counts` as a table, `names[i]` naming model i.
    ///
    /// # Errors
    /// [`IoError::Invalid`] (at `label`) for counts that are not whole numbers (a
    /// weighted log's weight sums), which a counts table cannot hold, or that pass
    /// [`MAX_COUNT`] (2^53, where a float stops holding every whole number).
    pub fn new(names: &[String], counts: &PairCounts, label: &str) -> Result<Self, IoError> {
        let mut table = Self::default();
        for p in counts.pairs() {
            if p.cells().into_iter().any(|c| c > MAX_COUNT) {
                return Err(IoError::invalid_file(
                    label,
                    format!(
                        "the pair {:?} against {:?} has more than 2^53 battles, past what a count holds exactly; count the log in parts",
                        names[p.i as usize], names[p.j as usize]
                    ),
                ));
            }
            if !p.cells().into_iter().all(|c| c >= 0.0 && c.fract() == 0.0) {
                return Err(IoError::invalid_file(
                    label,
                    "a counts table holds whole battle counts; weighted counts cannot be saved as one",
                ));
            }
            table.model_a.push(names[p.i as usize].clone());
            table.model_b.push(names[p.j as usize].clone());
            // Whole numbers in [0, 2^53] convert exactly.
            table.wins_a.push(p.wins_i as u64);
            table.wins_b.push(p.wins_j as u64);
            table.ties.push(p.ties as u64);
        }
        Ok(table)
    }

    /// Pairs in the table.
    pub fn len(&self) -> usize {
        self.model_a.len()
    }

    /// Whether no pair met.
    pub fn is_empty(&self) -> bool {
        self.model_a.is_empty()
    }
}

/// `counts` as a counts table ([`CountsTable`]) in CSV, that [`read_pair_counts`] reads
/// back to the same counts: a log's state, to which a later day's battles are added
/// without reading the old battles again.
///
/// # Errors
/// As [`CountsTable::new`].
pub fn counts_table_csv(
    names: &[String],
    counts: &PairCounts,
    label: &str,
) -> Result<Vec<u8>, IoError> {
    let table = CountsTable::new(names, counts, label)?;
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = CountsTable::COLUMNS.map(str::to_owned);
    let rows = (0..table.len()).map(|r| {
        [
            table.model_a[r].clone(),
            table.model_b[r].clone(),
            table.wins_a[r].to_string(),
            table.wins_b[r].to_string(),
            table.ties[r].to_string(),
        ]
    });
    std::iter::once(header)
        .chain(rows)
        .try_for_each(|record| writer.write_record(record))
        .map_err(std::io::Error::other)
        .and_then(|()| writer.into_inner().map_err(|e| e.into_error()))
        .map_err(|e| IoError::invalid_file(label, format!("cannot write the counts table: {e}")))
}

/// A log reduced to its pair counts.
#[derive(Debug, Clone)]
pub struct LoadedCounts {
    /// The models, numbered in name order.
    pub models: Interner,
    /// The counts, in the models' numbering.
    pub counts: PairCounts,
    /// Files read.
    pub files: usize,
    /// Rows in the files before filtering.
    pub rows_read: usize,
    /// Whether any file was a counts table rather than one battle per row.
    pub from_counts_table: bool,
    /// Rows dropped because a model battled itself (with `skip_self_battles`).
    pub self_battles_skipped: usize,
}

/// Reads the files of a dataset (see [`dataset_files`]) — raw battle logs or counts
/// tables, in any mix — as one log's pair counts, applying `options`' schema, filters
/// (on partition columns too) and `skip_self_battles`. Files are read in parallel (one
/// per core at a time); Parquet files are streamed a chunk at a time, CSV and JSON
/// files read whole.
///
/// # Errors
/// Every error of [`crate::read_battles`], located in its file; a count that is not a
/// non-negative whole number; `order_by` or `keep`, which counts cannot honour.
pub fn read_pair_counts(
    files: &[DatasetFile],
    options: &ReadOptions,
) -> Result<LoadedCounts, IoError> {
    let label = files.first().map_or_else(String::new, |f| f.source.label());
    refuse_per_battle_settings(options, &label)?;
    // Files are read in parallel, each into counts of its own, merged in file order:
    // counts are whole numbers (exact in any order), and the first error in file
    // order is the one reported whatever thread met it first.
    let per_file: Vec<Result<Reducer, IoError>> = files
        .par_iter()
        .map(|file| {
            let mut reducer = Reducer::new(options, CHUNK_ROWS);
            reducer.read_file(file).map(|()| reducer)
        })
        .collect();
    let mut reducer = Reducer::new(options, CHUNK_ROWS);
    for read in per_file {
        reducer.absorb(read?);
    }
    reducer.finish(&label)
}

/// Record batches handed over in memory (an Arrow C stream from Spark's `mapInArrow`,
/// Ray's `map_batches`, pandas, polars or pyarrow) — a raw log or counts tables, with
/// columns `schema` — folded to a [`CountsTable`] as [`read_pair_counts`] folds a file:
/// a chunk of rows at a time, so memory holds one chunk and the counts however long
/// the stream. This is the map side of a distributed leaderboard: a partition whose
/// rows the filters all drop folds to an empty table (refusing a log without battles
/// is the reduce side's job). `label` names the stream in messages.
///
/// # Errors
/// As [`read_pair_counts`] (but for an empty log), and a batch the producer failed to
/// deliver.
#[cfg(feature = "parquet")]
pub fn fold_record_batches(
    batches: impl Iterator<Item = Result<arrow::record_batch::RecordBatch, arrow::error::ArrowError>>,
    schema: &arrow::datatypes::Schema,
    label: &str,
    options: &ReadOptions,
) -> Result<CountsTable, IoError> {
    refuse_per_battle_settings(options, label)?;
    let mut reducer = Reducer::new(options, CHUNK_ROWS);
    let wanted = reducer.wanted.clone();
    crate::parquet_io::stream_record_batches(
        batches,
        schema,
        label,
        Some(&wanted),
        CHUNK_ROWS,
        |table| reducer.add_table(&table),
    )?;
    let counts = reducer.builder.finish(reducer.models.len());
    let (names, counts) = counts.with_models_by_name(reducer.models.names());
    CountsTable::new(&names, &counts, label)
}

/// Counts keep no battle order and no per-battle column: `order_by` and `keep` are
/// refused rather than ignored.
fn refuse_per_battle_settings(options: &ReadOptions, label: &str) -> Result<(), IoError> {
    if options.order_by.is_some() || !options.keep.is_empty() {
        return Err(IoError::invalid_file(
            label,
            "counts keep no battle order and no per-battle columns; read the log itself for an order or groups",
        ));
    }
    Ok(())
}

/// Counts gathered so far, over every model seen so far.
struct Reducer<'a> {
    options: &'a ReadOptions,
    /// Rows per Parquet chunk.
    chunk_rows: usize,
    wanted: Vec<String>,
    models: Interner,
    builder: PairCountsBuilder,
    files: usize,
    rows_read: usize,
    rows_selected: usize,
    self_battles_skipped: usize,
    from_counts_table: bool,
}

/// Hands `visit` the table of one file: a Parquet file in chunks of `chunk_rows` rows
/// (row groups streamed, never the whole file in memory), any other format whole.
fn visit_file(
    source: &Source,
    format: Option<Format>,
    wanted: &[String],
    chunk_rows: usize,
    mut visit: impl FnMut(Table) -> Result<(), IoError>,
) -> Result<(), IoError> {
    #[cfg(feature = "parquet")]
    if let Source::File(path) = source {
        let parquet = match format {
            Some(format) => format == Format::Parquet,
            None => Format::from_path(path)? == Format::Parquet,
        };
        if parquet {
            let handle = std::fs::File::open(path).map_err(|source| IoError::Read {
                path: path.clone(),
                source,
            })?;
            let label = source.label();
            return crate::parquet_io::stream_parquet(
                handle,
                &label,
                Some(wanted),
                chunk_rows,
                visit,
            );
        }
    }
    #[cfg(not(feature = "parquet"))]
    let _ = chunk_rows; // Only Parquet files are read in chunks.
    visit(read_table(source, format, Some(wanted))?)
}

impl<'a> Reducer<'a> {
    fn new(options: &'a ReadOptions, chunk_rows: usize) -> Self {
        Self {
            options,
            chunk_rows,
            wanted: pair_count_columns(options),
            models: Interner::new(),
            builder: PairCountsBuilder::default(),
            files: 0,
            rows_read: 0,
            rows_selected: 0,
            self_battles_skipped: 0,
            from_counts_table: false,
        }
    }

    fn read_file(&mut self, file: &DatasetFile) -> Result<(), IoError> {
        self.files += 1;
        let (wanted, chunk_rows, format) =
            (self.wanted.clone(), self.chunk_rows, self.options.format);
        let visit = |table: Table| {
            let table = file
                .partition
                .iter()
                .fold(table, |t, (key, value)| t.with_constant_column(key, value));
            self.add_table(&table)
        };
        visit_file(&file.source, format, &wanted, chunk_rows, visit)
    }

    /// Adds the counts of one table (a file, or a chunk of one).
    fn add_table(&mut self, table: &Table) -> Result<(), IoError> {
        self.rows_read += table.rows();
        let schema = match &self.options.schema {
            Some(schema) => schema.clone(),
            None => BattleSchema::detect(table),
        };
        let layout = if self.options.schema.is_none() {
            CountColumns::detect(table)
        } else {
            None
        };
        match layout {
            None => {
                let rows = filtered_rows(table, &schema, self.options)?;
                self.rows_selected += rows.len();
                let (log, kept) = build_log(table, &schema, &rows, self.options.skip_self_battles)?;
                self.self_battles_skipped += rows.len() - kept.len();
                let counts = PairCounts::from_log(&log);
                self.merge(log.models().names(), &counts);
            }
            Some(layout) => {
                self.from_counts_table = true;
                let schema = BattleSchema {
                    winner: WinnerColumns::Label("winner".into()),
                    ..schema
                };
                let mut needed = vec![schema.model_a.clone(), schema.model_b.clone()];
                needed.extend(match layout {
                    CountColumns::Wide { ties } => ["wins_a", "wins_b"]
                        .into_iter()
                        .chain(ties.then_some("ties"))
                        .map(str::to_owned)
                        .collect::<Vec<_>>(),
                    CountColumns::Long => vec!["winner".into(), "count".into()],
                });
                needed.extend(self.options.filters.iter().map(|f| f.column.clone()));
                for column in &needed {
                    require_column(table, column)?;
                }
                let rows = crate::battles::selected_rows(table, &self.options.filters);
                self.rows_selected += rows.len();
                for row in rows {
                    self.add_count_row(table, &schema, &layout, row)?;
                }
            }
        }
        Ok(())
    }

    /// Adds one row of a counts table.
    fn add_count_row(
        &mut self,
        table: &Table,
        schema: &BattleSchema,
        layout: &CountColumns,
        row: usize,
    ) -> Result<(), IoError> {
        let name = |column: &str| {
            table
                .column(column)
                .and_then(|c| c.value(row))
                .ok_or_else(|| {
                    IoError::invalid(
                        table.location(row, Some(column)),
                        "missing model name; every row needs two models",
                    )
                })
        };
        let (a, b) = (name(&schema.model_a)?, name(&schema.model_b)?);
        let count = |column: &str| count_at(table, row, column);
        let cells = match layout {
            CountColumns::Wide { ties } => [
                count("wins_a")?,
                count("wins_b")?,
                if *ties { count("ties")? } else { 0.0 },
            ],
            CountColumns::Long => {
                let location = || table.location(row, Some("winner"));
                let label = table
                    .column("winner")
                    .and_then(|c| c.value(row))
                    .ok_or_else(|| IoError::invalid(location(), "missing winner label"))?;
                let outcome = Outcome::parse(label)
                    .map_err(|e| IoError::invalid(location(), e.to_string()))?;
                let n = count("count")?;
                match outcome {
                    Outcome::WinA => [n, 0.0, 0.0],
                    Outcome::WinB => [0.0, n, 0.0],
                    Outcome::Tie | Outcome::TieBothBad => [0.0, 0.0, n],
                }
            }
        };
        if a == b {
            if self.options.skip_self_battles {
                self.self_battles_skipped += 1;
                return Ok(());
            }
            return Err(IoError::invalid(
                table.location(row, Some(&schema.model_b)),
                format!("model {a:?} battles itself; fix the model name, or set {skip_self_battles} to drop such rows", skip_self_battles = Setting("skip_self_battles")),
            ));
        }
        if cells.iter().any(|&c| c > 0.0) {
            let (a, b) = (self.models.intern(a), self.models.intern(b));
            self.builder.add(a.0, b.0, cells);
        }
        Ok(())
    }

    /// Adds everything `other` read: its counts and its tallies of files and rows.
    fn absorb(&mut self, other: Reducer) {
        let counts = other.builder.finish(other.models.len());
        self.merge(other.models.names(), &counts);
        self.files += other.files;
        self.rows_read += other.rows_read;
        self.rows_selected += other.rows_selected;
        self.self_battles_skipped += other.self_battles_skipped;
        self.from_counts_table |= other.from_counts_table;
    }

    /// Adds a chunk's counts, its model numbering (`names`) mapped to the reducer's.
    fn merge(&mut self, names: &[String], counts: &PairCounts) {
        let ids: Vec<u32> = names.iter().map(|n| self.models.intern(n).0).collect();
        for p in counts.pairs() {
            self.builder
                .add(ids[p.i as usize], ids[p.j as usize], p.cells());
        }
    }

    fn finish(self, label: &str) -> Result<LoadedCounts, IoError> {
        let counts = self.builder.finish(self.models.len());
        if counts.battles() == 0.0 {
            if self.rows_selected > 0 && self.self_battles_skipped == self.rows_selected {
                return Err(IoError::invalid_file(
                    label,
                    "no battles left: every remaining row has a model battling itself",
                ));
            }
            let read = if self.rows_selected == 0 {
                self.rows_read
            } else {
                0
            };
            return Err(no_battles(label, read, &self.options.filters));
        }
        let (names, counts) = counts.with_models_by_name(self.models.names());
        let mut models = Interner::new();
        for name in &names {
            models.intern(name);
        }
        Ok(LoadedCounts {
            models,
            counts,
            files: self.files,
            rows_read: self.rows_read,
            from_counts_table: self.from_counts_table,
            self_battles_skipped: self.self_battles_skipped,
        })
    }
}

/// The largest count read: 2^53, past which a float no longer holds every whole
/// number (99999999999999999999999 would be read as another number, and sums of such
/// counts wrap or lose battles).
pub const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

/// A count at `row` of `column`: a whole number in `[0, 2^53]` (`12`, `12.0`).
fn count_at(table: &Table, row: usize, column: &str) -> Result<f64, IoError> {
    let text = table.column(column).and_then(|c| c.value(row));
    match text.map(|t| t.trim().parse::<f64>()) {
        Some(Ok(n)) if (0.0..=MAX_COUNT).contains(&n) && n.fract() == 0.0 => Ok(n),
        _ => Err(IoError::invalid(
            table.location(row, Some(column)),
            format!(
                "expected a count (a whole number from 0 to 2^53 = 9007199254740992), found \"{}\"",
                crate::shown_value(text.unwrap_or(""))
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_directories_become_columns() {
        let partition = hive_partition(Path::new(
            "/data/log/language=English/day=2024%2D05%2D01/part-0.parquet",
        ));
        assert_eq!(
            partition,
            [
                ("language".to_owned(), "English".to_owned()),
                ("day".to_owned(), "2024-05-01".to_owned())
            ]
        );
    }

    /// A log streamed in chunks of 1,000 rows counts as the whole log does, and an
    /// error in a later chunk names its row in the file, not in the chunk.
    #[cfg(feature = "parquet")]
    #[test]
    fn chunks_count_like_the_whole_file_and_errors_keep_file_rows() {
        use crate::{write_parquet_table, ColumnData};
        let rows = 4_500;
        let column = |f: &dyn Fn(usize) -> &'static str| {
            ColumnData::Text((0..rows).map(|r| f(r).to_owned()).collect())
        };
        let write = |path: &Path, bad_row: Option<usize>| {
            let winner = move |r: usize| match r {
                _ if Some(r) == bad_row => "nobody",
                _ if r.is_multiple_of(3) => "model_a",
                _ if r % 3 == 1 => "model_b",
                _ => "tie",
            };
            write_parquet_table(
                path,
                &[
                    ("model_a", column(&|r| ["a", "b", "c"][r % 3])),
                    ("model_b", column(&|r| ["x", "y", "z"][r % 7 % 3])),
                    ("winner", column(&winner)),
                ],
            )
            .unwrap();
        };
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.parquet");
        write(&good, None);
        let options = ReadOptions::default();
        let count = |chunk_rows| {
            let mut reducer = Reducer::new(&options, chunk_rows);
            reducer
                .read_file(&DatasetFile::single(Source::File(good.clone())))
                .unwrap();
            reducer.finish("good.parquet").unwrap()
        };
        let (whole, chunked) = (count(usize::MAX), count(1_000));
        assert_eq!(whole.counts, chunked.counts);
        assert_eq!(chunked.rows_read, rows);
        let whole_log = crate::read_battles(&Source::File(good), &options)
            .unwrap()
            .log;
        assert_eq!(whole.counts, PairCounts::from_log(&whole_log));

        let bad = dir.path().join("bad.parquet");
        write(&bad, Some(2_499));
        let mut reducer = Reducer::new(&options, 1_000);
        let error = reducer
            .read_file(&DatasetFile::single(Source::File(bad)))
            .unwrap_err()
            .to_string();
        assert!(error.contains("row 2500"), "{error}");
    }

    #[test]
    fn percent_decoding_keeps_stray_percents() {
        assert_eq!(percent_decode("50%"), "50%");
        assert_eq!(percent_decode("a%2Fb%zz"), "a/b%zz");
    }

    /// The map side of a distributed leaderboard: a stream folded in three partitions
    /// (each in batches of 100 rows), whose counts tables are merged by folding their
    /// concatenation again, gives the counts of a brute-force tally of every row; a
    /// partition its filter empties folds to no rows; an error names its row in the
    /// whole stream, not in its batch.
    #[cfg(feature = "parquet")]
    #[test]
    fn partitions_fold_apart_and_merge_to_the_tally_of_every_row() {
        use std::collections::BTreeMap;
        use std::sync::Arc;

        use arrow::array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
        use arrow::datatypes::{DataType, Field, Schema};

        let models = ["alpha", "beta", "gamma", "delta", "epsilon"];
        let labels = ["model_a", "model_b", "tie", "tie (bothbad)"];
        // A fixed pseudo-random sequence (a linear congruential generator).
        let mut state = 12_345u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as usize % n
        };
        let rows: Vec<[&str; 3]> = (0..3_000)
            .map(|_| {
                let a = next(5);
                let b = (a + 1 + next(4)) % 5;
                [models[a], models[b], labels[next(4)]]
            })
            .collect();
        let mut tally: BTreeMap<(String, String), [u64; 3]> = BTreeMap::new();
        for [a, b, winner] in &rows {
            let (key, flipped) = if a < b {
                ((a, b), false)
            } else {
                ((b, a), true)
            };
            let cells = tally
                .entry((key.0.to_string(), key.1.to_string()))
                .or_default();
            match (*winner, flipped) {
                ("model_a", false) | ("model_b", true) => cells[0] += 1,
                ("model_b", false) | ("model_a", true) => cells[1] += 1,
                _ => cells[2] += 1,
            }
        }
        let text = |values: Vec<&str>| Arc::new(StringArray::from(values)) as ArrayRef;
        let schema = Arc::new(Schema::new(
            ["model_a", "model_b", "winner"]
                .map(|name| Field::new(name, DataType::Utf8, false))
                .to_vec(),
        ));
        let batches = |rows: &[[&str; 3]]| {
            rows.chunks(100)
                .map(|chunk| {
                    let column = |c: usize| text(chunk.iter().map(|row| row[c]).collect());
                    Ok(
                        RecordBatch::try_new(schema.clone(), vec![column(0), column(1), column(2)])
                            .unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let options = ReadOptions::default();
        let parts: Vec<CountsTable> = rows
            .chunks(1_000)
            .map(|part| fold_record_batches(batches(part).into_iter(), &schema, "part", &options))
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(parts.iter().all(|p| p.len() == 10));

        // The partitions' tables as one stream of wide counts batches.
        let counts_schema = Arc::new(Schema::new(
            CountsTable::COLUMNS
                .iter()
                .enumerate()
                .map(|(c, name)| {
                    let kind = if c < 2 {
                        DataType::Utf8
                    } else {
                        DataType::UInt64
                    };
                    Field::new(*name, kind, false)
                })
                .collect::<Vec<_>>(),
        ));
        let number = |values: &[u64]| Arc::new(UInt64Array::from(values.to_vec())) as ArrayRef;
        let counts_batches = parts.iter().map(|p| {
            let names = |v: &[String]| text(v.iter().map(String::as_str).collect());
            Ok(RecordBatch::try_new(
                counts_schema.clone(),
                vec![
                    names(&p.model_a),
                    names(&p.model_b),
                    number(&p.wins_a),
                    number(&p.wins_b),
                    number(&p.ties),
                ],
            )
            .unwrap())
        });
        let merged =
            fold_record_batches(counts_batches, &counts_schema, "merged", &options).unwrap();
        let merged_tally: BTreeMap<(String, String), [u64; 3]> = (0..merged.len())
            .map(|r| {
                let key = (merged.model_a[r].clone(), merged.model_b[r].clone());
                (key, [merged.wins_a[r], merged.wins_b[r], merged.ties[r]])
            })
            .collect();
        assert_eq!(merged_tally, tally);
        let whole =
            fold_record_batches(batches(&rows).into_iter(), &schema, "log", &options).unwrap();
        assert_eq!(whole, merged);

        let filtered = ReadOptions {
            filters: vec!["winner=nobody".parse().unwrap()],
            ..ReadOptions::default()
        };
        let empty =
            fold_record_batches(batches(&rows).into_iter(), &schema, "log", &filtered).unwrap();
        assert!(empty.is_empty());

        let mut broken = rows.clone();
        broken[2_345][2] = "draw";
        let error = fold_record_batches(batches(&broken).into_iter(), &schema, "log", &options)
            .unwrap_err()
            .to_string();
        assert!(error.contains("row 2346"), "{error}");
    }

    /// A pair whose summed counts pass 2^53 is refused as such, naming the pair, and a
    /// weighted (fractional) count as weighted.
    #[test]
    fn a_counts_table_refuses_counts_past_two_to_the_53_and_fractions() {
        let names = ["x".to_owned(), "y".to_owned()];
        let table = |cells: [f64; 3]| {
            let mut builder = PairCountsBuilder::default();
            builder.add(0, 1, cells);
            CountsTable::new(&names, &builder.finish(2), "log")
                .map(|t| t.wins_a[0])
                .map_err(|e| e.to_string())
        };
        assert_eq!(table([MAX_COUNT, 0.0, 0.0]), Ok(1 << 53));
        let past = table([2.0 * MAX_COUNT, 0.0, 0.0]).unwrap_err();
        assert!(
            past.contains("more than 2^53") && past.contains("\"x\""),
            "{past}"
        );
        let weighted = table([1.5, 0.0, 0.0]).unwrap_err();
        assert!(weighted.contains("weighted"), "{weighted}");
    }
}
