//! Structured payoff surfaces: one model of the context emits, for every agent, a
//! score `s_j(x)` and `r` pairs of cyclic coordinates `(u_jl(x), v_jl(x))`, and the
//! payoff of every pair follows from them,
//!
//! ```text
//! d_jk(x) = s_j(x) − s_k(x) + Σ_{l=1..r} (u_jl(x) v_kl(x) − v_jl(x) u_kl(x)),
//! A_jk(x) = tanh(d_jk(x) / 2) = 2 σ(d_jk(x)) − 1,
//! ```
//!
//! skew-symmetric with a zero diagonal by construction, with `K (1 + 2r)` outputs
//! per context instead of one per pair. `r = 0` is a contextual Bradley–Terry model
//! (the model class of Prompt-to-Leaderboard, arXiv 2502.14855); the `r` rank-2
//! terms are the cyclic components of Balduzzi et al. 2018 ("Re-evaluating
//! evaluation", mElo), which a Bradley–Terry model cannot represent. Every pair's
//! verdicts train the scores of both its agents, so a pair seen rarely borrows from
//! every battle its agents fought.
//!
//! The model is `s_j(x) = β_j + h_j(x)`: the global Bradley–Terry scores `β` fitted
//! exactly by Newton's method on the pairs' sufficient statistics, plus a
//! multilayer perceptron of the standardized context ([`crate::mlp`]) whose heads
//! `h`, `u`, `v` start at zero (the cyclic heads at small random values, to break
//! their symmetry) and are trained by Adam with early stopping on held-out
//! contexts. Training therefore starts from the global model and keeps only what
//! improves on it out of sample; with no feature that varies and `r = 0` there is
//! nothing to learn beyond `β`, and no network is trained.
//!
//! The learner is the perceptron and not LightGBM: the payoff is bilinear in the
//! heads, so its gradient is the loss's slope times the other agent's coordinates,
//! which needs one model with `K (1 + 2r)` outputs trained jointly; LightGBM's
//! binding offers neither multi-output trees nor a custom objective.
//!
//! Two objectives ([`Objective`]): the Bernoulli log-likelihood of observed verdicts
//! (the outcome model `μ`, ties as half a win as [`Objective::Verdict`] says) and
//! squared error against pseudo-outcomes `Γ` (the debiased stage).

use nalgebra::{DMatrix, DVector};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use verdict_game::{skew_from_upper_rows_into, PayoffMatrix};

use crate::learner::{sigmoid, solve_symmetric, LearnerError, Scaling};
use crate::mlp::{check_layers, train_early_stopped, Adam, Dense, EarlyStopping, Head, Params};

/// The ranks `auto` chooses among, by held-out loss.
pub const CANDIDATE_RANKS: [usize; 4] = [0, 1, 2, 4];

/// Contexts predicted at once (bounds the heads held to `chunk × K (1 + 2r)`).
const PREDICTION_CHUNK: usize = 4096;

/// One training target of a pair at a context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairTarget {
    /// Row of the context in the features.
    pub row: usize,
    /// Agent `j`.
    pub first: usize,
    /// Agent `k` (`≠ j`).
    pub second: usize,
    /// A verdict `Z_jk ∈ [−1, 1]` or a pseudo-outcome `Γ_jk`.
    pub target: f64,
    /// Weight (responses averaged, or a sampling weight).
    pub weight: f64,
}

/// What the surface is fitted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Verdicts `Z ∈ [−1, 1]`: the Bernoulli log-likelihood of a win with
    /// probability `σ(d)` and label `p = (1 + Z) / 2`, so a tie (`Z = 0`) is half a
    /// win, as Bradley–Terry's `ties = half` counts it, and `A = 2σ(d) − 1` estimates
    /// `E[Z | x]`.
    Verdict,
    /// Pseudo-outcomes: squared error `(Γ − tanh(d/2))²`.
    Squared,
}

impl Objective {
    /// The loss at margin `d` for `target`, its slope `∂/∂d` and a curvature for
    /// Newton's method (the exact one for verdicts, Gauss–Newton's for squares).
    pub(crate) fn at(self, d: f64, target: f64) -> (f64, f64, f64) {
        match self {
            Self::Verdict => {
                let p = f64::midpoint(1.0, target).clamp(0.0, 1.0);
                let sigma = sigmoid(d);
                let loss = p * softplus(-d) + (1.0 - p) * softplus(d);
                (loss, sigma - p, sigma * (1.0 - sigma))
            }
            Self::Squared => {
                let a = (d / 2.0).tanh();
                let residual = target - a;
                let slope = 1.0 - a * a;
                (residual * residual, -residual * slope, slope * slope / 2.0)
            }
        }
    }
}

/// `ln(1 + e^d)`, without overflow.
pub(crate) fn softplus(d: f64) -> f64 {
    d.max(0.0) + (-d.abs()).exp().ln_1p()
}

/// Training settings of the context model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StructuredOptions {
    /// Cyclic rank `r`; `None` chooses among [`CANDIDATE_RANKS`] by held-out loss
    /// (in a fit, the structured outcome models choose and the payoff regression
    /// takes their choice).
    pub rank: Option<usize>,
    /// Width of both hidden layers.
    pub hidden: usize,
    /// Adam step size.
    pub learning_rate: f64,
    /// L2 weight decay.
    pub weight_decay: f64,
    /// Targets per mini-batch.
    pub batch_size: usize,
    /// Maximum epochs.
    pub max_epochs: usize,
    /// Epochs without a better held-out loss before stopping.
    pub patience: usize,
    /// Share of contexts held out for early stopping and the choice of rank.
    pub validation_fraction: f64,
    /// Targets one epoch visits (a fresh random subset each epoch when there are
    /// more), as the policy network's `epoch_contexts`.
    pub epoch_targets: usize,
    /// Seed of the initialization, split and batch order.
    pub seed: u64,
}

