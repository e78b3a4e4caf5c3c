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
#[error("expected {OUTCOME_LABELS}, found {found:?}")]
pub struct ParseOutcomeError {
    /// The label as it appeared in the input.
    pub found: String,
}

impl Outcome {
    /// Parses a winner label. Accepted spellings (case-insensitive, surrounding blanks
    /// ignored): `model_a`/`a`/`left`, `model_b`/`b`/`right`, `tie`/`draw`, and
    /// `tie (bothbad)`/`both_bad`/`bothbad`/`tie_bothbad`. Anything else is an error,
    /// never a silent tie.
    pub fn parse(label: &str) -> Result<Self, ParseOutcomeError> {
        let normalized = label.trim().to_ascii_lowercase();
        match normalized.as_str() {
            "model_a" | "a" | "left" => Ok(Outcome::WinA),
            "model_b" | "b" | "right" => Ok(Outcome::WinB),
            "tie" | "draw" => Ok(Outcome::Tie),
            "tie (bothbad)" | "both_bad" | "bothbad" | "tie_bothbad" | "tie(bothbad)" => {
                Ok(Outcome::TieBothBad)
            }
            _ => Err(ParseOutcomeError {
                found: label.to_owned(),
            }),
        }
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
            (" Model_B ", Outcome::WinB),
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

    #[test]
    fn score_of_a_matches_elo_convention() {
        assert_eq!(Outcome::WinA.score_a(), 1.0);
        assert_eq!(Outcome::WinB.score_a(), 0.0);
        assert_eq!(Outcome::TieBothBad.score_a(), 0.5);
        assert_eq!(Outcome::WinA.swapped(), Outcome::WinB);
    }
}
