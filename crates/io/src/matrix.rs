//! Square payoff matrices with named agents: the first column names the rows, the other
//! headers name the columns, in the same order (the layout `verdict game` reads).

use crate::battles::{read_table, Source};
use crate::text::{csv_error, csv_headers, csv_reader};
use crate::{Format, IoError, Location, RowRef};

/// A square table of numbers with one name per row and column.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedMatrix {
    /// The agents, in row (and column) order.
    pub agents: Vec<String>,
    /// `values[i][j]`: row agent `i` against column agent `j`.
    pub values: Vec<Vec<f64>>,
}

/// Reads a named square matrix (CSV unless `format` says otherwise). Values are parsed
/// as numbers; whether they make a game (finite, in [-1, 1], antisymmetric) is checked
/// by `verdict_game::PayoffMatrix::new`, which knows the rules. A CSV file or buffer is
/// streamed row by row straight into numbers; other formats go through the table
/// reader.
///
/// # Errors
/// No columns, a row count that differs from the agent count, a row named differently
/// from its column, or a cell that is not a number: each located by file, row and
/// column.
pub fn read_named_matrix(source: &Source, format: Option<Format>) -> Result<NamedMatrix, IoError> {
    let format = format.unwrap_or(Format::Csv);
    let label = source.label();
    match (source, format) {
        (Source::File(path), Format::Csv) => {
            let file = std::fs::File::open(path).map_err(|source| IoError::Read {
                path: path.clone(),
                source,
            })?;
            read_csv_matrix(file, &label)
        }
        (Source::Bytes { data, .. }, Format::Csv) => read_csv_matrix(data.as_slice(), &label),
        _ => read_table_matrix(source, format),
    }
}

/// The message for a matrix whose row count is not its agent count.
fn not_square(rows: usize, agents: usize) -> String {
    format!(
        "the matrix has {rows} rows but {agents} agent columns; it must be square with agent names in the header row and the first column"
    )
}

/// The message for row `r` (from 0) named `label` where the header has `name`.
fn misnamed(r: usize, label: &str, name: &str) -> String {
    format!(
        "row {} is named {label:?} but column {} is {name:?}; rows and columns must list the agents in the same order",
        r + 1,
        r + 1
    )
}

/// `text` as a number, or the located error.
fn number(text: &str, at: impl FnOnce() -> Location) -> Result<f64, IoError> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| IoError::invalid(at(), format!("{text:?} is not a number")))
}

/// Row `r` of a matrix whose first column is `first`: `label` must name agent `r`, the
/// `cells` (in column order) must be numbers; `at(column)` locates a fault in the row.
fn matrix_row<'c>(
    r: usize,
    label: &str,
    cells: impl Iterator<Item = &'c str>,
    first: &str,
    agents: &[String],
    at: impl Fn(&str) -> Location,
) -> Result<Vec<f64>, IoError> {
    if label != agents[r] {
        return Err(IoError::invalid(at(first), misnamed(r, label, &agents[r])));
    }
    cells
        .zip(agents)
        .map(|(text, name)| number(text, || at(name)))
        .collect()
}

/// A CSV matrix parsed as it is read: one record buffer, numbers straight from the
/// fields (no column of strings is built).
fn read_csv_matrix(input: impl std::io::Read, file: &str) -> Result<NamedMatrix, IoError> {
    let mut reader = csv_reader(input);
    let headers = csv_headers(&mut reader, file)?;
    let Some((first, agents)) = headers.split_first() else {
        return Err(IoError::invalid_file(file, "the matrix has no columns"));
    };
    let agents = agents.to_vec();
    let mut values: Vec<Vec<f64>> = Vec::with_capacity(agents.len());
    let mut record = csv::StringRecord::new();
    let mut rows = 0;
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(file, e))?
    {
        let r = rows;
        rows += 1;
        if r >= agents.len() {
            continue; // counted for the error below
        }
        let line = record.position().map_or(0, |p| p.line());
        let at = |column: &str| Location {
            file: file.to_owned(),
            row: Some(RowRef::Line(line)),
            column: Some(column.to_owned()),
        };
        let label = record.get(0).unwrap_or("");
        values.push(matrix_row(
            r,
            label,
            record.iter().skip(1),
            first,
            &agents,
            at,
        )?);
    }
    if rows != agents.len() {
        return Err(IoError::invalid_file(file, not_square(rows, agents.len())));
    }
    Ok(NamedMatrix { agents, values })
}

