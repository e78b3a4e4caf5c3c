//! Which layout of pair counts a table's columns hold ([`CountColumns`]): told apart
//! from a battle log by the battle reader, and read by the counts reader.

use crate::Table;

/// The columns of a counts table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CountColumns {
    /// `wins_a, wins_b` and optionally `ties`, one row per pair.
    Wide {
        /// Whether a `ties` column is there.
        ties: bool,
    },
    /// `winner` labels with a `count`, one row per pair and outcome.
    Long,
}

impl CountColumns {
    /// The layout `table`'s columns hold, if any.
    pub(crate) fn detect(table: &Table) -> Option<Self> {
        let present = table.present_columns();
        let has = |name: &str| present.iter().any(|p| p == name);
        if has("wins_a") && has("wins_b") {
            Some(CountColumns::Wide { ties: has("ties") })
        } else if has("count") && has("winner") {
            Some(CountColumns::Long)
        } else {
            None
        }
    }

    /// The columns, for messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            CountColumns::Wide { ties: true } => "columns wins_a, wins_b, ties",
            CountColumns::Wide { ties: false } => "columns wins_a, wins_b",
            CountColumns::Long => "columns winner, count",
        }
    }

    /// The count columns to read.
    pub(crate) fn columns() -> [&'static str; 4] {
        ["wins_a", "wins_b", "ties", "count"]
    }
}
