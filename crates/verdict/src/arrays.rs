//! Battles given as three parallel arrays — first model, second model, outcome — the
//! calling convention of `evalica` and `choix`, for drop-in use where a caller holds
//! columns rather than a file.

use verdict_feedback::{BattleLog, Outcome};

use crate::VerdictError;

/// The battle log of `xs[i]` against `ys[i]` with outcome label `winners[i]` (LMArena
/// labels `model_a | model_b | tie | tie (bothbad)`, or the spellings
/// [`Outcome::parse`] accepts), in array order.
///
/// # Errors
/// [`VerdictError::Data`] naming the position: arrays of different lengths, an empty
/// log, an unknown label, or a model against itself.
pub fn battle_log_from_arrays<S: AsRef<str>>(
    xs: &[S],
    ys: &[S],
    winners: &[S],
) -> Result<BattleLog, VerdictError> {
    if xs.len() != ys.len() || xs.len() != winners.len() {
        return Err(VerdictError::Data(format!(
            "xs, ys and winners must have the same length; got {}, {} and {}",
            xs.len(),
            ys.len(),
            winners.len()
        )));
    }
    if xs.is_empty() {
        return Err(VerdictError::Data(
            "no battles: the arrays are empty".into(),
        ));
    }
    let mut log = BattleLog::new();
    for (i, ((x, y), winner)) in xs.iter().zip(ys).zip(winners).enumerate() {
        let outcome = Outcome::parse(winner.as_ref())
            .map_err(|e| VerdictError::Data(format!("winners[{i}]: {e}")))?;
        log.push(x.as_ref(), y.as_ref(), outcome)
            .map_err(|e| VerdictError::Data(format!("battle {i}: {e}")))?;
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_become_a_log_in_order_and_errors_name_the_position() {
        let log = battle_log_from_arrays(&["a", "b"], &["b", "c"], &["model_a", "tie"]).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log.models().names(), &["a", "b", "c"]);
        assert_eq!(log.battle(1).2, Outcome::Tie);
        let error = battle_log_from_arrays(&["a", "b"], &["b", "c"], &["model_a", "won"])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("winners[1]:"), "{error}");
        let error = battle_log_from_arrays(&["a", "b"], &["b", "b"], &["model_a", "tie"])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("battle 1:"), "{error}");
        assert!(battle_log_from_arrays(&["a"], &["b", "c"], &["tie"]).is_err());
    }
}
