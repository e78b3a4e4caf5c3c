use crate::{Location, RowRef};

const NULL_CODE: u32 = u32::MAX;

/// One column of a [`Table`], dictionary-encoded: each row holds a code into a list of
/// distinct values, so categorical columns of millions of rows stay small. Numbers and
/// booleans are kept in their shortest text form (`1707700514.3167`, `true`).
#[derive(Debug, Clone)]
pub struct Column {
    name: String,
    dictionary: Vec<String>,
    codes: Vec<u32>,
}

impl Column {
    /// The column's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Value at `row`, `None` for a missing value.
    pub fn value(&self, row: usize) -> Option<&str> {
        match self.codes[row] {
            NULL_CODE => None,
            code => Some(&self.dictionary[code as usize]),
        }
    }

    /// Distinct values; [`Column::code`] indexes into it.
    pub fn dictionary(&self) -> &[String] {
        &self.dictionary
    }

    /// Dictionary code at `row`, `None` for a missing value.
    pub fn code(&self, row: usize) -> Option<usize> {
        match self.codes[row] {
            NULL_CODE => None,
            code => Some(code as usize),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// True when the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

/// Builds a [`Column`] value by value, interning repeated values.
#[derive(Debug, Default)]
pub(crate) struct ColumnBuilder {
    name: String,
    dictionary: Vec<String>,
    /// Seeded fast hashing: every value of a column passes through here (15 million
    /// lookups for a 5-million-battle log handed over from a frame).
    lookup: foldhash::HashMap<String, u32>,
    codes: Vec<u32>,
}

impl ColumnBuilder {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ..Self::default()
        }
    }

    /// Appends a value (`None` for missing).
    pub(crate) fn push(&mut self, value: Option<&str>) {
        let code = match value {
            None => NULL_CODE,
            Some(text) => self.code_of(text),
        };
        self.codes.push(code);
    }

    /// The code of `text`, interning it when new.
    pub(crate) fn code_of(&mut self, text: &str) -> u32 {
        if let Some(&code) = self.lookup.get(text) {
            return code;
        }
        let code = u32::try_from(self.dictionary.len()).expect("fewer than 2^32 distinct values");
        self.dictionary.push(text.to_owned());
        self.lookup.insert(text.to_owned(), code);
        code
    }

    /// Appends a code previously returned by [`ColumnBuilder::code_of`], or `None`
    /// (the Parquet reader's dictionary path).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(crate) fn push_code(&mut self, code: Option<u32>) {
        self.codes.push(code.unwrap_or(NULL_CODE));
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn finish(self) -> Column {
        Column {
            name: self.name,
            dictionary: self.dictionary,
            codes: self.codes,
        }
    }
}

/// How rows map back to places in the source file.
#[derive(Debug, Clone)]
pub(crate) struct RowRefs {
    /// True when rows are counted in lines (CSV, JSON Lines), false for records.
    pub(crate) line_based: bool,
    /// The 1-based line or record of each row; `None` means row r is number
    /// `first + r`.
    pub(crate) numbers: Option<Vec<u64>>,
    /// The number of row 0 when `numbers` is `None` (1, or later for a chunk of a
    /// file read piece by piece).
    pub(crate) first: u64,
}

impl RowRefs {
    /// Row r is record r + 1 (JSON array, Parquet).
    pub(crate) fn records() -> Self {
        Self::records_from(1)
    }

    /// Row r is record `first + r` (a chunk of a file read piece by piece).
    pub(crate) fn records_from(first: u64) -> Self {
        Self {
            line_based: false,
            numbers: None,
            first,
        }
    }

    /// Row r sits on line `lines[r]` (CSV, JSON Lines).
    pub(crate) fn lines(lines: Vec<u64>) -> Self {
        Self {
            line_based: true,
            numbers: Some(lines),
            first: 1,
        }
    }

    fn number(&self, row: usize) -> u64 {
        self.numbers
            .as_ref()
            .map_or(self.first + row as u64, |n| n[row])
    }

