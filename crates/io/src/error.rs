use std::fmt;
use std::path::PathBuf;
use verdict_settings::Setting;

/// Where in an input a value sits: a line (CSV, JSON Lines) or a record (JSON array,
/// Parquet), both counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowRef {
    /// A line of a text file, 1-based (the CSV header is line 1).
    Line(u64),
    /// A record of a JSON array or a Parquet file, 1-based.
    Record(u64),
}

/// A place in an input file: `file:line: column "c"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file as the user named it.
    pub file: String,
    /// The line or record, when the fault has one.
    pub row: Option<RowRef>,
    /// The column, when the fault has one.
    pub column: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        match self.row {
            Some(RowRef::Line(line)) => write!(f, ":{line}")?,
            Some(RowRef::Record(record)) => write!(f, ": row {record}")?,
            None => {}
        }
        if let Some(column) = &self.column {
            write!(f, ": column {column:?}")?;
        }
        Ok(())
    }
}

/// Errors of reading and writing tables.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// The output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The target file.
        path: PathBuf,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// An output directory holds files verdict did not write where the run would
    /// write, or is not a directory: nothing was moved.
    #[error("{path}: {message}")]
    NotOurs {
        /// The output directory.
        path: PathBuf,
        /// Which file, and what to do.
        message: String,
    },
    /// The format could not be told from the file name.
    #[error("{path}: cannot tell the format from the extension; name the file *.csv, *.jsonl, *.json, *.parquet or *.arrow, or set {input_format} csv|jsonl|json|parquet|arrow", input_format = Setting("input_format"))]
    UnknownFormat {
        /// The file.
        path: String,
    },
    /// A required column is absent.
    #[error("{file}: missing column {column:?} (columns present: {present}); {hint}")]
    MissingColumn {
        /// The file.
        file: String,
        /// The column looked for.
        column: String,
        /// The columns the file has, comma-separated.
        present: String,
        /// How to fix it.
        hint: String,
    },
    /// A value, row or file that does not parse or breaks a rule.
    #[error("{location}: {message}")]
    Invalid {
        /// Where.
        location: Location,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl IoError {
    /// An [`IoError::Invalid`] at `location`.
    pub fn invalid(location: Location, message: impl Into<String>) -> Self {
        IoError::Invalid {
            location,
            message: message.into(),
        }
    }

    /// An [`IoError::Invalid`] for a whole file (no row or column).
    pub fn invalid_file(file: &str, message: impl Into<String>) -> Self {
        Self::invalid(
            Location {
                file: file.to_owned(),
                row: None,
                column: None,
            },
            message,
        )
    }
}

/// The most characters of a file's value or name a message quotes.
pub const SHOWN_CHARS: usize = 80;

/// `value` as a message shows it: its first [`SHOWN_CHARS`] characters, with control
/// characters escaped, and "… (N characters)" when it was longer.
pub fn shown_value(value: &str) -> String {
    let count = value.chars().count();
    let head: String = value
        .chars()
        .take(SHOWN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if count > SHOWN_CHARS {
        format!("{head}… ({count} characters)")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_reads_like_a_compiler_message() {
        let at_line = Location {
            file: "battles.csv".into(),
            row: Some(RowRef::Line(1042)),
            column: Some("winner".into()),
        };
        assert_eq!(at_line.to_string(), "battles.csv:1042: column \"winner\"");
        let at_record = Location {
            file: "b.parquet".into(),
            row: Some(RowRef::Record(7)),
            column: None,
        };
        assert_eq!(at_record.to_string(), "b.parquet: row 7");
    }
}
