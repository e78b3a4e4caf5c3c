//! Bradley–Terry with a low-rank cyclic part: a skew-symmetric low-rank model of the
//! log-odds between models, which can hold the cycles Bradley–Terry cannot.
//!
//! `P(j beats k) = σ(ℓ_jk)`, `ℓ_jk = β_j − β_k + Σ_c (u_cj v_ck − v_cj u_ck)`: the
//! transitive part of Bradley–Terry plus `rank` rank-two skew-symmetric components
//! (Balduzzi et al., "Re-evaluating evaluation", NeurIPS 2018, the Schur form of a
//! skew-symmetric game; the multidimensional Elo of the same paper is this model
//! fitted online). Ties count half a win for each side, as [`crate::TieModel::Half`].
//!
//! The fit minimises `Σ_pairs [n softplus(ℓ) − s ℓ] + λ/2 (‖β‖² + ‖U‖² + ‖V‖²)`
//! (`n` battles of the pair, `s` the first model's wins plus half the ties). It is not
//! convex in `(β, U, V)` together, but it is in `(β, U)` with `V` held and in `(β, V)`
//! with `U` held (the log-odds are linear in each block): the fit alternates the two
//! convex problems, each solved by the damped Newton of the strength models, which
//! decreases the objective at every step. Written here because no crate fits
//! skew-symmetric factor models of paired comparisons.

use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::newton::{Evaluation, Objective};
use crate::{PairCounts, RatingsError};

/// Settings of [`SkewLowRank::fit`].
///
/// | Name | Default | Meaning | Range |
/// |---|---|---|---|
/// | `rank` | 1 | cyclic components (each a rank-two skew-symmetric matrix) | ≥ 0 |
/// | `l2` | 1 | ridge on every parameter, natural-log units: a standard normal prior | > 0 |
/// | `rounds` | 200 | alternations of the two convex blocks at most | ≥ 1 |
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkewLowRank {
    /// Cyclic components; 0 is ridge Bradley–Terry.
    pub rank: usize,
    /// Ridge weight `λ`. A standard normal prior keeps a model with few battles near
    /// the others and is outweighed by a pair's hundreds of battles.
    pub l2: f64,
    /// Most alternations of the two blocks.
    pub rounds: usize,
}

impl Default for SkewLowRank {
    fn default() -> Self {
        Self {
            rank: 1,
            l2: 1.0,
            rounds: 200,
        }
    }
}

/// Most cyclic components a fit takes: each adds a model's worth of parameters per
/// factor, and a game of a few hundred models is described by far fewer.
pub const MAX_COMPLETION_RANK: usize = 16;

/// A fitted [`SkewLowRank`] model.
#[derive(Debug, Clone, PartialEq)]
pub struct SkewLowRankFit {
    /// `β`, one per model.
    pub beta: Vec<f64>,
    /// `U`, `rank × models`, row-major.
    pub u: Vec<f64>,
    /// `V`, `rank × models`, row-major.
    pub v: Vec<f64>,
    /// Cyclic components.
    pub rank: usize,
    /// The penalised objective at the fit.
    pub objective: f64,
    /// Alternations run.
    pub rounds: usize,
}

impl SkewLowRankFit {
    /// The log-odds `ℓ_jk` of `j` beating `k`.
    pub fn log_odds(&self, j: usize, k: usize) -> f64 {
        let models = self.beta.len();
        let cyclic: f64 = (0..self.rank)
            .map(|c| {
                let (u, v) = (&self.u[c * models..], &self.v[c * models..]);
                u[j] * v[k] - v[j] * u[k]
            })
            .sum();
        self.beta[j] - self.beta[k] + cyclic
    }

    /// The expected margin of `j` over `k` (NashEval Eq. 78's mean verdict):
    /// `2σ(ℓ_jk) − 1 = tanh(ℓ_jk / 2)`.
    pub fn margin(&self, j: usize, k: usize) -> f64 {
        (self.log_odds(j, k) / 2.0).tanh()
    }
}

/// One observed pair: its models, battles and the first model's score (wins plus
/// half the ties).
#[derive(Debug, Clone, Copy)]
struct Observed {
    i: usize,
    j: usize,
    battles: f64,
    score: f64,
}

fn observed_pairs(counts: &PairCounts) -> Vec<Observed> {
    counts
        .pairs()
        .iter()
        .filter(|p| p.total() > 0.0)
        .map(|p| Observed {
            i: p.i as usize,
            j: p.j as usize,
            battles: p.total(),
            score: p.wins_i + p.ties / 2.0,
        })
        .collect()
}

fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// One convex block: `(β, W)` free, the other factor `F` held; `sign` is +1 when `W`
/// is `U` and −1 when it is `V` (`ℓ` changes sign when the factors swap roles).
struct Block<'a> {
    pairs: &'a [Observed],
    held: &'a [f64],
    models: usize,
    rank: usize,
    sign: f64,
    l2: f64,
}