    fn select(&self, keep: &[usize]) -> Self {
        Self {
            line_based: self.line_based,
            numbers: Some(keep.iter().map(|&r| self.number(r)).collect()),
            first: 1,
        }
    }
}

/// A table read from one file: the columns asked for, all of the same length, and the
/// way back from a row to its line or record in the file.
#[derive(Debug, Clone)]
pub struct Table {
    file: String,
    present: Vec<String>,
    columns: Vec<Column>,
    rows: usize,
    row_refs: RowRefs,
}

impl Table {
    pub(crate) fn new(
        file: &str,
        present: Vec<String>,
        columns: Vec<Column>,
        rows: usize,
        row_refs: RowRefs,
    ) -> Self {
        debug_assert!(columns.iter().all(|c| c.len() == rows));
        Self {
            file: file.to_owned(),
            present,
            columns,
            rows,
            row_refs,
        }
    }

    /// The file as the user named it.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Every column name present in the file, read or not, in file order (for a
    /// message, [`Table::present_columns_shown`]).
    pub fn present_columns(&self) -> &[String] {
        &self.present
    }

    /// The column names for a message: at most [`NAMES_SHOWN`] of them, each cut to
    /// [`crate::SHOWN_CHARS`] characters, so a file whose first line is one 50 MB
    /// "name" gives a short error, not a 50 MB one.
    pub fn present_columns_shown(&self) -> String {
        let mut shown: Vec<String> = self
            .present
            .iter()
            .take(NAMES_SHOWN)
            .map(|name| crate::shown_value(name))
            .collect();
        if self.present.len() > NAMES_SHOWN {
            shown.push(format!("and {} more", self.present.len() - NAMES_SHOWN));
        }
        shown.join(", ")
    }

    /// The columns that were read.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column called `name`, if it was read.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The column called `name`, or the error naming the file, the columns it has and
    /// `hint`.
    ///
    /// # Errors
    /// [`crate::IoError::MissingColumn`] when there is no such column.
    pub fn required(&self, name: &str, hint: &str) -> Result<&Column, crate::IoError> {
        self.column(name)
            .ok_or_else(|| crate::IoError::MissingColumn {
                file: self.file().to_string(),
                column: name.to_string(),
                present: self.present_columns_shown(),
                hint: hint.to_string(),
            })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The place of `row` (and `column`) in the source file.
    pub fn location(&self, row: usize, column: Option<&str>) -> Location {
        let number = self.row_refs.number(row);
        let row_ref = if self.row_refs.line_based {
            RowRef::Line(number)
        } else {
            RowRef::Record(number)
        };
        Location {
            file: self.file.clone(),
            row: Some(row_ref),
            column: column.map(str::to_owned),
        }
    }

    /// The table with only the columns `wanted` names (all when `None`), the rest
    /// still listed as present.
    pub fn project(&self, wanted: Option<&[String]>) -> Table {
        Table {
            file: self.file.clone(),
            present: self.present.clone(),
            columns: self
                .columns
                .iter()
                .filter(|c| wanted.is_none_or(|w| w.contains(&c.name)))
                .cloned()
                .collect(),
            rows: self.rows,
            row_refs: self.row_refs.clone(),
        }
    }

    /// The table with one more column holding `value` in every row (a Hive partition's
    /// `key=value` directory, say); it replaces a column of the same name.
    pub fn with_constant_column(mut self, name: &str, value: &str) -> Table {
        self.columns.retain(|c| c.name != name);
        self.columns.push(Column {
            name: name.to_owned(),
            dictionary: vec![value.to_owned()],
            codes: vec![0; self.rows],
        });
        if !self.present.iter().any(|p| p == name) {
            self.present.push(name.to_owned());
        }
        self
    }

    /// The rows `keep` (in that order) of every column, with their source places.
    pub fn select_rows(&self, keep: &[usize]) -> Table {
        let columns = self
            .columns
            .iter()
            .map(|c| Column {
                name: c.name.clone(),
                dictionary: c.dictionary.clone(),
                codes: keep.iter().map(|&r| c.codes[r]).collect(),
            })
            .collect();
        let row_refs = self.row_refs.select(keep);
        Table {
            file: self.file.clone(),
            present: self.present.clone(),
            columns,
            rows: keep.len(),
            row_refs,
        }
    }
}

/// Column names a message lists at most.
pub const NAMES_SHOWN: usize = 40;
