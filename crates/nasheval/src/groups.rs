//! Groups of contexts by a categorical column (for the robust lottery, Eq. 79–81),
//! read back from the column's one-hot features.

use verdict_feedback::ContextualLog;

use crate::error::FitError;

/// The group of every context of `log`: the value of the categorical column `column`,
/// read back from its one-hot features `column=value` (a context with none of them
/// is in the group `(other)`). Returns the groups' names and each context's group.
///
/// # Errors
/// [`FitError::Setting`] (`groups_by`) when the log has no one-hot feature of
/// `column`.
pub fn context_groups(
    log: &ContextualLog,
    column: &str,
) -> Result<(Vec<String>, Vec<usize>), FitError> {
    let prefix = format!("{column}=");
    let columns: Vec<(usize, &str)> = log
        .feature_names
        .iter()
        .enumerate()
        .filter_map(|(c, name)| name.strip_prefix(&prefix).map(|value| (c, value)))
        .collect();
    if columns.is_empty() {
        return Err(FitError::setting(
            "groups_by",
            format!(
                "the contexts have no one-hot categorical column {column:?} (no feature named {prefix}…); name a column whose values are categories, e.g. a source or language, encoded one-hot (the default)"
            ),
        ));
    }
    let mut names: Vec<String> = columns.iter().map(|(_, v)| (*v).to_string()).collect();
    let width = log.feature_names.len();
    let other = names.len();
    let mut any_other = false;
    let groups = (0..log.contexts.len())
        .map(|i| {
            let row = &log.features[i * width..(i + 1) * width];
            columns
                .iter()
                .position(|&(c, _)| row[c] > 0.5)
                .unwrap_or_else(|| {
                    any_other = true;
                    other
                })
        })
        .collect();
    if any_other {
        names.push("(other)".into());
    }
    Ok((names, groups))
}
