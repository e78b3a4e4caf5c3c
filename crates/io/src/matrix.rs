//! Square payoff matrices with named agents: the first column names the rows, the other
//! headers name the columns, in the same order (the layout `verdict game` reads).

use crate::battles::{read_table, Source};
use crate::{Format, IoError};

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
/// by `verdict_game::PayoffMatrix::new`, which knows the rules.
///
/// # Errors
/// No columns, a row count that differs from the agent count, a row named differently
/// from its column, or a cell that is not a number: each located by file, row and
/// column.
pub fn read_named_matrix(source: &Source, format: Option<Format>) -> Result<NamedMatrix, IoError> {
    let table = read_table(source, Some(format.unwrap_or(Format::Csv)), None)?;
    let columns = table.columns();
    let file = table.file().to_owned();
    let Some((first, agent_columns)) = columns.split_first() else {
        return Err(IoError::invalid_file(&file, "the matrix has no columns"));
    };
    let agents: Vec<String> = agent_columns.iter().map(|c| c.name().to_owned()).collect();
    if table.rows() != agents.len() {
        return Err(IoError::invalid_file(
            &file,
            format!(
                "the matrix has {} rows but {} agent columns; it must be square with agent names in the header row and the first column",
                table.rows(),
                agents.len()
            ),
        ));
    }
    let mut values = Vec::with_capacity(agents.len());
    for (r, name) in agents.iter().enumerate() {
        let label = first.value(r).unwrap_or("");
        if label != name {
            return Err(IoError::invalid(
                table.location(r, Some(first.name())),
                format!(
                    "row {} is named {label:?} but column {} is {name:?}; rows and columns must list the agents in the same order",
                    r + 1,
                    r + 1
                ),
            ));
        }
        let row = agent_columns
            .iter()
            .map(|column| {
                let text = column.value(r).unwrap_or("");
                text.trim().parse::<f64>().map_err(|_| {
                    IoError::invalid(
                        table.location(r, Some(column.name())),
                        format!("{text:?} is not a number"),
                    )
                })
            })
            .collect::<Result<Vec<f64>, IoError>>()?;
        values.push(row);
    }
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
}
