//! Battle logs in the LMArena schema: `model_a`, `model_b`, `winner`.

use std::path::Path;
use verdict_settings::Setting;

use verdict_feedback::{BattleLog, ModelId, Outcome};

use crate::filter::Filter;
#[cfg(feature = "parquet")]
use crate::parquet_io::{read_arrow_ipc, read_parquet};
use crate::text::{read_csv, read_json_array, read_json_lines};
use crate::{Format, IoError, Table};

/// Where the outcome of a battle is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WinnerColumns {
    /// One column of labels `model_a | model_b | tie | tie (bothbad)` (other spellings:
    /// see [`Outcome::parse`]).
    Label(String),
    /// One-hot columns (`winner_model_a, winner_model_b, winner_tie`): 1/true marks the
    /// outcome; a row with neither side set and no tie column set is an error.
    OneHot {
        /// Set when `model_a` won.
        a: String,
        /// Set when `model_b` won.
        b: String,
        /// Set for a tie; optional.
        tie: Option<String>,
    },
}

/// Which columns hold the two models and the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BattleSchema {
    /// First model's column (default `model_a`, or `left` in evalica-style files).
    pub model_a: String,
    /// Second model's column (default `model_b`, or `right`).
    pub model_b: String,
    /// The outcome.
    pub winner: WinnerColumns,
}

const ONE_HOT: [&str; 3] = ["winner_model_a", "winner_model_b", "winner_tie"];

impl BattleSchema {
    /// The LMArena schema: `model_a`, `model_b`, `winner`.
    pub fn lmarena() -> Self {
        Self {
            model_a: "model_a".into(),
            model_b: "model_b".into(),
            winner: WinnerColumns::Label("winner".into()),
        }
    }

    /// The schema naming these columns (the LMArena name where one is `None`), or
    /// `None` when no column is named, so that [`read_battles`] detects them.
    pub fn named(
        model_a: Option<String>,
        model_b: Option<String>,
        winner: Option<String>,
    ) -> Option<Self> {
        if model_a.is_none() && model_b.is_none() && winner.is_none() {
            return None;
        }
        let default = Self::lmarena();
        Some(Self {
            model_a: model_a.unwrap_or(default.model_a),
            model_b: model_b.unwrap_or(default.model_b),
            winner: winner.map_or(default.winner, WinnerColumns::Label),
        })
    }

    /// Every column name the automatic schema may use.
    fn candidate_columns() -> Vec<String> {
        ["model_a", "model_b", "winner", "left", "right"]
            .into_iter()
            .chain(ONE_HOT)
            .map(str::to_owned)
            .collect()
    }

    /// Picks the schema from the columns present: `model_a`/`model_b`, else
    /// `left`/`right`; a `winner` label column, else the one-hot columns.
    pub(crate) fn detect(table: &Table) -> Self {
        let present = table.present_columns();
        let has = |name: &str| present.iter().any(|p| p == name);
        let (model_a, model_b) = if !has("model_a") && has("left") && has("right") {
            ("left", "right")
        } else {
            ("model_a", "model_b")
        };
        let winner = if has("winner") || !(has(ONE_HOT[0]) && has(ONE_HOT[1])) {
            WinnerColumns::Label("winner".into())
        } else {
            WinnerColumns::OneHot {
                a: ONE_HOT[0].into(),
                b: ONE_HOT[1].into(),
                tie: has(ONE_HOT[2]).then(|| ONE_HOT[2].into()),
            }
        };
        Self {
            model_a: model_a.into(),
            model_b: model_b.into(),
            winner,
        }
    }

    pub(crate) fn columns(&self) -> Vec<String> {
        let mut columns = vec![self.model_a.clone(), self.model_b.clone()];
        match &self.winner {
            WinnerColumns::Label(c) => columns.push(c.clone()),
            WinnerColumns::OneHot { a, b, tie } => {
                columns.extend([a.clone(), b.clone()]);
                columns.extend(tie.clone());
            }
        }
        columns
    }
}

/// How to read a battle log.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The file format; `None` tells it from the extension.
    pub format: Option<Format>,
    /// The columns; `None` detects them (see [`BattleSchema`]).
    pub schema: Option<BattleSchema>,
    /// Rows must pass every filter.
    pub filters: Vec<Filter>,
    /// Sort battles by this column (numeric when every value is a number), stably.
    pub order_by: Option<String>,
    /// Further columns kept as metadata beside the log.
    pub keep: Vec<String>,
    /// Drop rows where a model battles itself (counted in
    /// [`LoadedBattles::self_battles_skipped`]) instead of failing on the first one.
    pub skip_self_battles: bool,
}

