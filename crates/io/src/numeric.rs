//! Numeric columns of a table, one number per row.

use crate::{IoError, Table};

/// The values of `paths` in `table` as numbers, one vector per path. A path is a
/// column, or `outer.field` — field `field` of the JSON objects in column `outer`, for
/// nested metadata such as the `conv_metadata` of LMArena's battle dumps — when no
/// column has the dotted name. A value is a number, or a JSON object of numbers, which
/// counts as their sum: LMArena's dumps store markdown counts per kind (`{"h1": 0,
/// "h2": 3, ...}`) and its style features add them up.
///
/// # Errors
/// [`IoError::MissingColumn`] for a column that is not there; [`IoError::Invalid`]
/// naming the row and column of a missing value or one that is not a finite number.
pub fn numeric_columns(table: &Table, paths: &[String]) -> Result<Vec<Vec<f64>>, IoError> {
    let split: Vec<(&str, Option<&str>)> = paths.iter().map(|p| split_path(table, p)).collect();
    for (name, _) in &split {
        crate::battles::require_column(table, name)?;
    }
    let parsed = parse_dictionaries(table, &split);
    split
        .iter()
        .zip(&parsed)
        .map(|(&(name, field), parsed)| {
            let column = table.column(name).expect("checked above");
            (0..table.rows())
                .map(|row| {
                    column.code(row).and_then(|code| parsed[code]).ok_or_else(|| {
                        let what = field.map_or_else(String::new, |f| format!(" field {f:?} of"));
                        IoError::invalid(
                            table.location(row, Some(name)),
                            format!(
                                "expected{what} a finite number (or a JSON object of numbers), found {:?}; fix the value or filter the row out",
                                column.value(row).unwrap_or("")
                            ),
                        )
                    })
                })
                .collect()
        })
        .collect()
}

/// For each `(column, field)` path, the number of each distinct value of its column
/// (indexed by dictionary code). Each distinct text is parsed once however many paths
/// read it: the eight style counts of LMArena's `conv_metadata` come from one parse of
/// each row's object, not eight.
fn parse_dictionaries(table: &Table, split: &[(&str, Option<&str>)]) -> Vec<Vec<Option<f64>>> {
    let mut parsed: Vec<Option<Vec<Option<f64>>>> = vec![None; split.len()];
    for (first, &(name, _)) in split.iter().enumerate() {
        if parsed[first].is_some() {
            continue;
        }
        let same: Vec<usize> = (first..split.len())
            .filter(|&q| split[q].0 == name)
            .collect();
        let nested = same.iter().any(|&q| split[q].1.is_some());
        let dictionary = table
            .column(name)
            .expect("checked by the caller")
            .dictionary();
        let mut values = vec![Vec::with_capacity(dictionary.len()); same.len()];
        for text in dictionary {
            let object = if nested { json_object(text) } else { None };
            for (slot, &q) in same.iter().enumerate() {
                values[slot].push(match split[q].1 {
                    None => number(text),
                    Some(field) => object
                        .as_ref()
                        .and_then(|o| o.get(field))
                        .and_then(value_number),
                });
            }
        }
        for (slot, q) in same.into_iter().enumerate() {
            parsed[q] = Some(std::mem::take(&mut values[slot]));
        }
    }
    parsed
        .into_iter()
        .map(|p| p.expect("every path is parsed"))
        .collect()
}

/// The column a numeric path reads: the column of that name if there is one, else the
/// part before the first dot.
pub fn path_column<'p>(table: &Table, path: &'p str) -> &'p str {
    split_path(table, path).0
}

/// Whether `path` names a column, or a field present in the first non-empty JSON
/// object of its outer column.
pub fn has_path(table: &Table, path: &str) -> bool {
    match split_path(table, path) {
        (name, None) => table.column(name).is_some(),
        (name, Some(field)) => table.column(name).is_some_and(|column| {
            (0..table.rows())
                .find_map(|row| column.value(row))
                .and_then(json_object)
                .is_some_and(|object| object.contains_key(field))
        }),
    }
}

fn split_path<'p>(table: &Table, path: &'p str) -> (&'p str, Option<&'p str>) {
    match path.split_once('.') {
        Some((outer, field)) if table.column(path).is_none() => (outer, Some(field)),
        _ => (path, None),
    }
}

/// The JSON object `text`, if it is one.
fn json_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(text).ok()? {
        serde_json::Value::Object(fields) => Some(fields),
        _ => None,
    }
}

/// A finite JSON number, or the sum of an object's values when all are numbers.
fn value_number(value: &serde_json::Value) -> Option<f64> {
    let sum = match value {
        serde_json::Value::Object(fields) => fields
            .values()
            .map(serde_json::Value::as_f64)
            .sum::<Option<f64>>()?,
        other => other.as_f64()?,
    };
    sum.is_finite().then_some(sum)
}

/// A finite number, or the sum of a JSON object's values when all are numbers.
fn number(text: &str) -> Option<f64> {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(value) => value.is_finite().then_some(value),
        Err(_) => value_number(&serde_json::from_str(text).ok()?),
    }
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
    fn fields_of_nested_objects_by_dotted_path() {
        let t = table(
            "m,conv.x\n\"{\"\"a\"\": 2, \"\"h\"\": {\"\"h1\"\": 1, \"\"h2\"\": 4}}\",9\n\"{\"\"a\"\": 3, \"\"h\"\": {}}\",8\n",
        );
        let paths = ["m.a".to_owned(), "m.h".to_owned(), "conv.x".to_owned()];
        let columns = numeric_columns(&t, &paths).unwrap();
        assert_eq!(
            columns,
            vec![vec![2.0, 3.0], vec![5.0, 0.0], vec![9.0, 8.0]]
        );
        assert!(has_path(&t, "m.a") && !has_path(&t, "m.b") && has_path(&t, "conv.x"));
        assert_eq!(path_column(&t, "m.a"), "m");
        let error = numeric_columns(&t, &["m.b".to_owned()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("field \"b\""), "{error}");
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
