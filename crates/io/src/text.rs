//! Readers of the text formats: CSV, JSON Lines, and a JSON array of objects.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};

use serde_json::Value;

use crate::table::{ColumnBuilder, RowRefs};
use crate::{IoError, Location, RowRef, Table};

/// Which columns to read: all of them, or the named ones (absent names are skipped;
/// the caller reports them with the list of present columns).
pub(crate) type Wanted<'a> = Option<&'a [String]>;

fn is_wanted(wanted: Wanted<'_>, name: &str) -> bool {
    wanted.is_none_or(|names| names.iter().any(|n| n == name))
}

fn at(file: &str, row: RowRef) -> Location {
    Location {
        file: file.to_owned(),
        row: Some(row),
        column: None,
    }
}

/// A CSV reader over `input`: a header row, a 1 MiB buffer, every row as long as the
/// header.
pub(crate) fn csv_reader<R: Read>(input: R) -> csv::Reader<BufReader<R>> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(BufReader::with_capacity(1 << 20, input))
}

/// The located error for a CSV fault in `file`: its line, and what to do about it.
pub(crate) fn csv_error(file: &str, e: csv::Error) -> IoError {
    let line = e.position().map_or(0, |p| p.line());
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!(
            "expected {expected_len} fields like the header, found {len}; quote fields that contain commas"
        ),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8; re-encode the file as UTF-8".to_owned(),
        _ => e.to_string(),
    };
    IoError::invalid(at(file, RowRef::Line(line.max(1))), message)
}

/// The header's names, trimmed; a name given twice is refused.
pub(crate) fn csv_headers<R: Read>(
    reader: &mut csv::Reader<R>,
    file: &str,
) -> Result<Vec<String>, IoError> {
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(file, e))?
        .iter()
        .map(|h| h.trim().to_owned())
        .collect();
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = headers.iter().find(|h| !seen.insert(h.as_str())) {
        return Err(IoError::invalid(
            at(file, RowRef::Line(1)),
            format!("the header names column {twice:?} twice; give every column its own name"),
        ));
    }
    Ok(headers)
}

/// Reads a CSV file with a header row.
pub(crate) fn read_csv(input: impl Read, file: &str, wanted: Wanted<'_>) -> Result<Table, IoError> {
    let mut reader = csv_reader(input);
    let headers = csv_headers(&mut reader, file)?;
    let mut selected: Vec<(usize, ColumnBuilder)> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| is_wanted(wanted, h))
        .map(|(i, h)| (i, ColumnBuilder::new(h)))
        .collect();
    let mut lines = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, e))?
    {
        lines.push(record.position().map_or(0, |p| p.line()));
        for (index, builder) in &mut selected {
            let field = record.get(*index).unwrap_or("");
            builder.push(if field.is_empty() { None } else { Some(field) });
        }
    }
    let rows = lines.len();
    let columns = selected.into_iter().map(|(_, b)| b.finish()).collect();
    Ok(Table::new(
        file,
        headers,
        columns,
        rows,
        RowRefs::lines(lines),
    ))
}

/// Collects JSON objects into columns, adding columns as new keys appear.
struct ObjectColumns<'a> {
    wanted: Wanted<'a>,
    builders: Vec<ColumnBuilder>,
    index: HashMap<String, usize>,
    present: Vec<String>,
    rows: usize,
}

impl<'a> ObjectColumns<'a> {
    fn new(wanted: Wanted<'a>) -> Self {
        Self {
            wanted,
            builders: Vec::new(),
            index: HashMap::new(),
            present: Vec::new(),
            rows: 0,
        }
    }

    fn push(&mut self, object: &serde_json::Map<String, Value>) {
        for key in object.keys() {
            if self.index.contains_key(key) {
                continue;
            }
            self.present.push(key.clone());
            if is_wanted(self.wanted, key) {
                let mut builder = ColumnBuilder::new(key);
                for _ in 0..self.rows {
                    builder.push(None);
                }
                self.index.insert(key.clone(), self.builders.len());
                self.builders.push(builder);
            } else {
                self.index.insert(key.clone(), usize::MAX);
            }
        }
        for builder in &mut self.builders {
            let text = object.get(builder.name()).and_then(json_text);
            builder.push(text.as_deref());
        }
        self.rows += 1;
    }

    fn finish(self, file: &str, row_refs: RowRefs) -> Table {
        let columns = self
            .builders
            .into_iter()
            .map(ColumnBuilder::finish)
            .collect();
        Table::new(file, self.present, columns, self.rows, row_refs)
    }
}

