//! Gold labels for some of the items: a prediction-powered correction of the judged
//! mean, each judge's bias against the labels, and how well the judges agree.
//!
//! **The corrected mean** is PPI++'s (Angelopoulos, Duchi and Zrnic 2023, "PPI++:
//! Efficient Prediction-Powered Inference", arXiv 2311.01453), computed as ppi_py's
//! `ppi_mean_ci` with its defaults (`lam=None`, clipped). With gold labels `Y_i` and
//! the judged scores `Ŷ_i` of the `n` labelled items, and the judged scores `Ŷ^u` of
//! the `N` others:
//!
//! ```text
//! θ_1 = mean(Ŷ^u) + mean(Y - Ŷ)                                  (plain PPI)
//! λ   = clip( cov(Y, Ŷ) / ((1 + n/N) · var(Ŷ ∪ Ŷ^u)), 0, 1 )      (power tuning)
//! θ   = λ · mean(Ŷ^u) + mean(Y - λ Ŷ)
//! se  = sqrt( sd(λ Ŷ^u)^2 / N + sd(Y - λ Ŷ)^2 / n )
//! ```
//!
//! (`cov` and `sd` with denominator `n` or `N`, `var` with `n + N - 1`, as ppi_py), and
//! the interval `θ ± z_(1 - α/2) se`. `λ = 0` is the mean of the gold labels alone,
//! `λ = 1` plain PPI. It estimates the mean gold label of the population the items are
//! drawn from, with the labelled items a uniform random subset of them — the
//! assumption to check: labels chosen for being easy or hard break it.
//!
//! **Per judge**, over the labelled items it scored: the mean of `m_kj - Y_k` (bias;
//! `m_kj` the mean of its calls), the root mean square of it, and Pearson's
//! correlation. **Agreement**: Krippendorff's α for interval data over each judge's
//! mean score of each item (Krippendorff 2011, "Computing Krippendorff's
//! Alpha-Reliability"; the `krippendorff` Python package is the reference):
//! `α = 1 - D_o / D_e`, `D_o = (1/n) Σ_u (1/(m_u - 1)) Σ_{i≠j in u} (v_i - v_j)^2`,
//! `D_e = (1/(n(n-1))) Σ_{i≠j} (v_i - v_j)^2` over the `n` values of items with at
//! least two judges.

use std::collections::HashMap;
use std::path::Path;

use statrs::distribution::{ContinuousCDF, Normal};

use crate::{Estimate, JudgeError, PairStats, ScoreInterval};

/// Reads gold labels: CSV with a header naming `id` and `score` columns, one row per
/// labelled item; returns each of `ids`' label, if any ([`gold_labels`]).
///
/// # Errors
/// [`JudgeError::Setting`] naming the file and row: no such columns, an id that is not
/// an item or appears twice, a score that is not a number in `[0, range]`.
pub fn read_gold(path: &Path, ids: &[String], range: f64) -> Result<Vec<Option<f64>>, JudgeError> {
    let fail = |message: String| JudgeError::Setting(format!("{}{message}", path.display()));
    let mut reader = csv::Reader::from_path(path).map_err(|e| fail(format!(": {e}")))?;
    let header = reader
        .headers()
        .map_err(|e| fail(format!(": {e}")))?
        .clone();
    let column = |name: &str| {
        header.iter().position(|h| h.trim() == name).ok_or_else(|| {
            fail(format!(
                ": no {name:?} column; give a header line `id,score` and one row per labelled item"
            ))
        })
    };
    let (id_column, score_column) = (column("id")?, column("score")?);
    let mut labels = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let place = format!("{}:{}", path.display(), row + 2);
        let record = record.map_err(|e| JudgeError::Setting(format!("{place}: {e}")))?;
        let text = record.get(score_column).unwrap_or("").trim();
        labels.push(GoldLabel {
            place,
            id: record.get(id_column).unwrap_or("").trim().to_string(),
            score: text.parse().map_err(|_| text.to_string()),
        });
    }
    gold_labels(labels, ids, range)
}

/// One gold label as given: where it was given (for errors), the item's id, and its
/// score (or the text that is not a number).
#[derive(Debug, Clone)]
pub struct GoldLabel {
    /// A file and line, or how the label was passed.
    pub place: String,
    /// The item's id.
    pub id: String,
    /// The label, or the text given for it.
    pub score: Result<f64, String>,
}

/// [`gold_labels`] of `(id, score)` pairs given in memory.
///
/// # Errors
/// As [`gold_labels`].
pub fn gold_from_pairs(
    pairs: Vec<(String, f64)>,
    ids: &[String],
    range: f64,
) -> Result<Vec<Option<f64>>, JudgeError> {
    let labels = pairs.into_iter().map(|(id, score)| GoldLabel {
        place: format!("gold label of {id:?}"),
        id,
        score: Ok(score),
    });
    gold_labels(labels, ids, range)
}