impl Default for StructuredOptions {
    fn default() -> Self {
        Self {
            rank: None,
            hidden: 64,
            learning_rate: 3e-3,
            weight_decay: 1e-5,
            batch_size: 256,
            max_epochs: 100,
            patience: 10,
            validation_fraction: 0.15,
            epoch_targets: 20_000,
            seed: 0,
        }
    }
}

impl StructuredOptions {
    /// Whether these are the defaults (a model file leaves them out then).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Adam's schedule of these settings.
    pub(crate) fn schedule(&self) -> EarlyStopping {
        EarlyStopping {
            learning_rate: self.learning_rate,
            weight_decay: self.weight_decay,
            max_epochs: self.max_epochs,
            patience: self.patience,
        }
    }

    /// These settings with the seed of a fit's stage.
    pub fn seeded(&self, seed: u64) -> Self {
        Self {
            seed,
            ..self.clone()
        }
    }
}

/// One rank tried by `auto`, and its held-out loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankCandidate {
    /// Cyclic rank `r`.
    pub rank: usize,
    /// Mean held-out loss (per unit weight) of its best epoch.
    pub held_out_loss: f64,
    /// The epoch that reached it (0: the global model was not improved on).
    pub best_epoch: usize,
}

/// What a structured fit measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StructuredReport {
    /// The rank kept.
    pub rank: usize,
    /// Held-out loss of the global scores `β` alone (the context-free model).
    pub global_held_out_loss: f64,
    /// Every rank tried, in order.
    pub candidates: Vec<RankCandidate>,
}

/// A structured fit with every candidate rank's model ([`StructuredSurface::fit_candidates`]).
#[derive(Debug, Clone)]
pub struct StructuredCandidates {
    /// The model of the lowest held-out loss.
    pub kept: StructuredSurface,
    /// What the fit measured.
    pub report: StructuredReport,
    /// Every candidate's model, in the report's order.
    pub candidates: Vec<StructuredSurface>,
}

/// A fitted structured surface over `agents` agents and `columns` features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StructuredSurface {
    agents: usize,
    rank: usize,
    /// Global Bradley–Terry scores `β` (natural-log units, mean zero).
    base: Vec<f64>,
    scaling: Scaling,
    /// The context model's layers; empty when no context part was trained.
    layers: Vec<Dense>,
}

/// Where agent `j`'s heads sit in an output row of `K (1 + 2r)` values.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Layout {
    agents: usize,
    rank: usize,
}

impl Layout {
    fn width(self) -> usize {
        self.agents * (1 + 2 * self.rank)
    }
    fn u(self, j: usize, l: usize) -> usize {
        self.agents + j * self.rank + l
    }
    fn v(self, j: usize, l: usize) -> usize {
        self.agents * (1 + self.rank) + j * self.rank + l
    }

    /// `d_jk` from the scores `base` and the context model's output row `o`, read
    /// by column.
    fn margin(self, base: &[f64], o: &dyn Fn(usize) -> f64, j: usize, k: usize) -> f64 {
        let mut d = base[j] - base[k] + (o(j) - o(k));
        for l in 0..self.rank {
            d += o(self.u(j, l)) * o(self.v(k, l)) - o(self.v(j, l)) * o(self.u(k, l));
        }
        d
    }

    /// `d_jk` from a head row holding the scores themselves (`β` folded in).
    fn row_margin(self, row: &[f64], j: usize, k: usize) -> f64 {
        let mut d = row[j] - row[k];
        let (uj, vj) = (self.u(j, 0), self.v(j, 0));
        let (uk, vk) = (self.u(k, 0), self.v(k, 0));
        for l in 0..self.rank {
            d += row[uj + l] * row[vk + l] - row[vj + l] * row[uk + l];
        }
        d
    }

    /// Adds `slope · ∂d_jk/∂o` to the gradient row `g` at output row `o`.
    fn add_gradient(
        self,
        o: &dyn Fn(usize) -> f64,
        g: &mut dyn FnMut(usize, f64),
        j: usize,
        k: usize,
        slope: f64,
    ) {
        g(j, slope);
        g(k, -slope);
        for l in 0..self.rank {
            let (uj, vj, uk, vk) = (self.u(j, l), self.v(j, l), self.u(k, l), self.v(k, l));
            g(uj, slope * o(vk));
            g(vk, slope * o(uj));
            g(vj, -slope * o(uk));
            g(uk, -slope * o(vj));
        }
    }
}

/// The structured surface at many contexts, `K (1 + 2r)` values each: per context
/// the scores `s_j = β_j + h_j(x)`, then the cyclic coordinates `u` and `v`. Every
/// pair's payoff follows from its two agents' values (module doc), so a fit holds
/// this table — linear in K — where a table of pair values would be quadratic.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadTable {
    layout: Layout,
    rows: Vec<f64>,
}

impl HeadTable {
    /// A table of `contexts` rows of zeros (every payoff 0) for `agents` agents
    /// and cyclic rank `rank`.
    pub fn new(contexts: usize, agents: usize, rank: usize) -> Self {
        let layout = Layout { agents, rank };
        Self {
            layout,
            rows: vec![0.0; contexts * layout.width()],
        }
    }

    /// Contexts held.
    pub fn contexts(&self) -> usize {
        self.rows.len() / self.layout.width().max(1)
    }

    /// Agents K.
    pub fn agents(&self) -> usize {
        self.layout.agents
    }

