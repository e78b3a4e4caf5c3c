//! A results file of the accuracy experiment ([`crate::experiment`]) summarized as
//! NashEval's Figure 3: for each feedback form, voter count and method, the mean and
//! sample standard deviation over seeds of exploitability (Eq. 69) and support F1
//! (Eq. 70).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
#[cfg(feature = "plots")]
use verdict::report::{Curves, Series};

use verdict::VerdictError;

/// The fields of a cell the summary reads (cells written before the feedback form
/// and the method were recorded are pairwise NashEval cells).
#[derive(Debug, Clone, Deserialize)]
struct Cell {
    #[serde(default = "nasheval")]
    method: String,
    #[serde(default = "pairwise")]
    feedback: String,
    voters: usize,
    variant: Option<String>,
    regression: Option<String>,
    policy: String,
    exploitability: f64,
    support_f1: f64,
    #[serde(default)]
    default_vs_this: Option<f64>,
}

fn nasheval() -> String {
    "nasheval".into()
}

fn pairwise() -> String {
    "pairwise".into()
}

impl Cell {
    /// The method as the paper's figure names it: `NashEval-debiased` (solver, shared
    /// regression), with the policy or regression added when not those, or the
    /// baseline's name.
    fn label(&self) -> String {
        if self.method != "nasheval" {
            return self.method.clone();
        }
        let variant = self.variant.as_deref().unwrap_or("?");
        let mut label = format!("NashEval-{variant}");
        if self.regression.as_deref() == Some("PerPair") {
            label.push_str(" per-pair");
        }
        if self.policy == "network" {
            label.push_str(" (network)");
        }
        label
    }
}

/// One row of the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Feedback form.
    pub feedback: String,
    /// Voters `N_v`.
    pub voters: usize,
    /// The method's label.
    pub method: String,
    /// Seeds averaged.
    pub seeds: usize,
    /// Mean and sample standard deviation of exploitability.
    pub exploitability: (f64, f64),
    /// Mean and sample standard deviation of support F1.
    pub support_f1: (f64, f64),
    /// Mean and sample standard deviation of the default's head-to-head game value
    /// against the method (Eq. 71), over the seeds that recorded it.
    pub default_vs_this: Option<(f64, f64)>,
}

/// The summary's columns, in the order of [`SummaryRow::cells`].
pub const SUMMARY_COLUMNS: [&str; 7] = [
    "feedback",
    "N_v",
    "method",
    "seeds",
    "exploitability",
    "support F1",
    "default's game value against it",
];

impl SummaryRow {
    /// The row as text: means ± sample sds (exploitability and the game value to four
    /// decimals, F1 to three), `—` where the default's game value was not recorded.
    pub fn cells(&self) -> [String; 7] {
        [
            self.feedback.clone(),
            self.voters.to_string(),
            self.method.clone(),
            self.seeds.to_string(),
            format!(
                "{:.4} ± {:.4}",
                self.exploitability.0, self.exploitability.1
            ),
            format!("{:.3} ± {:.3}", self.support_f1.0, self.support_f1.1),
            self.default_vs_this
                .map_or("—".into(), |(m, s)| format!("{m:+.4} ± {s:.4}")),
        ]
    }
}

/// The distinct `names`, in the order first met.
pub(crate) fn first_met<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut distinct: Vec<&str> = Vec::new();
    for name in names {
        if !distinct.contains(&name) {
            distinct.push(name);
        }
    }
    distinct
}

/// Mean and sample standard deviation (0 for one value).
pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = if values.len() > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, sd)
}

/// The summary of the results file at `path` ([`summarize_text`]).
///
/// # Errors
/// [`VerdictError::Data`] naming the file when it cannot be read, else as
/// [`summarize_text`].
pub fn summarize(path: &Path) -> Result<Vec<SummaryRow>, VerdictError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| VerdictError::Data(format!("{}: cannot read: {e}", path.display())))?;
    summarize_text(&path.display().to_string(), &text)
}

