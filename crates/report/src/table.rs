//! Aligned text tables and CSV for `verdict rank`.

use std::fmt::Write;

use verdict_ratings::{
    FitStatus, IntervalMethod, Leaderboard, PointEstimate, RatingKind, Regularization,
};

use crate::{Coefficient, Matrices, RankOutput, RankReport, ReportError};

/// A plain aligned table: a header and rows of cells; numeric-looking cells are
/// right-aligned, text left-aligned.
#[derive(Debug, Clone, Default)]
pub struct TextTable {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

fn looks_numeric(cell: &str) -> bool {
    let trimmed = cell.trim_start_matches(['[', '-', '+']);
    trimmed.chars().next().is_some_and(|c| c.is_ascii_digit()) || cell == "-"
}

impl TextTable {
    /// A table with these column titles.
    pub fn new(header: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (as many cells as titles).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    /// Whether each column holds numbers only (right-aligned when shown).
    pub fn numeric_columns(&self) -> Vec<bool> {
        (0..self.header.len())
            .map(|c| !self.rows.is_empty() && self.rows.iter().all(|r| looks_numeric(&r[c])))
            .collect()
    }

    /// The table as text, columns separated by two spaces; control and bidirectional
    /// characters in cells are shown escaped ([`crate::terminal_safe`]).
    pub fn render(&self) -> String {
        let safe = |row: &Vec<String>| -> Vec<String> {
            row.iter().map(|cell| crate::terminal_safe(cell)).collect()
        };
        let header = safe(&self.header);
        let rows: Vec<Vec<String>> = self.rows.iter().map(safe).collect();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in &rows {
            for (c, cell) in row.iter().enumerate() {
                widths[c] = widths[c].max(cell.chars().count());
            }
        }
        let numeric = self.numeric_columns();
        let mut out = String::new();
        for row in std::iter::once(&header).chain(&rows) {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    if numeric[c] {
                        format!("{cell:>width$}", width = widths[c])
                    } else {
                        format!("{cell:<width$}", width = widths[c])
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// A score as shown: probabilities with four decimals, ratings with one, the counts
/// and places of ordinal rules with none.
pub(crate) fn score_cell(method: RatingKind, score: f64) -> String {
    format!("{score:.decimals$}", decimals = method.score_decimals())
}

fn interval_cell(method: RatingKind, low: Option<f64>, high: Option<f64>) -> String {
    match (low, high) {
        (Some(l), Some(h)) => format!("[{}, {}]", score_cell(method, l), score_cell(method, h)),
        _ => "-".into(),
    }
}

fn optional(value: Option<usize>) -> String {
    value.map_or_else(|| "-".into(), |v| v.to_string())
}

pub(crate) fn describe_output(output: &RankOutput) -> String {
    let board = &output.leaderboard;
    // Plackett–Luce counts rankings; its wins, losses and ties are the pairwise
    // comparisons the rankings imply.
    let units = board.method.units();
    let mut text = format!(
        "{}: {} models, {} {units} from {}",
        board.method.title(),
        board.models.len(),
        output.battles,
        output.source
    );
    if let Some(fit) = &output.fit {
        let solver = match fit.solver {
            verdict_ratings::Solver::Newton => "Newton",
            verdict_ratings::Solver::Mm => "MM",
        };
        let status = match fit.status {
            FitStatus::Converged => "converged",
            FitStatus::MaxIterations => "STOPPED AT THE ITERATION CAP",
        };
        let ties = match fit.ties {
            verdict_ratings::TieModel::Half => "half",
            verdict_ratings::TieModel::Drop => "drop",
            verdict_ratings::TieModel::Davidson => "davidson",
        };
        let _ = write!(
            text,
            "\n  fit: {solver}, ties {ties}, {status} after {} iterations, |grad| = {:.2e}",
            fit.iterations, fit.gradient_norm
        );
        if let Some(nu) = fit.tie_parameter {
            let _ = write!(text, ", Davidson nu = {nu:.4}");
        }
        match &fit.regularization {
            Regularization::None => {}
            Regularization::L2 { l2 } => {
                let _ = write!(text, ", L2 penalty {l2}");
            }
            Regularization::Prior { l2, .. } => {
                let _ = write!(text, ", fallback prior l2 = {l2} (no MLE, see notes)");
            }
        }
    }
    if let Some(lottery) = &output.lottery {
        let status = match lottery.status {
            verdict_game::LotteryStatus::Certified => "certified",
            verdict_game::LotteryStatus::Uncertified => "NOT CERTIFIED",
        };
        let _ = write!(
            text,
            "\n  equilibrium (rho = {}{}): {status}, gap {:.2e}, exploitability {:.2e}; winner set: {}; Condorcet winner: {}",
            lottery.rho,
            lottery.budget.map(|b| format!(", budget {b}")).unwrap_or_default(),
            lottery.gap,
            lottery.exploitability,
            lottery.support.join(", "),
            lottery.condorcet_winner.as_deref().unwrap_or("none")
        );
        if let Some(robust) = &lottery.robust {
            let _ = write!(
                text,
                "\n  robust over {} groups ({}), radius {:.4}: worst-case payoff {:.4}",
                robust.groups.len(),
                robust.groups.join(", "),
                robust.radius,
                robust.worst_case
            );
        }
    }
    if let Some(interval) = &board.interval {
        let how = match &interval.method {
            IntervalMethod::Bootstrap { rounds, seed } => {
                format!("percentile bootstrap, {rounds} rounds, seed {seed}")
            }
            IntervalMethod::Sandwich => "sandwich (robust) normal intervals".into(),
        };
        let point = match board.point {
            PointEstimate::Fit => "",
            PointEstimate::BootstrapMedian => "; scores are the replicates' medians",
        };
        let _ = write!(
            text,
            "\n  {}% intervals: {how}{point}",
            interval.confidence * 100.0
        );
    }
    text
}

pub(crate) fn leaderboard_table(board: &Leaderboard, confidence: Option<f64>) -> TextTable {
    let ci_title = confidence.map_or("CI".to_owned(), |c| format!("{}% CI", c * 100.0));
    if board.method.scores_probabilities() {
        // Bootstrapped lotteries add the probability's interval and the share of
        // replicates that keep the model in the winner set; the maximal lottery shows
        // each model's exploitability alone, Nash averaging its Nash average.
        let bootstrapped = board.interval.is_some();
        let alone = board.models.iter().any(|s| s.exploitability.is_some());
        let averaged = board.models.iter().any(|s| s.nash_average.is_some());
        let mut header = vec!["rank", "model", "probability"];
        if bootstrapped {
            header.extend([ci_title.as_str(), "in support"]);
        }
        if alone {
            header.push("alone: exploitability");
        }
        if averaged {
            header.push("Nash average");
        }
        header.extend(["wins", "losses", "ties", "battles"]);
        let mut table = TextTable::new(header);
        let shown = |value: Option<f64>| value.map_or_else(|| "-".into(), |v| format!("{v:.4}"));
        for s in &board.models {
            let mut row = vec![
                s.rank.to_string(),
                s.name.clone(),
                score_cell(board.method, s.score),
            ];
            if bootstrapped {
                row.push(interval_cell(board.method, s.ci_low, s.ci_high));
                row.push(
                    s.support_share
                        .map_or_else(|| "-".into(), |share| format!("{:.1}%", share * 100.0)),
                );
            }
            if alone {
                row.push(shown(s.exploitability));
            }
            if averaged {
                // `+ 0.0` turns -0.0 into 0.0 on the support.
                row.push(shown(s.nash_average.map(|v| v + 0.0)));
            }
            row.extend([
                s.wins.to_string(),
                s.losses.to_string(),
                s.ties.to_string(),
                s.battles.to_string(),
            ]);
            table.push(row);
        }
        return table;
    }
    // A board with covariates shows how far each model moved against the plain one.
    let moved = board.models.iter().any(|s| s.rank_change.is_some());
    // With fragility: battles whose removal puts the next model level with this one.
    let fragile = board.models.iter().any(|s| s.flip.is_some());
    // Grounded Rao–Kupper: each model's chance of beating the ground.
    let grounded = board.models.iter().any(|s| s.usable.is_some());
    let mut header = vec!["rank", "rank_ub", "model", "score", &ci_title];
    if grounded {
        header.push("usable");
    }
    if moved {
        header.push("vs plain");
    }
    if fragile {
        header.push("flip");
    }
    header.extend(["wins", "losses", "ties", "battles"]);
    let mut table = TextTable::new(header);
    for s in &board.models {
        let mut row = vec![
            s.rank.to_string(),
            optional(s.rank_ub),
            s.name.clone(),
            score_cell(board.method, s.score),
            interval_cell(board.method, s.ci_low, s.ci_high),
        ];
        if let Some(usable) = s.usable {
            row.push(format!("{usable:.3}"));
        }
        if moved {
            row.push(match s.rank_change {
                None => "-".into(),
                Some(0) => "0".into(),
                Some(c) => format!("{c:+}"),
            });
        }
        if fragile {
            row.push(match s.flip {
                None => "-".into(),
                Some(flip) => flip
                    .battles
                    .map_or_else(|| "none".into(), |b| b.to_string()),
            });
        }
        row.extend([
            s.wins.to_string(),
            s.losses.to_string(),
            s.ties.to_string(),
            s.battles.to_string(),
        ]);
        table.push(row);
    }
    table
}

/// What the coefficient table's numbers are.
pub(crate) const COEFFICIENT_TITLE: &str =
    "Covariates (log-odds that model_a wins, per standard deviation of the covariate):";

/// The covariates' coefficients with their intervals and the scale they are per.
pub(crate) fn coefficient_table(coefficients: &[Coefficient]) -> TextTable {
    let mut table = TextTable::new(["covariate", "coefficient", "CI", "mean", "sd"]);
    for c in coefficients {
        let interval = match (c.ci_low, c.ci_high) {
            (Some(l), Some(h)) => format!("[{l:.4}, {h:.4}]"),
            _ => "-".into(),
        };
        table.push(vec![
            c.name.clone(),
            format!("{:.4}", c.estimate),
            interval,
            format!("{:.4}", c.mean),
            format!("{:.4}", c.sd),
        ]);
    }
    table
}

fn matrix_table(title: &str, names: &[String], values: &[Vec<f64>], decimals: usize) -> String {
    let mut table = TextTable::new(std::iter::once(String::new()).chain(names.iter().cloned()));
    for (name, row) in names.iter().zip(values) {
        let mut cells = vec![name.clone()];
        // `+ 0.0` turns -0.0 into 0.0, so a zero margin never prints as "-0.000".
        cells.extend(row.iter().map(|v| format!("{:.decimals$}", v + 0.0)));
        table.push(cells);
    }
    format!("{title}\n{}", table.render())
}

fn render_matrices(matrices: &Matrices) -> String {
    let mut out = matrix_table(
        "Win matrix (row beat column):",
        &matrices.models,
        &matrices.wins,
        0,
    );
    if matrices.ties.iter().flatten().any(|&t| t > 0.0) {
        out.push('\n');
        out.push_str(&matrix_table("Ties:", &matrices.models, &matrices.ties, 0));
    }
    if let Some(margins) = &matrices.margins {
        out.push('\n');
        out.push_str(&matrix_table(
            "Margins (mean verdict of row against column):",
            &matrices.models,
            margins,
            3,
        ));
    }
    if let Some(probabilities) = &matrices.win_probability {
        out.push('\n');
        out.push_str(&matrix_table(
            "Predicted P(row beats column):",
            &matrices.models,
            probabilities,
            3,
        ));
    }
    out
}

fn render_output(output: &RankOutput) -> String {
    let board = &output.leaderboard;
    let mut out = describe_output(output);
    out.push_str("\n\n");
    out.push_str(&leaderboard_table(board, board.interval.as_ref().map(|i| i.confidence)).render());
    if let Some(coefficients) = &output.coefficients {
        out.push('\n');
        let _ = write!(
            out,
            "{COEFFICIENT_TITLE}\n{}",
            coefficient_table(coefficients).render()
        );
    }
    if let Some(matrices) = &output.matrices {
        out.push('\n');
        out.push_str(&render_matrices(matrices));
    }
    for note in &output.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// Side-by-side table of several leaderboards, rows in the first one's order.
pub(crate) fn side_by_side(outputs: &[RankOutput]) -> TextTable {
    let mut header = vec!["model".to_owned()];
    for output in outputs {
        let title = output.leaderboard.method;
        header.extend([
            format!("{title} rank"),
            format!("{title} score"),
            format!("{title} CI"),
        ]);
    }
    let mut table = TextTable::new(header);
    let Some(first) = outputs.first() else {
        return table;
    };
    for standing in &first.leaderboard.models {
        let mut row = vec![standing.name.clone()];
        for output in outputs {
            match output
                .leaderboard
                .models
                .iter()
                .find(|s| s.name == standing.name)
            {
                Some(s) => row.extend([
                    s.rank.to_string(),
                    score_cell(output.leaderboard.method, s.score),
                    interval_cell(output.leaderboard.method, s.ci_low, s.ci_high),
                ]),
                None => row.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        table.push(row);
    }
    table
}

/// The human-readable report.
pub fn render_table(report: &RankReport) -> String {
    match report {
        RankReport::Single(output) => render_output(output),
        RankReport::All {
            leaderboards,
            notes,
            ..
        } => {
            let mut out = String::new();
            for output in leaderboards {
                out.push_str(&describe_output(output));
                out.push('\n');
            }
            out.push('\n');
            out.push_str(&side_by_side(leaderboards).render());
            for output in leaderboards {
                if let Some(matrices) = &output.matrices {
                    out.push('\n');
                    out.push_str(&render_matrices(matrices));
                    break;
                }
            }
            for output in leaderboards {
                for note in &output.notes {
                    let _ = writeln!(out, "note ({}): {note}", output.leaderboard.method);
                }
            }
            for note in notes {
                let _ = writeln!(out, "note: {note}");
            }
            out
        }
    }
}

/// CSV: one row per (method, model):
/// `method,name,score,ci_low,ci_high,rank,rank_ub,wins,losses,ties,battles`.
///
/// # Errors
/// [`ReportError::Csv`] if formatting fails.
pub fn render_csv(report: &RankReport) -> Result<String, ReportError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "method", "name", "score", "ci_low", "ci_high", "rank", "rank_ub", "wins", "losses",
        "ties", "battles",
    ])?;
    let text = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for output in report.outputs() {
        for s in &output.leaderboard.models {
            writer.write_record([
                output.leaderboard.method.name().to_owned(),
                crate::spreadsheet_safe(&s.name),
                s.score.to_string(),
                text(s.ci_low),
                text(s.ci_high),
                s.rank.to_string(),
                s.rank_ub.map(|r| r.to_string()).unwrap_or_default(),
                s.wins.to_string(),
                s.losses.to_string(),
                s.ties.to_string(),
                s.battles.to_string(),
            ])?;
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| ReportError::Csv(e.into_error().into()))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 strings is UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_align_right_and_text_left() {
        let mut table = TextTable::new(["model", "score"]);
        table.push(vec!["a".into(), "1000.0".into()]);
        table.push(vec!["longer".into(), "99.5".into()]);
        assert_eq!(
            table.render(),
            "model    score\na       1000.0\nlonger    99.5\n"
        );
    }
}
