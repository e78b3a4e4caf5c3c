//! Bootstrap intervals.
//!
//! Bradley–Terry reads only the per-pair outcome counts, so resampling the N battles
//! with replacement is the same as drawing the counts of the (pair, outcome) cells from
//! `Multinomial(N, n_c / N)`. That is what Bradley–Terry's [`RatingMethod::resample`] does
//! ([`crate::multinomial`]: a Poisson per cell from alias tables with the total fixed
//! up, or binomial splits), at a cost that depends on the number of cells, not on N.
//! Each replicate is refitted from the full-data estimate by chord-Newton steps with
//! the full-data Hessian factor (falling back to full Newton if they stall).
//!
//! A weighted log resamples battles too, not weight: the cells are then its
//! [`PairCounts::weight_bins`] (the battles of one weight in one cell), drawn from
//! `Multinomial(N, battles_b / N)`, and a replicate's cell holds `sum_b w_b drawn_b` —
//! arena-rank's bootstrap of unique (pair, outcome, weight) rows.
//!
//! Round `r` draws from its own ChaCha8 stream `(seed, r)` (which seeds the
//! Xoshiro256++ generator of its binomial splits), so results are identical whatever
//! the number of threads.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bradley_terry::Problem;
use crate::existence::{beat_edges, BeatBits};
use crate::method::{round_rng, RatingKind, RatingMethod, Replicate, Resample};
use crate::multinomial::MultinomialSampler;
use crate::newton::Objective;
use crate::{BradleyTerry, BtFit, EloScale, PairCounts, RatingsError, Regularization};

/// Chord iterations tried before a replicate falls back to full Newton.
const CHORD_MAX_ITER: usize = 50;

/// The penalty a replicate carries: the full fit's, or — when the full fit needed
/// none — what `recheck` finds for the replicate (the fallback prior where its MLE
/// does not exist); with whether that newly brought the prior.
pub(crate) fn replicate_penalty(
    full: &Regularization,
    recheck: impl FnOnce() -> Regularization,
) -> (Regularization, bool) {
    let regularization = match full {
        Regularization::None => recheck(),
        kept => kept.clone(),
    };
    let used_prior = matches!(regularization, Regularization::Prior { .. })
        && !matches!(full, Regularization::Prior { .. });
    (regularization, used_prior)
}

/// Replicates of a log's pair counts: resampling its N battles with replacement, drawn
/// as `Multinomial(N, n_c / N)` over the (pair, outcome) cells ([`crate::multinomial`];
/// over the weight bins of a weighted log, module docs). Replicate `r` of
/// seed `s` is the same whichever thread draws it, and the same for every method that
/// resamples (Bradley–Terry, the maximal lottery).
#[derive(Debug, Clone)]
pub struct CountResampler<'a> {
    counts: &'a PairCounts,
    sampler: MultinomialSampler,
}

impl<'a> CountResampler<'a> {
    /// The resampler of `counts`.
    pub fn new(counts: &'a PairCounts) -> Self {
        let cells: Vec<f64> = match counts.weight_bins() {
            None => counts.pairs().iter().flat_map(|p| p.cells()).collect(),
            Some(bins) => bins.iter().map(|bin| bin.battles).collect(),
        };
        let battles = cells.iter().sum::<f64>().round() as u64;
        Self {
            counts,
            sampler: MultinomialSampler::new(&cells, battles),
        }
    }

    /// Replicate `round` of the bootstrap seeded `seed`.
    pub fn replicate(&self, seed: u64, round: usize) -> PairCounts {
        self.replicate_with(&mut round_rng(seed, round))
    }

    /// Counts resampled with `rng`.
    pub fn replicate_with(&self, rng: &mut ChaCha8Rng) -> PairCounts {
        // The round's ChaCha8 stream seeds the generator of its draws: Xoshiro256++ gives
        // the sampler's many words at a fraction of ChaCha8's cost, and the round still
        // draws the same counts on any thread.
        let mut words = Xoshiro256PlusPlus::from_rng(rng);
        let mut drawn = self.sampler.draw(&mut words);
        if let Some(bins) = self.counts.weight_bins() {
            let mut weighed = vec![0.0; 3 * self.counts.pairs().len()];
            for (bin, battles) in bins.iter().zip(&drawn) {
                weighed[3 * bin.pair as usize + bin.cell as usize] += bin.weight * battles;
            }
            drawn = weighed;
        }
        let pairs = self
            .counts
            .pairs()
            .iter()
            .zip(drawn.chunks_exact(3))
            .map(|(p, c)| p.with_cells([c[0], c[1], c[2]]))
            .collect();
        self.counts.with_pairs(pairs)
    }
}

