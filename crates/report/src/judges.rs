//! The judges experiment for people (`verdict bench judges`): a table per norm and
//! the error-against-budget curves.

use std::fmt::Write as _;

use verdict_judges::{ExperimentRow, ExperimentSettings, COVERAGE_LEVEL};

use crate::TextTable;
#[cfg(feature = "plots")]
use crate::{Curves, Series};

/// One block per norm: mean ± std of the error per method and budget, each
/// method's mean error relative to the oracle's, and how often its intervals held the
/// truth.
pub fn judges_table(rows: &[ExperimentRow], settings: &ExperimentSettings) -> String {
    let mut out = String::new();
    for norm in &settings.norms {
        let p = norm.to_string();
        let _ = writeln!(
            out,
            "l_{p} error, K = {}, J = {}, {} instances (mean ± std; × oracle)",
            settings.items, settings.judges, settings.repetitions
        );
        let table = per_cell(rows, settings, &p, |row, oracle| {
            Some(match (row.error_mean, row.error_std) {
                (Some(mean), std) => {
                    let ratio = oracle
                        .and_then(|o| o.error_mean)
                        .map_or(String::new(), |o| format!(" ({:.2}×)", mean / o));
                    let partial = if row.infeasible > 0 {
                        format!(" [{} of {} ran]", row.runs, settings.repetitions)
                    } else {
                        String::new()
                    };
                    format!("{mean:.3e} ± {:.1e}{ratio}{partial}", std.unwrap_or(0.0))
                }
                (None, _) => "budget too small".into(),
            })
        });
        let _ = writeln!(out, "{}", table.render());
        if rows.iter().any(|r| r.coverage.is_some()) {
            let _ = writeln!(
                out,
                "coverage of the {}% intervals, l_{p} runs: items / the mean over items (share of intervals holding the truth)",
                100.0 * COVERAGE_LEVEL
            );
            let _ = writeln!(out, "{}", coverage_table(rows, settings, &p).render());
        }
        if let Some(world) = &settings.shared_errors {
            let _ = writeln!(
                out,
                "shared mistakes (item-bias sd {}, {} families, correlation {} within one): the same calls scored bias-aware — l_{p} error (× the consensus score's); coverage of the {}% intervals, items / the mean; effective judges per item / of the panel",
                world.bias_sd,
                world.families,
                world.family_correlation,
                100.0 * COVERAGE_LEVEL
            );
            let _ = writeln!(out, "{}", bias_aware_table(rows, settings, &p).render());
        }
        if let Some(target) = settings.target_error {
            let _ = writeln!(
                out,
                "target error {target}: mean spend (share of runs that reached it; × the oracle's spend)"
            );
            let _ = writeln!(out, "{}", spend_table(rows, settings, &p).render());
        }
    }
    out
}

/// Per budget and method: the mean spend toward the target, the share of runs that
/// reached it, and the spend relative to the oracle's.
fn spend_table(rows: &[ExperimentRow], settings: &ExperimentSettings, p: &str) -> TextTable {
    per_cell(rows, settings, p, |row, oracle| {
        let spent = row.spent_mean?;
        let ratio = oracle
            .and_then(|o| o.spent_mean)
            .map_or(String::new(), |o| format!("; {:.2}×", spent / o));
        Some(format!(
            "{spent:.4e} ({:.0}%{ratio})",
            100.0 * row.reached.unwrap_or(0.0)
        ))
    })
}

/// A table of budgets × methods whose cells `cell` writes from the cell's row and the
/// oracle's at the same budget ("–" without a row or a value).
fn per_cell(
    rows: &[ExperimentRow],
    settings: &ExperimentSettings,
    p: &str,
    cell: impl Fn(&ExperimentRow, Option<&ExperimentRow>) -> Option<String>,
) -> TextTable {
    let mut header = vec!["budget".to_string()];
    header.extend(settings.methods.iter().cloned());
    let mut table = TextTable::new(header);
    for &budget in &settings.budgets {
        let find = |method: &str| {
            rows.iter()
                .find(|r| r.p == p && r.budget == budget && r.method == method)
        };
        let mut line = vec![format!("{budget:e}")];
        for method in &settings.methods {
            let text = find(method).and_then(|row| cell(row, find("oracle")));
            line.push(text.unwrap_or_else(|| "–".into()));
        }
        table.push(line);
    }
    table
}

/// Per budget and method: the share of item intervals and of intervals of the mean
/// that held the simulated truth.
fn coverage_table(rows: &[ExperimentRow], settings: &ExperimentSettings, p: &str) -> TextTable {
    let percent = |v: Option<f64>| v.map_or("–".into(), |v| format!("{:.1}%", 100.0 * v));
    per_cell(rows, settings, p, |row, _| {
        Some(format!(
            "{} / {}",
            percent(row.coverage),
            percent(row.mean_coverage)
        ))
    })
}

/// Per budget and method, in a world of shared mistakes: the bias-aware scores'
/// error (and its ratio to the consensus score's), their coverage, and the effective
/// judges per item and of the panel.
fn bias_aware_table(rows: &[ExperimentRow], settings: &ExperimentSettings, p: &str) -> TextTable {
    per_cell(rows, settings, p, |row, _| {
        let aware = row.bias_aware.as_ref()?;
        let ratio = row.error_mean.map_or(String::new(), |consensus| {
            format!(" ({:.2}×)", aware.error_mean / consensus)
        });
        let unidentified = if aware.unidentified > 0 {
            format!(" [{} unidentified]", aware.unidentified)
        } else {
            String::new()
        };
        Some(format!(
            "{:.3e}{ratio}; {:.1}% / {:.1}%; {:.2} / {:.2}{unidentified}",
            aware.error_mean,
            100.0 * aware.coverage,
            100.0 * aware.mean_coverage,
            aware.effective_judges,
            aware.panel_effective_judges
        ))
    })
}

/// One panel per norm, one line per method: mean error against budget.
#[cfg(feature = "plots")]
pub fn judges_curves(rows: &[ExperimentRow], settings: &ExperimentSettings) -> Vec<Curves> {
    settings
        .norms
        .iter()
        .map(|norm| {
            let p = norm.to_string();
            Curves {
                title: format!(
                    "l_{p} error, K = {}, J = {}",
                    settings.items, settings.judges
                ),
                x_label: "budget B".into(),
                y_label: format!("mean l_{p} error ({} instances)", settings.repetitions),
                series: settings
                    .methods
                    .iter()
                    .map(|method| Series {
                        name: method.clone(),
                        points: rows
                            .iter()
                            .filter(|r| r.p == p && &r.method == method)
                            .filter_map(|r| Some((r.budget, r.error_mean?)))
                            .collect(),
                    })
                    .collect(),
            }
        })
        .collect()
}
