//! Parquet through Arrow: projected reading into dictionary-encoded columns, and
//! writing battle logs.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::file::reader::ChunkReader;
use verdict_feedback::BattleLog;

use crate::table::{ColumnBuilder, RowRefs};
use crate::text::Wanted;
use crate::{write_atomic, IoError, Table};

const BATCH_ROWS: usize = 1 << 16;

/// Refuses a footer whose column chunks lie outside the file: the parquet crate
/// asserts (panics) on negative offsets or sizes when it reads such a chunk, so the
/// footer is checked before any data is read.
fn check_column_chunks(
    metadata: &parquet::file::metadata::ParquetMetaData,
    file_length: u64,
    file: &str,
) -> Result<(), IoError> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or_else(|| column.data_page_offset());
            let length = column.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(length).ok())
                .and_then(|(start, length)| start.checked_add(length))
                .is_some_and(|end| end <= file_length);
            if !inside {
                return Err(IoError::invalid_file(
                    file,
                    format!(
                        "not a readable Parquet file: row group {g}, column {:?} claims bytes {start}..+{length} of a {file_length}-byte file (the file is damaged)",
                        column.column_path().string()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Reads the wanted top-level columns of a Parquet file.
pub(crate) fn read_parquet<T: ChunkReader + 'static>(
    handle: T,
    file: &str,
    wanted: Wanted<'_>,
) -> Result<Table, IoError> {
    let mut whole = None;
    stream_parquet(handle, file, wanted, usize::MAX, |table| {
        whole = Some(table);
        Ok(())
    })?;
    Ok(whole.expect("a stream hands over at least one table"))
}

/// Reads the wanted top-level columns of a Parquet file as consecutive tables of about
/// `chunk_rows` rows (whole record batches; the last may be shorter, and a file without
/// rows gives one empty table), handing each to `visit` before the next is decoded:
/// memory holds one chunk, whatever the file's length. Row numbers in the chunks'
/// messages count from the file's first row.
pub(crate) fn stream_parquet<T: ChunkReader + 'static>(
    handle: T,
    file: &str,
    wanted: Wanted<'_>,
    chunk_rows: usize,
    visit: impl FnMut(Table) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let not_parquet = |e: parquet::errors::ParquetError| {
        IoError::invalid_file(file, format!("not a readable Parquet file: {e}"))
    };
    let plain =
        ArrowReaderMetadata::load(&handle, ArrowReaderOptions::new()).map_err(not_parquet)?;
    check_column_chunks(plain.metadata(), handle.len(), file)?;
    // Ask for string columns as dictionaries: Parquet stores them dictionary-encoded,
    // so each batch then arrives as a few distinct strings plus integer keys, and no
    // per-row string is ever materialised.
    let dictionary_schema = Schema::new(
        plain
            .schema()
            .fields()
            .iter()
            .map(|field| match field.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 => {
                    Arc::new(field.as_ref().clone().with_data_type(DataType::Dictionary(
                        Box::new(DataType::Int32),
                        Box::new(field.data_type().clone()),
                    )))
                }
                _ => field.clone(),
            })
            .collect::<Vec<_>>(),
    );
    let metadata = ArrowReaderMetadata::try_new(
        plain.metadata().clone(),
        ArrowReaderOptions::new().with_schema(Arc::new(dictionary_schema)),
    )
    .map_err(not_parquet)?;
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(handle, metadata);
    let schema = builder.schema().clone();
    let present = column_names(&schema);
    let indices = wanted_indices(&present, wanted);
    let mask = ProjectionMask::roots(builder.parquet_schema(), indices.iter().copied());
    let mut reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(not_parquet)?;
    let projected: Vec<String> = indices.iter().map(|&i| present[i].clone()).collect();
    let batches = |rows| match next_batch(&mut reader, file, rows)? {
        None => Ok(None),
        Some(batch) => batch.map(Some).map_err(|e| unreadable(file, rows, e)),
    };
    tables_from_batches(file, &present, &projected, chunk_rows, batches, visit)
}

/// A table from Arrow record batches handed over in memory (through the Arrow C stream
/// interface, say): the columns of `schema` that `wanted` names (all when `None`), read
/// the way a Parquet file's are; `label` names the table in messages.
///
/// # Errors
/// A batch the producer failed to deliver, or a column of a nested type.
pub fn read_record_batches(
    batches: impl Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>>,
    schema: &Schema,
    label: &str,
    wanted: Option<&[String]>,
) -> Result<Table, IoError> {
    let mut whole = None;
    stream_record_batches(batches, schema, label, wanted, usize::MAX, |table| {
        whole = Some(table);
        Ok(())
    })?;
    Ok(whole.expect("a stream hands over at least one table"))
}

/// Record batches handed over in memory, read as [`read_record_batches`] does but handed
/// to `visit` as tables of `chunk_rows` rows (the last one shorter) as soon as each is
/// complete, so that memory holds one chunk however long the stream is. Row numbers in
/// messages count from the stream's start.
///
/// # Errors
/// A batch the producer failed to deliver, a column of a nested type, or `visit`'s.
pub fn stream_record_batches(
    mut batches: impl Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>>,
    schema: &Schema,
    label: &str,
    wanted: Option<&[String]>,
    chunk_rows: usize,
    visit: impl FnMut(Table) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let present = column_names(schema);
    let indices = wanted_indices(&present, wanted);
    let projected: Vec<String> = indices.iter().map(|&i| present[i].clone()).collect();
    let next = |rows| {
        batches
            .next()
            .transpose()
            .and_then(|batch| batch.map(|b| b.project(&indices)).transpose())
            .map_err(|e| unreadable(label, rows, e))
    };
    tables_from_batches(label, &present, &projected, chunk_rows, next, visit)
}

/// Reads an Arrow IPC file (Feather v2) the way a Parquet file's record batches are
/// read ([`read_record_batches`]).
///
/// # Errors
/// [`IoError`] when the data is not an Arrow IPC file, a batch cannot be decoded, or
/// a column is of a nested type.
pub(crate) fn read_arrow_ipc<R: std::io::Read + std::io::Seek>(
    handle: R,
    file: &str,
    wanted: Wanted<'_>,
) -> Result<Table, IoError> {
    let reader = arrow::ipc::reader::FileReader::try_new(handle, None).map_err(|e| {
        IoError::invalid_file(
            file,
            format!("not a readable Arrow IPC (Feather) file: {e}"),
        )
    })?;
    let schema = reader.schema();
    read_record_batches(reader, &schema, file, wanted)
}

fn column_names(schema: &Schema) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// Positions of the columns of `present` that `wanted` names (all when `None`).
fn wanted_indices(present: &[String], wanted: Wanted<'_>) -> Vec<usize> {
    (0..present.len())
        .filter(|&i| wanted.is_none_or(|w| w.contains(&present[i])))
        .collect()
}

fn unreadable(file: &str, rows: usize, error: arrow::error::ArrowError) -> IoError {
    IoError::invalid_file(file, format!("unreadable data after row {rows}: {error}"))
}

/// The columns `projected` (in batch order) of the batches `next_batch` hands over —
/// it is told how many rows came before, for its messages — as tables of at least
/// `chunk_rows` rows (but the last), each handed to `visit` as soon as it is complete;
/// `present` lists every column of the source, for messages about missing ones.
fn tables_from_batches(
    file: &str,
    present: &[String],
    projected: &[String],
    chunk_rows: usize,
    mut next_batch: impl FnMut(usize) -> Result<Option<RecordBatch>, IoError>,
    mut visit: impl FnMut(Table) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let new_builders = || -> Vec<ColumnBuilder> {
        projected
            .iter()
            .map(|name| ColumnBuilder::new(name))
            .collect()
    };
    let mut builders = new_builders();
    let (mut rows, mut chunk_start) = (0usize, 0usize);
    let mut finish_chunk = |builders: Vec<ColumnBuilder>, start: usize, end: usize| {
        let columns = builders.into_iter().map(ColumnBuilder::finish).collect();
        visit(Table::new(
            file,
            present.to_vec(),
            columns,
            end - start,
            RowRefs::records_from(start as u64 + 1),
        ))
    };
    while let Some(batch) = next_batch(rows)? {
        for (builder, array) in builders.iter_mut().zip(batch.columns()) {
            append_array(builder, array).map_err(|message| {
                IoError::invalid(
                    crate::Location {
                        file: file.to_owned(),
                        row: Some(crate::RowRef::Record(rows as u64 + 1)),
                        column: Some(builder.name().to_owned()),
                    },
                    message,
                )
            })?;
        }
        rows += batch.num_rows();
        if rows - chunk_start >= chunk_rows {
            finish_chunk(
                std::mem::replace(&mut builders, new_builders()),
                chunk_start,
                rows,
            )?;
            chunk_start = rows;
        }
    }
    if rows > chunk_start || rows == 0 {
        finish_chunk(builders, chunk_start, rows)?;
    }
    Ok(())
}

/// The next batch of the decoder. The parquet crate asserts (panics) on some damaged
/// pages — an over-long varint, an impossible bit width — instead of returning an
/// error, and a damaged page cannot be recognised before decoding it; a panic there is
/// therefore caught here and reported as the damaged file it is. The decoder is not
/// used again after a panic.
fn next_batch(
    reader: &mut parquet::arrow::arrow_reader::ParquetRecordBatchReader,
    file: &str,
    rows: usize,
) -> Result<Option<Result<RecordBatch, arrow::error::ArrowError>>, IoError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next())).map_err(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("the decoder failed");
        IoError::invalid_file(
            file,
            format!("not a readable Parquet file: damaged data after row {rows} ({reason})"),
        )
    })
}