/// A battle log with the metadata columns asked for, row for row.
#[derive(Debug, Clone)]
pub struct LoadedBattles {
    /// The battles, in log order (or `order_by` order).
    pub log: BattleLog,
    /// The filter, order and kept columns of the same rows.
    pub metadata: Table,
    /// Rows in the file before filtering.
    pub rows_read: usize,
    /// Rows dropped because a model battled itself (with `skip_self_battles`).
    pub self_battles_skipped: usize,
}

/// Where a table comes from: a file, bytes already in memory (standard input, data
/// bundled in a program) with a label used in messages, or a table already read (from
/// Arrow batches a Python frame handed over, say).
#[derive(Debug, Clone)]
pub enum Source {
    /// A file on disk.
    File(std::path::PathBuf),
    /// In-memory bytes and the name to show for them.
    Bytes {
        /// Shown in messages in place of a file name.
        label: String,
        /// The file's content.
        data: Vec<u8>,
    },
    /// A table already in memory; its [`Table::file`] is the label.
    Table(std::sync::Arc<Table>),
}

impl Source {
    /// The name shown in messages.
    pub fn label(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Bytes { label, .. } => label.clone(),
            Source::Table(table) => table.file().to_owned(),
        }
    }

    /// How a result or a page names the source: a file by its base name
    /// ([`shown_name`]), anything else by its label.
    pub fn shown_name(&self) -> String {
        match self {
            Source::File(path) => shown_name(path),
            _ => self.label(),
        }
    }
}

/// How a result or a page names an input file: its base name, never the directories
/// above it — a page is meant to be shared, and `/home/NAME/logs/x.csv` would tell
/// where the user keeps their files.
pub fn shown_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// Whether `path` names something that exists and is not a regular file — a device,
/// a pipe, a socket or a folder (links followed): an input read whole from there
/// could block or never end (`/dev/zero`), so a reader refuses it before opening.
pub fn not_a_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// Reads any table (format from `format` or the source's extension). `wanted` limits
/// the columns read; `None` reads all.
///
/// # Errors
/// [`IoError`] naming file, line or record, and column.
pub fn read_table(
    source: &Source,
    format: Option<Format>,
    wanted: Option<&[String]>,
) -> Result<Table, IoError> {
    let label = source.label();
    let format = || match format {
        Some(f) => Ok(f),
        None => Format::from_path(Path::new(&label)),
    };
    match source {
        Source::Table(table) => Ok(table.project(wanted)),
        Source::File(path) => {
            let format = format()?;
            let file = std::fs::File::open(path).map_err(|source| IoError::Read {
                path: path.clone(),
                source,
            })?;
            match format {
                Format::Csv => read_csv(file, &label, wanted),
                Format::JsonLines => read_json_lines(file, &label, wanted),
                Format::Json => read_json_array(file, &label, wanted),
                #[cfg(feature = "parquet")]
                Format::Parquet => read_parquet(file, &label, wanted),
                #[cfg(feature = "parquet")]
                Format::Arrow => read_arrow_ipc(file, &label, wanted),
                #[cfg(not(feature = "parquet"))]
                Format::Parquet | Format::Arrow => Err(without_parquet(&label)),
            }
        }
        Source::Bytes { data, .. } => match format()? {
            Format::Csv => read_csv(data.as_slice(), &label, wanted),
            Format::JsonLines => read_json_lines(data.as_slice(), &label, wanted),
            Format::Json => read_json_array(data.as_slice(), &label, wanted),
            #[cfg(feature = "parquet")]
            Format::Parquet => read_parquet(bytes::Bytes::from(data.clone()), &label, wanted),
            #[cfg(feature = "parquet")]
            Format::Arrow => read_arrow_ipc(std::io::Cursor::new(data.as_slice()), &label, wanted),
            #[cfg(not(feature = "parquet"))]
            Format::Parquet | Format::Arrow => Err(without_parquet(&label)),
        },
    }
}

/// The error for a Parquet table in a build without the `parquet` feature.
#[cfg(not(feature = "parquet"))]
fn without_parquet(label: &str) -> IoError {
    IoError::Invalid {
        location: crate::Location {
            file: label.into(),
            row: None,
            column: None,
        },
        message: "this build of verdict reads no Parquet or Arrow (built without the `parquet` feature); convert the table to CSV or JSON Lines, or build with the feature".into(),
    }
}

