use std::path::Path;
use std::str::FromStr;

use crate::IoError;

/// A table file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line.
    JsonLines,
    /// One JSON array of objects.
    Json,
    /// Apache Parquet.
    Parquet,
    /// An Arrow IPC file (Feather v2), as pyarrow's `feather.write_feather` and
    /// polars' `write_ipc` write it.
    Arrow,
}

impl Format {
    /// The format named by the file's extension (`.csv`, `.tsv` is not supported,
    /// `.jsonl`/`.ndjson`, `.json`, `.parquet`/`.pq`, `.arrow`/`.feather`/`.ipc`);
    /// compression suffixes are not recognised.
    ///
    /// # Errors
    /// [`IoError::UnknownFormat`] for any other extension.
    pub fn from_path(path: &Path) -> Result<Self, IoError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("csv") => Ok(Format::Csv),
            Some("jsonl" | "ndjson") => Ok(Format::JsonLines),
            Some("json") => Ok(Format::Json),
            Some("parquet" | "pq") => Ok(Format::Parquet),
            Some("arrow" | "feather" | "ipc") => Ok(Format::Arrow),
            _ => Err(IoError::UnknownFormat {
                path: path.display().to_string(),
            }),
        }
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "jsonl" | "ndjson" | "json-lines" => Ok(Format::JsonLines),
            "json" => Ok(Format::Json),
            "parquet" => Ok(Format::Parquet),
            "arrow" | "feather" | "ipc" => Ok(Format::Arrow),
            other => Err(format!(
                "unknown input format {other:?}; expected csv, jsonl, json, parquet or arrow"
            )),
        }
    }
}

impl std::fmt::Display for Format {
    /// The name [`Format::from_str`](FromStr) reads back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Csv => "csv",
            Format::JsonLines => "jsonl",
            Format::Json => "json",
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_follows_extension() {
        assert_eq!(Format::from_path(Path::new("a.CSV")).unwrap(), Format::Csv);
        assert_eq!(
            Format::from_path(Path::new("a.jsonl")).unwrap(),
            Format::JsonLines
        );
        assert_eq!(
            Format::from_path(Path::new("x/a.parquet")).unwrap(),
            Format::Parquet
        );
        assert!(Format::from_path(Path::new("a.txt")).is_err());
        assert_eq!("JSONL".parse::<Format>().unwrap(), Format::JsonLines);
    }
}
