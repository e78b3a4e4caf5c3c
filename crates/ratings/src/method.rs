//! What every rating method is to the rest of verdict: a [`RatingKind`] that names it
//! in results and reports, and a [`RatingMethod`] that fits its data and refits a
//! resample of it, so that the bootstrap ([`bootstrap`]) and the leaderboard pipeline
//! are written once for all of them.
//!
//! A new method (Glicko-2, say) is its own file implementing [`RatingMethod`], a
//! [`RatingKind`] variant, and one registration in the leaderboard pipeline.

use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bootstrap::round_rng;
use crate::{Bootstrap, BootstrapDraws, EloScale, RatingsError};

/// Which method made a leaderboard; saved results carry its name (`bradley-terry`,
/// `bradley-terry-covariates`, `elo`, `maximal-lottery`, `plackett-luce`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RatingKind {
    /// Bradley–Terry by maximum likelihood.
    BradleyTerry,
    /// Bradley–Terry with covariates (style control).
    BradleyTerryCovariates,
    /// Online Elo.
    Elo,
    /// The maximal lottery of the margin matrix: probabilities, not ratings.
    MaximalLottery,
    /// Plackett–Luce on rankings.
    PlackettLuce,
}

impl RatingKind {
    /// The name saved results carry.
    pub fn name(self) -> &'static str {
        match self {
            Self::BradleyTerry => "bradley-terry",
            Self::BradleyTerryCovariates => "bradley-terry-covariates",
            Self::Elo => "elo",
            Self::MaximalLottery => "maximal-lottery",
            Self::PlackettLuce => "plackett-luce",
        }
    }

    /// The title reports give it.
    pub fn title(self) -> &'static str {
        match self {
            Self::BradleyTerry => "Bradley–Terry",
            Self::BradleyTerryCovariates => "Bradley–Terry with covariates",
            Self::Elo => "Elo",
            Self::MaximalLottery => "Maximal lottery",
            Self::PlackettLuce => "Plackett–Luce",
        }
    }

    /// Whether its scores are probabilities (shown with four decimals) rather than
    /// ratings (one decimal).
    pub fn scores_probabilities(self) -> bool {
        self == Self::MaximalLottery
    }

    /// What it counts: rankings (each implying comparisons) or battles.
    pub fn units(self) -> &'static str {
        match self {
            Self::PlackettLuce => "rankings",
            _ => "battles",
        }
    }
}

impl std::fmt::Display for RatingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One refitted bootstrap replicate: its scores, whether it had to carry the fallback
/// prior that the full fit did not, and whether it converged.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicate {
    /// Scores on the rating scale, one per model.
    pub scores: Vec<f64>,
    /// The replicate's MLE did not exist and the fallback prior kept it finite.
    pub used_prior: bool,
    /// The refit converged.
    pub converged: bool,
}

/// One bootstrap round: a resample drawn with the round's generator, refitted.
pub type Resample<'a> = Box<dyn Fn(&mut ChaCha8Rng) -> Replicate + Sync + 'a>;

/// A rating method: fits its data, and refits resamples of it for the bootstrap.
pub trait RatingMethod: Sync {
    /// What it is fitted to: pair counts, a battle log, rankings.
    type Data: Sync + ?Sized;
    /// A fit.
    type Fit: Sync;

    /// The method's kind.
    const KIND: RatingKind;

    /// Fits `data`.
    ///
    /// # Errors
    /// Bad settings, or data the method cannot use.
    fn fit(&self, data: &Self::Data) -> Result<Self::Fit, RatingsError>;

    /// The fit's scores on `scale` (a strength method's log-strengths placed on the
    /// rating scale; Elo's ratings as they are).
    fn scores(&self, fit: &Self::Fit, scale: &EloScale) -> Vec<f64>;

    /// The fit's probability that model `i` beats model `j` (the predicted
    /// win-probability matrix).
    fn win_probability(&self, fit: &Self::Fit, i: usize, j: usize) -> f64;

    /// A bootstrap round of `data` around the full-data `fit`, scores on `scale`:
    /// what is resampled (battles, cells of counts, rankings) and how it is refitted.
    ///
    /// # Errors
    /// What must be computed once before the rounds failed.
    fn resample<'a>(
        &'a self,
        data: &'a Self::Data,
        fit: &'a Self::Fit,
        scale: &'a EloScale,
    ) -> Result<Resample<'a>, RatingsError>;
}

/// Bootstrap replicates of any method: round `r` draws from its own ChaCha8 stream
/// `(seed, r)` (so results do not depend on the number of threads); `on_round` is
/// called once per finished replicate (for progress bars).
///
/// # Errors
/// [`RatingsError::Setting`] for zero rounds; the method's [`RatingMethod::resample`].
pub fn bootstrap<M: RatingMethod>(
    method: &M,
    data: &M::Data,
    fit: &M::Fit,
    scale: &EloScale,
    bootstrap: &Bootstrap,
    on_round: &(dyn Fn() + Sync),
) -> Result<BootstrapDraws, RatingsError> {
    bootstrap.check()?;
    let resample = method.resample(data, fit, scale)?;
    let replicates: Vec<Replicate> = (0..bootstrap.rounds)
        .into_par_iter()
        .map(|round| {
            let replicate = resample(&mut round_rng(bootstrap.seed, round));
            on_round();
            replicate
        })
        .collect();
    Ok(replicates.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_saved_by_their_names() {
        for kind in [
            RatingKind::BradleyTerry,
            RatingKind::BradleyTerryCovariates,
            RatingKind::Elo,
            RatingKind::MaximalLottery,
            RatingKind::PlackettLuce,
        ] {
            let saved = serde_json::to_string(&kind).unwrap();
            assert_eq!(saved, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<RatingKind>(&saved).unwrap(), kind);
        }
    }
}