/// Reads a battle log, applying filters and the order column.
///
/// # Errors
/// A missing column, an unknown winner label, a missing model name, a model battling
/// itself, a malformed row, or no battle left after filtering: each an [`IoError`] that
/// names file, row and column.
pub fn read_battles(source: &Source, options: &ReadOptions) -> Result<LoadedBattles, IoError> {
    let table = read_table(source, options.format, Some(&battle_columns(options)))?;
    battles_from_table(&table, options)
}

/// Every column a battle log read with `options` may use: the schema's (or every
/// column the automatic schema may pick), the filters', the order column and the kept
/// ones. Reading only these keeps a wide table cheap.
pub fn battle_columns(options: &ReadOptions) -> Vec<String> {
    let mut wanted = match &options.schema {
        Some(schema) => schema.columns(),
        None => BattleSchema::candidate_columns(),
    };
    wanted.extend(extra_columns(options));
    wanted
}

/// The filter, order and kept columns of `options`.
fn extra_columns(options: &ReadOptions) -> Vec<String> {
    options
        .filters
        .iter()
        .map(|f| f.column.clone())
        .chain(options.order_by.clone())
        .chain(options.keep.iter().cloned())
        .collect()
}

/// The battle log in a table already read (from a file, or from Arrow batches handed
/// over in memory), with `options`' schema, filters, order and kept columns; the
/// table's `format` and `wanted` settings are the reader's business.
///
/// # Errors
/// As [`read_battles`].
pub fn battles_from_table(table: &Table, options: &ReadOptions) -> Result<LoadedBattles, IoError> {
    let schema = match &options.schema {
        Some(schema) => schema.clone(),
        None => {
            if let Some(counts) = crate::count_columns::CountColumns::detect(table) {
                return Err(IoError::invalid_file(
                    table.file(),
                    format!(
                        "this table holds battle counts ({}), not one battle per row; Bradley–Terry and the lottery read it (`verdict rank --method bt|lottery`), what reads each battle (Elo, weights, groups, an order, vote hygiene) needs the battles themselves",
                        counts.describe()
                    ),
                ));
            }
            BattleSchema::detect(table)
        }
    };
    let mut rows = filtered_rows(table, &schema, options)?;
    if rows.is_empty() {
        return Err(no_battles(table.file(), table.rows(), &options.filters));
    }
    if let Some(column) = &options.order_by {
        sort_rows(table, column, &mut rows)?;
    }
    let (log, kept) = build_log(table, &schema, &rows, options.skip_self_battles)?;
    if log.is_empty() {
        return Err(IoError::invalid_file(
            table.file(),
            "no battles left: every remaining row has a model battling itself",
        ));
    }
    let metadata = table.select_rows(&kept);
    Ok(LoadedBattles {
        log,
        metadata,
        rows_read: table.rows(),
        self_battles_skipped: rows.len() - kept.len(),
    })
}

/// The rows of `table` that pass `options`' filters, once every column `schema` and
/// `options` name is checked to be there.
pub(crate) fn filtered_rows(
    table: &Table,
    schema: &BattleSchema,
    options: &ReadOptions,
) -> Result<Vec<usize>, IoError> {
    for column in schema.columns().iter().chain(&extra_columns(options)) {
        require_column(table, column)?;
    }
    Ok(selected_rows(table, &options.filters))
}

/// The error for a log left without battles: empty, or emptied by the filters.
pub(crate) fn no_battles(file: &str, rows_read: usize, filters: &[Filter]) -> IoError {
    let message = if rows_read == 0 {
        "the log holds no battles".to_owned()
    } else {
        let filters: Vec<String> = filters.iter().map(ToString::to_string).collect();
        format!(
            "no battles left after filtering with {} ({rows_read} rows read); check the filter values",
            filters.join(", "),
        )
    };
    IoError::invalid_file(file, message)
}

pub(crate) fn require_column(table: &Table, column: &str) -> Result<(), IoError> {
    if table.column(column).is_some() {
        return Ok(());
    }
    let hint = match column {
        "model_a" | "model_b" => format!("name the model columns with {model_a_column}/{model_b_column}", model_a_column = Setting("model_a_column"), model_b_column = Setting("model_b_column")),
        "winner" => format!("name the outcome column with {winner_column}, or provide one-hot columns winner_model_a, winner_model_b, winner_tie", winner_column = Setting("winner_column")),
        _ => "check the column name (names are case-sensitive)".to_owned(),
    };
    Err(IoError::MissingColumn {
        file: table.file().to_owned(),
        column: column.to_owned(),
        present: table.present_columns_shown(),
        hint,
    })
}

