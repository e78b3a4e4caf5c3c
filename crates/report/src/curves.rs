//! Log–log curves, one panel per set (e.g. error against budget, one line per
//! method), SVG or PNG by extension.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use verdict_io::OutputFile;

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

/// Okabe and Ito's colour-blind-safe palette, its black last and a grey added for an
/// eighth line.
const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(153, 153, 153),
];

/// Panels per row; more panels wrap onto further rows.
const PANELS_PER_ROW: usize = 3;

/// A tick's text: plain decimals from 0.001 to 99,999 (`0.05`, `2`, `20000`),
/// scientific notation beyond (`1e5`, `5e-4`).
fn tick_text(value: f64) -> String {
    if (1e-3..1e5).contains(&value) {
        let rounded = (value * 1e6).round() / 1e6;
        format!("{rounded}")
    } else {
        format!("{value:.0e}")
    }
}

/// A panel's chart, and the legend column to its right: beside the lines, never over
/// them.
const CHART_WIDTH: u32 = 560;
const LEGEND_WIDTH: u32 = 200;
const PANEL_WIDTH: u32 = CHART_WIDTH + LEGEND_WIDTH;
const PANEL_HEIGHT: u32 = 480;

/// Longest series name the legend column shows whole; longer ones end in `…`.
const LEGEND_CHARS: usize = 26;

/// Draws `panels` side by side to `target` (`.svg` or `.png`), atomically and never
/// over a file verdict did not write.
///
/// # Errors
/// [`ReportError::PlotFormat`] for another extension; [`ReportError::Plot`] when
/// drawing fails (including a panel with no positive points); [`ReportError::Io`] when
/// the target is refused or cannot be written.
pub fn plot_curves(target: &OutputFile, panels: &[Curves]) -> Result<(), ReportError> {
    save(target, &Panels(panels))
}

/// `panels` as inline SVG text for a page.
///
/// # Errors
/// [`ReportError::Plot`] when drawing fails (a panel with no positive points).
pub fn curves_svg(panels: &[Curves]) -> Result<String, ReportError> {
    crate::plot::svg_text(&Panels(panels))
}

/// Ticks of the x axis: the points' own x values when there are at most eight
/// distinct ones (budgets, voter counts), else [`log_ticks`].
fn x_ticks(xs: impl Iterator<Item = f64>, low: f64, high: f64) -> Vec<f64> {
    let mut distinct: Vec<f64> = xs.collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() <= 8 {
        distinct
    } else {
        log_ticks(low, high)
    }
}

/// Ticks of a log axis from `low` to `high`: 1, 2 and 5 times each power of ten in
/// range, thinned to 1 and 3 (then to powers of ten alone) when there would be more
/// than ten, and every digit's multiple when 1-2-5 leaves fewer than three (a range
/// within one decade).
fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let (first, last) = (low.log10().floor() as i32, high.log10().ceil() as i32);
    let within = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| steps.iter().map(move |s| s * 10f64.powi(e)))
            .filter(|v| *v >= low && *v <= high)
            .collect()
    };
    let usual = within(&[1.0, 2.0, 5.0]);
    if usual.len() < 3 {
        let digits = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        if digits.len() > usual.len() {
            return digits;
        }
    }
    [&[1.0, 2.0, 5.0][..], &[1.0, 3.0], &[1.0]]
        .iter()
        .map(|steps| within(steps))
        .find(|ticks| ticks.len() <= 10)
        .unwrap_or_else(|| within(&[1.0]))
}

struct Panels<'a>(&'a [Curves]);

