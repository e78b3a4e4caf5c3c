//! NashEval's figures: the policy network's training curve, the selected menus'
//! propensities per menu, and who wins where (NashEval Figure 4: rows are the
//! categories of a context attribute, columns the agents), beside the truth on a
//! simulation.

use std::fmt::Write;

use html_escape::{encode_double_quoted_attribute as attribute, encode_text as text};
use verdict_nasheval::{PropensityHistogram, TrainingReport, WinnerFrequency};

use crate::html::grid_heatmap;

/// The held-out mean gap after each epoch as a line, the best constant policy's gap
/// dashed, and a dot at the epoch whose weights were kept.
pub(crate) fn training_curve_svg(t: &TrainingReport) -> String {
    let curve = &t.held_out_curve;
    if curve.len() < 2 {
        return "<p>No training curve was recorded (a model file written before verdict recorded it).</p>".into();
    }
    let (left, top, plot_w, plot_h) = (70.0, 12.0, 520.0, 180.0);
    let constant = t.constant_gap.filter(|g| g.is_finite());
    let high = curve
        .iter()
        .copied()
        .chain(constant)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let last = (curve.len() - 1) as f64;
    let x = |epoch: f64| left + epoch / last * plot_w;
    let y = |gap: f64| top + (1.0 - gap / high) * plot_h;
    let (width, height) = (left + plot_w + 20.0, top + plot_h + 40.0);
    let mut svg = format!(
        "<svg class=\"training-curve\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"held-out gap by epoch\" data-epochs=\"{}\">",
        curve.len() - 1
    );
    let _ = write!(
        svg,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\"/><line class=\"axis\" x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{0:.1}\"/>",
        top + plot_h,
        left + plot_w
    );
    for (value, label) in [(0.0, "0".to_string()), (high, format!("{high:.4}"))] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            left - 6.0,
            y(value) + 4.0
        );
    }
    for epoch in [0.0, last] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{epoch}</text>",
            x(epoch),
            top + plot_h + 16.0
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">epoch (held-out mean gap)</text>",
        left + plot_w / 2.0,
        top + plot_h + 32.0
    );
    if let Some(c) = constant {
        let _ = write!(
            svg,
            "<line class=\"constant\" x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"><title>best constant policy: {c:.5}</title></line>",
            y(c),
            left + plot_w
        );
    }
    let points: Vec<String> = curve
        .iter()
        .enumerate()
        .map(|(e, g)| format!("{:.1},{:.1}", x(e as f64), y(*g)))
        .collect();
    let _ = write!(
        svg,
        "<polyline class=\"held-out\" fill=\"none\" stroke=\"#0072B2\" stroke-width=\"2\" points=\"{}\"/>",
        points.join(" ")
    );
    let kept = t.best_epoch.min(curve.len() - 1);
    let _ = write!(
        svg,
        "<circle class=\"kept\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#D55E00\"><title>kept epoch {kept}: {:.5}</title></circle></svg>",
        x(kept as f64),
        y(curve[kept]),
        curve[kept]
    );
    svg
}

/// Above this many menus, the histogram rows carry no label (only a tooltip).
const LABELLED_MENUS: usize = 40;

/// One row per menu with records, one column per quarter decade of `ê`: the share of
/// the menu's records in each bin, shaded relative to the largest share of any cell,
/// the floor as a vertical line.
pub(crate) fn propensity_svg(h: &PropensityHistogram, menu_names: &[String], floor: f64) -> String {
    let rows: Vec<usize> = (0..h.counts.len())
        .filter(|&m| h.counts[m].iter().any(|&c| c > 0))
        .collect();
    if rows.is_empty() {
        return "<p>No menu was selected.</p>".into();
    }
    let labelled = rows.len() <= LABELLED_MENUS;
    let row_h = if labelled { 16.0 } else { 6.0 };
    let left = if labelled { 180.0 } else { 20.0 };
    let (cell_w, top) = (30.0, 8.0);
    let bins = h.counts[0].len();
    let share = |m: usize, count: u64| {
        let total: u64 = h.counts[m].iter().sum();
        count as f64 / total.max(1) as f64
    };
    let largest = rows
        .iter()
        .flat_map(|&m| h.counts[m].iter().map(move |&c| share(m, c)))
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let plot_w = cell_w * bins as f64;
    let (width, height) = (left + plot_w + 20.0, top + row_h * rows.len() as f64 + 36.0);
    let mut svg = format!(
        "<svg class=\"propensities\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"propensities per menu\" data-menus=\"{}\">",
        rows.len()
    );
    for (r, &m) in rows.iter().enumerate() {
        let total: u64 = h.counts[m].iter().sum();
        let y = top + row_h * r as f64;
        let name = menu_names.get(m).map_or("?", String::as_str);
        if labelled {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left - 6.0,
                y + row_h - 4.0,
                text(name)
            );
        }
        for (b, &count) in h.counts[m].iter().enumerate() {
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{cell_w}\" height=\"{row_h}\" fill=\"{}\" data-menu=\"{}\" data-count=\"{count}\"><title>{}: {count} of {total} in [{:.1e}, {:.1e})</title></rect>",
                left + cell_w * b as f64,
                crate::html::sequential(share(m, count) / largest),
                attribute(name),
                text(name),
                h.edges[b],
                h.edges[b + 1]
            );
        }
    }
    let bottom = top + row_h * rows.len() as f64;
    let decade_x = |e: f64| left + (e.log10() + 4.0) * 4.0 * cell_w;
    for decade in [-4, -3, -2, -1, 0] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1e{decade}</text>",
            decade_x(10f64.powi(decade)),
            bottom + 16.0
        );
    }
    if floor > 1e-4 && floor < 1.0 {
        let fx = decade_x(floor);
        let _ = write!(
            svg,
            "<line class=\"floor\" x1=\"{fx:.1}\" y1=\"{top}\" x2=\"{fx:.1}\" y2=\"{bottom:.1}\" stroke=\"#D55E00\" stroke-width=\"2\"><title>propensity floor {floor}</title></line>"
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">out-of-fold propensity of the selected menu (log scale)</text></svg>",
        left + plot_w / 2.0,
        bottom + 32.0
    );
    svg
}

/// The winner shares as a heatmap (categories × agents), with the truth's beside it
/// when given.
pub(crate) fn winners_figure(
    column: &str,
    fitted: &WinnerFrequency,
    truth: Option<&WinnerFrequency>,
) -> String {
    let rows: Vec<String> = fitted
        .categories
        .iter()
        .zip(&fitted.contexts)
        .map(|(c, n)| format!("{c} ({n})"))
        .collect();
    let panel = |w: &WinnerFrequency| {
        grid_heatmap(
            &rows,
            &w.agents,
            &w.shares,
            |v| 0.5 + 0.5 * v,
            "winner-shares",
        )
    };
    let mut out = format!(
        "<p>Share of each {}'s contexts (count in brackets) whose equilibrium puts most probability on the agent.</p><div class=\"panels\">",
        text(column)
    );
    let _ = write!(
        out,
        "<figure><figcaption>fitted policy</figcaption>{}</figure>",
        panel(fitted)
    );
    if let Some(truth) = truth {
        let _ = write!(
            out,
            "<figure><figcaption>truth</figcaption>{}</figure>",
            panel(truth)
        );
    }
    out.push_str("</div>");
    out
}