    /// Numbers held: `contexts × K (1 + 2r)`.
    pub fn values_held(&self) -> usize {
        self.rows.len()
    }

    fn row(&self, i: usize) -> &[f64] {
        let width = self.layout.width();
        &self.rows[i * width..(i + 1) * width]
    }

    fn row_mut(&mut self, i: usize) -> &mut [f64] {
        let width = self.layout.width();
        &mut self.rows[i * width..(i + 1) * width]
    }

    /// `A_jk` at context `i`, computed in the orientation `j < k` so that
    /// `A_kj = −A_jk` exactly, and `A_jj = 0`.
    pub fn pair_value(&self, i: usize, j: usize, k: usize) -> f64 {
        if j == k {
            return 0.0;
        }
        let (sign, a, b) = if j < k { (1.0, j, k) } else { (-1.0, k, j) };
        sign * (self.layout.row_margin(self.row(i), a, b) / 2.0).tanh()
    }

    /// Writes `A(x_i)` (`K × K` row-major) into `out`.
    ///
    /// At `r = 0`, `tanh((s_j − s_k)/2) = (E_j − E_k)/(E_j + E_k)` with
    /// `E_j = exp(s_j − max s)`: K exponentials and one division per pair instead
    /// of a hyperbolic tangent per pair (which took a fifth of a K = 64 fit's time);
    /// the two agree to rounding (within 1e-15, tested), and a pair whose both
    /// exponentials underflow falls back to the tangent.
    pub fn matrix_into(&self, i: usize, out: &mut [f64]) {
        skew_from_upper_rows_into(self.layout.agents, out, self.upper_rows(i));
    }

    /// `A(x_i)` as a game, built straight from the entries above the diagonal a row
    /// at a time ([`PayoffMatrix::from_upper_rows`]), as [`Self::matrix_into`]
    /// computes them.
    pub fn game(&self, i: usize) -> PayoffMatrix {
        PayoffMatrix::from_upper_rows(self.layout.agents, self.upper_rows(i))
            .expect("a structured surface is skew-symmetric in [-1, 1]")
    }

    /// `(j, entries)`: writes `A_jl(x_i)` for `l = j+1 … K−1` into `entries` (the
    /// rank-0 shortcut of [`Self::matrix_into`] in one loop over the slice, which the
    /// compiler vectorizes: building games was a third of a K = 128 fit's time when
    /// each entry was a call of its own).
    fn upper_rows(&self, i: usize) -> impl FnMut(usize, &mut [f64]) + '_ {
        let k = self.layout.agents;
        let row = self.row(i);
        let exponentials: Option<Vec<f64>> = (self.layout.rank == 0).then(|| {
            let top = row[..k].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            row[..k].iter().map(|s| (s - top).exp()).collect()
        });
        move |j, entries: &mut [f64]| match &exponentials {
            Some(e) => {
                let ej = e[j];
                for (entry, &el) in entries.iter_mut().zip(&e[j + 1..]) {
                    *entry = (ej - el) / (ej + el);
                }
                // Both exponentials underflowed (0 / 0, only possible when `E_j` did):
                // the tangent instead.
                if ej == 0.0 {
                    for (offset, entry) in entries.iter_mut().enumerate() {
                        if entry.is_nan() {
                            *entry = self.pair_value(i, j, j + 1 + offset);
                        }
                    }
                }
            }
            None => {
                for (offset, entry) in entries.iter_mut().enumerate() {
                    *entry = self.pair_value(i, j, j + 1 + offset);
                }
            }
        }
    }
}

/// Global scores `β` minimizing `Σ w ℓ(β_j − β_k, target) + λ/2 ‖β‖²` by Newton's
/// method with step halving, from the pairs' sufficient statistics (total weight
/// and weighted mean target of each ordered pair, which determine both objectives
/// up to a constant). `λ = 1e-8 × total weight` only fixes the translation (the
/// result has mean zero) and keeps `β` finite where the MLE does not exist; where it
/// does, it moves `β` by about `1e-8` relative.
fn global_scores(agents: usize, targets: &[PairTarget], objective: Objective) -> Vec<f64> {
    // (weight, weighted target) per pair j < k, targets oriented to j < k.
    let mut stats = vec![(0.0, 0.0); agents * agents];
    let mut total = 0.0;
    for t in targets {
        let (j, k, target) = if t.first < t.second {
            (t.first, t.second, t.target)
        } else {
            (t.second, t.first, -t.target)
        };
        let cell = &mut stats[j * agents + k];
        cell.0 += t.weight;
        cell.1 += t.weight * target;
        total += t.weight;
    }
    let pairs: Vec<(usize, usize, f64, f64)> = (0..agents)
        .flat_map(|j| (j + 1..agents).map(move |k| (j, k)))
        .filter_map(|(j, k)| {
            let (w, wt) = stats[j * agents + k];
            (w > 0.0).then(|| (j, k, w, wt / w))
        })
        .collect();
    let ridge = 1e-8 * total.max(1.0);
    let objective_at = |beta: &[f64]| {
        pairs
            .iter()
            .map(|&(j, k, w, mean)| w * objective.at(beta[j] - beta[k], mean).0)
            .sum::<f64>()
            + ridge / 2.0 * beta.iter().map(|b| b * b).sum::<f64>()
    };
    let mut beta = vec![0.0; agents];
    for _ in 0..200 {
        let mut gradient = DVector::from_iterator(agents, beta.iter().map(|b| ridge * b));
        let mut hessian = DMatrix::from_diagonal_element(agents, agents, ridge);
        for &(j, k, w, mean) in &pairs {
            let (_, slope, curvature) = objective.at(beta[j] - beta[k], mean);
            gradient[j] += w * slope;
            gradient[k] -= w * slope;
            let h = w * curvature;
            hessian[(j, j)] += h;
            hessian[(k, k)] += h;
            hessian[(j, k)] -= h;
            hessian[(k, j)] -= h;
        }
        if gradient.amax() <= 1e-13 * total.max(1.0) {
            break;
        }
        let Some(step) = solve_symmetric(hessian, &gradient) else {
            break;
        };
        let before = objective_at(&beta);
        let mut scale = 1.0;
        loop {
            let trial: Vec<f64> = beta
                .iter()
                .zip(step.iter())
                .map(|(b, s)| b - scale * s)
                .collect();
            if objective_at(&trial) <= before || scale < 1e-10 {
                beta = trial;
                break;
            }
            scale /= 2.0;
        }
    }
    let mean = beta.iter().sum::<f64>() / agents.max(1) as f64;
    beta.iter().map(|b| b - mean).collect()
}

