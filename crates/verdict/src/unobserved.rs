//! Pairs of models that never met, in a maximal lottery: how the lottery is solved
//! when they are filled or avoided ([`solve_within`]), what a refusal offers
//! ([`UnobservedPairs::remedies`]), and which members of the winner set owe their place to
//! them ([`diagnose_unobserved`]). A real arena is sparse (models arrive and retire),
//! and counting a pair that never met as a tie can keep a weak model in the winner set
//! only because it never met the models that would have beaten it.
//!
//! The test, per member `m` of the winner set that has unmet opponents: the lottery is
//! solved again with each of `m`'s unobserved pairs counted as a loss for `m` (margin
//! −1 against every opponent it never met, the worst those battles could have gone);
//! when `m` then leaves the winner set, its place rests on the missing pairs, whatever
//! filled them. A member that stays would stay whatever those battles had shown. Two
//! members that never met each other both rest on that pair (the data cannot order
//! them); the share of each member's unbeaten opponents it never met tells them apart
//! — a champion that missed one newcomer against an old model that met only the
//! weakest.

use verdict_game::{Lottery, PayoffMatrix, SUPPORT_THRESHOLD};
use verdict_ratings::UnobservedPairs;
use verdict_report::{UnobservedDiagnosis, UnobservedMember};
use verdict_settings::Setting;

use crate::equilibrium::{solve, EquilibriumSettings};
use crate::VerdictError;

/// The equilibrium of `game` (models `names`) under `settings`, or with `core` that of
/// the core's game alone, every model outside it at probability 0 (costs of those
/// models are set aside).
///
/// # Errors
/// The solver's; a core of fewer than two models.
pub fn solve_within(
    game: &PayoffMatrix,
    names: &[String],
    settings: &EquilibriumSettings,
    core: Option<&[usize]>,
) -> Result<Lottery, VerdictError> {
    let Some(core) = core else {
        return solve(game, names, settings);
    };
    if core.len() < 2 {
        return Err(VerdictError::Settings(format!(
            "the core of models whose pairs all met holds {} model; {} core needs at least 2, choose another option",
            core.len(),
            Setting("unobserved")
        )));
    }
    let core_names: Vec<String> = core.iter().map(|&m| names[m].clone()).collect();
    let core_settings = EquilibriumSettings {
        costs: settings.costs.as_ref().map(|costs| {
            costs
                .iter()
                .filter(|(name, _)| core_names.contains(name))
                .cloned()
                .collect()
        }),
        ..settings.clone()
    };
    let mut lottery = solve(&game.restricted(core), &core_names, &core_settings)?;
    let mut probabilities = vec![0.0; names.len()];
    for (&m, &p) in core.iter().zip(&lottery.probabilities) {
        probabilities[m] = p;
    }
    lottery.probabilities = probabilities;
    Ok(lottery)
}

/// The opponents `m` never met, of the `unobserved` pairs.
pub(crate) fn unmet_of(unobserved: &[(usize, usize)], m: usize) -> Vec<usize> {
    unobserved
        .iter()
        .filter_map(|&(j, l)| match (j == m, l == m) {
            (true, _) => Some(l),
            (_, true) => Some(j),
            _ => None,
        })
        .collect()
}

/// `game` with every pair of `m` and an opponent `o` in `unmet` given `m`'s margin
/// `margin(o)` (and `o`'s its negation).
pub(crate) fn with_margins_of(
    game: &PayoffMatrix,
    m: usize,
    unmet: &[usize],
    margin: impl Fn(usize) -> f64,
) -> Result<PayoffMatrix, VerdictError> {
    let k = game.agents();
    let mut values = game.values().to_vec();
    for &o in unmet {
        values[m * k + o] = margin(o);
        values[o * k + m] = -margin(o);
    }
    Ok(PayoffMatrix::from_row_major(&values, k)?)
}

/// `game` with every pair of `m` and an opponent in `unmet` set to a loss for `m`
/// (margin −1): the worst the battles it never played could have gone.
pub(crate) fn against(
    game: &PayoffMatrix,
    m: usize,
    unmet: &[usize],
) -> Result<PayoffMatrix, VerdictError> {
    with_margins_of(game, m, unmet, |_| -1.0)
}

/// How the missing pairs entered, in words.
pub(crate) fn filled_words(filled_by: &str) -> String {
    match filled_by {
        "ties" => "the pairs that never met count as ties (margin 0)".to_owned(),
        "bradley-terry" => "the margins of the pairs that never met are Bradley–Terry's predictions".to_owned(),
        "low-rank" => "the margins of the pairs that never met are predicted by Bradley–Terry with a low-rank cyclic part".to_owned(),
        other => format!("the pairs that never met are filled by {other}"),
    }
}