/// Each of `ids`' gold label, if any, from `labels`.
///
/// # Errors
/// [`JudgeError::Setting`] naming the label's place: an id that is not an item or is
/// labelled twice, a score that is not a number in `[0, range]`, fewer than two
/// labelled items or fewer than two without a label.
pub fn gold_labels(
    labels: impl IntoIterator<Item = GoldLabel>,
    ids: &[String],
    range: f64,
) -> Result<Vec<Option<f64>>, JudgeError> {
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut gold = vec![None; ids.len()];
    for GoldLabel { place, id, score } in labels {
        let fail = |message: String| JudgeError::Setting(format!("{place}: {message}"));
        let &k = index
            .get(id.as_str())
            .ok_or_else(|| fail(format!("id {id:?} is not one of the items")))?;
        let score = score
            .ok()
            .filter(|s| (0.0..=range).contains(s))
            .ok_or_else(|| {
                fail(format!(
                    "the gold score of item {id:?} must be a number in [0, {range}]"
                ))
            })?;
        if gold[k].replace(score).is_some() {
            return Err(fail(format!("item {id:?} has a second gold label")));
        }
    }
    // Checked here, before any judge is paid: the correction needs both kinds.
    let labelled = gold.iter().filter(|g| g.is_some()).count();
    let unlabelled = ids.len() - labelled;
    if labelled < 2 || unlabelled < 2 {
        return Err(JudgeError::Setting(format!(
            "{labelled} of {} items have gold labels and {unlabelled} do not: the correction needs at least two labelled items and two without labels; label more items, or leave some unlabelled",
            ids.len()
        )));
    }
    Ok(gold)
}

/// The PPI++ mean and, beside it, the gold labels' own mean and the judged mean.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PpiMean {
    /// `θ` with its standard error and interval.
    pub corrected: ScoreInterval,
    /// The power-tuning `λ` in `[0, 1]`.
    pub lambda: f64,
    /// The mean of the gold labels alone (`λ = 0`), with its interval.
    pub gold_only: ScoreInterval,
    /// The mean of the judged scores of all items, uncorrected.
    pub judged: f64,
    /// Labelled items `n`.
    pub labelled: usize,
    /// Other items `N`.
    pub unlabelled: usize,
}

