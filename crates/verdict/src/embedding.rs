//! `verdict embed`: a table's text column through a text encoder, written as an id
//! and one list-of-floats column, so that users can check the features a model reads
//! and use them elsewhere.

use verdict_io::{
    read_table, write_parquet_table, ColumnData, Format, IoError, OutputFile, Source, TextEncoder,
};

use crate::VerdictError;

/// Texts embedded: an id per row and `rows × dim` values.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    /// Each row's id: the id column's value, or the row's number from 0.
    pub ids: Vec<String>,
    /// The embedding dimension.
    pub dim: usize,
    /// `rows × dim`, row-major.
    pub values: Vec<f64>,
}

impl Embeddings {
    /// Row `row`'s vector.
    pub fn row(&self, row: usize) -> &[f64] {
        &self.values[row * self.dim..(row + 1) * self.dim]
    }
}

/// The embeddings of the `text_column` of `source` by `encoder`, each row named by
/// its `id_column` value when the table has that column (else by its row number).
///
/// # Errors
/// [`VerdictError::Io`] naming the file, row and column: no such text column, a text
/// the tokenizer cannot encode. A missing text is embedded as the empty text (the
/// zero vector), as a model's featurizer reads it.
pub fn embed_table(
    source: &Source,
    text_column: &str,
    id_column: &str,
    encoder: &TextEncoder,
) -> Result<Embeddings, VerdictError> {
    let table = read_table(source, None, None)?;
    let text = table.required(text_column, "name the column of texts to embed")?;
    // A missing text is the empty text, as a model's featurizer reads it.
    let texts: Vec<&str> = (0..table.rows())
        .map(|row| text.value(row).unwrap_or(""))
        .collect();
    let ids = match table.column(id_column) {
        Some(column) => (0..table.rows())
            .map(|row| column.value(row).unwrap_or("").to_owned())
            .collect(),
        None => (0..table.rows()).map(|row| row.to_string()).collect(),
    };
    let values = encoder.0.embed_all(&texts).map_err(|(row, message)| {
        IoError::invalid(table.location(row, Some(text_column)), message)
    })?;
    Ok(Embeddings {
        ids,
        dim: encoder.0.dim(),
        values,
    })
}

/// Writes `embeddings` to `target` in the format its extension names: Parquet (a
/// `list<double>` column), JSON Lines or JSON (an array per row), CSV (the array as
/// JSON text in one cell); `id_column` names the id column.
///
/// # Errors
/// [`VerdictError::Io`]: an extension of no table format (Arrow is refused: write
/// Parquet), the output policy, a write that fails.
pub fn write_embeddings(
    target: &OutputFile,
    embeddings: &Embeddings,
    id_column: &str,
) -> Result<(), VerdictError> {
    let rows = 0..embeddings.ids.len();
    match Format::from_path(target.path())? {
        Format::Parquet => {
            let vectors = rows.map(|r| embeddings.row(r).to_vec()).collect();
            let columns = [
                (id_column, ColumnData::Text(embeddings.ids.clone())),
                ("embedding", ColumnData::FloatList(vectors)),
            ];
            target.write_through_path(|temporary| write_parquet_table(temporary, &columns))?;
        }
        format @ (Format::JsonLines | Format::Json) => {
            let objects: Vec<serde_json::Value> = rows
                .map(|r| {
                    serde_json::json!({id_column: embeddings.ids[r], "embedding": embeddings.row(r)})
                })
                .collect();
            let text = if format == Format::Json {
                serde_json::to_string(&objects).expect("numbers serialise") + "\n"
            } else {
                objects.iter().map(|o| format!("{o}\n")).collect()
            };
            target.write_bytes(text.as_bytes())?;
        }
        Format::Csv => {
            let mut writer = csv::Writer::from_writer(Vec::new());
            let write_error = |e: csv::Error| VerdictError::Data(format!("CSV: {e}"));
            writer
                .write_record([id_column, "embedding"])
                .map_err(write_error)?;
            for r in rows {
                let vector = serde_json::to_string(embeddings.row(r)).expect("numbers serialise");
                writer
                    .write_record([embeddings.ids[r].as_str(), vector.as_str()])
                    .map_err(write_error)?;
            }
            let bytes = writer
                .into_inner()
                .map_err(|e| VerdictError::Data(format!("CSV: {e}")))?;
            target.write_bytes(&bytes)?;
        }
        Format::Arrow => {
            return Err(VerdictError::Settings(format!(
                "{}: embeddings are written as Parquet, JSON Lines, JSON or CSV; name a file ending .parquet, .jsonl, .json or .csv",
                target.path().display()
            )))
        }
    }
    Ok(())
}
