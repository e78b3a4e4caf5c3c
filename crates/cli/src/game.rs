//! `verdict game MATRIX.csv`: the canonical maximal lottery of a payoff matrix.

use anyhow::Context;
use verdict::equilibrium::{game_report, read_game};
use verdict::io::{write_bytes_atomic, Source};
use verdict::report::{game_html, game_table};

use crate::args::{GameArgs, OutputFormat};

pub fn run(args: &GameArgs) -> anyhow::Result<()> {
    let (names, game) = read_game(&Source::File(args.matrix.clone()))?;
    let file = args.matrix.display().to_string();
    let settings = crate::rank::equilibrium_settings(&args.equilibrium)?;
    let report =
        game_report(&game, &names, &settings).with_context(|| format!("solving {file}"))?;
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        _ => game_table(&report, &file, settings.rho),
    };
    if let Some(path) = &args.report {
        let payoffs: Vec<Vec<f64>> = (0..names.len())
            .map(|j| (0..names.len()).map(|k| game.get(j, k)).collect())
            .collect();
        let title = format!("verdict game {file}");
        write_bytes_atomic(
            path,
            game_html(&report, &names, &payoffs, &title).as_bytes(),
        )?;
    }
    crate::output::emit(&text, None)
}