/// PPI++'s mean (module docs) at confidence `level`.
///
/// # Errors
/// [`JudgeError::Setting`] with fewer than two labelled or two unlabelled items,
/// lengths that differ, or a level outside (0, 1).
pub fn ppi_mean(
    gold: &[f64],
    judged_gold: &[f64],
    judged_rest: &[f64],
    level: f64,
) -> Result<PpiMean, JudgeError> {
    let (n, big_n) = (gold.len(), judged_rest.len());
    if n < 2 || big_n < 2 || judged_gold.len() != n {
        return Err(JudgeError::Setting(format!(
            "{n} gold labels for {} judged labelled items and {big_n} others: the correction needs at least two labelled items and two without labels",
            judged_gold.len()
        )));
    }
    crate::check_level(level)?;
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let population_variance = |x: &[f64]| {
        let m = mean(x);
        x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / x.len() as f64
    };
    let (mean_y, mean_yhat) = (mean(gold), mean(judged_gold));
    let covariance = gold
        .iter()
        .zip(judged_gold)
        .map(|(y, f)| (y - mean_y) * (f - mean_yhat))
        .sum::<f64>()
        / n as f64;
    let all: Vec<f64> = judged_gold.iter().chain(judged_rest).copied().collect();
    let all_mean = mean(&all);
    let all_variance =
        all.iter().map(|v| (v - all_mean).powi(2)).sum::<f64>() / (all.len() - 1) as f64;
    // Constant judged scores carry no information about the labels: λ = 0.
    let lambda = if all_variance > 0.0 {
        (covariance / ((1.0 + n as f64 / big_n as f64) * all_variance)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let z = Normal::standard().inverse_cdf(0.5 + level / 2.0);
    let at = |lambda: f64| {
        let imputed: Vec<f64> = judged_rest.iter().map(|f| lambda * f).collect();
        let rectifier: Vec<f64> = gold
            .iter()
            .zip(judged_gold)
            .map(|(y, f)| y - lambda * f)
            .collect();
        let estimate = mean(&imputed) + mean(&rectifier);
        let std_error = (population_variance(&imputed) / big_n as f64
            + population_variance(&rectifier) / n as f64)
            .sqrt();
        ScoreInterval {
            score: estimate,
            std_error,
            low: estimate - z * std_error,
            high: estimate + z * std_error,
        }
    };
    Ok(PpiMean {
        corrected: at(lambda),
        lambda,
        gold_only: at(0.0),
        judged: mean(&all),
        labelled: n,
        unlabelled: big_n,
    })
}

/// One judge against the gold labels of the items it scored.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgeAgreement {
    /// Labelled items the judge scored.
    pub items: usize,
    /// Mean of (its mean score − gold label); None without items.
    pub bias: Option<f64>,
    /// Root mean square of the same differences.
    pub rmse: Option<f64>,
    /// Pearson's correlation of its mean scores with the labels (None below three
    /// items or without spread).
    pub correlation: Option<f64>,
}

/// Each judge against the gold labels, from every call's statistics `pooled`
/// (row-major K×J).
pub fn judge_agreement(pooled: &[PairStats], gold: &[Option<f64>]) -> Vec<JudgeAgreement> {
    let judges = pooled.len() / gold.len().max(1);
    (0..judges)
        .map(|j| {
            let pairs: Vec<(f64, f64)> = gold
                .iter()
                .enumerate()
                .filter_map(|(k, g)| {
                    let stats = &pooled[k * judges + j];
                    Some((stats.mean(), (*g)?)).filter(|_| stats.count > 0)
                })
                .collect();
            let count = pairs.len() as f64;
            let bias =
                (!pairs.is_empty()).then(|| pairs.iter().map(|(m, g)| m - g).sum::<f64>() / count);
            let rmse = (!pairs.is_empty())
                .then(|| (pairs.iter().map(|(m, g)| (m - g).powi(2)).sum::<f64>() / count).sqrt());
            JudgeAgreement {
                items: pairs.len(),
                bias,
                rmse,
                correlation: pearson(&pairs),
            }
        })
        .collect()
}

/// Pearson's correlation of the pairs; None below three pairs or without spread.
fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let count = pairs.len() as f64;
    let (mx, my) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / count, b + y / count));
    let (sxy, sxx, syy) = pairs.iter().fold((0.0, 0.0, 0.0), |(xy, xx, yy), (x, y)| {
        let (dx, dy) = (x - mx, y - my);
        (xy + dx * dy, xx + dx * dx, yy + dy * dy)
    });
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Krippendorff's α for interval data (module docs); `ratings` is row-major
/// items × judges, `None` where a judge did not rate an item. None when fewer than
/// two values are pairable or they do not vary.
pub fn krippendorff_alpha(ratings: &[Option<f64>], judges: usize) -> Option<f64> {
    let mut observed = 0.0;
    let mut pairable: Vec<f64> = Vec::new();
    for unit in ratings.chunks(judges) {
        let values: Vec<f64> = unit.iter().flatten().copied().collect();
        let m = values.len() as f64;
        if values.len() < 2 {
            continue;
        }
        observed += ordered_pair_squares(&values) / (m - 1.0);
        pairable.extend(values);
    }
    let n = pairable.len() as f64;
    if pairable.len() < 2 {
        return None;
    }
    let expected = ordered_pair_squares(&pairable) / (n * (n - 1.0));
    (expected > 0.0).then(|| 1.0 - (observed / n) / expected)
}

/// `Σ_{i≠j} (v_i - v_j)^2` over ordered pairs, `2 (m Σ v^2 - (Σ v)^2)`.
fn ordered_pair_squares(values: &[f64]) -> f64 {
    let m = values.len() as f64;
    let mean = values.iter().sum::<f64>() / m;
    2.0 * m * values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
}

/// What gold labels say of a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GoldReport {
    /// The corrected mean.
    pub mean: PpiMean,
    /// One per judge, in the pool's order.
    pub judges: Vec<JudgeAgreement>,
    /// Krippendorff's α of the judges' mean scores of every item.
    pub alpha: Option<f64>,
}

/// The gold report of `estimate` for labels `gold` (one per item, `None` when
/// unlabelled) at confidence `level`.
///
/// # Errors
/// As [`ppi_mean`].
pub fn gold_report(
    estimate: &Estimate,
    gold: &[Option<f64>],
    level: f64,
) -> Result<GoldReport, JudgeError> {
    let mut labelled = (Vec::new(), Vec::new());
    let mut rest = Vec::new();
    for (score, label) in estimate.scores.iter().zip(gold) {
        match label {
            Some(y) => {
                labelled.0.push(*y);
                labelled.1.push(*score);
            }
            None => rest.push(*score),
        }
    }
    let judges = estimate.pooled.len() / gold.len().max(1);
    let ratings: Vec<Option<f64>> = estimate
        .pooled
        .iter()
        .map(|s| (s.count > 0).then(|| s.mean()))
        .collect();
    Ok(GoldReport {
        mean: ppi_mean(&labelled.0, &labelled.1, &rest, level)?,
        judges: judge_agreement(&estimate.pooled, gold),
        alpha: krippendorff_alpha(&ratings, judges),
    })
}