/// A lottery's game whose missing pairs were filled, as the diagnosis reads it.
#[derive(Debug, Clone, Copy)]
pub struct FilledGame<'a> {
    /// Every pair's margin, missing ones filled.
    pub game: &'a PayoffMatrix,
    /// The pairs that never met, `(j, k)` with `j < k`.
    pub unobserved: &'a [(usize, usize)],
    /// How they were filled.
    pub filled_by: UnobservedPairs,
    /// `core`: the models kept.
    pub core: Option<&'a [usize]>,
    /// Every pair's margin with the missing ones as Bradley–Terry predicts them
    /// (`k × k`, row-major): the comparison that tells a likely artefact.
    pub predicted: &'a [f64],
}

/// The diagnosis of a lottery `probabilities` of `filled` (models named by `names`,
/// solved with `settings`). Per member with unmet opponents: whether it leaves the
/// winner set when they all go against it (its place rests on them), and whether it
/// leaves when they take the margins Bradley–Terry predicts from every battle (its
/// place is likely an artefact of the fill). Under `core` no pair of the lottery's
/// game is missing: the diagnosis names the core and no member.
///
/// # Errors
/// The solver's, for a game it cannot solve.
pub fn diagnose_unobserved(
    filled: &FilledGame,
    names: &[String],
    probabilities: &[f64],
    settings: &EquilibriumSettings,
) -> Result<UnobservedDiagnosis, VerdictError> {
    let game = filled.game;
    let k = game.agents();
    let pairs = k * k.saturating_sub(1) / 2;
    let observed_share = if pairs == 0 {
        1.0
    } else {
        1.0 - filled.unobserved.len() as f64 / pairs as f64
    };
    let filled_by = filled.filled_by.name().to_owned();
    if let Some(core) = filled.core {
        return Ok(UnobservedDiagnosis {
            observed_share,
            filled_by,
            core: Some(core.iter().map(|&m| names[m].clone()).collect()),
            members: Vec::new(),
        });
    }
    let leaves = |changed: PayoffMatrix, m: usize| -> Result<bool, VerdictError> {
        Ok(solve(&changed, names, settings)?.probabilities[m] <= SUPPORT_THRESHOLD)
    };
    let mut members = Vec::new();
    for m in (0..k).filter(|&m| probabilities[m] > SUPPORT_THRESHOLD) {
        let unmet = unmet_of(filled.unobserved, m);
        let (owes_place, leaves_when_predicted) = if unmet.is_empty() {
            (false, false)
        } else {
            let predicted = with_margins_of(game, m, &unmet, |o| filled.predicted[m * k + o])?;
            (
                leaves(against(game, m, &unmet)?, m)?,
                filled.filled_by != UnobservedPairs::BradleyTerry && leaves(predicted, m)?,
            )
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
            leaves_when_predicted,
        });
    }
    Ok(UnobservedDiagnosis {
        observed_share,
        filled_by,
        core: None,
        members,
    })
}

/// The diagnosis as a note for people: the share of pairs observed, how the missing
/// ones entered, and the members whose place rests on them (or the core).
pub fn diagnosis_note(diagnosis: &UnobservedDiagnosis) -> String {
    let share = 100.0 * diagnosis.observed_share;
    let filled = filled_words(&diagnosis.filled_by);
    if let Some(core) = &diagnosis.core {
        return format!(
            "{share:.1}% of pairs observed; the lottery is restricted to a core of {} models whose pairs all met (the models outside it are left out, at probability 0): {}",
            core.len(),
            core.join(", ")
        );
    }
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
    let artefacts = diagnosis.likely_artefacts();
    let resting = if resting.is_empty() {
        "every member of the winner set keeps its place when the pairs it never played count as losses".to_owned()
    } else {
        format!(
            "{} of the winner set would leave it had the pairs they never played gone against them: {}",
            resting.len(),
            resting.join(", ")
        )
    };
    let artefacts = match (diagnosis.filled_by.as_str(), artefacts.is_empty()) {
        ("bradley-terry", _) => String::new(),
        (_, true) => "; none leaves when those pairs take the margins Bradley–Terry predicts".to_owned(),
        (_, false) => format!(
            "; likely artefacts of the fill, leaving when those pairs take the margins Bradley–Terry predicts: {}",
            artefacts.join(", ")
        ),
    };
    format!("{share:.1}% of pairs observed; {filled}; {resting}{artefacts}")
}