/// The split of the targets' contexts into training and held-out ones.
fn split_targets(
    targets: &[PairTarget],
    fraction: f64,
    rng: &mut ChaCha8Rng,
) -> (Vec<usize>, Vec<usize>) {
    let mut rows: Vec<usize> = targets.iter().map(|t| t.row).collect();
    rows.sort_unstable();
    rows.dedup();
    rows.shuffle(rng);
    let held = ((rows.len() as f64 * fraction).round() as usize)
        .clamp(1, rows.len().saturating_sub(1).max(1));
    let mut held_rows = rows[..held].to_vec();
    held_rows.sort_unstable();
    targets
        .iter()
        .enumerate()
        .map(|(index, t)| (index, held_rows.binary_search(&t.row).is_ok()))
        .fold(
            (Vec::new(), Vec::new()),
            |(mut train, mut valid), (index, held)| {
                if held {
                    valid.push(index)
                } else {
                    train.push(index)
                }
                (train, valid)
            },
        )
}

/// The state of one training of the context model at one rank.
struct Training<'a> {
    x: &'a DMatrix<f64>,
    targets: &'a [PairTarget],
    objective: Objective,
    base: &'a [f64],
    layout: Layout,
}

impl Training<'_> {
    /// Mean loss per unit weight over the targets `at`, in chunks.
    fn mean_loss(&self, params: &Params, at: &[usize]) -> f64 {
        let mut items = Vec::with_capacity(at.len());
        for chunk in at.chunks(PREDICTION_CHUNK) {
            // Targets of one context are consecutive (`at` is in target order, and
            // targets are built context by context): the network runs once per
            // context, not once per target.
            let mut rows: Vec<usize> = Vec::new();
            let slots: Vec<usize> = chunk
                .iter()
                .map(|&t| {
                    let row = self.targets[t].row;
                    if rows.last() != Some(&row) {
                        rows.push(row);
                    }
                    rows.len() - 1
                })
                .collect();
            let out = params
                .forward(&self.x.select_rows(&rows), Head::Linear)
                .pop()
                .expect("an output layer");
            for (&slot, &t) in slots.iter().zip(chunk) {
                let t = self.targets[t];
                let o = |c: usize| out[(slot, c)];
                let d = self.layout.margin(self.base, &o, t.first, t.second);
                items.push((t.weight, self.objective.at(d, t.target).0));
            }
        }
        weighted_mean(items.into_iter())
    }

    /// Adam on the training targets with early stopping on the held-out ones;
    /// returns the kept parameters, their held-out loss and epoch.
    fn run(
        &self,
        params: Params,
        train: &mut [usize],
        valid: &[usize],
        options: &StructuredOptions,
        rng: &mut ChaCha8Rng,
    ) -> (Params, f64, usize) {
        let width = self.layout.width();
        let epoch = |params: &mut Params, adam: &mut Adam| {
            train.shuffle(rng);
            let visited = train.len().min(options.epoch_targets.max(1));
            for batch in train[..visited].chunks(options.batch_size.max(1)) {
                let rows: Vec<usize> = batch.iter().map(|&t| self.targets[t].row).collect();
                let x = self.x.select_rows(&rows);
                let acts = params.forward(&x, Head::Linear);
                let out = acts.last().expect("an output layer");
                // A batch of zero weights (possible only in a sampled design) moves nothing.
                let total: f64 = batch.iter().map(|&t| self.targets[t].weight).sum();
                if total <= 0.0 {
                    continue;
                }
                let mut delta = DMatrix::zeros(batch.len(), width);
                for (r, &t) in batch.iter().enumerate() {
                    let t = self.targets[t];
                    let o = |c: usize| out[(r, c)];
                    let d = self.layout.margin(self.base, &o, t.first, t.second);
                    let slope = t.weight * self.objective.at(d, t.target).1 / total;
                    self.layout.add_gradient(
                        &o,
                        &mut |c, g| delta[(r, c)] += g,
                        t.first,
                        t.second,
                        slope,
                    );
                }
                let grad = params.backward(&x, &acts, delta);
                adam.update(params, &grad);
            }
        };
        train_early_stopped(params, options.schedule(), epoch, |params| {
            self.mean_loss(params, valid)
        })
    }
}

/// The seed offset of rank `rank`'s training (a golden-ratio multiple: distinct
/// streams per rank).
fn rank_stream(rank: usize) -> u64 {
    0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(rank as u64 + 1)
}

/// He-initialized hidden layers; the head's score columns and biases start at
/// zero (the model starts as the global one), its cyclic columns at a tenth of He's
/// scale.
fn initial_params(columns: usize, layout: Layout, hidden: usize, rng: &mut ChaCha8Rng) -> Params {
    let mut params = Params::init(&[columns, hidden, hidden, layout.width()], rng);
    let head = params.w.last_mut().expect("a head");
    for c in 0..layout.width() {
        for r in 0..head.nrows() {
            head[(r, c)] *= if c < layout.agents { 0.0 } else { 0.1 };
        }
    }
    params
}