/// Appends every value of `array` as text; dictionary arrays map their (few) distinct
/// values once, so a categorical column costs one lookup per row.
fn append_array(builder: &mut ColumnBuilder, array: &ArrayRef) -> Result<(), String> {
    if let Some(dictionary) = array.as_any_dictionary_opt() {
        let mut value_codes = Vec::with_capacity(dictionary.values().len());
        for_each_text(dictionary.values(), |text| {
            value_codes.push(text.map(|t| builder.code_of(t)));
        })?;
        let keys = dictionary.normalized_keys();
        for (row, key) in keys.into_iter().enumerate() {
            let code = if array.is_null(row) {
                None
            } else {
                value_codes.get(key).copied().flatten()
            };
            builder.push_code(code);
        }
        return Ok(());
    }
    for_each_text(array.as_ref(), |text| builder.push(text))
}

/// Calls `visit` with the text of each value (`None` for null) of a flat array.
fn for_each_text(array: &dyn Array, mut visit: impl FnMut(Option<&str>)) -> Result<(), String> {
    match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().for_each(visit),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().for_each(visit),
        DataType::Utf8View => array.as_string_view().iter().for_each(visit),
        DataType::Boolean => array
            .as_boolean()
            .iter()
            .for_each(|b| visit(b.map(|b| if b { "true" } else { "false" }))),
        // A list of strings (a menu, a ranking) reads as its JSON array text, the
        // same as a JSON Lines array.
        DataType::List(item) if item.data_type() == &DataType::Utf8 => {
            let lists = array.as_list::<i32>();
            for row in 0..lists.len() {
                if lists.is_null(row) {
                    visit(None);
                    continue;
                }
                let values = lists.value(row);
                let items: Vec<Option<&str>> = values.as_string::<i32>().iter().collect();
                visit(Some(
                    &serde_json::to_string(&items).expect("strings serialise"),
                ));
            }
        }
        // A struct (LMArena's `conv_metadata`) reads as its JSON object text, the same
        // as a JSON Lines object, so dotted paths reach its fields.
        DataType::Struct(_) => {
            for value in json_values(array)? {
                match value {
                    serde_json::Value::Null => visit(None),
                    object => visit(Some(&object.to_string())),
                }
            }
        }
        DataType::Map(_, _) => {
            return Err(format!(
                "nested type {} is not supported here; flatten the column",
                array.data_type()
            ))
        }
        _ => {
            let formatter = ArrayFormatter::try_new(array, &FormatOptions::default())
                .map_err(|e| format!("cannot read type {}: {e}", array.data_type()))?;
            let mut text = String::new();
            for row in 0..array.len() {
                if array.is_null(row) {
                    visit(None);
                } else {
                    text.clear();
                    use std::fmt::Write;
                    write!(text, "{}", formatter.value(row)).map_err(|e| e.to_string())?;
                    visit(Some(&text));
                }
            }
        }
    }
    Ok(())
}

