//! Boards of small logs written out battle by battle, for the unit tests of the
//! leaderboard families.

use verdict_report::{RankOutput, RankReport};

use super::{rank, RankSettings};
use crate::arrays::battle_log_from_arrays;

/// `(model_a, model_b, winner label)` repeated `times`.
pub(super) fn battles(rows: &[(&str, &str, &str, usize)]) -> Vec<(String, String, String)> {
    rows.iter()
        .flat_map(|&(a, b, w, times)| std::iter::repeat_n((a.into(), b.into(), w.into()), times))
        .collect()
}

/// The one board `settings` make of `battles`.
pub(super) fn board(battles: &[(String, String, String)], settings: &RankSettings) -> RankOutput {
    let column = |f: fn(&(String, String, String)) -> &String| -> Vec<&String> {
        battles.iter().map(f).collect()
    };
    let log = battle_log_from_arrays(&column(|b| &b.0), &column(|b| &b.1), &column(|b| &b.2))
        .expect("a well-formed log");
    match rank(&log, "test", settings, &|| {}).expect("a board") {
        RankReport::Single(output) => *output,
        other => panic!("one board expected, got {other:?}"),
    }
}

/// The standing of `name`.
pub(super) fn standing<'a>(output: &'a RankOutput, name: &str) -> &'a verdict_ratings::Standing {
    output
        .leaderboard
        .models
        .iter()
        .find(|s| s.name == name)
        .expect("the model is on the board")
}
