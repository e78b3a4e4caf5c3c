//! The structured propensity model: one perceptron of the context emits a score for
//! every agent and an offset, and every menu's propensity follows from its agents'
//! scores,
//!
//! ```text
//! logit ê^m(x) = c_m + b(x) + Σ_{j ∈ m} a_j(x),
//! ```
//!
//! `K + 1` outputs per context instead of one classifier per menu, or one design row
//! of `d + K + 1` columns per sampled (context, menu) as the pooled LightGBM model
//! ([`crate::pooled::PooledPropensity`]) builds. `c_m` is what every context shares:
//! a logistic regression of the selection on the menu's agents (multi-hot) and its
//! size, fitted once by Newton's method; the network learns each context's
//! departure from it, its heads starting at zero, by Adam with early stopping on
//! held-out contexts (so training starts from the context-free model and keeps only
//! what improves on it out of sample).
//!
//! Why this form: an arena that shows a pair with probability proportional to the
//! product of its two models' sampling weights — as LMArena samples, weights that
//! the prompt's category may move — has `log e^{jk}(x) = w_j(x) + w_k(x) − log Z(x)`,
//! additive in the agents; the logit differs from the log by `log(1 − e)`, a few
//! thousandths when a catalogue has many menus. A menu rarely shown borrows from
//! every menu that shares its agents.
//!
//! The loss is each (context, menu) cell's Bernoulli log loss of `S^m`, on every
//! selected cell and a Horvitz–Thompson sample of the others
//! ([`crate::pooled::sampled_cells`], [`MENUS_PER_CONTEXT`] per context with weight
//! `1/rate`), an unbiased estimate of the loss over all cells at a cost linear in
//! the contexts whatever the catalogue's size. The learner is the perceptron of
//! [`crate::structured`] and not LightGBM because the logit is a sum over the menu's
//! agents of one model's outputs, which LightGBM's binding cannot fit (no
//! multi-output trees, no custom objective).

use nalgebra::DMatrix;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::learner::{sigmoid, Classifier, LearnerError, Logistic, Scaling};
use crate::mlp::{train_early_stopped, Adam, Dense, Head, Params};
use crate::pooled::{push_menu_row, sampled_cells};
use crate::structured::{softplus, some_feature_varies, StructuredOptions};

/// Unselected menus per context, besides the selected ones, that the model trains
/// and stops on (every menu of a catalogue of at most this many plus one).
pub const MENUS_PER_CONTEXT: usize = 32;

/// Contexts evaluated at once when predicting.
const PREDICTION_CHUNK: usize = 4096;

/// A fitted structured propensity model over a catalogue of menus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StructuredPropensity {
    agents: usize,
    /// `c_m`, the context-free logit of each menu of the catalogue, in its order.
    base: Vec<f64>,
    scaling: Scaling,
    /// The context model's layers (`d → hidden → hidden → K + 1`); empty when no
    /// feature varies, as then the context model could only shift `c`.
    layers: Vec<Dense>,
}

/// The sampled cells of some contexts: for each context its row and the range of
/// its cells in `cells` (the cells of a context are consecutive).
struct Cells {
    /// `(row, menu)`.
    cells: Vec<(usize, usize)>,
    weights: Vec<f64>,
    labels: Vec<f64>,
    /// `(row, start, end)` per context.
    contexts: Vec<(usize, usize, usize)>,
}

impl Cells {
    fn sample(
        rows: &[usize],
        menus: usize,
        selected: &dyn Fn(usize, usize) -> bool,
        seed: u64,
    ) -> Self {
        let (cells, weights) = sampled_cells(
            rows.iter().copied(),
            menus,
            selected,
            MENUS_PER_CONTEXT,
            seed,
        );
        let labels = cells
            .iter()
            .map(|&(i, m)| f64::from(u8::from(selected(i, m))))
            .collect();
        let mut contexts: Vec<(usize, usize, usize)> = Vec::new();
        for (c, &(row, _)) in cells.iter().enumerate() {
            match contexts.last_mut() {
                Some(last) if last.0 == row => last.2 = c + 1,
                _ => contexts.push((row, c, c + 1)),
            }
        }
        Self {
            cells,
            weights,
            labels,
            contexts,
        }
    }
}

/// `logit ê^m = c_m + b + Σ_{j∈m} a_j` from an output row `o` (`a` then `b`).
fn logit(base: f64, o: &dyn Fn(usize) -> f64, agents: usize, menu: &[usize]) -> f64 {
    base + o(agents) + menu.iter().map(|&j| o(j)).sum::<f64>()
}

/// The Bernoulli log loss of label `y` at logit `z`, without overflow.
fn log_loss(z: f64, y: f64) -> f64 {
    y * softplus(-z) + (1.0 - y) * softplus(z)
}

