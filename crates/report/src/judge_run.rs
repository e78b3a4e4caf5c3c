//! A judging run as one page, from its spend ledger: what was spent against the
//! budget, spend per judge and per item, and the allocation (how many scored calls
//! each judge made on each item).

use std::fmt::Write;

use html_escape::encode_text as text;
use verdict_judges::LedgerSpend;

use crate::html::{bar_chart, grid_heatmap, page, section};

/// Most items drawn one bar each; past this the page shows the costliest.
const MAX_ITEM_BARS: usize = 40;

/// Most items the allocation shows one row each; past this items are its columns.
const MAX_ITEM_ROWS: usize = 20;

/// The run's sections: `summary` (what the run printed), spend per judge and per
/// item, and the allocation.
pub fn judge_run_sections(spend: &LedgerSpend, budget: f64, summary: &str) -> String {
    let mut body = String::new();
    let total = spend.total();
    let mut overview = format!(
        "{summary}\nspent {total:.4} of the budget {budget} ({:.1}%) on {} scored calls",
        100.0 * total / budget,
        spend.scored.iter().flatten().sum::<u32>()
    );
    if spend.failed + spend.lost + spend.in_doubt > 0 {
        let _ = write!(
            overview,
            "; {} failed (not charged), {} lost in flight (charged), {} in doubt",
            spend.failed, spend.lost, spend.in_doubt
        );
    }
    section(&mut body, "Run", &format!("<pre>{}</pre>", text(&overview)));
    let per_judge: Vec<(String, f64)> = spend
        .judges
        .iter()
        .cloned()
        .zip(spend.per_judge())
        .collect();
    section(
        &mut body,
        "Spend per judge",
        &bar_chart("judge-spend", &per_judge, ""),
    );
    let mut per_item: Vec<(String, f64)> =
        spend.items.iter().cloned().zip(spend.per_item()).collect();
    let shown = if per_item.len() > MAX_ITEM_BARS {
        per_item.sort_by(|a, b| b.1.total_cmp(&a.1));
        per_item.truncate(MAX_ITEM_BARS);
        format!(
            "<p>The {MAX_ITEM_BARS} costliest of {} items.</p>",
            spend.items.len()
        )
    } else {
        String::new()
    };
    section(
        &mut body,
        "Spend per item",
        &(shown + &bar_chart("item-spend", &per_item, "")),
    );
    let calls: Vec<Vec<f64>> = spend
        .scored
        .iter()
        .map(|row| row.iter().map(|&c| f64::from(c)).collect())
        .collect();
    let most = calls.iter().flatten().fold(1.0f64, |m, &v| m.max(v));
    let shade = |v: f64| 0.5 + 0.5 * v / most;
    // Items down the side while they fit; past that, across (the figure scrolls).
    let figure = if spend.items.len() <= MAX_ITEM_ROWS {
        grid_heatmap(&spend.items, &spend.judges, &calls, shade, "calls")
    } else {
        let by_judge: Vec<Vec<f64>> = (0..spend.judges.len())
            .map(|j| calls.iter().map(|row| row[j]).collect())
            .collect();
        grid_heatmap(&spend.judges, &spend.items, &by_judge, shade, "calls")
    };
    section(
        &mut body,
        "Allocation: scored calls per item and judge",
        &format!("<div class=\"scroll\">{figure}</div>"),
    );
    body
}

/// The run as one self-contained HTML page ([`judge_run_sections`]).
pub fn judge_run_html(spend: &LedgerSpend, budget: f64, summary: &str, title: &str) -> String {
    page(title, &judge_run_sections(spend, budget, summary))
}
