//! Battles given as three parallel arrays — first model, second model, outcome — the
//! calling convention of `evalica` and `choix`, for drop-in use where a caller holds
//! columns rather than a file.

use verdict_feedback::{BattleLog, Interner, Outcome};

use crate::VerdictError;

/// The battle log of `xs[i]` against `ys[i]` with outcome label `winners[i]` (LMArena
/// labels `model_a | model_b | tie | tie (bothbad)`, or the spellings
/// [`Outcome::parse`] accepts), in array order.
///
/// # Errors
/// [`VerdictError::Data`] naming the position: arrays of different lengths, an empty
/// log, an unknown label, or a model against itself.
pub fn battle_log_from_arrays<S: AsRef<str>>(
    xs: &[S],
    ys: &[S],
    winners: &[S],
) -> Result<BattleLog, VerdictError> {
    same_lengths(["xs", "ys", "winners"], [xs.len(), ys.len(), winners.len()])?;
    if xs.is_empty() {
        return Err(VerdictError::Data(
            "no battles: the arrays are empty".into(),
        ));
    }
    let mut log = BattleLog::new();
    for (i, ((x, y), winner)) in xs.iter().zip(ys).zip(winners).enumerate() {
        let outcome = Outcome::parse(winner.as_ref())
            .map_err(|e| VerdictError::Data(format!("winners[{i}]: {e}")))?;
        log.push(x.as_ref(), y.as_ref(), outcome)
            .map_err(|e| VerdictError::Data(format!("battle {i}: {e}")))?;
    }
    Ok(log)
}

/// A matrix given as rows, flattened row by row once every row is checked to hold
/// `width` values (`what` names the matrix in the message).
///
/// # Errors
/// [`VerdictError::Data`] naming the first row of another length.
pub fn flatten_rows<T: Clone>(
    rows: &[Vec<T>],
    width: usize,
    what: &str,
) -> Result<Vec<T>, VerdictError> {
    match rows.iter().position(|row| row.len() != width) {
        Some(k) => Err(VerdictError::Data(format!(
            "{what} row {k} has {} entries, not {width}",
            rows[k].len()
        ))),
        None => Ok(rows.concat()),
    }
}

/// IVWE of each item from scores given one call at a time (`items[i]` scored
/// `scores[i]` by `judges[i]`), items and judges numbered in order of first appearance,
/// weighted by `variances` (rows of items, one value per judge, in that order) or by
/// each pair's sample variance (see [`verdict_judges::ivwe_from_scores`]). Returns
/// the items' names and estimates.
///
/// # Errors
/// Arrays of different lengths, a ragged `variances`, or what
/// [`verdict_judges::ivwe_from_scores`] refuses.
pub fn ivwe_by_name<S: AsRef<str>>(
    items: &[S],
    judges: &[S],
    scores: &[f64],
    variances: Option<&[Vec<f64>]>,
) -> Result<(Vec<String>, Vec<f64>), VerdictError> {
    same_lengths(
        ["items", "judges", "scores"],
        [items.len(), judges.len(), scores.len()],
    )?;
    let (mut item_ids, mut judge_ids) = (Interner::new(), Interner::new());
    let calls: Vec<(usize, usize, f64)> = items
        .iter()
        .zip(judges)
        .zip(scores)
        .map(|((item, judge), &score)| {
            let item = item_ids.intern(item.as_ref()).index();
            (item, judge_ids.intern(judge.as_ref()).index(), score)
        })
        .collect();
    let flat = variances
        .map(|rows| flatten_rows(rows, judge_ids.len(), "variances"))
        .transpose()?;
    let estimates =
        verdict_judges::ivwe_from_scores(item_ids.len(), judge_ids.len(), &calls, flat.as_deref())?;
    Ok((item_ids.names().to_vec(), estimates))
}

/// Three arrays read side by side have one length.
///
/// # Errors
/// [`VerdictError::Data`] naming the arrays and their lengths.
fn same_lengths(names: [&str; 3], lengths: [usize; 3]) -> Result<(), VerdictError> {
    if lengths[1] != lengths[0] || lengths[2] != lengths[0] {
        return Err(VerdictError::Data(format!(
            "{}, {} and {} must have the same length; got {}, {} and {}",
            names[0], names[1], names[2], lengths[0], lengths[1], lengths[2]
        )));
    }
    Ok(())
}

