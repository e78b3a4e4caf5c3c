//! Per-agent cost files: CSV (or any table format) with a name column (`model` or
//! `agent`) and a `cost` column.

use crate::battles::{read_table, Source};
use crate::{Format, IoError};

/// Reads `(name, cost)` pairs; costs must be finite and non-negative, names unique.
///
/// # Errors
/// A missing column, a missing name, a cost that is not a non-negative number, or a
/// name given twice: each located by file, row and column.
pub fn read_costs(source: &Source, format: Option<Format>) -> Result<Vec<(String, f64)>, IoError> {
    let table = read_table(source, format, None)?;
    let present = table.present_columns_shown();
    let name_column = ["model", "agent", "name"]
        .into_iter()
        .find_map(|n| table.column(n))
        .ok_or_else(|| IoError::MissingColumn {
            file: table.file().to_owned(),
            column: "model".into(),
            present: present.clone(),
            hint: "a cost file has a name column (model, agent or name) and a cost column".into(),
        })?;
    let cost_column = table.column("cost").ok_or_else(|| IoError::MissingColumn {
        file: table.file().to_owned(),
        column: "cost".into(),
        present,
        hint: "a cost file has a name column (model, agent or name) and a cost column".into(),
    })?;
    let mut costs: Vec<(String, f64)> = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let at = |column: &str| table.location(row, Some(column));
        let name = name_column
            .value(row)
            .ok_or_else(|| IoError::invalid(at(name_column.name()), "missing name"))?;
        let text = cost_column.value(row).unwrap_or("");
        let cost: f64 = text
            .trim()
            .parse()
            .ok()
            .filter(|c: &f64| c.is_finite() && *c >= 0.0)
            .ok_or_else(|| {
                IoError::invalid(at("cost"), format!("{text:?} is not a non-negative number"))
            })?;
        if costs.iter().any(|(n, _)| n == name) {
            return Err(IoError::invalid(
                at(name_column.name()),
                format!("{name:?} has a cost already"),
            ));
        }
        costs.push((name.to_owned(), cost));
    }
    Ok(costs)
}
