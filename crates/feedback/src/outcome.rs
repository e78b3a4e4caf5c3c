use serde::Serialize;

/// Outcome of one battle between `model_a` and `model_b` (LMArena schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Outcome {
    /// `model_a` won.
    WinA = 0,
    /// `model_b` won.
    WinB = 1,
    /// A tie with both answers acceptable (`tie`).
    Tie = 2,
    /// A tie with both answers bad (`tie (bothbad)`, also spelled `both_bad`).
    TieBothBad = 3,
}

/// The labels accepted for each outcome, as shown in error messages.
pub const OUTCOME_LABELS: &str = "model_a | model_b | tie | tie (bothbad)";

/// A winner label that is none of the accepted spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {OUTCOME_LABELS}, found {found:?}{hint}", hint = near_miss_hint(found))]
pub struct ParseOutcomeError {
    /// The label as it appeared in the input.
    pub found: String,
}

/// "; did you mean …" for a label that differs from an accepted one only in case or
/// surrounding blanks — said, not guessed: a column of winners' *names* with models
/// called A and B would otherwise be read with one side's wins as the other's.
fn near_miss_hint(found: &str) -> String {
    let normalized = found.trim().to_ascii_lowercase();
    ACCEPTED
        .iter()
        .find(|(label, _)| *label == normalized)
        .map(|(label, _)| format!("; labels are exact: did you mean {label:?}?"))
        .unwrap_or_default()
}

/// Every accepted spelling, exactly as written.
const ACCEPTED: [(&str, Outcome); 7] = [
    ("model_a", Outcome::WinA),
    ("model_b", Outcome::WinB),
    ("tie", Outcome::Tie),
    ("tie (bothbad)", Outcome::TieBothBad),
    ("both_bad", Outcome::TieBothBad),
    ("left", Outcome::WinA),
    ("right", Outcome::WinB),
];

impl Outcome {
    /// Parses a winner label, exactly as documented: LMArena's `model_a`, `model_b`,
    /// `tie`, `tie (bothbad)`, also `both_bad`, and evalica's `left` / `right`. Nothing
    /// else — no other case, no blanks around it, no `a`/`b` (a column of winners'
    /// names with models named A and B would be read wrongly) — is taken: anything
    /// else is an error naming the closest label, never a silent guess.
    pub fn parse(label: &str) -> Result<Self, ParseOutcomeError> {
        ACCEPTED
            .iter()
            .find(|(accepted, _)| *accepted == label)
            .map(|&(_, outcome)| outcome)
            .ok_or_else(|| ParseOutcomeError {
                found: label.to_owned(),
            })
    }

    /// The LMArena spelling: `model_a`, `model_b`, `tie` or `tie (bothbad)`.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::WinA => "model_a",
            Outcome::WinB => "model_b",
            Outcome::Tie => "tie",
            Outcome::TieBothBad => "tie (bothbad)",
        }
    }

    /// Score of `model_a` in this battle: 1, 0, or 1/2 for either tie (Elo's `S_A`).
    pub fn score_a(self) -> f64 {
        match self {
            Outcome::WinA => 1.0,
            Outcome::WinB => 0.0,
            Outcome::Tie | Outcome::TieBothBad => 0.5,
        }
    }

    /// True for both kinds of tie.
    pub fn is_tie(self) -> bool {
        matches!(self, Outcome::Tie | Outcome::TieBothBad)
    }

    /// The outcome seen from the other side (a and b swapped).
    pub fn swapped(self) -> Self {
        match self {
            Outcome::WinA => Outcome::WinB,
            Outcome::WinB => Outcome::WinA,
            tie => tie,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_documented_spelling() {
        for (label, outcome) in [
            ("model_a", Outcome::WinA),
            ("model_b", Outcome::WinB),
            ("left", Outcome::WinA),
            ("right", Outcome::WinB),
            ("tie", Outcome::Tie),
            ("tie (bothbad)", Outcome::TieBothBad),
            ("both_bad", Outcome::TieBothBad),
        ] {
            assert_eq!(Outcome::parse(label), Ok(outcome), "{label}");
        }
    }

    #[test]
    fn unknown_label_is_an_error_not_a_tie() {
        let err = Outcome::parse("draw!").unwrap_err();
        assert!(err.to_string().contains("found \"draw!\""));
    }

    /// Spellings beyond the documented ones were mapped silently: "a" and "B" (the
    /// winners' *names* when models are called A and B — B's wins were read as A's),
    /// "Model_A", " model_a", "bothbad", "draw". Each is refused now, a near miss with
    /// the label it nearly is.
    #[test]
    fn labels_beyond_the_documented_ones_are_refused() {
        for label in ["a", "B", "A", "bothbad", "tie_bothbad", "draw", "Left"] {
            assert!(Outcome::parse(label).is_err(), "{label}");
        }
        for (label, meant) in [
            ("Model_A", "model_a"),
            (" model_a", "model_a"),
            ("TIE", "tie"),
        ] {
            let err = Outcome::parse(label).unwrap_err().to_string();
            assert!(err.contains(&format!("did you mean {meant:?}")), "{err}");
        }
    }

    #[test]
    fn score_of_a_matches_elo_convention() {
        assert_eq!(Outcome::WinA.score_a(), 1.0);
        assert_eq!(Outcome::WinB.score_a(), 0.0);
        assert_eq!(Outcome::TieBothBad.score_a(), 0.5);
        assert_eq!(Outcome::WinA.swapped(), Outcome::WinB);
    }
}
