//! Leaderboard plot: one row per model, best at the top, a dot at the score and a bar
//! over the interval. SVG or PNG by the file's extension; text is drawn with the
//! bundled DejaVu Sans (no system fonts needed).

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use verdict_io::OutputFile;
use verdict_ratings::Leaderboard;

use crate::ReportError;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const WIDTH: u32 = 960;
const ROW_HEIGHT: u32 = 22;
const FRAME_HEIGHT: u32 = 110;

fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The font is compiled in and known to parse; a failure would be our bug.
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("bundled font failed to load"));
    });
}

/// Draws `board` to `target` (`.svg` or `.png`), atomically and never over a file
/// verdict did not write.
///
/// # Errors
/// [`ReportError::PlotFormat`] for another extension; [`ReportError::Plot`] when
/// drawing fails; [`ReportError::Io`] when the target is refused or cannot be written.
pub fn plot_leaderboard(
    target: &OutputFile,
    board: &Leaderboard,
    title: &str,
) -> Result<(), ReportError> {
    save(target, &LeaderboardFigure { board, title })
}

/// Something drawable on any plotters backend.
pub(crate) trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws onto `root`.
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static;
}

/// Writes `figure` to `target` as SVG or PNG (by extension) under verdict's output
/// policy ([`verdict_io::OutputFile`]): through a temporary file in the same
/// directory, so a failed plot leaves nothing half-written, and never over a file
/// verdict did not write.
pub(crate) fn save(target: &OutputFile, figure: &impl Figure) -> Result<(), ReportError> {
    register_font();
    let path = target.path();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let shown = path.display().to_string();
    let svg = match extension.as_deref() {
        Some("svg") => true,
        Some("png") => false,
        _ => return Err(ReportError::PlotFormat { path: shown }),
    };
    let size = figure.size();
    target.write_through_path(|temporary| {
        if svg {
            figure.draw(SVGBackend::new(temporary, size).into_drawing_area())
        } else {
            figure.draw(BitMapBackend::new(temporary, size).into_drawing_area())
        }
        .map_err(|message| ReportError::Plot {
            path: shown.clone(),
            message,
        })
    })
}

/// `figure` as SVG text to inline in a page: without the XML namespace declaration,
/// which HTML does not need (and which names a URL).
pub(crate) fn svg_text(figure: &impl Figure) -> Result<String, ReportError> {
    register_font();
    let mut text = String::new();
    figure
        .draw(SVGBackend::with_string(&mut text, figure.size()).into_drawing_area())
        .map_err(|message| ReportError::Plot {
            path: "(inline figure)".into(),
            message,
        })?;
    Ok(text.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1))
}

struct LeaderboardFigure<'a> {
    board: &'a Leaderboard,
    title: &'a str,
}

impl Figure for LeaderboardFigure<'_> {
    fn size(&self) -> (u32, u32) {
        (
            WIDTH,
            FRAME_HEIGHT + ROW_HEIGHT * self.board.models.len() as u32,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        draw(root, self.board, self.title)
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    board: &Leaderboard,
    title: &str,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(text)?;
    let n = board.models.len();
    let lows = board.models.iter().map(|s| s.ci_low.unwrap_or(s.score));
    let highs = board.models.iter().map(|s| s.ci_high.unwrap_or(s.score));
    let low = lows.fold(f64::INFINITY, f64::min);
    let high = highs.fold(f64::NEG_INFINITY, f64::max);
    let pad = ((high - low) * 0.05).max(1.0);
    let longest = board
        .models
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(4);
    let label_width = (longest as u32 * 8 + 16).min(WIDTH / 2);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(label_width)
        .build_cartesian_2d((low - pad)..(high + pad), (0..n).into_segmented())
        .map_err(text)?;
    let name_of = |value: &SegmentValue<usize>| match value {
        SegmentValue::CenterOf(row) if *row < n => board.models[n - 1 - row].name.clone(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&name_of)
        .x_desc("score")
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(text)?;
    let row_of = |index: usize| SegmentValue::CenterOf(n - 1 - index);
    let blue = RGBColor(31, 119, 180);
    chart
        .draw_series(board.models.iter().enumerate().filter_map(|(i, s)| {
            let (lo, hi) = (s.ci_low?, s.ci_high?);
            Some(PathElement::new(
                vec![(lo, row_of(i)), (hi, row_of(i))],
                blue.stroke_width(2),
            ))
        }))
        .map_err(text)?;
    chart
        .draw_series(
            board
                .models
                .iter()
                .enumerate()
                .map(|(i, s)| Circle::new((s.score, row_of(i)), 4, blue.filled())),
        )
        .map_err(text)?;
    root.present().map_err(text)?;
    Ok(())
}