/// The JSON value of each row of `array`: structs as objects (recursively), numbers
/// as numbers, booleans as booleans, anything else as its display text; null as null.
fn json_values(array: &dyn Array) -> Result<Vec<serde_json::Value>, String> {
    use serde_json::Value;
    if let DataType::Struct(fields) = array.data_type() {
        let structs = array.as_struct();
        let children: Vec<Vec<Value>> = structs
            .columns()
            .iter()
            .map(|child| json_values(child.as_ref()))
            .collect::<Result<_, _>>()?;
        return Ok((0..array.len())
            .map(|row| {
                if array.is_null(row) {
                    return Value::Null;
                }
                let object = fields
                    .iter()
                    .zip(&children)
                    .map(|(field, values)| (field.name().clone(), values[row].clone()))
                    .collect();
                Value::Object(object)
            })
            .collect());
    }
    let mut values = Vec::with_capacity(array.len());
    let numeric = array.data_type().is_numeric();
    let boolean = array.data_type() == &DataType::Boolean;
    let mut push = |text: Option<&str>| {
        values.push(match text {
            None => Value::Null,
            Some(t) if numeric => t
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| Value::String(t.to_owned()), Value::Number),
            Some(t) if boolean => Value::Bool(t == "true"),
            Some(t) => Value::String(t.to_owned()),
        })
    };
    for_each_text(array, &mut push)?;
    Ok(values)
}

