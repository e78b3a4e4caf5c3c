//! An [`OpeReport`] for people: the text `verdict ope` prints and its report page.

use std::fmt::Write;

use verdict_report::{IntervalRow, OpePage, PlanePoint, Ranged, TextTable};

use crate::ope::Estimate;
use crate::ope_report::OpeReport;

/// `estimate [low, high]` to four decimals.
fn shown(e: &Estimate) -> String {
    format!("{:.4} [{:.4}, {:.4}]", e.estimate, e.ci_low, e.ci_high)
}

fn ranged(e: &Estimate) -> Ranged {
    Ranged {
        estimate: e.estimate,
        low: e.ci_low,
        high: e.ci_high,
    }
}

fn row(label: &str, e: &Estimate, flagged: bool) -> IntervalRow {
    IntervalRow {
        label: label.to_owned(),
        estimate: e.estimate,
        interval: Some((e.ci_low, e.ci_high)),
        flagged,
    }
}

/// The first line: what was joined and how the nuisances were modelled.
fn lead(report: &OpeReport) -> String {
    let mut lead = format!(
        "{} single answers and {} duels with an outcome ({} decisions without, left out); outcome model: {}",
        report.rows, report.duels, report.without_outcome, report.outcome_model
    );
    if let Some(cost) = &report.cost_model {
        let _ = write!(lead, "; cost: {cost}");
    }
    if let Some(opponent) = &report.opponent {
        let _ = write!(lead, "; duels against {opponent}");
    }
    lead
}

/// The warnings: flagged candidates, and a log that gave only the routed agent's
/// propensity.
fn notes(report: &OpeReport) -> Vec<String> {
    let mut notes = Vec::new();
    if !report.logging_known {
        notes.push("the log gives only each routed agent's propensity: the overlap floor sees only agents the log never routed to".into());
    }
    for c in &report.candidates {
        let overlap = c
            .value
            .as_ref()
            .map(|v| v.overlap)
            .or(c.duel.as_ref().map(|d| d.overlap));
        if let Some(o) = overlap.filter(|o| o.flagged) {
            notes.push(format!(
                "{}: {:.1}% of its mass is on agents the logger offered below {}: its estimates extrapolate",
                c.policy,
                100.0 * o.mass_below_floor,
                report.floor
            ));
        }
    }
    notes
}

/// The text `verdict ope` prints: one block per candidate.
pub fn ope_text(report: &OpeReport) -> String {
    let mut text = lead(report) + "\n";
    for note in notes(report) {
        let _ = writeln!(text, "warning: {note}");
    }
    let first = report
        .candidates
        .first()
        .map(|c| c.policy.as_str())
        .unwrap_or("");
    for c in &report.candidates {
        let _ = writeln!(text, "\n{}", c.policy);
        if let Some(v) = &c.value {
            let _ = writeln!(text, "  IPS    {}", shown(&v.ips));
            let _ = writeln!(text, "  SNIPS  {}", shown(&v.snips));
            let _ = writeln!(text, "  DR     {}", shown(&v.dr));
            let _ = writeln!(
                text,
                "  overlap: effective sample size {:.1}, largest weight {:.2}",
                v.overlap.effective_sample_size, v.overlap.max_weight
            );
        }
        if let Some(cost) = &c.cost {
            let _ = writeln!(text, "  cost   {}", shown(cost));
        }
        if let Some((ips, dr)) = &c.versus_first {
            let _ = writeln!(
                text,
                "  minus {first}: IPS {}, DR {}",
                shown(ips),
                shown(dr)
            );
        }
        if let Some(d) = &c.duel {
            let _ = writeln!(
                text,
                "  duels against {}: IPS {}, DR {}",
                report.opponent.as_deref().unwrap_or(""),
                shown(&d.value.ips),
                shown(&d.value.dr)
            );
            if let Some(v) = &d.versus_first {
                let _ = writeln!(
                    text,
                    "  duels, minus {first}: IPS {}, DR {}",
                    shown(&v.ips),
                    shown(&v.dr)
                );
            }
        }
    }
    text
}

/// The report page titled `title`: the candidates' values, differences and duel
/// payoffs with intervals, the cost–quality plane when costs are known, and the table.
pub fn ope_html(report: &OpeReport, title: &str) -> String {
    let first = report
        .candidates
        .first()
        .map(|c| c.policy.clone())
        .unwrap_or_default();
    let mut figures: Vec<(String, Vec<IntervalRow>)> = Vec::new();
    let mut value_rows = Vec::new();
    let mut difference_rows = Vec::new();
    let mut duel_rows = Vec::new();
    let mut plane = Vec::new();
    let with_costs = report.candidates.iter().any(|c| c.cost.is_some());
    let with_duels = report.candidates.iter().any(|c| c.duel.is_some());
    let with_values = report.candidates.iter().any(|c| c.value.is_some());
    let mut header = vec!["policy"];
    if with_values {
        header.extend(["IPS", "SNIPS", "DR", "ESS", "max weight"]);
    }
    if with_costs {
        header.push("cost");
    }
    if with_values {
        header.push("DR minus first");
    }
    if with_duels {
        header.extend(["duel DR", "duel DR minus first"]);
    }
    let mut table = TextTable::new(header);
    let cell = |e: Option<&Estimate>| e.map(shown).unwrap_or_default();
    for c in &report.candidates {
        let flagged = c.value.as_ref().is_some_and(|v| v.overlap.flagged);
        if let Some(v) = &c.value {
            value_rows.push(row(&c.policy, &v.dr, flagged));
            if let Some(cost) = &c.cost {
                plane.push(PlanePoint {
                    label: c.policy.clone(),
                    cost: ranged(cost),
                    value: ranged(&v.dr),
                    flagged,
                });
            }
        }
        if let Some((_, dr)) = &c.versus_first {
            difference_rows.push(row(&c.policy, dr, flagged));
        }
        if let Some(d) = &c.duel {
            duel_rows.push(row(&c.policy, &d.value.dr, d.overlap.flagged));
        }
        let mut cells = vec![c.policy.clone()];
        if with_values {
            let v = c.value.as_ref();
            cells.extend([
                cell(v.map(|v| &v.ips)),
                cell(v.map(|v| &v.snips)),
                cell(v.map(|v| &v.dr)),
                v.map(|v| format!("{:.1}", v.overlap.effective_sample_size))
                    .unwrap_or_default(),
                v.map(|v| format!("{:.2}", v.overlap.max_weight))
                    .unwrap_or_default(),
            ]);
        }
        if with_costs {
            cells.push(cell(c.cost.as_ref()));
        }
        if with_values {
            cells.push(cell(c.versus_first.as_ref().map(|(_, dr)| dr)));
        }
        if with_duels {
            let d = c.duel.as_ref();
            cells.push(cell(d.map(|d| &d.value.dr)));
            cells.push(cell(d.and_then(|d| d.versus_first.as_ref()).map(|v| &v.dr)));
        }
        table.push(cells);
    }
    for (caption, rows) in [
        ("Value (doubly robust, 95% interval)".to_owned(), value_rows),
        (
            format!("Difference from {first} (doubly robust, paired)"),
            difference_rows,
        ),
        (
            format!(
                "Payoff in the duels against {} (doubly robust)",
                report.opponent.as_deref().unwrap_or("")
            ),
            duel_rows,
        ),
    ] {
        if !rows.is_empty() {
            figures.push((caption, rows));
        }
    }
    verdict_report::ope_html(&OpePage {
        title: title.to_owned(),
        lead: lead(report),
        table,
        figures,
        plane,
        notes: notes(report),
    })
}