impl Panels<'_> {
    /// Rows and columns of panels: up to [`PANELS_PER_ROW`] side by side.
    fn grid(&self) -> (usize, usize) {
        let n = self.0.len().max(1);
        let columns = n.min(PANELS_PER_ROW);
        (n.div_ceil(columns), columns)
    }
}

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        let (rows, columns) = self.grid();
        (PANEL_WIDTH * columns as u32, PANEL_HEIGHT * rows as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        for (area, panel) in root.split_evenly(self.grid()).iter().zip(self.0) {
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
    let (chart_area, legend_area) = area.split_horizontally(CHART_WIDTH);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(&panel.title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (x_low / 1.2..x_high * 1.2)
                .log_scale()
                .with_key_points(x_ticks(
                    points().map(|&(x, _)| x),
                    x_low / 1.2,
                    x_high * 1.2,
                )),
            (y_low / 1.3..y_high * 1.3)
                .log_scale()
                .with_key_points(log_ticks(y_low / 1.3, y_high * 1.3)),
        )
        .map_err(text)?;
    chart
        .configure_mesh()
        // Plotters puts a light line at every integer multiple within each decade of
        // a log axis, crowded where decades are short: only the labelled lines stay.
        .light_line_style(TRANSPARENT)
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&|x| tick_text(*x))
        .y_label_formatter(&|y| tick_text(*y))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(text)?;
    for (i, series) in panel.series.iter().enumerate() {
        let look = Look::of(i);
        let line: Vec<(f64, f64)> = series.points.iter().copied().filter(usable).collect();
        if look.dashed {
            chart
                .draw_series(DashedLineSeries::new(line.clone(), 6, 4, look.line()))
                .map_err(text)?;
        } else {
            chart
                .draw_series(LineSeries::new(line.clone(), look.line()))
                .map_err(text)?;
        }
        chart
            .draw_series(line.into_iter().map(|p| Circle::new(p, 3, look.marker())))
            .map_err(text)?;
    }
    draw_legend(&legend_area, &panel.series).map_err(text)
}

/// How series `i` is drawn: an Okabe–Ito colour, solid with filled markers; past the
/// palette's eight colours, dashed with hollow markers, so two series never look alike.
struct Look {
    color: RGBColor,
    dashed: bool,
}

impl Look {
    fn of(i: usize) -> Self {
        Look {
            color: OKABE_ITO[i % OKABE_ITO.len()],
            dashed: i >= OKABE_ITO.len(),
        }
    }

    fn line(&self) -> ShapeStyle {
        self.color.stroke_width(2)
    }

    fn marker(&self) -> ShapeStyle {
        if self.dashed {
            self.color.stroke_width(1)
        } else {
            self.color.filled()
        }
    }
}

/// The legend in its own column: one row per series, its line and marker, then its
/// name (shortened past [`LEGEND_CHARS`]).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &[Series],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const TOP: i32 = 48;
    const ROW: i32 = 20;
    for (i, one) in series.iter().enumerate() {
        let look = Look::of(i);
        let y = TOP + ROW * i as i32;
        let ends = vec![(4, y), (28, y)];
        if look.dashed {
            area.draw(&DashedPathElement::new(ends, 6, 4, look.line()))?;
        } else {
            area.draw(&PathElement::new(ends, look.line()))?;
        }
        area.draw(&Circle::new((16, y), 3, look.marker()))?;
        let name = if one.name.chars().count() > LEGEND_CHARS {
            let kept: String = one.name.chars().take(LEGEND_CHARS - 1).collect();
            format!("{kept}…")
        } else {
            one.name.clone()
        };
        area.draw(&Text::new(
            name,
            (34, y - 7),
            ("sans-serif", 12).into_font().color(&BLACK),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::log_ticks;

    #[test]
    fn few_x_values_are_their_own_ticks() {
        use super::x_ticks;
        let voters = [1.0, 3.0, 5.0, 3.0, 1.0];
        assert_eq!(x_ticks(voters.into_iter(), 0.8, 6.0), [1.0, 3.0, 5.0]);
        let many = (1..=20).map(f64::from);
        assert_eq!(x_ticks(many, 0.8, 24.0), [1.0, 2.0, 5.0, 10.0, 20.0]);
    }

    #[test]
    fn log_ticks_are_one_two_five_per_decade_thinned_when_many() {
        assert_eq!(log_ticks(800.0, 2e4), [1e3, 2e3, 5e3, 1e4, 2e4]);
        // Six decades at 1-2-5 would be 18 ticks: 1-3 gives 12, powers alone 7.
        assert_eq!(log_ticks(1.0, 1e6), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(0.04, 0.5), [0.05, 0.1, 0.2, 0.5]);
        // Within one decade 1-2-5 gives one tick: every digit's multiple instead.
        let ticks = log_ticks(0.28, 0.66);
        assert_eq!(ticks.len(), 4);
        for (tick, want) in ticks.iter().zip([0.3, 0.4, 0.5, 0.6]) {
            assert!((tick - want).abs() < 1e-12, "{ticks:?}");
        }
    }

    #[test]
    fn ticks_read_as_plain_numbers_in_the_usual_range() {
        use super::tick_text;
        assert_eq!(tick_text(2.0), "2");
        assert_eq!(tick_text(0.05), "0.05");
        assert_eq!(tick_text(20000.0), "20000");
        assert_eq!(tick_text(1e5), "1e5");
        assert_eq!(tick_text(5e-4), "5e-4");
    }
}
