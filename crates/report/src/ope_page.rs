//! The page of `verdict ope --report`: candidate routers with their intervals (value,
//! difference from the first, payoff in the duels) and, when costs are known, each
//! candidate on the cost–quality plane with both intervals. The numbers come from the
//! library; this module only draws them.

use std::fmt::Write;

use html_escape::{encode_double_quoted_attribute as attribute, encode_text as text};

use crate::html::{html_table, intervals_svg, note_list, page, section, tick_label};
use crate::{IntervalRow, TextTable};

/// A point with its interval on one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranged {
    /// The estimate.
    pub estimate: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
}

/// A candidate on the cost–quality plane.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanePoint {
    /// Its name.
    pub label: String,
    /// Expected cost per request.
    pub cost: Ranged,
    /// Value (doubly robust).
    pub value: Ranged,
    /// Whether its overlap fails.
    pub flagged: bool,
}

/// What the page shows.
#[derive(Debug, Clone)]
pub struct OpePage {
    /// The page title.
    pub title: String,
    /// One paragraph on the log and the estimators.
    pub lead: String,
    /// The estimates as a table.
    pub table: TextTable,
    /// Interval figures, each with its caption.
    pub figures: Vec<(String, Vec<IntervalRow>)>,
    /// The cost–quality plane, when costs are known.
    pub plane: Vec<PlanePoint>,
    /// Warnings and remarks.
    pub notes: Vec<String>,
}

/// The whole page.
pub fn ope_html(view: &OpePage) -> String {
    let mut body = format!("<p>{}</p>", text(&view.lead));
    if !view.notes.is_empty() {
        section(&mut body, "Notes", &note_list(&view.notes));
    }
    for (caption, rows) in &view.figures {
        section(
            &mut body,
            caption,
            &intervals_svg("candidates", caption, rows),
        );
    }
    if !view.plane.is_empty() {
        section(&mut body, "Cost and value", &plane_svg(&view.plane));
    }
    section(&mut body, "Estimates", &html_table(&view.table));
    page(&view.title, &body)
}

/// The candidates on the cost (x) – value (y) plane, each a dot with its two
/// intervals as a cross (hollow when flagged).
fn plane_svg(points: &[PlanePoint]) -> String {
    // Room: labels to the right of the last point, ticks to the left and below.
    let (width, height) = (760.0, 400.0);
    let (left, right, top, bottom) = (60.0, 160.0, 16.0, 50.0);
    let range = |f: &dyn Fn(&PlanePoint) -> Ranged| {
        let (lo, hi) = points
            .iter()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(r.low).min(r.estimate), h.max(r.high).max(r.estimate))
            });
        let (lo, hi) = if lo.is_finite() && hi.is_finite() {
            (lo, hi)
        } else {
            (0.0, 1.0)
        };
        let pad = if hi > lo { 0.08 * (hi - lo) } else { 0.5 };
        (lo - pad, hi + pad)
    };
    let (cx, cy) = (range(&|p| p.cost), range(&|p| p.value));
    let x = |v: f64| left + (v.clamp(cx.0, cx.1) - cx.0) / (cx.1 - cx.0) * (width - left - right);
    let y = |v: f64| {
        height - bottom - (v.clamp(cy.0, cy.1) - cy.0) / (cy.1 - cy.0) * (height - top - bottom)
    };
    let mut svg = format!(
        "<svg class=\"plane\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"candidates by expected cost and value\">"
    );
    for tick in 0..=4 {
        let t = f64::from(tick) / 4.0;
        let (vx, vy) = (cx.0 + t * (cx.1 - cx.0), cy.0 + t * (cy.1 - cy.0));
        let _ = write!(
            svg,
            "<line class=\"axis\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\
             <line class=\"axis\" x1=\"{5}\" x2=\"{6}\" y1=\"{7:.1}\" y2=\"{7:.1}\"/><text x=\"{8}\" y=\"{9:.1}\" text-anchor=\"end\">{10}</text>",
            x(vx),
            top,
            height - bottom,
            height - bottom + 16.0,
            tick_label(vx, cx.1 - cx.0),
            left,
            width - right,
            y(vy),
            left - 6.0,
            y(vy) + 4.0,
            tick_label(vy, cy.1 - cy.0)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">expected cost per request</text><text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">value (doubly robust)</text>",
        left + (width - left - right) / 2.0,
        height - 14.0,
        height / 2.0,
        height / 2.0
    );
    for p in points {
        let (px, py) = (x(p.cost.estimate), y(p.value.estimate));
        let style = if p.flagged {
            " style=\"fill:#fff;stroke:#D55E00;stroke-width:2\""
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<g class=\"candidate\" data-policy=\"{}\" data-cost=\"{}\" data-value=\"{}\"><title>{}: cost {:.4}, value {:.4}</title>\
             <line class=\"interval\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{py:.1}\" y2=\"{py:.1}\"/><line class=\"interval\" x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <circle class=\"point\" cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"5\"{style}/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            attribute(&p.label),
            p.cost.estimate,
            p.value.estimate,
            text(&p.label),
            p.cost.estimate,
            p.value.estimate,
            x(p.cost.low),
            x(p.cost.high),
            y(p.value.low),
            y(p.value.high),
            px + 8.0,
            py - 8.0,
            text(&crate::html::short_name(&p.label))
        );
    }
    svg.push_str("</svg>");
    svg
}
