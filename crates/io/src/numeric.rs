//! Numeric columns of a table, one number per row.

use crate::{IoError, Table};

/// The values of columns `names` of `table` as numbers, one vector per column. A cell
/// is a number, or a JSON object of numbers, which counts as their sum: LMArena's
/// battle dumps store markdown counts per kind (`{"h1": 0, "h2": 3, ...}`) and its
/// style features add them up.
///
/// # Errors
/// [`IoError::MissingColumn`] for a column that is not there; [`IoError::Invalid`]
/// naming the row and column of a missing value or one that is not a finite number.
pub fn numeric_columns(table: &Table, names: &[String]) -> Result<Vec<Vec<f64>>, IoError> {
    names
        .iter()
        .map(|name| {
            crate::battles::require_column(table, name)?;
            let column = table.column(name).expect("checked above");
            // Each distinct text is parsed once.
            let parsed: Vec<Option<f64>> =
                column.dictionary().iter().map(|text| number(text)).collect();
            (0..table.rows())
                .map(|row| {
                    column.code(row).and_then(|code| parsed[code]).ok_or_else(|| {
                        IoError::invalid(
                            table.location(row, Some(name)),
                            format!(
                                "expected a finite number (or a JSON object of numbers), found {:?}; fix the value or filter the row out",
                                column.value(row).unwrap_or("")
                            ),
                        )
                    })
                })
                .collect()
        })
        .collect()
}

/// A finite number, or the sum of a JSON object's values when all are numbers.
fn number(text: &str) -> Option<f64> {
    let text = text.trim();
    if let Ok(value) = text.parse::<f64>() {
        return value.is_finite().then_some(value);
    }
    let serde_json::Value::Object(fields) = serde_json::from_str(text).ok()? else {
        return None;
    };
    let sum = fields
        .values()
        .map(serde_json::Value::as_f64)
        .sum::<Option<f64>>()?;
    sum.is_finite().then_some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{read_table, Source};

    fn table(csv: &str) -> Table {
        let source = Source::Bytes {
            label: "log.csv".into(),
            data: csv.as_bytes().to_vec(),
        };
        read_table(&source, None, None).unwrap()
    }

    #[test]
    fn numbers_and_json_objects_of_counts() {
        let t = table("x,y\n1.5,\"{\"\"h1\"\": 2, \"\"h2\"\": 3}\"\n-2,7\n");
        let columns = numeric_columns(&t, &["x".into(), "y".into()]).unwrap();
        assert_eq!(columns, vec![vec![1.5, -2.0], vec![5.0, 7.0]]);
    }

    #[test]
    fn a_word_or_a_gap_is_located() {
        let t = table("x\n1\nmany\n");
        let error = numeric_columns(&t, &["x".into()]).unwrap_err().to_string();
        assert!(
            error.contains("log.csv") && error.contains("\"many\""),
            "{error}"
        );
        let t = table("x,z\n1,1\n,2\n");
        assert!(numeric_columns(&t, &["x".into()]).is_err());
        assert!(numeric_columns(&t, &["w".into()]).is_err());
    }
}