pub(crate) fn selected_rows(table: &Table, filters: &[Filter]) -> Vec<usize> {
    let columns: Vec<_> = filters
        .iter()
        .map(|f| table.column(&f.column).expect("checked by require_column"))
        .collect();
    (0..table.rows())
        .filter(|&row| {
            filters
                .iter()
                .zip(&columns)
                .all(|(filter, column)| filter.accepts(column.value(row)))
        })
        .collect()
}

fn sort_rows(table: &Table, column_name: &str, rows: &mut [usize]) -> Result<(), IoError> {
    let column = table
        .column(column_name)
        .expect("checked by require_column");
    if let Some(&row) = rows.iter().find(|&&r| column.value(r).is_none()) {
        return Err(IoError::invalid(
            table.location(row, Some(column_name)),
            "missing value in the order column; every battle needs one",
        ));
    }
    let parsed: Vec<Option<f64>> = column
        .dictionary()
        .iter()
        .map(|v| v.trim().parse::<f64>().ok().filter(|x| !x.is_nan()))
        .collect();
    let code = |row: usize| column.code(row).expect("checked above");
    // Numbers sort as numbers and text as text; a mixture has no order to trust (one
    // "n/a" among timestamps would sort 10 before 9), so it is refused.
    let any_number = rows.iter().any(|&r| parsed[code(r)].is_some());
    if any_number {
        if let Some(&row) = rows.iter().find(|&&r| parsed[code(r)].is_none()) {
            return Err(IoError::invalid(
                table.location(row, Some(column_name)),
                format!(
                    "{:?} in an order column of numbers; write a number, drop the row, or filter it out",
                    column.dictionary()[code(row)]
                ),
            ));
        }
    }
    let numeric: Option<Vec<f64>> =
        any_number.then(|| parsed.iter().map(|v| v.unwrap_or(f64::INFINITY)).collect());
    match numeric {
        Some(keys) => rows.sort_by(|&x, &y| keys[code(x)].total_cmp(&keys[code(y)])),
        None => {
            rows.sort_by(|&x, &y| column.dictionary()[code(x)].cmp(&column.dictionary()[code(y)]))
        }
    }
    Ok(())
}

/// Maps dictionary codes to values lazily, so each distinct value is parsed once and
/// models enter the interner in order of first appearance among the kept rows.
struct CodeCache<T> {
    values: Vec<Option<T>>,
}

impl<T: Copy> CodeCache<T> {
    fn new(size: usize) -> Self {
        Self {
            values: vec![None; size],
        }
    }

    fn get_or<E>(&mut self, code: usize, make: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        if let Some(value) = self.values[code] {
            return Ok(value);
        }
        let value = make()?;
        self.values[code] = Some(value);
        Ok(value)
    }
}

/// The log of `rows` and the rows it kept (all of them unless self-battles are skipped).
pub(crate) fn build_log(
    table: &Table,
    schema: &BattleSchema,
    rows: &[usize],
    skip_self_battles: bool,
) -> Result<(BattleLog, Vec<usize>), IoError> {
    let column = |name: &str| table.column(name).expect("checked by require_column");
    let (column_a, column_b) = (column(&schema.model_a), column(&schema.model_b));
    let mut log = BattleLog::new();
    let mut ids_a = CodeCache::<ModelId>::new(column_a.dictionary().len());
    let mut ids_b = CodeCache::<ModelId>::new(column_b.dictionary().len());
    let mut outcomes = OutcomeReader::new(table, &schema.winner);
    let mut kept = Vec::with_capacity(rows.len());
    for &row in rows {
        let missing = |name: &str| {
            IoError::invalid(
                table.location(row, Some(name)),
                "missing model name; every battle needs two models",
            )
        };
        let code_a = column_a.code(row).ok_or_else(|| missing(&schema.model_a))?;
        let code_b = column_b.code(row).ok_or_else(|| missing(&schema.model_b))?;
        let a = ids_a.get_or(code_a, || {
            Ok::<_, IoError>(log.models_mut().intern(&column_a.dictionary()[code_a]))
        })?;
        let b = ids_b.get_or(code_b, || {
            Ok::<_, IoError>(log.models_mut().intern(&column_b.dictionary()[code_b]))
        })?;
        let outcome = outcomes.read(row)?;
        if a == b {
            if skip_self_battles {
                continue;
            }
            return Err(IoError::invalid(
                table.location(row, Some(&schema.model_b)),
                format!(
                    "model {:?} battles itself; fix the model name, or set {skip_self_battles} to drop such rows",
                    log.models().name(a), skip_self_battles = Setting("skip_self_battles")
                ),
            ));
        }
        log.push_ids(a, b, outcome);
        kept.push(row);
    }
    Ok((log.with_models_by_name(), kept))
}