/// The summary of a results file's text (`label` names it in errors), rows by
/// feedback form (pairwise, ranking, winner), voters, then method in order of first
/// appearance.
///
/// # Errors
/// [`VerdictError::Data`] naming the line that is not a cell.
pub fn summarize_text(label: &str, text: &str) -> Result<Vec<SummaryRow>, VerdictError> {
    let mut order: Vec<String> = Vec::new();
    // (form, voters, method) → the seeds' exploitabilities, F1s and head-to-head values.
    type Scores = (Vec<f64>, Vec<f64>, Vec<f64>);
    let mut groups: BTreeMap<(usize, usize, usize), Scores> = BTreeMap::new();
    let form = |f: &str| match f {
        "pairwise" => 0,
        "ranking" => 1,
        _ => 2,
    };
    let mut forms = ["pairwise".to_string(), "ranking".into(), "winner".into()];
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let cell: Cell = serde_json::from_str(line)
            .map_err(|e| VerdictError::Data(format!("{label} line {}: not a cell: {e}", n + 1)))?;
        let label = cell.label();
        let m = order.iter().position(|l| *l == label).unwrap_or_else(|| {
            order.push(label);
            order.len() - 1
        });
        let f = form(&cell.feedback);
        forms[f] = cell.feedback.clone();
        let entry = groups.entry((f, cell.voters, m)).or_default();
        entry.0.push(cell.exploitability);
        entry.1.push(cell.support_f1);
        entry.2.extend(cell.default_vs_this);
    }
    Ok(groups
        .into_iter()
        .map(|((f, voters, m), (expl, f1, versus))| SummaryRow {
            feedback: forms[f].clone(),
            voters,
            method: order[m].clone(),
            seeds: expl.len(),
            exploitability: mean_sd(&expl),
            support_f1: mean_sd(&f1),
            default_vs_this: (!versus.is_empty()).then(|| mean_sd(&versus)),
        })
        .collect())
}

/// One panel per feedback form and measure (exploitability on the first row, support
/// F1 on the second), a line per method over the voters (see the table for the rest).
#[cfg(feature = "plots")]
pub fn figure(rows: &[SummaryRow]) -> Vec<Curves> {
    let forms = first_met(rows.iter().map(|r| r.feedback.as_str()));
    // Drawn: one line per method at the shared regression and the solver, and the
    // default as `verdict fit` runs it (`auto` with the network); Borda plays as
    // BT-debiased on complete pairs (Appendix I.3) and is left to the table.
    let drawn = |m: &str| {
        !m.contains("per-pair")
            && (!m.contains("network") || m.starts_with("NashEval-auto"))
            && m != "borda"
    };
    let methods = first_met(rows.iter().map(|r| r.method.as_str()).filter(|m| drawn(m)));
    type Measure = fn(&SummaryRow) -> f64;
    let measures: [(&str, Measure); 2] = [
        ("exploitability", |r| r.exploitability.0),
        ("support F1", |r| r.support_f1.0),
    ];
    let mut panels = Vec::new();
    for (measure, value) in measures {
        for form in &forms {
            let series = methods
                .iter()
                .map(|m| Series {
                    name: (*m).to_string(),
                    points: rows
                        .iter()
                        .filter(|r| r.feedback == *form && r.method == *m)
                        .map(|r| (r.voters as f64, value(r)))
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            panels.push(Curves {
                title: format!("{form} feedback: {measure}"),
                x_label: "voters N_v".into(),
                y_label: format!("mean {measure} over seeds"),
                series,
            });
        }
    }
    panels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_average_over_seeds_with_the_sample_deviation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let line = |seed: u64, method: &str, e: f64, f: f64| {
            format!(
                r#"{{"key":"k{seed}{method}","method":"{method}","feedback":"ranking","seed":{seed},"voters":3,"variant":"plugin","regression":"shared","policy":"solver","exploitability":{e},"support_f1":{f}}}"#
            )
        };
        let text = [
            line(70, "bt-plugin", 0.1, 0.5).replace("\"support_f1\"", "\"default_vs_this\":0.04,\"support_f1\""),
            line(71, "bt-plugin", 0.3, 0.7),
            line(70, "nasheval", 0.2, 0.9),
            // An older pairwise NashEval cell, without method or feedback.
            r#"{"key":"old","seed":70,"voters":1,"variant":"debiased","regression":"PerPair","policy":"network","exploitability":0.4,"support_f1":0.6}"#.into(),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let rows = summarize(&path).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].feedback.as_str(), rows[0].voters), ("pairwise", 1));
        assert_eq!(rows[0].method, "NashEval-debiased per-pair (network)");
        let bt = &rows[1];
        assert_eq!((bt.method.as_str(), bt.seeds), ("bt-plugin", 2));
        assert!((bt.exploitability.0 - 0.2).abs() < 1e-15);
        // Sample sd of {0.1, 0.3}: sqrt(0.02) (closed form).
        assert!((bt.exploitability.1 - 0.02f64.sqrt()).abs() < 1e-15);
        // One of its two seeds recorded the head-to-head value.
        assert_eq!(bt.default_vs_this, Some((0.04, 0.0)));
        assert_eq!(rows[0].default_vs_this, None);
        assert_eq!(rows[2].method, "NashEval-plugin");
    }
}
