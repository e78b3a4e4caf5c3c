//! The equilibrium predictor `pi_theta(x)` of NashEval Appendix I.2: a multilayer
//! perceptron with two hidden ReLU layers and a K-way softmax, trained by minimizing
//! the empirical gap loss (Eq. 17) with its Danskin gradient (Eq. 33) by Adam with
//! weight decay, mini-batches and early stopping on held-out contexts (Table 14).
//!
//! The perceptron is [`crate::mlp`], written by hand over `nalgebra` rather than
//! with `candle`: the net is tiny
//! (5-64-64-5), the loss gradient is not an autodiff graph (Danskin: no derivative
//! through the best response) so autodiff buys nothing, and on the 256-row training
//! batches a step takes 1.1 ms against candle's best 1.7 ms (BENCHMARKS.md, `verdict
//! bench network` and `bench/candle-mlp`); candle is faster only on full batches of
//! 20,000 rows with mimalloc as the allocator.

use nalgebra::DMatrix;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::gap::{GameSet, GapLoss, GapScratch};
use crate::learner::Scaling;
use crate::mlp::{check_layers, Adam, Dense, Head, Params};

/// Training settings (one point of NashEval Table 14's grid).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkOptions {
    /// Width of both hidden layers.
    pub hidden: usize,
    /// Adam step size.
    pub learning_rate: f64,
    /// L2 weight decay added to the gradient (as PyTorch's Adam does).
    pub weight_decay: f64,
    /// Contexts per mini-batch.
    pub batch_size: usize,
    /// Maximum training epochs, distillation (at most half of them) and gap loss
    /// together.
    pub max_epochs: usize,
    /// Epochs without a better held-out gap before stopping.
    pub patience: usize,
    /// Epochs without a better held-out gap before the step size is halved (the gap
    /// is piecewise linear for small `rho`: a constant step only circles the kink).
    pub plateau: usize,
    /// Share of contexts held out for early stopping, at most `held_out_contexts`;
    /// 0 monitors the training contexts themselves.
    pub validation_fraction: f64,
    /// Seed of the initialization, split and batch order.
    pub seed: u64,
    /// Training contexts one epoch visits, a fresh random subset each epoch when
    /// there are more (default 20,000): the steps a network needs to converge do not
    /// grow with the log, so at 135,000 contexts an epoch of all of them would only
    /// make each patience window seven times longer. Model files written before the
    /// setting visited all contexts.
    #[serde(default = "all_contexts")]
    pub epoch_contexts: usize,
    /// Most contexts held out (default 20,000; the rest train). The held-out gap is
    /// taken after every epoch, one game per held-out context: a tenth of a million
    /// contexts at K = 128 cost more than the epochs themselves, while the mean over
    /// 20,000 already has a standard error of the gaps' spread / 141. Model files
    /// written before the setting held out `validation_fraction` of all contexts.
    #[serde(default = "all_contexts")]
    pub held_out_contexts: usize,
}

fn all_contexts() -> usize {
    usize::MAX
}

impl Default for NetworkOptions {
    fn default() -> Self {
        Self {
            hidden: 64,
            learning_rate: 1e-3,
            weight_decay: 1e-5,
            batch_size: 256,
            max_epochs: 500,
            patience: 30,
            plateau: 10,
            validation_fraction: 0.1,
            seed: 0,
            epoch_contexts: 20_000,
            held_out_contexts: 20_000,
        }
    }
}

/// How training went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingReport {
    /// Epochs run.
    pub epochs: usize,
    /// Epoch whose weights were kept (best held-out gap).
    pub best_epoch: usize,
    /// Mean gap on the held-out contexts at the kept weights.
    pub validation_gap: f64,
    /// Mean gap on the training contexts at the kept weights.
    pub training_gap: f64,
    /// Mean held-out gap of the best constant policy (one agent, or the uniform mix):
    /// a network no better than this has learned nothing from the contexts
    /// (see [`TrainingReport::collapsed`]).
    #[serde(default)]
    pub constant_gap: Option<f64>,
    /// Epochs of distillation to target policies before the gap loss (0 without;
    /// see [`Network::train_from`]); `epochs` and `best_epoch` count them.
    #[serde(default)]
    pub distilled_epochs: usize,
    /// Mean held-out gap at the initial weights and after each epoch (the training
    /// curve; empty in files written before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_out_curve: Vec<f64>,
}