/// The context-free logits `c_m`: a logistic regression of `S^m` on the menu's
/// agents and size over the cells, by Newton's method on each menu's weighted
/// counts (two rows per menu: selected and not). The penalty (1 on standardized
/// coefficients, against total weights in the thousands) only keeps an agent that
/// no selected menu holds finite.
fn menu_base(agents: usize, menus: &[Vec<usize>], cells: &Cells) -> Result<Vec<f64>, LearnerError> {
    let mut counts = vec![(0.0, 0.0); menus.len()];
    for ((&(_, m), &w), &y) in cells.cells.iter().zip(&cells.weights).zip(&cells.labels) {
        counts[m].0 += w * y;
        counts[m].1 += w * (1.0 - y);
    }
    let (selected, total) = counts
        .iter()
        .fold((0.0, 0.0), |(s, t), &(yes, no)| (s + yes, t + yes + no));
    if selected >= total {
        // Every cell selected: nothing separates menus, and the logit is infinite.
        let p: f64 = 1.0 - 1e-12;
        return Ok(vec![(p / (1.0 - p)).ln(); menus.len()]);
    }
    // A menu's row is the pooled model's without context: its agents' multi-hot and
    // its size.
    let width = agents + 1;
    let (mut design, mut labels, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for (menu, &(yes, no)) in menus.iter().zip(&counts) {
        for (label, weight) in [(1.0, yes), (0.0, no)] {
            if weight > 0.0 {
                push_menu_row(&mut design, &[], agents, menu);
                labels.push(label);
                weights.push(weight);
            }
        }
    }
    let fitted = Logistic::new(1.0).fit_weighted(&design, width, &labels, Some(&weights))?;
    let mut all = Vec::with_capacity(menus.len() * width);
    for menu in menus {
        push_menu_row(&mut all, &[], agents, menu);
    }
    Ok(fitted
        .predict_probability(&all)
        .into_iter()
        .map(|p| {
            let p = p.clamp(1e-300, 1.0 - 1e-16);
            (p / (1.0 - p)).ln()
        })
        .collect())
}

/// One training of the context model.
struct Training<'a> {
    /// Standardized features of the contexts, one row per entry of `cells.contexts`
    /// (in that order).
    x: &'a DMatrix<f64>,
    cells: &'a Cells,
    menus: &'a [Vec<usize>],
    base: &'a [f64],
    agents: usize,
}

impl Training<'_> {
    /// Mean log loss per unit weight over the cells of the contexts `at` (indices
    /// into `cells.contexts`).
    fn mean_loss(&self, params: &Params, at: &[usize]) -> f64 {
        let (mut loss, mut weight) = (0.0, 0.0);
        for chunk in at.chunks(PREDICTION_CHUNK) {
            let out = params
                .forward(&self.x.select_rows(chunk), Head::Linear)
                .pop()
                .expect("an output layer");
            for (r, &context) in chunk.iter().enumerate() {
                let o = |c: usize| out[(r, c)];
                let (_, start, end) = self.cells.contexts[context];
                for c in start..end {
                    let m = self.cells.cells[c].1;
                    let z = logit(self.base[m], &o, self.agents, &self.menus[m]);
                    loss += self.cells.weights[c] * log_loss(z, self.cells.labels[c]);
                    weight += self.cells.weights[c];
                }
            }
        }
        loss / weight.max(f64::MIN_POSITIVE)
    }

    /// One epoch's Adam steps over (a fresh subset of) the training contexts.
    fn epoch(
        &self,
        params: &mut Params,
        adam: &mut Adam,
        train: &mut [usize],
        options: &StructuredOptions,
        rng: &mut ChaCha8Rng,
    ) {
        train.shuffle(rng);
        let visited = train.len().min(options.epoch_targets.max(1));
        for batch in train[..visited].chunks(options.batch_size.max(1)) {
            let x = self.x.select_rows(batch);
            let acts = params.forward(&x, Head::Linear);
            let out = acts.last().expect("an output layer");
            let total: f64 = batch
                .iter()
                .map(|&i| {
                    let (_, start, end) = self.cells.contexts[i];
                    self.cells.weights[start..end].iter().sum::<f64>()
                })
                .sum();
            let mut delta = DMatrix::zeros(batch.len(), self.agents + 1);
            for (r, &i) in batch.iter().enumerate() {
                let o = |c: usize| out[(r, c)];
                let (_, start, end) = self.cells.contexts[i];
                for c in start..end {
                    let m = self.cells.cells[c].1;
                    let z = logit(self.base[m], &o, self.agents, &self.menus[m]);
                    let slope = self.cells.weights[c] * (sigmoid(z) - self.cells.labels[c]) / total;
                    delta[(r, self.agents)] += slope;
                    for &j in &self.menus[m] {
                        delta[(r, j)] += slope;
                    }
                }
            }
            let grad = params.backward(&x, &acts, delta);
            adam.update(params, &grad);
        }
    }
}

