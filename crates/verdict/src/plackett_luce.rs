//! The Plackett–Luce leaderboard behind `verdict rank RANKINGS --method
//! plackett-luce`: rankings (the feedback table of a contextual log) → maximum
//! likelihood ([`verdict_ratings::PlackettLuce`]) → scores on the LMArena scale →
//! bootstrap intervals over resampled rankings.

use verdict_ratings::{
    Center, EloScale, FitStatus, Leaderboard, PlackettLuce, Ranking, Rankings, RatingKind,
    Regularization,
};
use verdict_report::{RankOutput, RankReport};
use verdict_settings::Setting;

use crate::rank::{anchor_index, refit_intervals, Intervals, RankSettings};
use crate::VerdictError;

/// Fits Plackett–Luce to `rankings` of the models `names` and builds its leaderboard.
/// From `settings` it takes the Bradley–Terry tolerance, iteration cap and `l2` (same
/// units), the mean rating or anchor, and bootstrap intervals (rankings resampled
/// with replacement; `on_round` is called once per replicate). Sandwich intervals and
/// the matrices are not drawn for rankings; a note says so when they are asked for.
///
/// # Errors
/// Bad settings, fewer than two models, no informative ranking, an unknown anchor.
pub fn rank_rankings(
    names: &[String],
    rankings: Vec<Ranking>,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> Result<RankReport, VerdictError> {
    settings.validate()?;
    let rankings = Rankings::new(names.len(), rankings)?;
    let model = PlackettLuce {
        tol: settings.bradley_terry.tol,
        max_iter: settings
            .bradley_terry
            .max_iter
            .unwrap_or(PlackettLuce::default().max_iter),
        l2: settings.bradley_terry.l2,
    };
    let fit = model.fit(&rankings)?;
    let scale = EloScale {
        center: match anchor_index(names, &settings.anchor)? {
            Some((model, rating)) => Center::Anchor { model, rating },
            None => Center::Mean(settings.mean_rating),
        },
        ..EloScale::default()
    };
    let scores = scale.scores(&fit.beta);
    let mut notes = vec![format!(
        "Plackett–Luce by Newton's method: {} after {} iterations, |grad| = {:.2e}, log-likelihood {:.4}",
        match fit.status {
            FitStatus::Converged => "converged",
            FitStatus::MaxIterations => "stopped at the iteration cap",
        },
        fit.iterations,
        fit.gradient_norm,
        fit.log_likelihood
    )];
    if let Regularization::Prior { l2, obstacles } = &fit.regularization {
        let reasons: Vec<String> = obstacles.iter().map(|o| o.describe(names)).collect();
        notes.push(format!(
            "the maximum-likelihood estimate does not exist ({}); a weak Gaussian prior (l2 = {l2}) keeps every score finite",
            reasons.join("; ")
        ));
    }
    if fit.uninformative > 0 {
        notes.push(format!(
            "{} of {} rankings are a single block (a declared tie) and carry no information",
            fit.uninformative,
            rankings.len()
        ));
    }
    let tied_blocks = rankings.rankings().iter().any(|r| {
        r.split_last()
            .is_some_and(|(_, chosen)| chosen.iter().any(|b| b.len() > 1))
    });
    if tied_blocks {
        notes.push("blocks whose order was not observed (ties, top sets) enter through Breslow's approximation".into());
    }
    if settings.matrices {
        notes.push("matrices are not drawn for Plackett–Luce".into());
    }
    let intervals = match &settings.intervals {
        Intervals::None => None,
        Intervals::Sandwich => {
            notes.push(format!(
                "sandwich intervals apply to Bradley–Terry only; use {bootstrap} for Plackett–Luce",
                bootstrap = Setting("bootstrap")
            ));
            None
        }
        Intervals::Bootstrap(bootstrap) => Some(refit_intervals(
            &model,
            &rankings,
            &fit,
            &scale,
            bootstrap,
            settings.confidence,
            &mut notes,
            on_round,
        )?),
    };
    let leaderboard = Leaderboard::new(
        RatingKind::PlackettLuce,
        names,
        &scores,
        intervals,
        &rankings.implied_pairs().tallies(),
    );
    Ok(RankReport::Single(Box::new(RankOutput {
        leaderboard,
        fit: None,
        lottery: None,
        matrices: None,
        coefficients: None,
        battles: rankings.len(),
        source: source.to_owned(),
        top_flip: None,
        notes,
    })))
}