/// Reads outcomes from label or one-hot columns with located errors.
struct OutcomeReader<'a> {
    table: &'a Table,
    winner: &'a WinnerColumns,
    labels: CodeCache<Outcome>,
}

impl<'a> OutcomeReader<'a> {
    fn new(table: &'a Table, winner: &'a WinnerColumns) -> Self {
        let size = match winner {
            WinnerColumns::Label(name) => table.column(name).map_or(0, |c| c.dictionary().len()),
            WinnerColumns::OneHot { .. } => 0,
        };
        Self {
            table,
            winner,
            labels: CodeCache::new(size),
        }
    }

    fn read(&mut self, row: usize) -> Result<Outcome, IoError> {
        let table = self.table;
        match self.winner {
            WinnerColumns::Label(name) => {
                let column = table.column(name).expect("checked by require_column");
                let location = || table.location(row, Some(name));
                let code = column.code(row).ok_or_else(|| {
                    IoError::invalid(
                        location(),
                        "missing winner; expected model_a | model_b | tie | tie (bothbad)",
                    )
                })?;
                self.labels.get_or(code, || {
                    Outcome::parse(&column.dictionary()[code])
                        .map_err(|e| IoError::invalid(location(), e.to_string()))
                })
            }
            WinnerColumns::OneHot { a, b, tie } => {
                let flag = |name: &str| one_hot_flag(table, row, name);
                let a_won = flag(a)?;
                let b_won = flag(b)?;
                let tied = match tie {
                    Some(name) => flag(name)?,
                    None => false,
                };
                match (a_won, b_won, tied) {
                    (true, false, false) => Ok(Outcome::WinA),
                    (false, true, false) => Ok(Outcome::WinB),
                    (false, false, true) => Ok(Outcome::Tie),
                    _ => Err(IoError::invalid(
                        table.location(row, None),
                        format!(
                            "one-hot winner columns {a}, {b}{} must mark exactly one outcome",
                            tie.as_ref().map(|t| format!(", {t}")).unwrap_or_default()
                        ),
                    )),
                }
            }
        }
    }
}

fn one_hot_flag(table: &Table, row: usize, name: &str) -> Result<bool, IoError> {
    let column = table.column(name).expect("checked by require_column");
    match column.value(row).map(str::trim) {
        Some("1" | "1.0" | "true" | "True" | "TRUE") => Ok(true),
        Some("0" | "0.0" | "false" | "False" | "FALSE") => Ok(false),
        other => Err(IoError::invalid(
            table.location(row, Some(name)),
            format!("expected 0 or 1, found {:?}", other.unwrap_or("")),
        )),
    }
}

/// Writes a battle log with the LMArena columns `model_a, model_b, winner`, as CSV or
/// Parquet by the file's extension (`.csv`, `.parquet`), atomically.
///
/// # Errors
/// [`IoError::Invalid`] for another extension (or Parquet in a build without it); [`IoError::Write`] when the file cannot be written.
pub fn write_battles(path: &Path, log: &verdict_feedback::BattleLog) -> Result<(), IoError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => {
            let names = log.models();
            let mut writer = csv::Writer::from_writer(Vec::new());
            let header = ["model_a", "model_b", "winner"];
            let rows = log
                .iter()
                .map(|(a, b, outcome)| [names.name(a), names.name(b), outcome.label()]);
            let written = std::iter::once(header)
                .chain(rows)
                .try_for_each(|record| writer.write_record(record));
            let bytes = written
                .map_err(std::io::Error::other)
                .and_then(|()| writer.into_inner().map_err(|e| e.into_error()))
                .map_err(|source| IoError::Write {
                    path: path.to_path_buf(),
                    source,
                })?;
            crate::write_bytes_atomic(path, &bytes)
        }
        #[cfg(feature = "parquet")]
        Some("parquet") => crate::write_battles_parquet(path, log),
        _ => Err(IoError::Invalid {
            location: crate::Location {
                file: path.display().to_string(),
                row: None,
                column: None,
            },
            message: "write a battle log as .csv or .parquet".into(),
        }),
    }
}
