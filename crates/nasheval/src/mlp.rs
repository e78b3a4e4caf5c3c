//! The multilayer perceptron both learned maps of NashEval share — the policy
//! network ([`crate::network`]) and the structured payoff model
//! ([`crate::structured`]): dense layers with ReLU between them, a softmax or a
//! linear head, backpropagation given the gradient at the head's output, and Adam
//! with L2 weight decay.
//!
//! Written by hand over `nalgebra` (see [`crate::network`] for the measurement
//! against `candle`): the losses' gradients are given in closed form (Danskin's for
//! the gap loss, the bilinear payoff's for the structured model), so an autodiff
//! graph buys nothing.

use nalgebra::{DMatrix, DVector};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// One dense layer as a model file keeps it: `W` stored `inputs × outputs`
/// row-major.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Dense {
    inputs: usize,
    outputs: usize,
    weights: Vec<f64>,
    bias: Vec<f64>,
}

/// What the last layer applies to its pre-activations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// A softmax over each row (a policy over agents).
    Softmax,
    /// None: the pre-activations are the outputs.
    Linear,
}

/// Parameters as matrices while training.
#[derive(Clone)]
pub(crate) struct Params {
    pub(crate) w: Vec<DMatrix<f64>>,
    pub(crate) b: Vec<DVector<f64>>,
}

/// Rows of each block [`Params::outputs_in_blocks`] evaluates: more than the five up to
/// which nalgebra multiplies with its own loops, small enough that one context costs
/// little.
pub(crate) const INFERENCE_BLOCK: usize = 16;

impl Params {
    pub(crate) fn zeros_like(other: &Self) -> Self {
        Self {
            w: other.w.iter().map(|m| m.map(|_| 0.0)).collect(),
            b: other.b.iter().map(|v| v.map(|_| 0.0)).collect(),
        }
    }

    /// He-initialized weights, zero biases.
    pub(crate) fn init(sizes: &[usize], rng: &mut ChaCha8Rng) -> Self {
        let mut w = Vec::new();
        let mut b = Vec::new();
        for pair in sizes.windows(2) {
            let normal = Normal::new(0.0, (2.0 / pair[0] as f64).sqrt()).expect("positive sd");
            w.push(DMatrix::from_fn(pair[0], pair[1], |_, _| {
                normal.sample(rng)
            }));
            b.push(DVector::zeros(pair[1]));
        }
        Self { w, b }
    }

    /// The head's output for each row of `x`, computed in blocks of exactly
    /// [`INFERENCE_BLOCK`] rows (the last padded with zeros) so that a row's output does
    /// not depend on the rows beside it: nalgebra multiplies matrices of at most five
    /// rows with its own loops and larger ones with `matrixmultiply`, whose sums run in
    /// another order, which moved the last digits of a context's prediction with the
    /// size of its batch. `matrixmultiply` sums each entry in the same order whatever
    /// the number of rows, so equal blocks give equal rows. Inference only; training
    /// keeps the batched [`Params::forward`].
    pub(crate) fn outputs_in_blocks(&self, x: &DMatrix<f64>, head: Head) -> DMatrix<f64> {
        let outputs = self.b.last().map_or(0, DVector::len);
        let mut result = DMatrix::zeros(x.nrows(), outputs);
        let mut block = DMatrix::zeros(INFERENCE_BLOCK, x.ncols());
        for start in (0..x.nrows()).step_by(INFERENCE_BLOCK) {
            let len = INFERENCE_BLOCK.min(x.nrows() - start);
            block.fill(0.0);
            block.rows_mut(0, len).copy_from(&x.rows(start, len));
            let out = self.forward(&block, head).pop().expect("an output layer");
            result.rows_mut(start, len).copy_from(&out.rows(0, len));
        }
        result
    }

    /// Activations of every layer for a batch `x` (`rows × inputs`); the last is the
    /// head's output.
    pub(crate) fn forward(&self, x: &DMatrix<f64>, head: Head) -> Vec<DMatrix<f64>> {
        let mut outputs: Vec<DMatrix<f64>> = Vec::with_capacity(self.w.len());
        for (layer, (w, b)) in self.w.iter().zip(&self.b).enumerate() {
            let mut z = outputs.last().unwrap_or(x) * w;
            // Column-major: adding the bias column by column keeps to contiguous memory.
            for (mut column, &bias) in z.column_iter_mut().zip(b.iter()) {
                column.add_scalar_mut(bias);
            }
            if layer + 1 < self.w.len() {
                z.apply(|v| *v = v.max(0.0));
            } else if head == Head::Softmax {
                softmax_rows(&mut z);
            }
            outputs.push(z);
        }
        outputs
    }