/// The text form of a JSON value: strings as they are, numbers and booleans in their
/// JSON spelling, nested values as compact JSON; `null` is missing.
fn json_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Skips a UTF-8 byte-order mark at the start of `reader` (editors on Windows write
/// one; JSON does not allow it, and the first line then read as "not a JSON object").
fn skip_byte_order_mark(reader: &mut impl BufRead) -> std::io::Result<()> {
    const MARK: &[u8] = b"\xEF\xBB\xBF";
    if reader.fill_buf()?.starts_with(MARK) {
        reader.consume(MARK.len());
    }
    Ok(())
}

/// Reads JSON Lines (a leading byte-order mark skipped): one object per line, blank
/// lines ignored.
pub(crate) fn read_json_lines(
    input: impl Read,
    file: &str,
    wanted: Wanted<'_>,
) -> Result<Table, IoError> {
    let mut reader = BufReader::with_capacity(1 << 20, input);
    skip_byte_order_mark(&mut reader)
        .map_err(|e| IoError::invalid(at(file, RowRef::Line(1)), e.to_string()))?;
    let mut columns = ObjectColumns::new(wanted);
    let mut lines = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line_number = number as u64 + 1;
        let line =
            line.map_err(|e| IoError::invalid(at(file, RowRef::Line(line_number)), e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(&line).map_err(|e| {
            IoError::invalid(
                at(file, RowRef::Line(line_number)),
                format!("not a JSON object: {e}"),
            )
        })?;
        let Value::Object(object) = value else {
            return Err(IoError::invalid(
                at(file, RowRef::Line(line_number)),
                "expected a JSON object per line, like {\"model_a\": ..., \"model_b\": ..., \"winner\": ...}",
            ));
        };
        columns.push(&object);
        lines.push(line_number);
    }
    Ok(columns.finish(file, RowRefs::lines(lines)))
}

/// Reads a JSON array of objects (the FastChat "clean battle" format).
pub(crate) fn read_json_array(
    input: impl Read,
    file: &str,
    wanted: Wanted<'_>,
) -> Result<Table, IoError> {
    let mut reader = BufReader::with_capacity(1 << 20, input);
    skip_byte_order_mark(&mut reader)
        .map_err(|e| IoError::invalid(at(file, RowRef::Line(1)), e.to_string()))?;
    let value: Value = serde_json::from_reader(reader).map_err(|e| {
        IoError::invalid(
            at(file, RowRef::Line(e.line() as u64)),
            format!("not valid JSON: {e}"),
        )
    })?;
    let Value::Array(items) = value else {
        return Err(IoError::invalid_file(
            file,
            "expected a JSON array of objects; for one object per line name the file *.jsonl",
        ));
    };
    objects_table(&items, file, wanted)
}

/// The table of JSON objects already parsed — a request's contexts, as a server has
/// read them — one row per object in order, as [`read_json_array`] reads the same
/// objects from text: no second parse.
///
/// # Errors
/// An item that is not an object, named by its place.
pub fn json_objects_table(items: &[Value], file: &str) -> Result<Table, IoError> {
    objects_table(items, file, None)
}

fn objects_table(items: &[Value], file: &str, wanted: Wanted<'_>) -> Result<Table, IoError> {
    let mut columns = ObjectColumns::new(wanted);
    for (index, item) in items.iter().enumerate() {
        let Value::Object(object) = item else {
            return Err(IoError::invalid(
                at(file, RowRef::Record(index as u64 + 1)),
                "expected a JSON object",
            ));
        };
        columns.push(object);
    }
    Ok(columns.finish(file, RowRefs::records()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-order mark before JSON Lines or a JSON array is skipped, as before a
    /// CSV header: the first record reads like the rest (it used to stop the read
    /// with "not a JSON object").
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let lines = b"\xEF\xBB\xBF{\"a\": \"1\"}\n{\"a\": \"2\"}\n";
        let table = read_json_lines(&lines[..], "bom.jsonl", None).unwrap();
        assert_eq!(table.rows(), 2);
        assert_eq!(table.column("a").and_then(|c| c.value(0)), Some("1"));
        let array = b"\xEF\xBB\xBF[{\"a\": \"1\"}]";
        let table = read_json_array(&array[..], "bom.json", None).unwrap();
        assert_eq!(table.column("a").and_then(|c| c.value(0)), Some("1"));
    }
}