impl TrainingReport {
    /// Whether the kept network's held-out gap is above 1e-3 and within 10% of the
    /// best constant policy's: it then ignores its input, typically because the
    /// softmax saturated on the agent that wins most contexts, where the gap gradient
    /// `pi ⊙ (g - <pi, g>)` vanishes in the contexts it gets wrong.
    pub fn collapsed(&self) -> bool {
        self.constant_gap.is_some_and(|constant| {
            self.validation_gap > 1e-3 && self.validation_gap >= 0.9 * constant
        })
    }
}

/// A fitted network: input standardization and three dense layers, `W` stored
/// `inputs × outputs` row-major.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    scaling: Scaling,
    layers: Vec<Dense>,
}

/// The smallest mean gap over `rows` of a policy that ignores the context: each
/// agent alone, or the uniform mix.
fn best_constant_gap<G: GameSet + ?Sized>(loss: &GapLoss, games: &G, rows: &[usize]) -> f64 {
    let agents = games.agents();
    let uniform = 1.0 / agents as f64;
    // Policy 0 is the uniform mix, policy `c > 0` agent `c - 1` alone.
    let totals = loss.totals(games, rows, agents + 1, |_, c, pi| match c {
        0 => pi.fill(uniform),
        _ => {
            pi.fill(0.0);
            pi[c - 1] = 1.0;
        }
    });
    totals
        .into_iter()
        .map(|total| total / rows.len() as f64)
        .fold(f64::INFINITY, f64::min)
}

/// What a training phase minimizes.
#[derive(Clone, Copy)]
enum Objective<'a> {
    /// The gap loss (Eq. 17).
    Gap,
    /// Cross-entropy to target policies (`contexts × K`): its logit gradient is
    /// `pi - target`.
    Distil(&'a [f64]),
}

/// The state shared by the training phases: standardized inputs, the split, the
/// games and the loss.
struct Trainer<'a, G: GameSet + ?Sized> {
    x_all: DMatrix<f64>,
    games: &'a G,
    loss: &'a GapLoss,
    options: &'a NetworkOptions,
    train: Vec<usize>,
    valid: Vec<usize>,
    rng: ChaCha8Rng,
    scratch: GapScratch,
    /// Held-out mean gap after each epoch, from the initial weights on.
    curve: Vec<f64>,
}

/// The kept weights: the best held-out gap so far and the epoch that reached it.
struct Best {
    gap: f64,
    epoch: usize,
    params: Params,
}

/// The contexts a mean gap is taken over.
#[derive(Clone, Copy)]
enum Split {
    Training,
    HeldOut,
}

impl<G: GameSet + ?Sized> Trainer<'_, G> {
    fn mean_gap(&self, params: &Params, split: Split) -> f64 {
        let rows = match split {
            Split::Training => &self.train,
            Split::HeldOut => &self.valid,
        };
        let x = self.x_all.select_rows(rows);
        let pi = params
            .forward(&x, Head::Softmax)
            .pop()
            .expect("an output layer");
        let total = self.loss.totals(self.games, rows, 1, |r, _, p| {
            p.iter_mut()
                .zip(pi.row(r).iter())
                .for_each(|(p, v)| *p = *v);
        })[0];
        total / rows.len() as f64
    }

    /// Adam from `best.params` on `objective` for at most `epochs`, keeping in
    /// `best` the weights of the smallest held-out gap; stops after `patience`
    /// epochs without one and halves the step after `plateau`. Epochs are numbered
    /// from `first_epoch`; returns the last one run.
    fn phase(
        &mut self,
        objective: Objective,
        best: &mut Best,
        first_epoch: usize,
        epochs: usize,
        progress: &dyn Fn(usize, usize),
    ) -> usize {
        let options = self.options;
        let agents = self.games.agents();
        let mut params = best.params.clone();
        let mut adam = Adam::new(&params, options.learning_rate, options.weight_decay);
        let mut last = first_epoch;
        let mut since_halving = 0;
        let mut logit_gradient = vec![0.0; agents];
        let mut probabilities = vec![0.0; agents];
        for epoch in 1..=epochs {
            last = first_epoch + epoch;
            self.train.shuffle(&mut self.rng);
            let visited = self.train.len().min(options.epoch_contexts.max(1));
            for batch in self.train[..visited].chunks(options.batch_size.max(1)) {
                let x = self.x_all.select_rows(batch);
                let acts = params.forward(&x, Head::Softmax);
                let pi = acts.last().expect("an output layer");
                let mut delta = DMatrix::zeros(batch.len(), agents);
                for (r, &i) in batch.iter().enumerate() {
                    for (p, v) in probabilities.iter_mut().zip(pi.row(r).iter()) {
                        *p = *v;
                    }
                    match objective {
                        Objective::Gap => {
                            self.loss.softmax_gradient(
                                &self.games.game(i),
                                &probabilities,
                                &mut self.scratch,
                                &mut logit_gradient,
                            );
                        }
                        Objective::Distil(targets) => {
                            let target = &targets[i * agents..(i + 1) * agents];
                            for ((g, p), t) in
                                logit_gradient.iter_mut().zip(&probabilities).zip(target)
                            {
                                *g = p - t;
                            }
                        }
                    }
                    for (c, g) in logit_gradient.iter().enumerate() {
                        delta[(r, c)] = g / batch.len() as f64;
                    }
                }
                let grad = params.backward(&x, &acts, delta);
                adam.update(&mut params, &grad);
            }
            let gap = self.mean_gap(&params, Split::HeldOut);
            self.curve.push(gap);
            if gap < best.gap {
                *best = Best {
                    gap,
                    epoch: last,
                    params: params.clone(),
                };
                since_halving = 0;
            } else {
                since_halving += 1;
                if since_halving >= options.plateau.max(1) {
                    adam.rate *= 0.5;
                    since_halving = 0;
                }
            }
            progress(last, options.max_epochs);
            if last - best.epoch.max(first_epoch) >= options.patience {
                break;
            }
        }
        last
    }
}

