//! Log–log curves, one panel per set (e.g. error against budget, one line per
//! method), SVG or PNG by extension.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plot::{save, Figure};
use crate::ReportError;

/// One line: a name and its `(x, y)` points (positive, for the log axes).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points; non-positive or non-finite ones are left out.
    pub points: Vec<(f64, f64)>,
}

/// One panel of log–log curves.
#[derive(Debug, Clone, PartialEq)]
pub struct Curves {
    /// Panel title.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

const PANEL_WIDTH: u32 = 720;
const PANEL_HEIGHT: u32 = 480;

/// Draws `panels` side by side to `path` (`.svg` or `.png`), atomically.
///
/// # Errors
/// [`ReportError::PlotFormat`] for another extension; [`ReportError::Plot`] when
/// drawing or writing fails (including a panel with no positive points).
pub fn plot_curves(path: &Path, panels: &[Curves]) -> Result<(), ReportError> {
    save(path, &Panels(panels))
}

/// `panels` as inline SVG text for a page.
///
/// # Errors
/// [`ReportError::Plot`] when drawing fails (a panel with no positive points).
pub fn curves_svg(panels: &[Curves]) -> Result<String, ReportError> {
    crate::plot::svg_text(&Panels(panels))
}

struct Panels<'a>(&'a [Curves]);

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        (PANEL_WIDTH * self.0.len().max(1) as u32, PANEL_HEIGHT)
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        for (area, panel) in root
            .split_evenly((1, self.0.len().max(1)))
            .iter()
            .zip(self.0)
        {
            draw_panel(area, panel)?;
        }
        root.present().map_err(|e| e.to_string())
    }
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Curves,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let usable = |&(x, y): &(f64, f64)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite();
    let points = || {
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| usable(p)))
    };
    let (x_low, x_high) = points().fold((f64::INFINITY, 0.0f64), |(l, h), &(x, _)| {
        (l.min(x), h.max(x))
    });
    let (y_low, y_high) = points().fold((f64::INFINITY, 0.0f64), |(l, h), &(_, y)| {
        (l.min(y), h.max(y))
    });
    if !(x_low <= x_high && y_low <= y_high) {
        return Err(format!("panel {:?} has no positive points", panel.title));
    }
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (x_low / 1.2..x_high * 1.2).log_scale(),
            (y_low / 1.3..y_high * 1.3).log_scale(),
        )
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.1e}"))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(text)?;
    for (i, series) in panel.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let line: Vec<(f64, f64)> = series.points.iter().copied().filter(usable).collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
            .map_err(text)?
            .label(series.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .map_err(text)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(text)?;
    Ok(())
}