/// Whether some feature column takes more than one value.
pub(crate) fn some_feature_varies(features: &[f64], columns: usize) -> bool {
    let Some(first) = features.get(..columns) else {
        return false;
    };
    features
        .chunks(columns.max(1))
        .any(|row| row.iter().zip(first).any(|(a, b)| a != b))
}

/// Checks targets against `agents` and `rows` contexts.
fn check_targets(targets: &[PairTarget], agents: usize, rows: usize) -> Result<(), LearnerError> {
    if targets.is_empty() {
        return Err(LearnerError(
            "no pair target to fit the structured surface on".into(),
        ));
    }
    if targets.iter().all(|t| t.weight == 0.0) {
        return Err(LearnerError(
            "every pair target has weight 0; give some a positive weight".into(),
        ));
    }
    for (index, t) in targets.iter().enumerate() {
        if t.first >= agents || t.second >= agents || t.first == t.second || t.row >= rows {
            return Err(LearnerError(format!(
                "target {index} pairs agents {} and {} at context {} (of {agents} agents and {rows} contexts)",
                t.first, t.second, t.row
            )));
        }
        if !(t.target.is_finite() && t.weight.is_finite() && t.weight >= 0.0) {
            return Err(LearnerError(format!(
                "target {index} has target {} and weight {}: both must be finite and the weight non-negative",
                t.target, t.weight
            )));
        }
    }
    Ok(())
}

impl StructuredSurface {
    /// Fits the surface to `targets` at contexts of `features` (`contexts ×
    /// columns`) under `objective`, at `options.rank` or, when it is `None`, at the
    /// candidate rank ([`CANDIDATE_RANKS`]) with the lowest held-out loss; the
    /// global scores alone compete too, so the kept model is never worse on the
    /// held-out contexts than the context-free Bradley–Terry model.
    ///
    /// # Errors
    /// [`LearnerError`] when there is no target, a target names an agent or context
    /// out of range or the same agent twice, or a target or weight is not finite.
    pub fn fit(
        features: &[f64],
        columns: usize,
        agents: usize,
        targets: &[PairTarget],
        objective: Objective,
        options: &StructuredOptions,
    ) -> Result<(Self, StructuredReport), LearnerError> {
        let fitted = Self::fit_candidates(features, columns, agents, targets, objective, options)?;
        Ok((fitted.kept, fitted.report))
    }

    /// [`Self::fit`], keeping every candidate rank's model besides the one kept:
    /// `candidates[c]` is the model of `report.candidates[c].rank` (the global scores
    /// alone, at that rank, where training did not improve on them).
    ///
    /// # Errors
    /// As [`Self::fit`].
    pub fn fit_candidates(
        features: &[f64],
        columns: usize,
        agents: usize,
        targets: &[PairTarget],
        objective: Objective,
        options: &StructuredOptions,
    ) -> Result<StructuredCandidates, LearnerError> {
        check_targets(targets, agents, features.len() / columns.max(1))?;
        let base = global_scores(agents, targets, objective);
        let scaling = Scaling::fit(features, columns);
        let global = |rank, layers| Self {
            agents,
            rank,
            base: base.clone(),
            scaling: scaling.clone(),
            layers,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let (train, valid) = split_targets(targets, options.validation_fraction, &mut rng);
        let x = scaling.standardized(features);
        let global_loss = weighted_mean(valid.iter().map(|&t| {
            let t = targets[t];
            (
                t.weight,
                objective.at(base[t.first] - base[t.second], t.target).0,
            )
        }));
        let mut report = StructuredReport {
            rank: 0,
            global_held_out_loss: global_loss,
            candidates: Vec::new(),
        };
        let (mut kept, mut kept_loss) = (global(0, Vec::new()), global_loss);
        let ranks = options
            .rank
            .map_or_else(|| CANDIDATE_RANKS.to_vec(), |rank| vec![rank]);
        // With r = 0 and a constant context the network could only shift β, which
        // is already the optimum.
        let varies = some_feature_varies(features, columns);
        // The ranks train in parallel (the perceptron is single-threaded), each from
        // its own seeded generator, so the result does not depend on the threads.
        let trained: Vec<Option<(Params, f64, usize)>> = ranks
            .par_iter()
            .map(|&rank| {
                if rank == 0 && !varies {
                    return None;
                }
                let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ rank_stream(rank));
                let layout = Layout { agents, rank };
                let training = Training {
                    x: &x,
                    targets,
                    objective,
                    base: &base,
                    layout,
                };
                let start = initial_params(columns, layout, options.hidden, &mut rng);
                let mut train = train.clone();
                Some(training.run(start, &mut train, &valid, options, &mut rng))
            })
            .collect();
        let mut candidates = Vec::with_capacity(ranks.len());
        for (rank, trained) in ranks.into_iter().zip(trained) {
            let Some((params, loss, best_epoch)) = trained else {
                report.candidates.push(RankCandidate {
                    rank,
                    held_out_loss: global_loss,
                    best_epoch: 0,
                });
                candidates.push(global(rank, Vec::new()));
                continue;
            };
            report.candidates.push(RankCandidate {
                rank,
                held_out_loss: loss,
                best_epoch,
            });
            let model = if best_epoch > 0 {
                global(rank, params.to_layers())
            } else {
                global(rank, Vec::new())
            };
            if loss < kept_loss && best_epoch > 0 {
                kept_loss = loss;
                kept = model.clone();
            }
            candidates.push(model);
        }
        report.rank = kept.rank;
        Ok(StructuredCandidates {
            kept,
            report,
            candidates,
        })
    }

