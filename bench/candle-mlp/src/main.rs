//! One training step of the NashEval policy network (5 inputs, two hidden layers of
//! 64 ReLU units, a 5-way softmax) written with candle, timed on 256-row mini-batches
//! (the default training batch) and on a 20,000-row full batch, in f32 and f64.
//!
//! A step does what `verdict bench network` times for the hand-written network:
//! forward pass, softmax probabilities copied to the CPU for the per-context gap
//! gradient, that gradient pushed back through the logits (here a stand-in of the
//! same shape, `(pi - e_r) / n`: the gap gradient itself costs the same whichever
//! library runs the network), backward pass, AdamW update, and the monitoring
//! forward pass.

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use candle_core::{DType, Device, Result, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};

const SIZES: [usize; 4] = [5, 64, 64, 5];

/// Mean milliseconds per step, and of that the monitoring forward pass.
fn time_steps(rows: usize, dtype: DType, steps: usize) -> Result<(f64, f64)> {
    let device = Device::Cpu;
    let mut vars = Vec::new();
    for pair in SIZES.windows(2) {
        let sd = (2.0 / pair[0] as f32).sqrt();
        let weights = Tensor::randn(0f32, sd, (pair[0], pair[1]), &device)?.to_dtype(dtype)?;
        vars.push(Var::from_tensor(&weights)?);
        vars.push(Var::from_tensor(&Tensor::zeros(pair[1], dtype, &device)?)?);
    }
    let settings = ParamsAdamW {
        lr: 1e-3,
        weight_decay: 1e-5,
        ..Default::default()
    };
    let mut optimizer = AdamW::new(vars.clone(), settings)?;
    let x = Tensor::rand(0f32, 1f32, (rows, SIZES[0]), &device)?.to_dtype(dtype)?;
    let logits_of = |x: &Tensor| -> Result<Tensor> {
        let mut h = x.clone();
        for layer in 0..3 {
            h = h
                .matmul(vars[2 * layer].as_tensor())?
                .broadcast_add(vars[2 * layer + 1].as_tensor())?;
            if layer < 2 {
                h = h.relu()?;
            }
        }
        Ok(h)
    };
    let probabilities = |logits: &Tensor| -> Result<Vec<Vec<f64>>> {
        candle_nn::ops::softmax_last_dim(logits)?
            .to_dtype(DType::F64)?
            .to_vec2()
    };
    let k = SIZES[3];
    let mut monitoring = 0.0;
    let started = Instant::now();
    for _ in 0..steps {
        let logits = logits_of(&x)?;
        let pi = probabilities(&logits)?;
        let gradient: Vec<f64> = pi
            .iter()
            .enumerate()
            .flat_map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .map(move |(c, p)| (p - f64::from(u8::from(c == r % k))) / rows as f64)
            })
            .collect();
        let gradient = Tensor::from_vec(gradient, (rows, k), &device)?.to_dtype(dtype)?;
        // d/dθ sum(logits ⊙ G) = the backward pass of the logit gradient G.
        let surrogate = (logits * gradient)?.sum_all()?;
        optimizer.backward_step(&surrogate)?;
        let monitor = Instant::now();
        probabilities(&logits_of(&x)?)?;
        monitoring += monitor.elapsed().as_secs_f64();
    }
    let per_step = started.elapsed().as_secs_f64() / steps as f64;
    Ok((per_step * 1e3, monitoring / steps as f64 * 1e3))
}

fn main() -> Result<()> {
    let allocator = if cfg!(feature = "mimalloc") {
        "mimalloc"
    } else {
        "system allocator"
    };
    for (rows, steps) in [(256, 2000), (20_000, 30)] {
        for dtype in [DType::F32, DType::F64] {
            time_steps(rows, dtype, 3)?;
            let (step, monitoring) = time_steps(rows, dtype, steps)?;
            println!(
                "candle 0.11, {allocator}, {rows} rows, {dtype:?}: {step:.2} ms per step (monitoring forward pass {monitoring:.2} ms)"
            );
        }
    }
    Ok(())
}
