//! `verdict game MATRIX.csv`: the canonical maximal lottery of a payoff matrix.

use anyhow::Context;
use verdict::equilibrium::{game_report, read_game};
use verdict::io::Source;
use verdict::report::{game_html, game_table};

use crate::args::{GameArgs, OutputFormat};

pub fn run(args: &GameArgs) -> anyhow::Result<()> {
    let page = crate::output::outputs().optional_page(args.report.as_deref(), "--report");
    verdict::outputs::Outputs::check(std::slice::from_ref(&page))?;
    let (names, game) = read_game(&Source::File(args.matrix.clone()))?;
    let file = args.matrix.display().to_string();
    let settings = crate::rank::equilibrium_settings(&args.equilibrium)?;
    let report =
        game_report(&game, &names, &settings).with_context(|| format!("solving {file}"))?;
    // The page draws the payoffs; the printed output keeps them with --payoffs.
    let stripped;
    let printed = if args.payoffs {
        &report
    } else {
        stripped = report.without_payoffs();
        &stripped
    };
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(printed)? + "\n",
        _ => game_table(&report, &file, settings.rho),
    };
    if let Some(page) = &page {
        let title = format!("verdict game {}", verdict::page::shown_name(&args.matrix));
        verdict::page::write_page(page, &game_html(&report, &title))?;
    }
    crate::output::emit(&text, None)
}
