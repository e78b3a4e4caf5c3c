//! The judges experiment for people (`verdict bench judges`): a table per norm and
//! the error-against-budget curves.

use std::fmt::Write as _;

use verdict_judges::{ExperimentRow, ExperimentSettings};

use crate::TextTable;
#[cfg(feature = "plots")]
use crate::{Curves, Series};

/// One block per norm: mean ± std of the error per method and budget, and each
/// method's mean error relative to the oracle's.
pub fn judges_table(rows: &[ExperimentRow], settings: &ExperimentSettings) -> String {
    let mut out = String::new();
    for norm in &settings.norms {
        let p = norm.to_string();
        let _ = writeln!(
            out,
            "l_{p} error, K = {}, J = {}, {} instances (mean ± std; × oracle)",
            settings.items, settings.judges, settings.repetitions
        );
        let mut header = vec!["budget".to_string()];
        header.extend(settings.methods.iter().cloned());
        let mut table = TextTable::new(header);
        for &budget in &settings.budgets {
            let cell = |method: &str| {
                rows.iter()
                    .find(|r| r.p == p && r.budget == budget && r.method == method)
            };
            let oracle = cell("oracle").and_then(|r| r.error_mean);
            let mut line = vec![format!("{budget:e}")];
            for method in &settings.methods {
                let row = cell(method).expect("every cell has a row");
                line.push(match (row.error_mean, row.error_std) {
                    (Some(mean), std) => {
                        let ratio =
                            oracle.map_or(String::new(), |o| format!(" ({:.2}×)", mean / o));
                        let partial = if row.infeasible > 0 {
                            format!(" [{} of {} ran]", row.runs, settings.repetitions)
                        } else {
                            String::new()
                        };
                        format!("{mean:.3e} ± {:.1e}{ratio}{partial}", std.unwrap_or(0.0))
                    }
                    (None, _) => "budget too small".into(),
                });
            }
            table.push(line);
        }
        let _ = writeln!(out, "{}", table.render());
    }
    out
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