impl Block<'_> {
    /// `ℓ` of a pair and the pair's nonzero design entries `(coordinate, value)`.
    fn design(&self, x: &DVector<f64>, pair: &Observed, entries: &mut Vec<(usize, f64)>) -> f64 {
        let (m, i, j) = (self.models, pair.i, pair.j);
        entries.clear();
        entries.push((i, 1.0));
        entries.push((j, -1.0));
        let mut logit = x[i] - x[j];
        for c in 0..self.rank {
            let f = &self.held[c * m..(c + 1) * m];
            let (wi, wj) = (m + c * m + i, m + c * m + j);
            let (di, dj) = (self.sign * f[j], -self.sign * f[i]);
            logit += di * x[wi] + dj * x[wj];
            entries.push((wi, di));
            entries.push((wj, dj));
        }
        logit
    }
}

impl Objective for Block<'_> {
    fn evaluate(&self, x: &DVector<f64>, with_hessian: bool) -> Evaluation {
        let dims = x.len();
        let mut value = 0.0;
        let mut gradient = DVector::zeros(dims);
        let mut hessian = with_hessian.then(|| DMatrix::zeros(dims, dims));
        let mut entries = Vec::with_capacity(2 + 2 * self.rank);
        for pair in self.pairs {
            let logit = self.design(x, pair, &mut entries);
            value += pair.battles * softplus(logit) - pair.score * logit;
            let p = logistic(logit);
            let slope = pair.battles * p - pair.score;
            for &(d, a) in &entries {
                gradient[d] += slope * a;
            }
            if let Some(h) = hessian.as_mut() {
                let curvature = pair.battles * p * (1.0 - p);
                for &(r, a) in &entries {
                    for &(c, b) in &entries {
                        h[(r, c)] += curvature * a * b;
                    }
                }
            }
        }
        let log_likelihood = -value;
        value += 0.5 * self.l2 * x.norm_squared();
        gradient += x * self.l2;
        if let Some(h) = hessian.as_mut() {
            for d in 0..dims {
                h[(d, d)] += self.l2;
            }
        }
        Evaluation {
            value,
            gradient,
            hessian,
            log_likelihood,
        }
    }

    fn models(&self) -> usize {
        self.models
    }

    fn lambda(&self) -> f64 {
        self.l2
    }
}

/// Newton's stopping threshold on a block's gradient, per battle.
const BLOCK_TOLERANCE: f64 = 1e-9;

/// Newton steps per block at most.
const BLOCK_NEWTON_STEPS: usize = 50;

/// Relative decrease of the objective below which the alternation stops.
const ALTERNATION_TOLERANCE: f64 = 1e-10;

/// Seed of the factors' starting values: the fit is deterministic.
const START_SEED: u64 = 0x5eed_5ca1;