    /// Gradients of the batch loss given its input, the activations and the
    /// gradient with respect to the head's pre-activations (the logits, for a
    /// softmax head).
    pub(crate) fn backward(
        &self,
        x: &DMatrix<f64>,
        acts: &[DMatrix<f64>],
        mut delta: DMatrix<f64>,
    ) -> Self {
        let layers = self.w.len();
        let mut grad = Self::zeros_like(self);
        for layer in (0..layers).rev() {
            let input = if layer == 0 { x } else { &acts[layer - 1] };
            // `input^T delta` through an explicit transpose: the product then runs in
            // matrixmultiply's blocked kernels, where `tr_mul` takes a dot product
            // per entry (a quarter of a K = 64 fit's policy stage).
            grad.w[layer] = input.transpose() * &delta;
            grad.b[layer] = delta.row_sum().transpose();
            if layer > 0 {
                let mut back = &delta * self.w[layer].transpose();
                back.zip_apply(&acts[layer - 1], |d, a| {
                    if a <= 0.0 {
                        *d = 0.0;
                    }
                });
                delta = back;
            }
        }
        grad
    }

    /// The layers as a model file keeps them.
    pub(crate) fn to_layers(&self) -> Vec<Dense> {
        self.w
            .iter()
            .zip(&self.b)
            .map(|(w, b)| Dense {
                inputs: w.nrows(),
                outputs: w.ncols(),
                weights: w.transpose().as_slice().to_vec(),
                bias: b.as_slice().to_vec(),
            })
            .collect()
    }

    /// The parameters of checked `layers` ([`check_layers`]).
    pub(crate) fn from_layers(layers: &[Dense]) -> Self {
        Self {
            w: layers
                .iter()
                .map(|d| DMatrix::from_row_slice(d.inputs, d.outputs, &d.weights))
                .collect(),
            b: layers
                .iter()
                .map(|d| DVector::from_column_slice(&d.bias))
                .collect(),
        }
    }
}

/// Checks loaded `layers`: `inputs` in, `outputs` out, each layer's input the
/// previous one's output, weights and biases of those sizes and finite.
///
/// # Errors
/// What disagrees; `what` names the outputs (e.g. "agents").
pub(crate) fn check_layers(
    layers: &[Dense],
    inputs: usize,
    outputs: usize,
    what: &str,
) -> Result<(), String> {
    let mut width = inputs;
    for (number, layer) in layers.iter().enumerate() {
        let number = number + 1;
        if layer.inputs != width {
            return Err(format!(
                "layer {number} takes {} inputs but receives {width}",
                layer.inputs
            ));
        }
        if layer.weights.len() != layer.inputs * layer.outputs || layer.bias.len() != layer.outputs
        {
            return Err(format!(
                "layer {number} ({} × {}) holds {} weights and {} biases",
                layer.inputs,
                layer.outputs,
                layer.weights.len(),
                layer.bias.len()
            ));
        }
        if layer
            .weights
            .iter()
            .chain(&layer.bias)
            .any(|w| !w.is_finite())
        {
            return Err(format!("layer {number} holds a number that is not finite"));
        }
        width = layer.outputs;
    }
    if layers.is_empty() || width != outputs {
        return Err(format!(
            "the network gives {width} outputs for {outputs} {what}"
        ));
    }
    Ok(())
}

fn softmax_rows(z: &mut DMatrix<f64>) {
    let (rows, columns) = z.shape();
    let data = z.as_mut_slice();
    // Column-major: entry (r, c) is data[c * rows + r].
    for r in 0..rows {
        let max = (0..columns)
            .map(|c| data[c * rows + r])
            .fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for c in 0..columns {
            let e = (data[c * rows + r] - max).exp();
            data[c * rows + r] = e;
            total += e;
        }
        for c in 0..columns {
            data[c * rows + r] /= total;
        }
    }
}