impl StructuredPropensity {
    /// Fits on the contexts `rows` of `features` (`contexts × columns`) for the
    /// catalogue `menus` of `agents` agents; `selected(row, menu)` is `S^m`. The
    /// cells of 15% of the contexts (`options.validation_fraction`) decide the
    /// early stopping; the network's settings are `options`' (its rank is not
    /// used).
    ///
    /// # Errors
    /// [`LearnerError`] when there is no context, no menu or no selected cell.
    #[allow(clippy::too_many_arguments)]
    pub fn fit(
        features: &[f64],
        columns: usize,
        agents: usize,
        menus: &[Vec<usize>],
        rows: &[usize],
        selected: &dyn Fn(usize, usize) -> bool,
        options: &StructuredOptions,
    ) -> Result<Self, LearnerError> {
        if rows.is_empty() || menus.is_empty() {
            return Err(LearnerError(
                "no context or no menu to fit the structured propensity model on".into(),
            ));
        }
        let cells = Cells::sample(rows, menus.len(), selected, options.seed ^ 0x0000_5E1E_C7ED);
        if !cells.labels.iter().any(|&y| y > 0.0) {
            return Err(LearnerError(
                "no menu was selected in these contexts: the propensity cannot be learned".into(),
            ));
        }
        let base = menu_base(agents, menus, &cells)?;
        let rows_used: Vec<usize> = cells.contexts.iter().map(|c| c.0).collect();
        let context_features: Vec<f64> = rows_used
            .iter()
            .flat_map(|&i| &features[i * columns..(i + 1) * columns])
            .copied()
            .collect();
        let scaling = Scaling::fit(&context_features, columns);
        let varies = some_feature_varies(&context_features, columns);
        let mut model = Self {
            agents,
            base,
            scaling,
            layers: Vec::new(),
        };
        if !varies || cells.contexts.len() < 2 {
            return Ok(model);
        }
        let x = model.scaling.standardized(&context_features);
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut order: Vec<usize> = (0..cells.contexts.len()).collect();
        order.shuffle(&mut rng);
        let held = ((order.len() as f64 * options.validation_fraction).round() as usize)
            .clamp(1, order.len() - 1);
        let (valid, train) = order.split_at(held);
        let (mut valid, mut train) = (valid.to_vec(), train.to_vec());
        valid.sort_unstable();
        let training = Training {
            x: &x,
            cells: &cells,
            menus,
            base: &model.base,
            agents,
        };
        let mut params = Params::init(
            &[columns, options.hidden, options.hidden, agents + 1],
            &mut rng,
        );
        params.w.last_mut().expect("a head").fill(0.0);
        let (params, _, best_epoch) = train_early_stopped(
            params,
            options.schedule(),
            |params, adam| training.epoch(params, adam, &mut train, options, &mut rng),
            |params| training.mean_loss(params, &valid),
        );
        if best_epoch > 0 {
            model.layers = params.to_layers();
        }
        Ok(model)
    }

