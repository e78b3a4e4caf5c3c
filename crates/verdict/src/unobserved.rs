//! Which members of a maximal lottery's winner set owe their place to pairs of models
//! that never met. A real arena is sparse (models arrive and retire), and counting a
//! pair that never met as a tie (`allow_unobserved`) can keep a weak model in the
//! winner set only because it never met the models that would have beaten it.
//!
//! The test, per member `m` of the winner set that has unmet opponents: the lottery is
//! solved again with each of `m`'s unobserved pairs counted as a loss for `m` (margin
//! −1 against every opponent it never met, the worst those battles could have gone);
//! when `m` then leaves the winner set, its place rests on the missing pairs. A member
//! that stays would stay whatever those battles had shown. Two members that never met
//! each other both rest on that pair (the data cannot order them); the share of each
//! member's unbeaten opponents it never met tells them apart — a champion that missed
//! one newcomer against an old model that met only the weakest.

use verdict_game::{PayoffMatrix, SUPPORT_THRESHOLD};
use verdict_report::{UnobservedDiagnosis, UnobservedMember};

use crate::equilibrium::{solve, EquilibriumSettings};
use crate::VerdictError;

/// The diagnosis of a lottery `probabilities` of `game` (whose `unobserved` pairs count
/// as ties), models named by `names`.
///
/// # Errors
/// The solver's, for a game it cannot solve.
pub fn diagnose_unobserved(
    game: &PayoffMatrix,
    unobserved: &[(usize, usize)],
    names: &[String],
    probabilities: &[f64],
    settings: &EquilibriumSettings,
) -> Result<UnobservedDiagnosis, VerdictError> {
    let k = game.agents();
    let pairs = k * k.saturating_sub(1) / 2;
    let unmet_of = |m: usize| -> Vec<usize> {
        unobserved
            .iter()
            .filter_map(|&(j, l)| match (j == m, l == m) {
                (true, _) => Some(l),
                (_, true) => Some(j),
                _ => None,
            })
            .collect()
    };
    let mut members = Vec::new();
    for m in (0..k).filter(|&m| probabilities[m] > SUPPORT_THRESHOLD) {
        let unmet = unmet_of(m);
        let owes_place = if unmet.is_empty() {
            false
        } else {
            let mut values: Vec<f64> = (0..k * k).map(|i| game.get(i / k, i % k)).collect();
            for &o in &unmet {
                values[m * k + o] = -1.0;
                values[o * k + m] = 1.0;
            }
            let worst = PayoffMatrix::from_row_major(&values, k)?;
            solve(&worst, names, settings)?.probabilities[m] <= SUPPORT_THRESHOLD
        };
        let unbeaten: Vec<usize> = (0..k)
            .filter(|&o| o != m && game.get(m, o) >= 0.0)
            .collect();
        let unbeaten_unmet = unbeaten.iter().filter(|o| unmet.contains(o)).count();
        members.push(UnobservedMember {
            model: names[m].clone(),
            unmet: unmet.len(),
            unbeaten_unmet_share: unbeaten_unmet as f64 / unbeaten.len().max(1) as f64,
            owes_place,
        });
    }
    Ok(UnobservedDiagnosis {
        observed_share: if pairs == 0 {
            1.0
        } else {
            1.0 - unobserved.len() as f64 / pairs as f64
        },
        members,
    })
}

/// The diagnosis as a note for people: the share of pairs observed and the members
/// whose place rests on missing pairs.
pub fn diagnosis_note(diagnosis: &UnobservedDiagnosis) -> String {
    let resting: Vec<String> = diagnosis
        .members
        .iter()
        .filter(|m| m.owes_place)
        .map(|m| {
            format!(
                "{} (never met {}: {:.0}% of the opponents that do not beat it)",
                m.model,
                m.unmet,
                100.0 * m.unbeaten_unmet_share
            )
        })
        .collect();
    let share = 100.0 * diagnosis.observed_share;
    if resting.is_empty() {
        format!(
            "{share:.1}% of pairs observed; every member of the winner set keeps its place when the pairs it never played count as losses"
        )
    } else {
        format!(
            "{share:.1}% of pairs observed; {} of the winner set would leave it had the pairs they never played gone against them: {}",
            resting.len(),
            resting.join(", ")
        )
    }
}