impl Network {
    /// Trains on `features` (`contexts × columns`) against the payoff matrices
    /// `games` (one per context) under `loss`, from a random (He) initialization.
    ///
    /// # Panics
    /// When `games` and `features` disagree in length, or there are fewer than two
    /// contexts (the caller checks).
    pub fn train<G: GameSet + ?Sized>(
        features: &[f64],
        columns: usize,
        games: &G,
        loss: &GapLoss,
        options: &NetworkOptions,
        progress: &dyn Fn(usize, usize),
    ) -> (Self, TrainingReport) {
        Self::train_from(features, columns, games, loss, options, None, progress)
    }

    /// Like [`Network::train`], but with a `start` (one policy per context,
    /// `contexts × K`, e.g. the solver's equilibria of the same games) first fits
    /// the network to it by cross-entropy, then minimizes the gap loss from there;
    /// `None` is [`Network::train`]. Early stopping follows the held-out gap across
    /// both phases, so the kept weights are never worse on it than the distilled
    /// ones. This is the remedy for a collapsed training
    /// ([`TrainingReport::collapsed`]): the distilled start already separates the
    /// contexts, where a random one can saturate on the majority winner.
    ///
    /// # Panics
    /// As [`Network::train`], and when `start` is not `contexts × K`.
    pub fn train_from<G: GameSet + ?Sized>(
        features: &[f64],
        columns: usize,
        games: &G,
        loss: &GapLoss,
        options: &NetworkOptions,
        start: Option<&[f64]>,
        progress: &dyn Fn(usize, usize),
    ) -> (Self, TrainingReport) {
        let n = games.len();
        assert!(
            n >= 2 && features.len() == n * columns,
            "one game per context"
        );
        let agents = games.agents();
        assert!(
            start.is_none_or(|start| start.len() == n * agents),
            "one target policy per context"
        );
        let scaling = Scaling::fit(features, columns);
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let (valid, train) = if options.validation_fraction > 0.0 {
            let held = ((n as f64 * options.validation_fraction).round() as usize)
                .min(options.held_out_contexts)
                .clamp(1, n - 1);
            let (valid, train) = order.split_at(held);
            (valid.to_vec(), train.to_vec())
        } else {
            (order.clone(), order)
        };
        let sizes = [columns, options.hidden, options.hidden, agents];
        let params = Params::init(&sizes, &mut rng);
        let mut trainer = Trainer {
            x_all: scaling.standardized(features),
            games,
            loss,
            options,
            train,
            valid,
            rng,
            scratch: GapScratch::default(),
            curve: Vec::new(),
        };
        let mut best = Best {
            gap: trainer.mean_gap(&params, Split::HeldOut),
            epoch: 0,
            params,
        };
        trainer.curve.push(best.gap);
        // One budget of epochs for both phases: distillation may take half of it, the
        // gap loss has the rest.
        let max_epochs = options.max_epochs;
        let distilled_epochs = match start {
            Some(targets) => trainer.phase(
                Objective::Distil(targets),
                &mut best,
                0,
                max_epochs / 2,
                progress,
            ),
            None => 0,
        };
        let epochs = trainer.phase(
            Objective::Gap,
            &mut best,
            distilled_epochs,
            max_epochs - distilled_epochs,
            progress,
        );
        let training_gap = trainer.mean_gap(&best.params, Split::Training);
        let constant_gap = best_constant_gap(loss, games, &trainer.valid);
        let params = best.params;
        let network = Self {
            scaling,
            layers: params.to_layers(),
        };
        let report = TrainingReport {
            epochs,
            best_epoch: best.epoch,
            validation_gap: best.gap,
            training_gap,
            constant_gap: Some(constant_gap),
            distilled_epochs,
            held_out_curve: trainer.curve,
        };
        (network, report)
    }

