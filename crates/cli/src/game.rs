//! `verdict game MATRIX.csv`: the canonical maximal lottery of a payoff matrix.

use anyhow::Context;
use verdict::equilibrium::{game_report, read_game};
use verdict::io::Source;
use verdict::report::game_table;

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
    crate::output::emit(&text, None)
}