    /// Agents K.
    pub fn agents(&self) -> usize {
        self.agents
    }

    /// The cyclic rank `r`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The global scores `β` (natural-log units, mean zero).
    pub fn global_scores(&self) -> &[f64] {
        &self.base
    }

    /// Writes the head rows of the contexts of `features` (`contexts × columns`,
    /// in order) into rows `rows` of `table`, [`PREDICTION_CHUNK`] contexts at a
    /// time: each row is `(β_j + h_j(x))_j`, then `u`, then `v` (cyclic coordinates
    /// beyond this model's rank are zero).
    ///
    /// # Panics
    /// When `rows` and `features` disagree in length, or the table's rank is below
    /// this model's (the caller sizes it).
    pub fn write_heads(&self, features: &[f64], rows: &[usize], table: &mut HeadTable) {
        let columns = self.scaling.mean.len().max(1);
        assert_eq!(rows.len() * columns, features.len(), "one row per context");
        assert!(
            table.layout.agents == self.agents && table.layout.rank >= self.rank,
            "a head table of this model's agents and at least its rank"
        );
        let (k, rank, layout) = (self.agents, self.rank, table.layout);
        let mut write = |row: usize, o: Option<&dyn Fn(usize) -> f64>| {
            let out = table.row_mut(row);
            out.fill(0.0);
            for (j, (score, base)) in out.iter_mut().zip(&self.base).enumerate() {
                *score = base + o.map_or(0.0, |o| o(j));
            }
            if let Some(o) = o {
                let own = self.layout();
                for j in 0..k {
                    for l in 0..rank {
                        out[layout.u(j, l)] = o(own.u(j, l));
                        out[layout.v(j, l)] = o(own.v(j, l));
                    }
                }
            }
        };
        if self.layers.is_empty() {
            rows.iter().for_each(|&row| write(row, None));
            return;
        }
        let params = Params::from_layers(&self.layers);
        for (chunk, chunk_rows) in features
            .chunks(PREDICTION_CHUNK * columns)
            .zip(rows.chunks(PREDICTION_CHUNK))
        {
            let out = params.outputs_in_blocks(&self.scaling.standardized(chunk), Head::Linear);
            for (r, &row) in chunk_rows.iter().enumerate() {
                write(row, Some(&|c: usize| out[(r, c)]));
            }
        }
    }

    /// The head rows of every context of `features`, in order.
    pub fn heads(&self, features: &[f64]) -> HeadTable {
        let contexts = features.len() / self.scaling.mean.len().max(1);
        let mut table = HeadTable::new(contexts, self.agents, self.rank);
        let rows: Vec<usize> = (0..contexts).collect();
        self.write_heads(features, &rows, &mut table);
        table
    }

    fn layout(&self) -> Layout {
        Layout {
            agents: self.agents,
            rank: self.rank,
        }
    }

    /// `A_jk(x)` for every context of `features` and every pair `(j, k)` of
    /// `pairs`, `contexts × pairs` row-major; computed in the orientation `j < k`,
    /// so `A_kj` is exactly `−A_jk`.
    pub fn pair_values(&self, features: &[f64], pairs: &[(usize, usize)]) -> Vec<f64> {
        let columns = self.scaling.mean.len().max(1);
        let mut out = Vec::with_capacity(features.len() / columns * pairs.len());
        for chunk in features.chunks(PREDICTION_CHUNK * columns) {
            let table = self.heads(chunk);
            for i in 0..table.contexts() {
                out.extend(pairs.iter().map(|&(j, k)| table.pair_value(i, j, k)));
            }
        }
        out
    }

    /// `A(x)` at every context of `features`: `contexts × K × K` row-major,
    /// skew-symmetric with a zero diagonal.
    pub fn matrices(&self, features: &[f64]) -> Vec<f64> {
        let (columns, k) = (self.scaling.mean.len().max(1), self.agents);
        let mut out = vec![0.0; features.len() / columns * k * k];
        for (chunk, matrices) in features
            .chunks(PREDICTION_CHUNK * columns)
            .zip(out.chunks_mut(PREDICTION_CHUNK * k * k))
        {
            let table = self.heads(chunk);
            for (i, matrix) in matrices.chunks_mut(k * k).enumerate() {
                table.matrix_into(i, matrix);
            }
        }
        out
    }

    /// Checks a loaded surface for `agents` agents and `columns` features.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, agents: usize, columns: usize) -> Result<(), String> {
        if self.agents != agents || self.base.len() != agents {
            return Err(format!(
                "a structured surface of {} agents ({} scores) where the model has {agents}",
                self.agents,
                self.base.len()
            ));
        }
        if self.base.iter().any(|b| !b.is_finite()) {
            return Err("a global score is not a finite number".into());
        }
        self.scaling.check(columns)?;
        if self.layers.is_empty() {
            return Ok(());
        }
        check_layers(&self.layers, columns, self.layout().width(), "heads")
    }
}

