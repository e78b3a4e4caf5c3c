//! A contextual log's summary for people (`verdict log`).

use std::fmt::Write as _;
use verdict_settings::Setting;

use verdict_feedback::LogSummary;

use crate::TextTable;

/// The summary as text: totals, one row per menu (agents, contexts, selection rate,
/// responses), and the pairs no menu holds (`allow_unobserved` names the setting that
/// extrapolates them).
pub fn log_summary(summary: &LogSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} contexts, {} agents, {} features, {} responses on {} (context, menu) pairs",
        summary.contexts,
        summary.agents.len(),
        summary.features.len(),
        summary.responses,
        summary.observed_context_menus
    );
    let mut table = TextTable::new(["menu", "contexts", "selected", "responses"]);
    for menu in &summary.menus {
        table.push(vec![
            menu.agents.join(", "),
            menu.contexts.to_string(),
            format!("{:.1}%", 100.0 * menu.selection_rate),
            menu.responses.to_string(),
        ]);
    }
    out.push_str(&table.render());
    if !summary.unmet_pairs.is_empty() {
        let pairs: Vec<String> = summary
            .unmet_pairs
            .iter()
            .map(|[a, b]| format!("{a} vs {b}"))
            .collect();
        let _ = writeln!(
            out,
            "{} pairs never met in any menu ({}): a fit needs {} to extrapolate them",
            pairs.len(),
            pairs.join(", "),
            Setting("allow_unobserved")
        );
    }
    out
}