    /// `pi_theta(x)` for every row of `features`, `contexts × K`.
    pub fn predict(&self, features: &[f64]) -> Vec<f64> {
        let x = self.scaling.standardized(features);
        let n = x.nrows();
        let params = Params::from_layers(&self.layers);
        let pi = params.outputs_in_blocks(&x, Head::Softmax);
        (0..n)
            .flat_map(|r| pi.row(r).iter().copied().collect::<Vec<_>>())
            .collect()
    }

    /// Checks a loaded network: `inputs` features in, `outputs` agents out, each
    /// layer's input the previous one's output, weights and biases of those sizes and
    /// finite.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, inputs: usize, outputs: usize) -> Result<(), String> {
        self.scaling.check(inputs)?;
        check_layers(&self.layers, inputs, outputs, "agents")
    }

    /// Number of input features.
    pub fn inputs(&self) -> usize {
        self.scaling.mean.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_game::PayoffMatrix;
    use verdict_game::Regularizer;

    /// Backpropagation of the batch gap loss against central finite differences of
    /// every weight and bias of a small network.
    #[test]
    fn backpropagation_matches_finite_differences() {
        let rows = [
            vec![0.0, 0.6, -0.2],
            vec![-0.6, 0.0, 0.9],
            vec![0.2, -0.9, 0.0],
        ];
        let games = [
            PayoffMatrix::new(&rows).unwrap(),
            PayoffMatrix::new(&[
                vec![0.0, -0.3, 0.5],
                vec![0.3, 0.0, -0.4],
                vec![-0.5, 0.4, 0.0],
            ])
            .unwrap(),
        ];
        let loss = GapLoss::Priced(Regularizer {
            rho: 0.4,
            costs: vec![0.0, 0.05, 0.0],
        });
        let x = DMatrix::from_row_slice(2, 2, &[0.3, -1.2, 0.8, 0.5]);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let params = Params::init(&[2, 4, 4, 3], &mut rng);
        let mut scratch = GapScratch::default();
        let batch_loss = |p: &Params, scratch: &mut GapScratch| {
            let pi = p.forward(&x, Head::Softmax).pop().unwrap();
            (0..2)
                .map(|r| {
                    let row: Vec<f64> = pi.row(r).iter().copied().collect();
                    loss.value(&games[r], &row, scratch)
                })
                .sum::<f64>()
                / 2.0
        };
        let acts = params.forward(&x, Head::Softmax);
        let mut delta = DMatrix::zeros(2, 3);
        for r in 0..2 {
            let pi: Vec<f64> = acts[2].row(r).iter().copied().collect();
            let mut g = vec![0.0; 3];
            loss.softmax_gradient(&games[r], &pi, &mut scratch, &mut g);
            for c in 0..3 {
                delta[(r, c)] = g[c] / 2.0;
            }
        }
        let grad = params.backward(&x, &acts, delta);
        let h = 1e-6;
        for layer in 0..3 {
            for i in 0..params.w[layer].len() {
                let (mut up, mut down) = (params.clone(), params.clone());
                up.w[layer].as_mut_slice()[i] += h;
                down.w[layer].as_mut_slice()[i] -= h;
                let numeric =
                    (batch_loss(&up, &mut scratch) - batch_loss(&down, &mut scratch)) / (2.0 * h);
                let analytic = grad.w[layer].as_slice()[i];
                assert!(
                    (numeric - analytic).abs() < 1e-6,
                    "w{layer}[{i}]: {numeric} vs {analytic}"
                );
            }
            for i in 0..params.b[layer].len() {
                let (mut up, mut down) = (params.clone(), params.clone());
                up.b[layer][i] += h;
                down.b[layer][i] -= h;
                let numeric =
                    (batch_loss(&up, &mut scratch) - batch_loss(&down, &mut scratch)) / (2.0 * h);
                let analytic = grad.b[layer][i];
                assert!(
                    (numeric - analytic).abs() < 1e-6,
                    "b{layer}[{i}]: {numeric} vs {analytic}"
                );
            }
        }
    }
}
