//! A leaderboard as one self-contained HTML page: inline CSS and SVG, no script, no
//! font or image fetched from anywhere, readable offline and in a mail.
//!
//! Figures: each board's scores with their interval bars (one row per model, best at
//! the top), the predicted win-probability and observed win matrices as heatmaps when
//! `--matrix` computed them, the coefficients of a covariate board; with `--method
//! all`, the boards side by side and the models whose rank differs between methods.
//! Colours: Okabe–Ito for marks, a blue–white–red diverging scale (ColorBrewer RdBu,
//! colour-blind safe) centred at one half for probabilities.

use std::fmt::Write;

use html_escape::{encode_double_quoted_attribute as attribute, encode_text as text};
use verdict_ratings::{Leaderboard, RatingKind};

use crate::table::{
    coefficient_table, describe_output, leaderboard_table, score_cell, side_by_side,
    COEFFICIENT_TITLE,
};
use crate::{GameReport, GroupBoard, Matrices, RankOutput, RankReport, TextTable};

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}\
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}pre{background:#f6f6f6;padding:.6rem;white-space:pre-wrap}pre.wide{white-space:pre;overflow-x:auto}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums}td,th{padding:.15rem .6rem;border-bottom:1px solid #ddd;text-align:right}\
.t{text-align:left}svg text{font-size:12px;fill:#222}.interval{stroke:#0072B2;stroke-width:3}\
.point{fill:#D55E00}.axis{stroke:#999}.notes li{margin:.2rem 0}\
.scroll{overflow-x:auto}.part{border-top:3px solid #0072B2;margin-top:2.5rem}.part>h2{font-size:1.4rem}.part section h2{font-size:1.1rem}.part h3{font-size:1rem}nav li{margin:.15rem 0}.panels{display:flex;flex-wrap:wrap;gap:1.5rem}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}";

/// Width of a model's name column in the leaderboard figure, in characters; longer
/// names are shortened with an ellipsis and keep the full name as a tooltip.
const NAME_CHARS: usize = 32;

/// The report as a complete HTML document titled `title` ([`rank_sections`]).
pub fn rank_html(
    report: &RankReport,
    title: &str,
    groups: Option<(&str, &[GroupBoard])>,
) -> String {
    page(title, &rank_sections(report, groups))
}

/// The report's sections: each board with its figures; for `--method all` the boards
/// side by side and where they disagree; with `groups` (the column and one board per
/// value), a per-category section after the boards.
pub fn rank_sections(report: &RankReport, groups: Option<(&str, &[GroupBoard])>) -> String {
    let mut body = String::new();
    let outputs = report.outputs();
    if let RankReport::All {
        leaderboards,
        notes,
        ..
    } = report
    {
        section(
            &mut body,
            "Side by side",
            &html_table(&side_by_side(leaderboards)),
        );
        section(
            &mut body,
            "Where the methods disagree",
            &disagreements(leaderboards),
        );
        if !notes.is_empty() {
            section(&mut body, "Notes", &note_list(notes));
        }
    }
    // The observed win matrix is the same for every board of an `all` report: it is
    // drawn once, with the first board that has matrices.
    let mut wins_drawn = false;
    for output in &outputs {
        board_sections(&mut body, output, &mut wins_drawn);
    }
    if let Some((column, boards)) = groups {
        let overall = &outputs[0].leaderboard;
        let content = per_group(overall, boards);
        section(&mut body, &format!("Per {column}"), &content);
    }
    body
}

pub(crate) fn section(body: &mut String, title: &str, content: &str) {
    let _ = write!(body, "<section><h2>{}</h2>{content}</section>", text(title));
}

fn board_sections(body: &mut String, output: &RankOutput, wins_drawn: &mut bool) {
    let board = &output.leaderboard;
    let name = &board.method;
    let mut content = format!("<pre>{}</pre>", text(&describe_output(output)));
    content.push_str(&leaderboard_svg(board));
    let confidence = board.interval.as_ref().map(|i| i.confidence);
    content.push_str(&html_table(&leaderboard_table(board, confidence)));
    section(body, &format!("Leaderboard: {name}"), &content);
    if let Some(coefficients) = &output.coefficients {
        let table = html_table(&coefficient_table(coefficients));
        section(body, COEFFICIENT_TITLE.trim_end_matches(':'), &table);
    }
    if let (Some(lottery), Some(margins)) = (
        &output.lottery,
        output.matrices.as_ref().and_then(|m| m.margins.as_ref()),
    ) {
        let names = &output
            .matrices
            .as_ref()
            .expect("margins come with matrices")
            .models;
        let graph = beaten_by_graph(names, margins, &lottery.support);
        section(body, "Who beats whom in the winner set", &graph);
    }
    if let Some(matrices) = &output.matrices {
        let figures = matrix_figures(matrices, !*wins_drawn);
        *wins_drawn = true;
        section(body, &format!("Matrices: {name}"), &figures);
    }
    if !output.notes.is_empty() {
        section(body, &format!("Notes: {name}"), &note_list(&output.notes));
    }
}

pub(crate) fn note_list(notes: &[String]) -> String {
    let items: String = notes
        .iter()
        .map(|n| format!("<li>{}</li>", text(n)))
        .collect();
    format!("<ul class=\"notes\">{items}</ul>")
}

/// The table as HTML: numeric columns right-aligned, text columns left-aligned (the
/// rule of the text tables).
pub(crate) fn html_table(table: &TextTable) -> String {
    let numeric = table.numeric_columns();
    let align = |c: usize| if numeric[c] { "" } else { " class=\"t\"" };
    let mut out = String::from("<table><thead><tr>");
    for (c, cell) in table.header.iter().enumerate() {
        let _ = write!(out, "<th{}>{}</th>", align(c), text(cell));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &table.rows {
        out.push_str("<tr>");
        for (c, cell) in row.iter().enumerate() {
            let _ = write!(out, "<td{}>{}</td>", align(c), text(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// Each group's rank and score of every model, rows in the overall board's order,
/// then the groups without a board and why.
fn per_group(overall: &Leaderboard, boards: &[GroupBoard]) -> String {
    let drawn: Vec<(&GroupBoard, &Leaderboard)> = boards
        .iter()
        .filter_map(|g| {
            g.board
                .as_ref()
                .ok()
                .map(|r| (g, &r.outputs()[0].leaderboard))
        })
        .collect();
    let mut header = vec![overall.method.name().to_owned()];
    header.extend(
        drawn
            .iter()
            .map(|(g, _)| format!("{} ({} battles)", g.group, g.battles)),
    );
    let mut table = TextTable::new(std::iter::once("model".to_owned()).chain(header));
    for standing in &overall.models {
        let mut row = vec![
            standing.name.clone(),
            format!(
                "{} ({})",
                standing.rank,
                score_cell(overall.method, standing.score)
            ),
        ];
        for (_, board) in &drawn {
            row.push(
                board
                    .models
                    .iter()
                    .find(|s| s.name == standing.name)
                    .map_or_else(
                        || "-".into(),
                        |s| format!("{} ({})", s.rank, score_cell(board.method, s.score)),
                    ),
            );
        }
        table.push(row);
    }
    let mut out = String::from("<p>Rank (score) on the whole log and on each group's battles alone; - where a model never played in the group.</p>");
    out.push_str(&html_table(&table));
    let missing: Vec<String> = boards
        .iter()
        .filter_map(|g| g.board.as_ref().err().map(|e| format!("{}: {e}", g.group)))
        .collect();
    if !missing.is_empty() {
        out.push_str(&note_list(&missing));
    }
    out
}

/// Models ranked differently by the methods of an `all` report.
fn disagreements(outputs: &[RankOutput]) -> String {
    let Some(first) = outputs.first() else {
        return String::new();
    };
    let mut items = String::new();
    for standing in &first.leaderboard.models {
        let ranks: Vec<(RatingKind, usize)> = outputs
            .iter()
            .filter_map(|o| {
                o.leaderboard
                    .models
                    .iter()
                    .find(|s| s.name == standing.name)
                    .map(|s| (o.leaderboard.method, s.rank))
            })
            .collect();
        if ranks.iter().any(|(_, r)| *r != ranks[0].1) {
            let listed: Vec<String> = ranks.iter().map(|(m, r)| format!("{m} {r}")).collect();
            let _ = write!(
                items,
                "<li>{}: {}</li>",
                text(&standing.name),
                text(&listed.join(", "))
            );
        }
    }
    if items.is_empty() {
        "<p>Every model has the same rank under every method.</p>".into()
    } else {
        format!("<ul>{items}</ul>")
    }
}

/// `name` cut to [`NAME_CHARS`] characters with an ellipsis.
pub(crate) fn short_name(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        name.to_owned()
    } else {
        let head: String = name.chars().take(NAME_CHARS - 1).collect();
        format!("{head}…")
    }
}

/// Room in pixels for the longest of `names` as shown (shortened, 12px text).
pub(crate) fn label_width<'n>(names: impl Iterator<Item = &'n String>) -> f64 {
    let longest = names
        .map(|n| n.chars().count().min(NAME_CHARS))
        .max()
        .unwrap_or(1);
    7.0 * longest as f64 + 14.0
}

/// Horizontal bars of `values` (label, value), labelled with the value (decimals by
/// the largest: none from 50, one from 1, else four) and `unit`.
pub(crate) fn bar_chart(kind: &str, values: &[(String, f64)], unit: &str) -> String {
    let left = label_width(values.iter().map(|(l, _)| l));
    let (row, plot) = (22.0, 480.0);
    let most = values.iter().map(|(_, v)| *v).fold(0.0f64, f64::max);
    let scale = if most > 0.0 { plot / most } else { 0.0 };
    let decimals = if most >= 50.0 {
        0
    } else if most >= 1.0 {
        1
    } else {
        4
    };
    let height = row * values.len() as f64 + 8.0;
    let width = left + plot + 90.0;
    let mut svg = format!(
        "<svg class=\"bars {kind}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{kind}\">"
    );
    for (i, (label, value)) in values.iter().enumerate() {
        let y = row * i as f64 + 4.0;
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text><rect x=\"{left:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#0072B2\" data-label=\"{}\" data-value=\"{value}\"/><text x=\"{:.1}\" y=\"{:.1}\">{value:.decimals$} {}</text>",
            left - 6.0,
            y + 13.0,
            text(&short_name(label)),
            text(label),
            value * scale,
            row - 6.0,
            attribute(label),
            left + value * scale + 6.0,
            y + 13.0,
            text(unit)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// One row per model in score order: the interval as a bar, the score as a dot.
fn leaderboard_svg(board: &Leaderboard) -> String {
    let rows: Vec<IntervalRow> = board
        .models
        .iter()
        .map(|s| IntervalRow {
            label: s.name.clone(),
            estimate: s.score,
            interval: s.ci_low.zip(s.ci_high),
            flagged: false,
        })
        .collect();
    intervals_svg(
        "leaderboard",
        &format!("{} scores", board.method.name()),
        &rows,
    )
}

/// One row of an interval figure: a label, a point, its interval if any, and whether
/// to mark it as not to be trusted.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRow {
    /// The row's name.
    pub label: String,
    /// The point estimate.
    pub estimate: f64,
    /// The interval's ends.
    pub interval: Option<(f64, f64)>,
    /// Drawn hollow, with a warning in its tooltip.
    pub flagged: bool,
}

/// One row per entry in the given order: the interval as a bar, the estimate as a dot
/// (hollow when flagged); `kind` is the figure's class, `what` its accessible name.
pub(crate) fn intervals_svg(kind: &str, what: &str, rows: &[IntervalRow]) -> String {
    let left = label_width(rows.iter().map(|r| &r.label));
    let (row, top, plot) = (20.0, 28.0, 560.0);
    let values = rows
        .iter()
        .flat_map(|r| {
            [
                Some(r.estimate),
                r.interval.map(|i| i.0),
                r.interval.map(|i| i.1),
            ]
        })
        .flatten()
        .filter(|v| v.is_finite());
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let (low, high) = if low.is_finite() {
        (low, high)
    } else {
        (0.0, 1.0)
    };
    let span = if high > low { high - low } else { 1.0 };
    let (low, high) = (low - 0.05 * span, high + 0.05 * span);
    let x = |v: f64| left + (v.clamp(low, high) - low) / (high - low) * plot;
    let height = top + row * rows.len() as f64 + 8.0;
    let width = left + plot + 70.0;
    let mut svg = format!(
        "<svg class=\"{}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{} with intervals\">",
        attribute(kind),
        attribute(what)
    );
    for tick in 0..=4 {
        let value = low + (high - low) * f64::from(tick) / 4.0;
        let _ = write!(
            svg,
            "<line class=\"axis\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0:.1}\" y=\"14\" text-anchor=\"middle\">{3}</text>",
            x(value),
            top - 6.0,
            height - 4.0,
            tick_label(value, high - low)
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + row * (i as f64 + 0.5);
        let warning = if r.flagged {
            " (overlap fails: extrapolated)"
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<g class=\"row\" data-model=\"{}\" data-score=\"{}\"><title>{} {}{warning}</title><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            attribute(&r.label),
            r.estimate,
            text(&r.label),
            text(&format!("{:.4}", r.estimate)),
            left - 6.0,
            y + 4.0,
            text(&short_name(&r.label))
        );
        if let Some((l, h)) = r.interval.filter(|(l, h)| l.is_finite() && h.is_finite()) {
            let _ = write!(
                svg,
                "<line class=\"interval\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>",
                x(l),
                x(h)
            );
        }
        let style = if r.flagged {
            " style=\"fill:#fff;stroke:#D55E00;stroke-width:2\""
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\"{style}/></g>",
            x(r.estimate)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A tick label with the precision the axis' range calls for.
pub(crate) fn tick_label(value: f64, range: f64) -> String {
    let decimals = if range >= 50.0 {
        0
    } else if range >= 1.0 {
        1
    } else {
        3
    };
    format!("{value:.decimals$}")
}

/// Most models a heatmap is drawn for: a K × K figure grows as K², and past this
/// size a page would weigh megabytes per matrix (the JSON output carries them).
const MAX_HEATMAP_MODELS: usize = 150;

/// Above this many models, cells carry no tooltip (hover text), to keep pages small.
const MAX_TOOLTIP_MODELS: usize = 60;

fn matrix_figures(matrices: &Matrices, with_wins: bool) -> String {
    let k = matrices.models.len();
    if k > MAX_HEATMAP_MODELS {
        return format!(
            "<p>{k} models: the matrices are too large to draw here ({MAX_HEATMAP_MODELS} at most); `--format json` carries them.</p>"
        );
    }
    let mut out = String::new();
    if let Some(probabilities) = &matrices.win_probability {
        out.push_str("<h3>Predicted P(row beats column)</h3>");
        out.push_str(&heatmap(
            &matrices.models,
            probabilities,
            |v| v,
            "win-probability",
        ));
    }
    if let Some(margins) = &matrices.margins {
        out.push_str("<h3>Margins (mean verdict of row against column)</h3>");
        out.push_str(&heatmap(
            &matrices.models,
            margins,
            |v| (v + 1.0) / 2.0,
            "margins",
        ));
    }
    if !with_wins {
        return out;
    }
    out.push_str("<h3>Battles won (row beat column)</h3>");
    let most = matrices
        .wins
        .iter()
        .flatten()
        .fold(0.0f64, |m, &v| m.max(v));
    let scale = if most > 0.0 { most } else { 1.0 };
    out.push_str(&heatmap(
        &matrices.models,
        &matrices.wins,
        |v| 0.5 + 0.5 * v / scale,
        "wins",
    ));
    out
}

/// A K × K heatmap of `values` among `names` (see [`grid_heatmap`]).
fn heatmap(
    names: &[String],
    values: &[Vec<f64>],
    shade: impl Fn(f64) -> f64,
    kind: &str,
) -> String {
    grid_heatmap(names, names, values, shade, kind)
}

/// A heatmap, `rows` × `columns` (`values[r][c]`); `shade` maps a value to [0, 1] on
/// the diverging scale (0.5 white). Every cell carries its row, column and value as
/// data attributes and a tooltip. Values show with 0 decimals for `wins` and
/// `calls`, 2 for `winner-shares`, else 3.
pub(crate) fn grid_heatmap(
    rows: &[String],
    columns: &[String],
    values: &[Vec<f64>],
    shade: impl Fn(f64) -> f64,
    kind: &str,
) -> String {
    let k = rows.len().max(columns.len());
    let cell = if k <= 20 {
        36.0
    } else {
        (720.0 / k as f64).max(4.0)
    };
    let (left, top) = (label_width(rows.iter()), label_width(columns.iter()));
    // Column names turned by 60° reach right of their column by half their length.
    let (width, height) = (
        left + cell * columns.len() as f64 + top / 2.0,
        top + cell * rows.len() as f64,
    );
    let mut svg = format!(
        "<svg class=\"heatmap {kind}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{kind}\">"
    );
    let labelled = cell >= 12.0;
    let digits = match kind {
        "wins" | "calls" => 0,
        "winner-shares" => 2,
        _ => 3,
    };
    let name_label = |svg: &mut String, placement: String, name: &str| {
        let _ = write!(
            svg,
            "<text {placement}>{}<title>{}</title></text>",
            text(&short_name(name)),
            text(name)
        );
    };
    if labelled {
        // Each column's name turned, above it.
        for (c, name) in columns.iter().enumerate() {
            let middle = left + cell * (c as f64 + 0.5);
            let placement = format!(
                "transform=\"translate({middle:.1},{:.1}) rotate(-60)\"",
                top - 4.0
            );
            name_label(&mut svg, placement, name);
        }
    }
    for (r, row_name) in rows.iter().enumerate() {
        if labelled {
            // The row's name left of it.
            let middle = top + cell * (r as f64 + 0.5);
            let placement = format!(
                "x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\"",
                left - 4.0,
                middle + 4.0
            );
            name_label(&mut svg, placement, row_name);
        }
        for (c, col_name) in columns.iter().enumerate() {
            let value = values[r][c];
            let shown = format!("{:.digits$}", value + 0.0);
            let (x, y) = (left + cell * c as f64, top + cell * r as f64);
            let _ = write!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cell:.1}\" height=\"{cell:.1}\" fill=\"{}\" data-row=\"{}\" data-col=\"{}\" data-value=\"{shown}\">",
                diverging(shade(value)),
                attribute(row_name),
                attribute(col_name),
            );
            if k <= MAX_TOOLTIP_MODELS {
                let _ = write!(
                    svg,
                    "<title>{} vs {}: {shown}</title>",
                    text(row_name),
                    text(col_name)
                );
            }
            svg.push_str("</rect>");
            if cell >= 30.0 {
                // Light text on the saturated ends of the scale, dark elsewhere.
                let ink = if (shade(value) - 0.5).abs() > 0.3 {
                    "#fff"
                } else {
                    "#222"
                };
                let _ = write!(
                    svg,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" style=\"fill:{ink}\">{shown}</text>",
                    x + cell / 2.0,
                    y + cell / 2.0 + 3.5
                );
            }
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The blue half of [`diverging`]: 0 white, 1 saturated blue (shares, counts).
#[cfg(feature = "nasheval")]
pub(crate) fn sequential(t: f64) -> String {
    diverging(0.5 - 0.5 * t)
}

/// ColorBrewer RdBu (5 classes, interpolated): 0 blue, 0.5 white, 1 red.
fn diverging(t: f64) -> String {
    const STOPS: [(f64, [f64; 3]); 5] = [
        (0.0, [33.0, 102.0, 172.0]),
        (0.25, [146.0, 197.0, 222.0]),
        (0.5, [247.0, 247.0, 247.0]),
        (0.75, [244.0, 165.0, 130.0]),
        (1.0, [178.0, 24.0, 43.0]),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let i = STOPS
        .iter()
        .rposition(|(at, _)| *at <= t)
        .unwrap_or(0)
        .min(3);
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let w = (t - a.0) / (b.0 - a.0);
    let channel = |c: usize| (a.1[c] + w * (b.1[c] - a.1[c])).round() as u8;
    format!("#{:02x}{:02x}{:02x}", channel(0), channel(1), channel(2))
}

/// The winner set on a circle with an arrow from `j` to `k` wherever `j` beats `k`
/// (`margins[j][k] > 0`), labelled with the margin: the cycles that make a lottery
/// mixed, drawn. `names` index `margins`; `support` names the winner set.
fn beaten_by_graph(names: &[String], margins: &[Vec<f64>], support: &[String]) -> String {
    let members: Vec<usize> = support
        .iter()
        .filter_map(|s| names.iter().position(|n| n == s))
        .collect();
    if members.len() < 2 {
        return "<p>The winner set is a single model: it beats or ties every other (a Condorcet winner).</p>".into();
    }
    if members.len() > 24 {
        return format!(
            "<p>{} models in the winner set: too many to draw their arrows legibly; the margins heatmap shows them.</p>",
            members.len()
        );
    }
    let (size, radius) = (520.0, 180.0);
    let centre = size / 2.0;
    let at = |i: usize| {
        let angle = -std::f64::consts::FRAC_PI_2
            + 2.0 * std::f64::consts::PI * i as f64 / members.len() as f64;
        (centre + radius * angle.cos(), centre + radius * angle.sin())
    };
    let mut svg = format!(
        "<svg class=\"beaten-by\" width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\" role=\"img\" aria-label=\"who beats whom in the winner set\"><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"12\" markerHeight=\"12\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#0072B2\"/></marker></defs>"
    );
    for (a, &j) in members.iter().enumerate() {
        for (b, &k) in members.iter().enumerate() {
            let margin = margins[j][k];
            if margin <= 0.0 {
                continue;
            }
            let ((x1, y1), (x2, y2)) = (at(a), at(b));
            let (dx, dy) = (x2 - x1, y2 - y1);
            let length = (dx * dx + dy * dy).sqrt().max(1.0);
            let trim = 22.0 / length;
            let _ = write!(
                svg,
                "<line class=\"beats\" data-from=\"{}\" data-to=\"{}\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#0072B2\" stroke-width=\"{:.1}\" marker-end=\"url(#arrow)\"><title>{} beats {}: margin {:.3}</title></line>",
                attribute(&names[j]),
                attribute(&names[k]),
                x1 + dx * trim,
                y1 + dy * trim,
                x2 - dx * trim,
                y2 - dy * trim,
                1.0 + 4.0 * margin.min(1.0),
                text(&names[j]),
                text(&names[k]),
                margin
            );
        }
    }
    for (a, &j) in members.iter().enumerate() {
        let (x, y) = at(a);
        let _ = write!(
            svg,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"18\" fill=\"#E69F00\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}<title>{}</title></text>",
            y + (if y < centre { -24.0 } else { 32.0 }),
            text(&short_name(&names[j])),
            text(&names[j])
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The equilibrium of a payoff matrix as one page titled `title` ([`game_sections`]).
pub fn game_html(report: &GameReport, title: &str) -> String {
    page(title, &game_sections(report))
}

/// The equilibrium's sections: the certificate, the agents' probabilities, and, when
/// the report carries its payoff matrix, who beats whom in the support and the payoff
/// heatmap in probability order.
pub fn game_sections(report: &GameReport) -> String {
    let mut body = String::new();
    let certificate = format!(
        "{} agents: gap {:.2e}, exploitability {:.2e}, game value {:.2e}{}",
        report.models.len(),
        report.gap,
        report.exploitability,
        report.value,
        if report.unique { ", proved unique" } else { "" }
    );
    section(
        &mut body,
        "Certificate",
        &format!("<pre>{}</pre>", text(&certificate)),
    );
    let mut order: Vec<usize> = (0..report.models.len()).collect();
    order.sort_by(|&a, &b| {
        report.models[b]
            .probability
            .total_cmp(&report.models[a].probability)
    });
    let mut table = TextTable::new(["agent", "probability"]);
    for &m in &order {
        let agent = &report.models[m];
        table.push(vec![
            agent.name.clone(),
            format!("{:.6}", agent.probability),
        ]);
    }
    section(&mut body, "Equilibrium", &html_table(&table));
    let names: Vec<String> = report.models.iter().map(|m| m.name.clone()).collect();
    let Some(payoffs) = report.payoffs.as_deref() else {
        section(
            &mut body,
            "Payoffs",
            "<p>This result holds no payoff matrix, so who beats whom and the payoff heatmap are not drawn (<code>verdict game MATRIX --format json --payoffs</code> keeps the matrix in the saved result).</p>",
        );
        return body;
    };
    let support: Vec<String> = order
        .iter()
        .filter(|&&m| report.models[m].probability > verdict_game::SUPPORT_THRESHOLD)
        .map(|&m| names[m].clone())
        .collect();
    section(
        &mut body,
        "Who beats whom in the winner set",
        &beaten_by_graph(&names, payoffs, &support),
    );
    let ordered_names: Vec<String> = order.iter().map(|&m| names[m].clone()).collect();
    let ordered: Vec<Vec<f64>> = order
        .iter()
        .map(|&r| order.iter().map(|&c| payoffs[r][c]).collect())
        .collect();
    let figure = if names.len() > MAX_HEATMAP_MODELS {
        format!(
            "<p>{} agents: the matrix is too large to draw here ({MAX_HEATMAP_MODELS} at most).</p>",
            names.len()
        )
    } else {
        heatmap(&ordered_names, &ordered, |v| (v + 1.0) / 2.0, "margins")
    };
    section(
        &mut body,
        "Payoffs (row against column), agents by probability",
        &figure,
    );
    body
}

/// A judging-on-a-budget experiment as one page: the log–log error curves (one panel
/// per norm) and the table `verdict bench judges` prints.
///
/// # Errors
/// [`crate::ReportError::Plot`] when a panel cannot be drawn.
#[cfg(feature = "plots")]
pub fn judges_html(
    table: &str,
    panels: &[crate::Curves],
    title: &str,
) -> Result<String, crate::ReportError> {
    Ok(page(title, &judges_sections(table, panels)?))
}

/// The sections of [`judges_html`].
///
/// # Errors
/// [`crate::ReportError::Plot`] when a panel cannot be drawn.
#[cfg(feature = "plots")]
pub fn judges_sections(
    table: &str,
    panels: &[crate::Curves],
) -> Result<String, crate::ReportError> {
    let mut body = String::new();
    section(
        &mut body,
        "Error against budget",
        &scrolling_curves(panels)?,
    );
    // A wide table scrolls rather than wrapping its columns.
    let table = format!("<pre class=\"wide\">{}</pre>", text(table));
    section(&mut body, "Results", &table);
    Ok(body)
}

/// An experiment as sections: its curves under `figure`, then its table under
/// `table_title` (what `verdict report` draws of a `bench nasheval` results file).
///
/// # Errors
/// [`crate::ReportError::Plot`] when a panel cannot be drawn.
#[cfg(feature = "plots")]
pub fn experiment_sections(
    figure: &str,
    panels: &[crate::Curves],
    table_title: &str,
    table: &TextTable,
) -> Result<String, crate::ReportError> {
    let mut body = String::new();
    section(&mut body, figure, &scrolling_curves(panels)?);
    section(&mut body, table_title, &html_table(table));
    Ok(body)
}

/// Curves wider than the page scroll within their own box, not the page.
#[cfg(feature = "plots")]
fn scrolling_curves(panels: &[crate::Curves]) -> Result<String, crate::ReportError> {
    Ok(format!(
        "<div class=\"scroll\">{}</div>",
        crate::curves::curves_svg(panels)?
    ))
}

/// The `generator` of every page verdict writes: a page that lacks it is not verdict's.
pub const GENERATOR_META: &str = "<meta name=\"generator\" content=\"verdict\">";

/// A complete, self-contained HTML document titled `title` around `body` (sections
/// as the `*_sections` functions return them), with verdict's style and generator tag.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{GENERATOR_META}<title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>{body}</body></html>\n",
        text(title),
        text(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_white_at_one_half_and_saturated_at_the_ends() {
        assert_eq!(diverging(0.5), "#f7f7f7");
        assert_eq!(diverging(0.0), "#2166ac");
        assert_eq!(diverging(1.0), "#b2182b");
        assert_eq!(diverging(f64::NAN), "#f7f7f7");
    }

    #[test]
    fn long_names_are_shortened_with_an_ellipsis() {
        let long = "x".repeat(40);
        assert_eq!(short_name(&long).chars().count(), NAME_CHARS);
        assert!(short_name(&long).ends_with('…'));
        assert_eq!(short_name("gpt-4"), "gpt-4");
    }
}