/// Writes a battle log as Parquet with the LMArena columns `model_a`, `model_b`,
/// `winner` (plain UTF-8 strings, Snappy-compressed, dictionary-encoded pages).
///
/// # Errors
/// [`IoError::Write`] when the file cannot be written.
pub fn write_battles_parquet(path: &Path, log: &BattleLog) -> Result<(), IoError> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("model_a", DataType::Utf8, false),
        Field::new("model_b", DataType::Utf8, false),
        Field::new("winner", DataType::Utf8, false),
    ]));
    let names = log.models();
    let batches = (0..log.len()).step_by(BATCH_ROWS * 4).map(|start| {
        let rows = start..(start + BATCH_ROWS * 4).min(log.len());
        let model_a: StringArray = rows
            .clone()
            .map(|r| Some(names.name(log.battle(r).0)))
            .collect();
        let model_b: StringArray = rows
            .clone()
            .map(|r| Some(names.name(log.battle(r).1)))
            .collect();
        let winner: StringArray = rows.map(|r| Some(log.battle(r).2.label())).collect();
        let columns: Vec<ArrayRef> = vec![Arc::new(model_a), Arc::new(model_b), Arc::new(winner)];
        columns
    });
    write_batches(path, schema, batches)
}

/// One column of a table to write: its name and values.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    /// 64-bit floats.
    Float(Vec<f64>),
    /// Unsigned integers.
    UInt(Vec<u64>),
    /// UTF-8 strings.
    Text(Vec<String>),
    /// A list of floats per row.
    FloatList(Vec<Vec<f64>>),
    /// A list of strings per row.
    TextList(Vec<Vec<String>>),
}