    /// `ê^m(x)` at each `(row, menu)` of `at`: `row` of `features` (`contexts ×
    /// columns`), `menu` an index into the catalogue the model was fitted on. The
    /// network runs once per run of consecutive cells of one context.
    pub fn predict_at(
        &self,
        features: &[f64],
        at: &[(usize, usize)],
        menus: &[Vec<usize>],
    ) -> Vec<f64> {
        let columns = self.scaling.mean.len();
        let params = (!self.layers.is_empty()).then(|| Params::from_layers(&self.layers));
        let mut out = Vec::with_capacity(at.len());
        let mut start = 0;
        while start < at.len() {
            // Up to PREDICTION_CHUNK contexts' runs of cells.
            let mut rows: Vec<usize> = Vec::new();
            let mut end = start;
            while end < at.len() {
                let row = at[end].0;
                if rows.last() != Some(&row) {
                    if rows.len() == PREDICTION_CHUNK {
                        break;
                    }
                    rows.push(row);
                }
                end += 1;
            }
            let heads = match &params {
                None => DMatrix::zeros(rows.len(), self.agents + 1),
                Some(params) => {
                    let x: Vec<f64> = rows
                        .iter()
                        .flat_map(|&i| &features[i * columns..(i + 1) * columns])
                        .copied()
                        .collect();
                    params
                        .forward(&self.scaling.standardized(&x), Head::Linear)
                        .pop()
                        .expect("an output layer")
                }
            };
            let mut slot = 0;
            for c in start..end {
                if c > start && at[c].0 != at[c - 1].0 {
                    slot += 1;
                }
                let m = at[c].1;
                let o = |k: usize| heads[(slot, k)];
                out.push(sigmoid(logit(self.base[m], &o, self.agents, &menus[m])));
            }
            start = end;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// Six agents' popularity `p` and prompt tilt `t`.
    const POPULARITY: [f64; 6] = [1.0, 0.8, 0.6, 0.4, 0.3, 0.2];
    const TILT: [f64; 6] = [1.0, -1.0, 0.5, 0.0, -0.5, 1.5];

    /// The fifteen pairs of six agents, as menus.
    fn pair_menus() -> Vec<Vec<usize>> {
        (0..6)
            .flat_map(|j| (j + 1..6).map(move |k| vec![j, k]))
            .collect()
    }

    /// The closed-form propensity of every pair at `x`: `w_j(x) w_k(x) / Z(x)`,
    /// `w_j(x) = p_j exp(t_j x)` (an arena's sampling weights tilted by the prompt).
    fn truth(x: f64) -> Vec<f64> {
        let w: Vec<f64> = (0..6)
            .map(|j| POPULARITY[j] * (TILT[j] * x).exp())
            .collect();
        let raw: Vec<f64> = pair_menus().iter().map(|m| w[m[0]] * w[m[1]]).collect();
        let z: f64 = raw.iter().sum();
        raw.iter().map(|r| r / z).collect()
    }

    /// `contexts` draws of `x` uniform on [−1, 1] and the pair each showed.
    fn planted(contexts: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let features: Vec<f64> = (0..contexts).map(|_| rng.random_range(-1.0..1.0)).collect();
        let chosen = features
            .iter()
            .map(|&x| {
                let u: f64 = rng.random();
                let mut cumulative = 0.0;
                let e = truth(x);
                e.iter()
                    .position(|r| {
                        cumulative += r;
                        u < cumulative
                    })
                    .unwrap_or(e.len() - 1)
            })
            .collect();
        (features, chosen)
    }

    /// The model fitted on every context of `features` (one column) with the pairs
    /// `chosen`, at the default settings.
    fn fitted(features: &[f64], chosen: &[usize]) -> StructuredPropensity {
        let rows: Vec<usize> = (0..features.len()).collect();
        StructuredPropensity::fit(
            features,
            1,
            6,
            &pair_menus(),
            &rows,
            &|i, m| chosen[i] == m,
            &StructuredOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn an_arena_s_tilted_pair_sampling_is_recovered() {
        let (features, chosen) = planted(20_000, 3);
        let menus = pair_menus();
        let model = fitted(&features, &chosen);
        assert!(!model.layers.is_empty(), "the context model was kept");
        let grid: Vec<f64> = (0..21).map(|g| -1.0 + f64::from(g) / 10.0).collect();
        let at: Vec<(usize, usize)> = (0..grid.len())
            .flat_map(|g| (0..menus.len()).map(move |m| (g, m)))
            .collect();
        let predicted = model.predict_at(&grid, &at, &menus);
        let (mut error, mut constant_error) = (0.0, 0.0);
        let overall: Vec<f64> = (0..menus.len())
            .map(|m| chosen.iter().filter(|&&c| c == m).count() as f64 / chosen.len() as f64)
            .collect();
        for (&(g, m), e) in at.iter().zip(&predicted) {
            let want = truth(grid[g])[m];
            error += (e - want).abs() / at.len() as f64;
            constant_error += (overall[m] - want).abs() / at.len() as f64;
        }
        // True propensities average 1/15 = 0.067 and move with x; the context-free
        // rates miss them by 0.028 on average, the model by 0.0023 (seed 3), and
        // 20,000 draws leave a sampling error of about that size.
        assert!(error < 0.004, "mean absolute error {error}");
        assert!(
            constant_error > 5.0 * error,
            "{constant_error} against {error}"
        );
    }

    #[test]
    fn a_constant_context_keeps_the_menus_rates() {
        let (_, chosen) = planted(6_000, 5);
        let menus = pair_menus();
        let features = vec![0.5; chosen.len()];
        let model = fitted(&features, &chosen);
        assert!(model.layers.is_empty());
        let at: Vec<(usize, usize)> = (0..menus.len()).map(|m| (0, m)).collect();
        let total: f64 = model.predict_at(&[0.5], &at, &menus).iter().sum();
        // An additive logit fits the product form's rates to a few thousandths;
        // over fifteen menus they sum to 1 within a percent.
        assert!((total - 1.0).abs() < 0.01, "{total}");
    }

    #[test]
    fn no_selected_menu_is_an_error_naming_it() {
        let menus = vec![vec![0, 1], vec![0, 2], vec![1, 2]];
        let e = StructuredPropensity::fit(
            &[0.0, 1.0],
            1,
            3,
            &menus,
            &[0, 1],
            &|_, _| false,
            &StructuredOptions::default(),
        )
        .unwrap_err();
        assert!(e.0.contains("no menu was selected"), "{}", e.0);
    }
}
