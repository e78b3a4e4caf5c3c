//! What every rating method is to the rest of verdict: a [`RatingKind`] that names it
//! in results and reports, and a [`RatingMethod`] that fits its data and refits a
//! resample of it, so that the bootstrap ([`bootstrap`]) and the leaderboard pipeline
//! are written once for all of them.
//!
//! The bootstrap's settings ([`Bootstrap`]) and draws ([`BootstrapDraws`]) live here
//! too; what a method resamples (pair counts, battles, rankings) is its own.
//!
//! A new method (Glicko-2, say) is its own file implementing [`RatingMethod`], a
//! [`RatingKind`] variant, and one registration in the leaderboard pipeline.

use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use rand::SeedableRng;

use crate::{EloScale, RatingsError};

/// Which method made a leaderboard; saved results carry its name (`bradley-terry`,
/// `bradley-terry-covariates`, `elo`, `maximal-lottery`, `plackett-luce`, and the
/// social-choice orders `copeland`, `schulze`, `ranked-pairs`, `kemeny-young`,
/// `nash-averaging`, `alpha-rank`).
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
    /// Copeland's rule on the margins: pairwise wins minus losses.
    Copeland,
    /// Schulze's method on the margins: the number of models beaten by strongest path.
    Schulze,
    /// Tideman's ranked pairs on the margins: places below the top.
    RankedPairs,
    /// The Kemeny–Young order of the margins: places below the top.
    KemenyYoung,
    /// Nash averaging (Balduzzi et al. 2018): the maximum-entropy equilibrium of the
    /// log-odds game; probabilities.
    NashAveraging,
    /// α-Rank (Omidshafiei et al. 2019): the stationary mass of the evolutionary
    /// chain; probabilities.
    AlphaRank,
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
            Self::Copeland => "copeland",
            Self::Schulze => "schulze",
            Self::RankedPairs => "ranked-pairs",
            Self::KemenyYoung => "kemeny-young",
            Self::NashAveraging => "nash-averaging",
            Self::AlphaRank => "alpha-rank",
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
            Self::Copeland => "Copeland",
            Self::Schulze => "Schulze",
            Self::RankedPairs => "Ranked pairs",
            Self::KemenyYoung => "Kemeny–Young",
            Self::NashAveraging => "Nash averaging",
            Self::AlphaRank => "α-Rank",
        }
    }

    /// Whether its scores are probabilities (shown with four decimals) rather than
    /// ratings (one decimal) or counts.
    pub fn scores_probabilities(self) -> bool {
        matches!(
            self,
            Self::MaximalLottery | Self::NashAveraging | Self::AlphaRank
        )
    }

    /// Decimals a score is shown with: four for probabilities, none for the counts
    /// and places of the ordinal social-choice rules, one for ratings.
    pub fn score_decimals(self) -> usize {
        match self {
            _ if self.scores_probabilities() => 4,
            Self::Copeland | Self::Schulze | Self::RankedPairs | Self::KemenyYoung => 0,
            _ => 1,
        }
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

/// Bootstrap settings.
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `rounds` | 1000 | resamples | ≥ 1 |
/// | `seed` | 0 | seed of every draw | any |
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    /// Number of resamples.
    pub rounds: usize,
    /// Seed.
    pub seed: u64,
}

impl Bootstrap {
    /// Refuses zero rounds.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for zero rounds.
    pub fn check(&self) -> Result<(), RatingsError> {
        if self.rounds == 0 {
            return Err(RatingsError::setting("rounds", 0, "at least 1"));
        }
        Ok(())
    }
}

impl Default for Bootstrap {
    fn default() -> Self {
        Self {
            rounds: 1000,
            seed: 0,
        }
    }
}

/// The scores of every bootstrap replicate.
#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapDraws {
    /// `scores[r][m]`: model m's score in replicate r.
    pub scores: Vec<Vec<f64>>,
    /// Replicates whose MLE did not exist and which carried the fallback prior.
    pub prior_rounds: usize,
    /// Replicates that did not converge within the iteration cap.
    pub unconverged_rounds: usize,
}

impl BootstrapDraws {
    /// Percentile interval of every model at `confidence` (e.g. 0.95).
    pub fn intervals(&self, confidence: f64) -> Vec<(f64, f64)> {
        let models = self.scores.first().map_or(0, Vec::len);
        let (lower, upper) = ((1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0);
        (0..models)
            .map(|m| {
                let mut column: Vec<f64> = self.scores.iter().map(|round| round[m]).collect();
                column.sort_by(f64::total_cmp);
                (percentile(&column, lower), percentile(&column, upper))
            })
            .collect()
    }

    /// Every model's median score over the replicates (type-7 percentile 0.5: the mean
    /// of the two middle values for an even number of rounds).
    pub fn medians(&self) -> Vec<f64> {
        self.intervals(0.0)
            .into_iter()
            .map(|(median, _)| median)
            .collect()
    }
}

/// The `q`-quantile of sorted values by linear interpolation between order statistics
/// (Hyndman–Fan type 7, numpy's and pandas' default).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty() && (0.0..=1.0).contains(&q));
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let weight = position - below as f64;
    sorted[below] + weight * (sorted[above] - sorted[below])
}

impl FromIterator<Replicate> for BootstrapDraws {
    fn from_iter<I: IntoIterator<Item = Replicate>>(replicates: I) -> Self {
        let mut draws = BootstrapDraws {
            scores: Vec::new(),
            prior_rounds: 0,
            unconverged_rounds: 0,
        };
        for replicate in replicates {
            draws.prior_rounds += usize::from(replicate.used_prior);
            draws.unconverged_rounds += usize::from(!replicate.converged);
            draws.scores.push(replicate.scores);
        }
        draws
    }
}

pub(crate) fn round_rng(seed: u64, round: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(round as u64);
    rng
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
            RatingKind::Copeland,
            RatingKind::Schulze,
            RatingKind::RankedPairs,
            RatingKind::KemenyYoung,
            RatingKind::NashAveraging,
            RatingKind::AlphaRank,
        ] {
            let saved = serde_json::to_string(&kind).unwrap();
            assert_eq!(saved, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<RatingKind>(&saved).unwrap(), kind);
        }
    }
}