impl SkewLowRank {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RatingsError::Setting`] for a rank above [`MAX_COMPLETION_RANK`], an `l2`
    /// that is not positive and finite, or zero rounds.
    pub fn validate(&self) -> Result<(), RatingsError> {
        if self.rank > MAX_COMPLETION_RANK {
            return Err(RatingsError::setting(
                "completion_rank",
                self.rank,
                "at most 16 (MAX_COMPLETION_RANK)",
            ));
        }
        if !(self.l2.is_finite() && self.l2 > 0.0) {
            return Err(RatingsError::setting("l2", self.l2, "a positive number"));
        }
        if self.rounds == 0 {
            return Err(RatingsError::setting("rounds", 0, "at least 1"));
        }
        Ok(())
    }

    /// Fits the model to `counts`, from seeded small factors.
    ///
    /// # Errors
    /// Bad settings; fewer than two models.
    pub fn fit(&self, counts: &PairCounts) -> Result<SkewLowRankFit, RatingsError> {
        let models = counts.models();
        let mut rng = ChaCha8Rng::seed_from_u64(START_SEED);
        let mut start = |len: usize| -> Vec<f64> {
            (0..len)
                .map(|_| 0.1 * (rng.random::<f64>() - 0.5))
                .collect()
        };
        let (u, v) = (start(self.rank * models), start(self.rank * models));
        self.fit_from(
            counts,
            SkewLowRankFit {
                beta: vec![0.0; models],
                u,
                v,
                rank: self.rank,
                objective: f64::INFINITY,
                rounds: 0,
            },
        )
    }

    /// Fits the model to `counts` from `start` (a fit of the same models and rank): a
    /// bootstrap replicate starts from the full data's fit and needs few alternations.
    ///
    /// # Errors
    /// As [`Self::fit`]; a start of other dimensions.
    pub fn fit_from(
        &self,
        counts: &PairCounts,
        start: SkewLowRankFit,
    ) -> Result<SkewLowRankFit, RatingsError> {
        self.validate()?;
        let models = counts.models();
        if models < 2 {
            return Err(RatingsError::NotEnoughData(format!(
                "a completion needs at least 2 models, found {models}"
            )));
        }
        let factors = self.rank * models;
        if start.beta.len() != models || start.u.len() != factors || start.v.len() != factors {
            return Err(RatingsError::NotEnoughData(
                "the starting fit has other models or another rank".into(),
            ));
        }
        let pairs = observed_pairs(counts);
        let threshold = BLOCK_TOLERANCE * counts.battles().max(1.0);
        let SkewLowRankFit {
            mut beta,
            mut u,
            mut v,
            ..
        } = start;
        let mut objective = f64::INFINITY;
        let mut rounds = 0;
        while rounds < self.rounds {
            rounds += 1;
            let mut solve_block = |free: &mut Vec<f64>, held: &[f64], sign: f64| -> f64 {
                let block = Block {
                    pairs: &pairs,
                    held,
                    models,
                    rank: self.rank,
                    sign,
                    l2: self.l2,
                };
                let x = DVector::from_iterator(
                    models + factors,
                    beta.iter().chain(free.iter()).copied(),
                );
                let (x, evaluation, _) = block.newton(x, threshold, BLOCK_NEWTON_STEPS);
                beta.copy_from_slice(&x.as_slice()[..models]);
                free.copy_from_slice(&x.as_slice()[models..]);
                evaluation.value
            };
            solve_block(&mut u, &v, 1.0);
            let value = solve_block(&mut v, &u, -1.0);
            let settled = objective - value <= ALTERNATION_TOLERANCE * value.abs().max(1.0);
            objective = value;
            if self.rank == 0 || settled {
                break;
            }
        }
        Ok(SkewLowRankFit {
            beta,
            u,
            v,
            rank: self.rank,
            objective,
            rounds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BradleyTerry, Regularization};
    use verdict_feedback::PairCountsBuilder;

    /// Expected counts of a planted model: every pair met `battles` times and won its
    /// expected share (no sampling noise), so the fit should return the planted game.
    fn planted_counts(
        logit: impl Fn(usize, usize) -> f64,
        models: usize,
        battles: f64,
    ) -> PairCounts {
        let mut builder = PairCountsBuilder::default();
        for i in 0..models {
            for j in i + 1..models {
                let p = logistic(logit(i, j));
                builder.add(i as u32, j as u32, [battles * p, battles * (1.0 - p), 0.0]);
            }
        }
        builder.finish(models)
    }

    #[test]
    fn rank_zero_is_ridge_bradley_terry() {
        // Golden value: verdict's own Bradley–Terry Newton fit with the same ridge
        // (l2 in log10 units is λ·ln(10)²).
        let strengths = [0.8, 0.1, -0.3, -0.6];
        let counts = planted_counts(|i, j| strengths[i] - strengths[j], 4, 50.0);
        let fit = SkewLowRank {
            rank: 0,
            l2: 1.0,
            ..SkewLowRank::default()
        }
        .fit(&counts)
        .unwrap();
        let bt = BradleyTerry {
            l2: Some(crate::bradley_terry::LN10_SQUARED),
            ..BradleyTerry::default()
        }
        .fit(&counts)
        .unwrap();
        assert!(matches!(bt.regularization, Regularization::L2 { .. }));
        for (a, b) in fit.beta.iter().zip(&bt.beta) {
            assert!((a - b).abs() < 1e-8, "{:?} vs {:?}", fit.beta, bt.beta);
        }
    }

    #[test]
    fn a_planted_cycle_is_recovered_from_its_expected_counts() {
        // Rock–paper–scissors on top of a transitive order: u = (1, 0, -1, 0, ...),
        // v = (0, 1, 0, -1, ...) rotated. Bradley–Terry cannot hold it; rank 1 can.
        let models = 6;
        let beta = [0.6, 0.3, 0.0, -0.2, -0.3, -0.4];
        let angle = |m: usize| 2.0 * std::f64::consts::PI * m as f64 / 3.0;
        let (u, v): (Vec<f64>, Vec<f64>) = (0..models)
            .map(|m| (1.2 * angle(m).cos(), 1.2 * angle(m).sin()))
            .unzip();
        let truth = |i: usize, j: usize| beta[i] - beta[j] + u[i] * v[j] - v[i] * u[j];
        let counts = planted_counts(truth, models, 5_000.0);
        let fit = SkewLowRank::default().fit(&counts).unwrap();
        for i in 0..models {
            for j in 0..models {
                let want = (truth(i, j) / 2.0).tanh();
                assert!((fit.margin(i, j) - want).abs() < 5e-3, "({i}, {j})");
            }
        }
        let bradley_terry = SkewLowRank {
            rank: 0,
            ..SkewLowRank::default()
        }
        .fit(&counts)
        .unwrap();
        let worst = (0..models)
            .flat_map(|i| (0..models).map(move |j| (i, j)))
            .map(|(i, j)| (bradley_terry.margin(i, j) - (truth(i, j) / 2.0).tanh()).abs())
            .fold(0.0, f64::max);
        assert!(worst > 0.2, "Bradley–Terry should miss the cycle: {worst}");
    }

    #[test]
    fn settings_out_of_range_are_refused_by_name() {
        let bad = [
            SkewLowRank {
                rank: MAX_COMPLETION_RANK + 1,
                ..SkewLowRank::default()
            },
            SkewLowRank {
                l2: 0.0,
                ..SkewLowRank::default()
            },
            SkewLowRank {
                l2: f64::NAN,
                ..SkewLowRank::default()
            },
        ];
        for settings in bad {
            assert!(matches!(
                settings.validate(),
                Err(RatingsError::Setting { .. })
            ));
        }
    }
}
