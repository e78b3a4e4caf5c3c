//! Rank a battle log: Bradley–Terry with 95% bootstrap intervals on the bundled
//! LLMFAO log (LMArena schema `model_a, model_b, winner`), as `verdict rank` does.
//!
//! `cargo run -p verdict --example rank_battles [LOG]`

use verdict::io::{read_battles, ReadOptions, Source};
use verdict::rank::{rank, Intervals, RankSettings};
use verdict::ratings::Bootstrap;
use verdict::report::render_table;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/data/llmfao.csv"
        )
        .into()
    });
    let loaded = read_battles(&Source::File(path.clone().into()), &ReadOptions::default())?;
    let settings = RankSettings {
        intervals: Intervals::Bootstrap(Bootstrap {
            rounds: 200,
            ..Bootstrap::default()
        }),
        ..RankSettings::default()
    };
    let report = rank(&loaded.log, &path, &settings, &|| {})?;
    print!("{}", render_table(&report));
    Ok(())
}