/// A matrix from any table the table reader opens (JSON, Parquet, a caller's table).
fn read_table_matrix(source: &Source, format: Format) -> Result<NamedMatrix, IoError> {
    let table = read_table(source, Some(format), None)?;
    let columns = table.columns();
    let file = table.file().to_owned();
    let Some((first, agent_columns)) = columns.split_first() else {
        return Err(IoError::invalid_file(&file, "the matrix has no columns"));
    };
    let agents: Vec<String> = agent_columns.iter().map(|c| c.name().to_owned()).collect();
    if table.rows() != agents.len() {
        return Err(IoError::invalid_file(
            &file,
            not_square(table.rows(), agents.len()),
        ));
    }
    let values = (0..agents.len())
        .map(|r| {
            matrix_row(
                r,
                first.value(r).unwrap_or(""),
                agent_columns
                    .iter()
                    .map(|column| column.value(r).unwrap_or("")),
                first.name(),
                &agents,
                |column| table.location(r, Some(column)),
            )
        })
        .collect::<Result<Vec<_>, IoError>>()?;
    Ok(NamedMatrix { agents, values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<NamedMatrix, IoError> {
        read_named_matrix(
            &Source::Bytes {
                label: "m.csv".into(),
                data: text.as_bytes().to_vec(),
            },
            None,
        )
    }

    #[test]
    fn a_square_named_matrix_is_read_in_order() {
        let m = read("agent,A,B\nA,0,0.5\nB,-0.5,0\n").unwrap();
        assert_eq!(m.agents, ["A", "B"]);
        assert_eq!(m.values, vec![vec![0.0, 0.5], vec![-0.5, 0.0]]);
    }

    #[test]
    fn misnamed_rows_and_non_numbers_are_located() {
        let e = read("agent,A,B\nB,0,0.5\nA,-0.5,0\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 1 is named \"B\" but column 1 is \"A\""),
            "{e}"
        );
        let e = read("agent,A,B\nA,0,x\nB,-0.5,0\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"x\" is not a number") && e.contains("column \"B\""),
            "{e}"
        );
        let e = read("agent,A,B\nA,0,1\n").unwrap_err().to_string();
        assert!(e.contains("1 rows but 2 agent columns"), "{e}");
    }

    #[test]
    fn csv_and_json_tables_give_the_same_matrix_and_the_same_errors() {
        let json = |text: &str| {
            read_named_matrix(
                &Source::Bytes {
                    label: "m.jsonl".into(),
                    data: text.as_bytes().to_vec(),
                },
                Some(Format::JsonLines),
            )
        };
        let from_json =
            json("{\"agent\":\"A\",\"A\":0,\"B\":0.25}\n{\"agent\":\"B\",\"A\":-0.25,\"B\":0}\n")
                .unwrap();
        assert_eq!(
            from_json,
            read("agent,A,B\nA,0, 0.25\nB,-0.25,0\n").unwrap()
        );
        let e = json("{\"agent\":\"A\",\"A\":0,\"B\":1}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("1 rows but 2 agent columns"), "{e}");
    }

    #[test]
    fn csv_errors_name_the_line_and_extra_rows_are_counted() {
        let e = read("agent,A,B\nA,0,1\nB,-1,0\nC,0,0\nD,0,0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("4 rows but 2 agent columns"), "{e}");
        let e = read("agent,A,B\nA,0,1\nB,oops,0\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.csv:3") && e.contains("\"oops\" is not a number"),
            "{e}"
        );
        let e = read("agent,A,B\nA,0,1\nB,-1\n").unwrap_err().to_string();
        assert!(
            e.contains("expected 3 fields like the header, found 2"),
            "{e}"
        );
    }
}