/// The judges' shared mistakes estimated from recorded calls (module
/// [`verdict_judges::SharedErrors`]), by name.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SharedErrorsByName {
    /// Number of distinct items.
    pub items: usize,
    /// The judges, in order of first appearance.
    pub judges: Vec<String>,
    /// Each judge's family.
    pub families: Vec<String>,
    /// The estimate (indices in the judges' order).
    pub estimate: verdict_judges::SharedErrors,
    /// The correlation of each two judges' item biases, row-major J×J (None where a
    /// judge has no bias).
    pub bias_correlation: Vec<Option<f64>>,
    /// Items each two judges both scored, row-major J×J.
    pub shared_items: Vec<usize>,
}

/// The shared mistakes of judges from calls given one at a time (`items[i]` scored
/// `scores[i]` by `judges[i]`; a judge scoring an item several times gives repeated
/// calls), with `families` naming some judges' family (the others each their own), in
/// `structure`.
///
/// # Errors
/// Arrays of different lengths, a score that is not finite, or a family for a judge
/// that gave no score.
pub fn shared_errors_by_name<S: AsRef<str>>(
    items: &[S],
    judges: &[S],
    scores: &[f64],
    families: &[(String, String)],
    structure: verdict_judges::BiasStructure,
) -> Result<SharedErrorsByName, VerdictError> {
    same_lengths(
        ["items", "judges", "scores"],
        [items.len(), judges.len(), scores.len()],
    )?;
    if scores.is_empty() {
        return Err(VerdictError::Data(
            "no scores: give at least one (item, judge, score), two judges sharing items to see a bias".into(),
        ));
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(VerdictError::Data(format!(
            "scores[{i}] = {}: every score must be a finite number",
            scores[i]
        )));
    }
    let (mut item_ids, mut judge_ids) = (Interner::new(), Interner::new());
    let calls: Vec<(usize, usize)> = items
        .iter()
        .zip(judges)
        .map(|(item, judge)| {
            (
                item_ids.intern(item.as_ref()).index(),
                judge_ids.intern(judge.as_ref()).index(),
            )
        })
        .collect();
    let (count, width) = (item_ids.len(), judge_ids.len());
    let names = judge_ids.names().to_vec();
    if let Some((judge, _)) = families.iter().find(|(judge, _)| !names.contains(judge)) {
        return Err(VerdictError::Data(format!(
            "a family is given for judge {judge:?}, who scored nothing; the judges are {}",
            names.join(", ")
        )));
    }
    let family_names: Vec<String> = names
        .iter()
        .map(|name| {
            families
                .iter()
                .find(|(judge, _)| judge == name)
                .map_or_else(|| name.clone(), |(_, family)| family.clone())
        })
        .collect();
    let mut pooled = vec![verdict_judges::PairStats::default(); count * width];
    for (&(item, judge), &score) in calls.iter().zip(scores) {
        pooled[item * width + judge].push(score);
    }
    let indices = verdict_judges::family_indices(&family_names);
    let estimate = verdict_judges::SharedErrors::estimate(&pooled, &indices, structure)?;
    let bias_correlation = (0..width * width)
        .map(|i| Some(estimate.bias_correlation(i / width, i % width)).filter(|r| r.is_finite()))
        .collect();
    let shared_items = (0..width * width)
        .map(|i| {
            let (a, b) = (i / width, i % width);
            (0..count)
                .filter(|k| pooled[k * width + a].count > 0 && pooled[k * width + b].count > 0)
                .count()
        })
        .collect();
    Ok(SharedErrorsByName {
        items: count,
        judges: names,
        families: family_names,
        estimate,
        bias_correlation,
        shared_items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_become_a_log_in_order_and_errors_name_the_position() {
        let log = battle_log_from_arrays(&["a", "b"], &["b", "c"], &["model_a", "tie"]).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log.models().names(), &["a", "b", "c"]);
        assert_eq!(log.battle(1).2, Outcome::Tie);
        let error = battle_log_from_arrays(&["a", "b"], &["b", "c"], &["model_a", "won"])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("winners[1]:"), "{error}");
        let error = battle_log_from_arrays(&["a", "b"], &["b", "b"], &["model_a", "tie"])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("battle 1:"), "{error}");
        assert!(battle_log_from_arrays(&["a"], &["b", "c"], &["tie"]).is_err());
    }
}