impl ColumnData {
    fn len(&self) -> usize {
        match self {
            Self::Float(v) => v.len(),
            Self::UInt(v) => v.len(),
            Self::Text(v) => v.len(),
            Self::FloatList(v) => v.len(),
            Self::TextList(v) => v.len(),
        }
    }

    fn data_type(&self) -> DataType {
        let item = |t| DataType::List(Arc::new(Field::new("item", t, false)));
        match self {
            Self::Float(_) => DataType::Float64,
            Self::UInt(_) => DataType::UInt64,
            Self::Text(_) => DataType::Utf8,
            Self::FloatList(_) => item(DataType::Float64),
            Self::TextList(_) => item(DataType::Utf8),
        }
    }

    /// Rows `rows` as an Arrow array.
    fn slice(&self, rows: std::ops::Range<usize>) -> ArrayRef {
        use arrow::array::{Float64Array, Float64Builder, ListBuilder, StringBuilder, UInt64Array};
        let field = |t| Arc::new(Field::new("item", t, false));
        match self {
            Self::Float(v) => Arc::new(Float64Array::from(v[rows].to_vec())),
            Self::UInt(v) => Arc::new(UInt64Array::from(v[rows].to_vec())),
            Self::Text(v) => Arc::new(v[rows].iter().map(Some).collect::<StringArray>()),
            Self::FloatList(v) => {
                let mut builder =
                    ListBuilder::new(Float64Builder::new()).with_field(field(DataType::Float64));
                for row in &v[rows] {
                    builder.values().append_slice(row);
                    builder.append(true);
                }
                Arc::new(builder.finish())
            }
            Self::TextList(v) => {
                let mut builder =
                    ListBuilder::new(StringBuilder::new()).with_field(field(DataType::Utf8));
                for row in &v[rows] {
                    for item in row {
                        builder.values().append_value(item);
                    }
                    builder.append(true);
                }
                Arc::new(builder.finish())
            }
        }
    }
}

/// Writes named columns of equal length as one Parquet table (Snappy-compressed),
/// atomically: on any error nothing is left at `path`.
///
/// # Errors
/// [`IoError::Write`] when the columns differ in length or the file cannot be written.
pub fn write_parquet_table(path: &Path, columns: &[(&str, ColumnData)]) -> Result<(), IoError> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    if let Some((name, column)) = columns.iter().find(|(_, c)| c.len() != rows) {
        return Err(IoError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "column {name} has {} rows, the first column {rows}",
                column.len()
            )),
        });
    }
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, c)| Field::new(*name, c.data_type(), false))
            .collect::<Vec<_>>(),
    ));
    let starts = (0..rows.max(1)).step_by(BATCH_ROWS);
    let batches = starts.map(|start| {
        let range = start..(start + BATCH_ROWS).min(rows);
        columns
            .iter()
            .map(|(_, c)| c.slice(range.clone()))
            .collect()
    });
    write_batches(path, schema, batches)
}

/// Writes record batches (given as their columns) to a Parquet file atomically.
fn write_batches(
    path: &Path,
    schema: Arc<Schema>,
    batches: impl Iterator<Item = Vec<ArrayRef>>,
) -> Result<(), IoError> {
    let write_error = |e: parquet::errors::ParquetError| IoError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    write_atomic::<IoError, _>(path, |out| {
        let properties = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let mut writer =
            ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(write_error)?;
        for columns in batches {
            let batch =
                RecordBatch::try_new(schema.clone(), columns).map_err(|e| write_error(e.into()))?;
            writer.write(&batch).map_err(write_error)?;
        }
        writer.close().map_err(write_error)?;
        Ok(())
    })
}