/// Adam (Kingma & Ba) with L2 weight decay in the gradient (as PyTorch's Adam).
pub(crate) struct Adam {
    m: Params,
    v: Params,
    step: i32,
    /// Step size; halved on a plateau by the callers.
    pub(crate) rate: f64,
    decay: f64,
}

impl Adam {
    /// Fresh moments for `params`.
    pub(crate) fn new(params: &Params, rate: f64, decay: f64) -> Self {
        Self {
            m: Params::zeros_like(params),
            v: Params::zeros_like(params),
            step: 0,
            rate,
            decay,
        }
    }

    /// One step of `params` along `grad`.
    pub(crate) fn update(&mut self, params: &mut Params, grad: &Params) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        const EPS: f64 = 1e-8;
        self.step += 1;
        let c1 = 1.0 - B1.powi(self.step);
        let c2 = 1.0 - B2.powi(self.step);
        let (rate, decay) = (self.rate, self.decay);
        let apply = |theta: &mut [f64], g: &[f64], m: &mut [f64], v: &mut [f64]| {
            for (((t, &g), m), v) in theta.iter_mut().zip(g).zip(m).zip(v) {
                let g = g + decay * *t;
                *m = B1 * *m + (1.0 - B1) * g;
                *v = B2 * *v + (1.0 - B2) * g * g;
                *t -= rate * (*m / c1) / ((*v / c2).sqrt() + EPS);
            }
        };
        for l in 0..params.w.len() {
            apply(
                params.w[l].as_mut_slice(),
                grad.w[l].as_slice(),
                self.m.w[l].as_mut_slice(),
                self.v.w[l].as_mut_slice(),
            );
            apply(
                params.b[l].as_mut_slice(),
                grad.b[l].as_slice(),
                self.m.b[l].as_mut_slice(),
                self.v.b[l].as_mut_slice(),
            );
        }
    }
}

/// How [`train_early_stopped`] runs Adam.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct EarlyStopping {
    /// Adam's first step size.
    pub(crate) learning_rate: f64,
    /// L2 weight decay.
    pub(crate) weight_decay: f64,
    /// Epochs at most.
    pub(crate) max_epochs: usize,
    /// Epochs without a better held-out loss before stopping.
    pub(crate) patience: usize,
}

/// Adam from `params` with early stopping: `epoch(params, adam)` takes one epoch's
/// steps and `held_out(params)` measures the loss that decides. The step size halves
/// after every third epoch without a better held-out loss, and training stops after
/// `patience` of them. Returns the best parameters, their held-out loss and their
/// epoch (0 when none improved on the start).
pub(crate) fn train_early_stopped(
    params: Params,
    schedule: EarlyStopping,
    mut epoch: impl FnMut(&mut Params, &mut Adam),
    held_out: impl Fn(&Params) -> f64,
) -> (Params, f64, usize) {
    let start_loss = held_out(&params);
    let mut adam = Adam::new(&params, schedule.learning_rate, schedule.weight_decay);
    let mut best = (params.clone(), start_loss, 0);
    let mut params = params;
    let mut since_best = 0;
    for at in 1..=schedule.max_epochs {
        epoch(&mut params, &mut adam);
        let loss = held_out(&params);
        if loss < best.1 {
            best = (params.clone(), loss, at);
            since_best = 0;
        } else {
            since_best += 1;
            if since_best % 3 == 0 {
                adam.rate *= 0.5;
            }
            if since_best >= schedule.patience {
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A context's output is the same to the last bit whether it is predicted alone,
    /// in a small batch or in a large one (the batched product gave different last
    /// digits by batch size).
    #[test]
    fn a_row_output_does_not_depend_on_its_batch() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let params = Params::init(&[5, 64, 64, 16], &mut rng);
        let normal = Normal::new(0.0, 1.0).unwrap();
        let x = DMatrix::from_fn(200, 5, |_, _| normal.sample(&mut rng));
        for head in [Head::Softmax, Head::Linear] {
            let all = params.outputs_in_blocks(&x, head);
            for (start, len) in [(0, 1), (3, 7), (17, 64), (0, 200)] {
                let part = params.outputs_in_blocks(&x.rows(start, len).into_owned(), head);
                for r in 0..len {
                    assert_eq!(
                        part.row(r),
                        all.row(start + r),
                        "row {} in a batch of {len}",
                        start + r
                    );
                }
            }
        }
    }
}