impl RatingMethod for BradleyTerry {
    type Data = PairCounts;
    type Fit = BtFit;

    const KIND: RatingKind = RatingKind::BradleyTerry;

    fn fit(&self, counts: &PairCounts) -> Result<BtFit, RatingsError> {
        BradleyTerry::fit(self, counts)
    }

    fn scores(&self, fit: &BtFit, scale: &EloScale) -> Vec<f64> {
        scale.scores(&fit.beta)
    }

    fn win_probability(&self, fit: &BtFit, i: usize, j: usize) -> f64 {
        fit.win_probability(i, j)
    }

    /// The battles resampled as the counts of the (pair, outcome) cells (module docs),
    /// each replicate refitted by chord-Newton steps from the full fit with its
    /// Hessian factor, falling back to full Newton.
    fn resample<'a>(
        &'a self,
        counts: &'a PairCounts,
        fit: &'a BtFit,
        scale: &'a EloScale,
    ) -> Result<Resample<'a>, RatingsError> {
        let resampler = CountResampler::new(counts);
        let full = Problem::new(counts, self.ties, fit.regularization.weight());
        let start = fit_point(fit, counts.models());
        let hessian = full.evaluate(&start, true).hessian.expect("requested");
        let factor = full
            .factor(hessian)
            .ok_or_else(|| RatingsError::Numerical("the Hessian at the fit".into()))?;
        let max_iter = self
            .max_iter
            .unwrap_or(crate::bradley_terry::DEFAULT_NEWTON_MAX_ITER);
        // The full log's beat graph, strongly connected when its MLE exists (no penalty).
        let beat_bits = match fit.regularization {
            Regularization::None => BeatBits::new(counts, self.ties),
            _ => None,
        };
        Ok(Box::new(move |rng| {
            let resampled = resampler.replicate_with(rng);
            let (regularization, used_prior) = replicate_penalty(&fit.regularization, || {
                if mle_survives(counts, &resampled, self.ties, beat_bits.as_ref()) {
                    Regularization::None
                } else {
                    self.regularization(&resampled)
                }
            });
            let problem = Problem::new(&resampled, self.ties, regularization.weight());
            let (beta, converged) =
                match problem.chord(start.clone(), &factor, self.tol, CHORD_MAX_ITER) {
                    Some(x) => (x.rows(0, counts.models()).iter().copied().collect(), true),
                    None => {
                        let refit =
                            problem.newton(start.clone(), self.tol, max_iter, regularization);
                        (refit.beta, refit.status == crate::FitStatus::Converged)
                    }
                };
            Replicate {
                scores: scale.scores(&beta),
                used_prior,
                converged,
            }
        }))
    }
}

/// True when the replicate's MLE surely exists: resampling only removes beat edges
/// ([`beat_edges`]), so when none is lost, or `full_beat_bits` (the strongly connected
/// beat graph of `original`) stays strongly connected without the lost ones, the
/// replicate's beat graph is strongly connected. False means "not known": the caller
/// asks [`crate::mle_obstacles`].
fn mle_survives(
    original: &PairCounts,
    resampled: &PairCounts,
    ties: crate::TieModel,
    full_beat_bits: Option<&BeatBits>,
) -> bool {
    let mut lost = Vec::new();
    for (o, r) in original.pairs().iter().zip(resampled.pairs()) {
        let (before, after) = (beat_edges(o, ties), beat_edges(r, ties));
        if before.0 && !after.0 {
            lost.push((o.i, o.j));
        }
        if before.1 && !after.1 {
            lost.push((o.j, o.i));
        }
    }
    if lost.is_empty() {
        return true;
    }
    let Some(bits) = full_beat_bits else {
        return false;
    };
    let mut bits = bits.clone();
    for (from, to) in lost {
        bits.set(from as usize, to as usize, false);
    }
    bits.is_strongly_connected()
}

fn fit_point(fit: &BtFit, models: usize) -> nalgebra::DVector<f64> {
    let mut x: Vec<f64> = fit.beta.clone();
    x.extend(fit.theta);
    debug_assert!(x.len() >= models);
    nalgebra::DVector::from_vec(x)
}

#[cfg(test)]
mod tests {
    use crate::percentile;

    #[test]
    fn percentile_matches_numpy_linear() {
        // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.975]) = [1.75, 2.5, 3.925]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((percentile(&v, 0.25) - 1.75).abs() < 1e-15);
        assert!((percentile(&v, 0.5) - 2.5).abs() < 1e-15);
        assert!((percentile(&v, 0.975) - 3.925).abs() < 1e-12);
    }
}