/// `Σ w v / Σ w` of `(w, v)` pairs (0 when the weights sum to 0).
fn weighted_mean(items: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (total, weight) = items.fold((0.0, 0.0), |(t, w), (wi, vi)| (t + wi * vi, w + wi));
    if weight > 0.0 {
        total / weight
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;
    use verdict_ratings::{BradleyTerry, PairCounts, PairTally};

    use super::*;

    /// Verdicts drawn from `A(x)` given by `truth(x, j, k) = d_jk(x)`: at each of
    /// `contexts` contexts of `columns` uniform features, `per_context` battles of
    /// random pairs, each a win, loss or (with probability `ties`) a tie.
    fn battles(
        contexts: usize,
        columns: usize,
        agents: usize,
        per_context: usize,
        truth: &dyn Fn(&[f64], usize, usize) -> f64,
        seed: u64,
    ) -> (Vec<f64>, Vec<PairTarget>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let features: Vec<f64> = (0..contexts * columns)
            .map(|_| rng.random::<f64>())
            .collect();
        let mut targets = Vec::new();
        for row in 0..contexts {
            let x = &features[row * columns..(row + 1) * columns];
            for _ in 0..per_context {
                let first = rng.random_range(0..agents);
                let second = (first + rng.random_range(1..agents)) % agents;
                let win = sigmoid(truth(x, first, second));
                let u: f64 = rng.random();
                let target = if u < 0.1 {
                    0.0
                } else if rng.random::<f64>() < win {
                    1.0
                } else {
                    -1.0
                };
                targets.push(PairTarget {
                    row,
                    first,
                    second,
                    target,
                    weight: 1.0,
                });
            }
        }
        (features, targets)
    }

    fn quick(rank: Option<usize>) -> StructuredOptions {
        StructuredOptions {
            rank,
            hidden: 16,
            learning_rate: 1e-3,
            max_epochs: 200,
            epoch_targets: 4_000,
            patience: 10,
            ..StructuredOptions::default()
        }
    }

    #[test]
    fn every_rank_gives_skew_symmetric_payoffs_with_a_zero_diagonal() {
        let truth = |x: &[f64], j: usize, k: usize| (j as f64 - k as f64) * (x[0] - 0.5);
        let (features, targets) = battles(300, 2, 5, 2, &truth, 1);
        for rank in [0, 1, 2, 4] {
            let (surface, report) = StructuredSurface::fit(
                &features,
                2,
                5,
                &targets,
                Objective::Verdict,
                &quick(Some(rank)),
            )
            .unwrap();
            assert_eq!(report.candidates.len(), 1);
            let matrices = surface.matrices(&features[..20]);
            for matrix in matrices.chunks(25) {
                for j in 0..5 {
                    assert_eq!(matrix[j * 5 + j], 0.0, "rank {rank}");
                    for k in 0..5 {
                        assert_eq!(matrix[j * 5 + k], -matrix[k * 5 + j], "rank {rank}");
                        assert!(matrix[j * 5 + k].abs() < 1.0);
                    }
                }
            }
            // Pair values in either orientation agree with the matrices (built by
            // another formula at r = 0: equal to rounding).
            let values = surface.pair_values(&features[..2], &[(1, 3), (3, 1)]);
            assert!((values[0] - matrices[8]).abs() < 1e-15, "rank {rank}");
            assert_eq!(values[1], -values[0]);
        }
    }

    /// The rank-0 matrices, built from exponentials, equal the tangent of every
    /// pair to rounding, over scores far apart (where exponentials underflow and
    /// the tangent is used) and close together.
    #[test]
    fn rank_zero_matrices_equal_the_tangent_of_each_pair() {
        let scores = [0.0, -800.0, -900.0, 3.0, 3.0 + 1e-12, -2.5, 40.0];
        let k = scores.len();
        let mut table = HeadTable::new(1, k, 0);
        table.row_mut(0).copy_from_slice(&scores);
        let mut matrix = vec![0.0; k * k];
        table.matrix_into(0, &mut matrix);
        for j in 0..k {
            assert_eq!(matrix[j * k + j], 0.0);
            for l in 0..k {
                let tangent = ((scores[j] - scores[l]) / 2.0).tanh();
                assert!(
                    (matrix[j * k + l] - tangent).abs() < 1e-15,
                    "({j}, {l}): {} against {tangent}",
                    matrix[j * k + l]
                );
                assert_eq!(matrix[j * k + l], -matrix[l * k + j]);
                assert!(matrix[j * k + l].is_finite());
                assert_eq!(table.game(0).get(j, l), matrix[j * k + l]);
            }
        }
    }

    /// With one constant context and `r = 0`, the surface is the global
    /// Bradley–Terry model; its win probabilities must equal those of the ratings
    /// crate's Newton fit (`verdict rank --method bt`, ties as half a win) on the same
    /// battles — two separate solvers, one likelihood.
    #[test]
    fn rank_zero_on_a_constant_context_is_bradley_terry() {
        let strengths = [0.8, 0.3, 0.0, -0.4, -0.9];
        let truth = |_: &[f64], j: usize, k: usize| strengths[j] - strengths[k];
        let (mut features, targets) = battles(2_000, 1, 5, 1, &truth, 7);
        features.iter_mut().for_each(|x| *x = 0.25);
        let (surface, report) = StructuredSurface::fit(
            &features,
            1,
            5,
            &targets,
            Objective::Verdict,
            &quick(Some(0)),
        )
        .unwrap();
        assert_eq!((report.rank, surface.layers.len()), (0, 0));
        let mut tallies: Vec<PairTally> = Vec::new();
        for t in &targets {
            let (i, j, won) = if t.first < t.second {
                (t.first, t.second, t.target)
            } else {
                (t.second, t.first, -t.target)
            };
            let tally = match tallies
                .iter_mut()
                .find(|p| (p.i, p.j) == (i as u32, j as u32))
            {
                Some(tally) => tally,
                None => {
                    tallies.push(PairTally {
                        i: i as u32,
                        j: j as u32,
                        wins_i: 0.0,
                        wins_j: 0.0,
                        ties: 0.0,
                    });
                    tallies.last_mut().unwrap()
                }
            };
            match won {
                w if w > 0.0 => tally.wins_i += 1.0,
                w if w < 0.0 => tally.wins_j += 1.0,
                _ => tally.ties += 1.0,
            }
        }
        tallies.sort_by_key(|p| (p.i, p.j));
        let bt = BradleyTerry::default()
            .fit(&PairCounts::from_pairs(5, tallies))
            .unwrap();
        let values = surface.pair_values(&features[..1], &[(0, 1), (0, 4), (2, 3), (4, 1)]);
        for (value, (j, k)) in values.iter().zip([(0, 1), (0, 4), (2, 3), (4, 1)]) {
            let want = 2.0 * bt.win_probability(j, k) - 1.0;
            assert!(
                (value - want).abs() < 1e-6,
                "{j} vs {k}: {value} against {want}"
            );
        }
    }

    /// A planted world with a transitive part that moves with the context and one
    /// cyclic component (rock–paper–scissors among agents 0–2 whose strength grows
    /// with `x_1`): rank 1 recovers the surface within 0.08 mean absolute error at
    /// fresh contexts, rank 0 cannot (its error on the cyclic triangle stays above
    /// 0.15), and `auto` picks a cyclic rank by held-out loss.
    #[test]
    fn a_planted_cyclic_component_is_recovered() {
        let angle = |j: usize| 2.0 * std::f64::consts::PI * j as f64 / 3.0;
        let truth = move |x: &[f64], j: usize, k: usize| {
            let transitive = (j as f64 - k as f64) * (x[0] - 0.5);
            let cyclic = if j < 3 && k < 3 {
                // u_j v_k − v_j u_k with (u, v) = c (cos, sin) of the agent's angle.
                let c = 1.0 + 2.0 * x[1];
                c * c * (angle(k) - angle(j)).sin()
            } else {
                0.0
            };
            transitive + cyclic
        };
        let (features, targets) = battles(6_000, 2, 4, 2, &truth, 11);
        let (test, _) = battles(200, 2, 4, 0, &truth, 12);
        let error = |surface: &StructuredSurface, pairs: &[(usize, usize)]| {
            let values = surface.pair_values(&test, pairs);
            let mut total = 0.0;
            for (row, x) in test.chunks(2).enumerate() {
                for (p, &(j, k)) in pairs.iter().enumerate() {
                    total += (values[row * pairs.len() + p] - (truth(x, j, k) / 2.0).tanh()).abs();
                }
            }
            total / (200 * pairs.len()) as f64
        };
        let all: Vec<(usize, usize)> = (0..4)
            .flat_map(|j| (j + 1..4).map(move |k| (j, k)))
            .collect();
        let triangle = [(0, 1), (1, 2), (0, 2)];
        let fit = |rank| {
            StructuredSurface::fit(&features, 2, 4, &targets, Objective::Verdict, &quick(rank))
                .unwrap()
        };
        let (cyclic, _) = fit(Some(1));
        let (transitive, _) = fit(Some(0));
        assert!(
            error(&cyclic, &all) < 0.08,
            "rank 1: {}",
            error(&cyclic, &all)
        );
        assert!(
            error(&transitive, &triangle) > 0.15,
            "rank 0: {}",
            error(&transitive, &triangle)
        );
        let (chosen, report) = fit(None);
        assert!(chosen.rank() >= 1, "{report:?}");
        assert!(report.candidates[0].held_out_loss > report.candidates[1].held_out_loss);
    }

    #[test]
    fn squared_error_to_pseudo_outcomes_recovers_their_mean() {
        // Γ = A + noise of mean zero: the fit estimates A.
        let strengths: [f64; 3] = [0.6, 0.0, -0.6];
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let features = vec![0.0; 3_000];
        let targets: Vec<PairTarget> = (0..3_000)
            .map(|row| {
                let (first, second) = [(0, 1), (1, 2), (0, 2)][row % 3];
                let a = ((strengths[first] - strengths[second]) / 2.0).tanh();
                PairTarget {
                    row,
                    first,
                    second,
                    target: a + rng.random_range(-1.5..1.5),
                    weight: 1.0,
                }
            })
            .collect();
        let (surface, _) = StructuredSurface::fit(
            &features,
            1,
            3,
            &targets,
            Objective::Squared,
            &quick(Some(0)),
        )
        .unwrap();
        let values = surface.pair_values(&[0.0], &[(0, 1), (1, 2), (0, 2)]);
        for (value, (j, k)) in values.iter().zip([(0, 1), (1, 2), (0, 2)]) {
            let want = ((strengths[j] - strengths[k]) / 2.0).tanh();
            assert!(
                (value - want).abs() < 0.05,
                "{j} vs {k}: {value} against {want}"
            );
        }
    }

    #[test]
    fn bad_targets_are_refused_by_index() {
        let options = quick(Some(0));
        let bad = |t: PairTarget| {
            StructuredSurface::fit(&[0.0, 1.0], 1, 3, &[t], Objective::Verdict, &options)
                .unwrap_err()
                .0
        };
        let ok = PairTarget {
            row: 1,
            first: 0,
            second: 2,
            target: 1.0,
            weight: 1.0,
        };
        assert!(bad(PairTarget { second: 0, ..ok }).contains("target 0"));
        assert!(bad(PairTarget { second: 3, ..ok }).contains("3 agents"));
        assert!(bad(PairTarget { row: 2, ..ok }).contains("2 contexts"));
        assert!(bad(PairTarget {
            target: f64::NAN,
            ..ok
        })
        .contains("finite"));
        assert!(bad(PairTarget { weight: 0.0, ..ok }).contains("weight 0"));
        let none =
            StructuredSurface::fit(&[0.0], 1, 3, &[], Objective::Verdict, &options).unwrap_err();
        assert!(none.0.contains("no pair target"));
    }
}
