//! The pooled outcome model: one regressor over `(x, j, k)` for every pair of every
//! menu, instead of one per (menu, pair). A rare menu borrows strength from the
//! others through the agents' one-hot columns, a menu missing from a fold's training
//! contexts still gets predictions, and so does a pair no menu ever held
//! (extrapolated through the agents' structure, without the support positivity
//! asks for — see [`crate::pairs::complete_catalogue`]).
//!
//! Every observed verdict `Z_jk` is a training row `(x, onehot j, onehot k) → Z_jk`
//! and, mirrored, `(x, onehot k, onehot j) → −Z_jk`, so each agent's effect is learned
//! in both slots from all its verdicts. A prediction is the canonical orientation,
//! `μ̂_jk(x) = f(x, j, k)` for `j < k` and `μ̂_kj = −μ̂_jk`: antisymmetric by
//! construction, one prediction per pair. (Averaging both orientations,
//! `(f(x, j, k) − f(x, k, j)) / 2`, costs twice the predictions and changed nothing
//! measurable — the model trained on mirrored rows is antisymmetric already: the
//! plug-in's error against `A(x)` on the arena world at 20,000 contexts was 0.4212
//! either way. Training on the canonical orientation alone was worse, 0.4617, as each
//! agent's effect is then learned separately in the two slots: EXPERIMENTS.md.) The menu
//! does not enter: the pooled model estimates one mean verdict per pair, which is
//! every holding menu's mean when the menu does not change how a pair is judged
//! (always true for pairwise catalogues, where each pair is one menu).

use serde::{Deserialize, Serialize};

use crate::backbone::{Backbone, Model};
use crate::learner::LearnerError;

/// Contexts predicted at once: bounds a design built for prediction to
/// `PREDICTION_CHUNK × rows per context × width` values.
pub(crate) const PREDICTION_CHUNK: usize = 512;

/// Row sampling with Horvitz–Thompson weights: a row that must be kept has weight 1;
/// any other is kept with probability `rate` and weight `1/rate`, so a weighted loss
/// over the kept rows is an unbiased estimate of the loss over all rows.
struct WeightedSample {
    rate: f64,
    rng: rand_chacha::ChaCha8Rng,
}

impl WeightedSample {
    /// Keeps about `per_context` of `rows_per_context` optional rows per context.
    fn new(per_context: usize, rows_per_context: usize, seed: u64) -> Self {
        use rand::SeedableRng;
        Self {
            rate: (per_context as f64 / rows_per_context.max(1) as f64).min(1.0),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The weight of a row (`kept` rows always 1), or `None` when it is left out.
    fn weight(&mut self, kept: bool) -> Option<f64> {
        use rand::Rng;
        if kept {
            Some(1.0)
        } else {
            (self.rng.random::<f64>() < self.rate).then_some(1.0 / self.rate)
        }
    }
}

/// The (context, item) cells of `contexts` × `items` a weighted loss or risk is
/// measured on, in that order: every cell where `kept(context, item)` with weight 1,
/// and each other cell drawn by [`WeightedSample`] (about `per_context` per context,
/// weight `1/rate`), so a weighted sum over the cells estimates the sum over all
/// `contexts × items` without bias.
pub(crate) fn sampled_cells(
    contexts: impl IntoIterator<Item = usize>,
    items: usize,
    kept: impl Fn(usize, usize) -> bool,
    per_context: usize,
    seed: u64,
) -> (Vec<(usize, usize)>, Vec<f64>) {
    let mut sample = WeightedSample::new(per_context, items, seed);
    let (mut at, mut weights) = (Vec::new(), Vec::new());
    for i in contexts {
        for item in 0..items {
            if let Some(weight) = sample.weight(kept(i, item)) {
                at.push((i, item));
                weights.push(weight);
            }
        }
    }
    (at, weights)
}

/// One observed verdict: the context's row in the features, the pair's agents and
/// the verdict `Z_jk`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairVerdict {
    /// Row of the context in the feature matrix.
    pub row: usize,
    /// Agent `j`.
    pub first: usize,
    /// Agent `k`.
    pub second: usize,
    /// `Z_jk ∈ [-1, 1]`.
    pub verdict: f64,
}

/// A fitted pooled outcome model over `agents` agents and `columns` context features.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PooledOutcome {
    /// Agents K.
    pub agents: usize,
    /// Context features.
    pub columns: usize,
    /// The regressor on `columns + 2K` inputs.
    pub model: Model,
}

/// Appends the design row of `(x, j, k)`.
fn push_row(out: &mut Vec<f64>, x: &[f64], agents: usize, j: usize, k: usize) {
    out.extend_from_slice(x);
    out.extend((0..agents).map(|a| f64::from(u8::from(a == j))));
    out.extend((0..agents).map(|a| f64::from(u8::from(a == k))));
}

impl PooledOutcome {
    /// Fits on `verdicts` at contexts of `features` (`rows × columns`).
    ///
    /// # Errors
    /// [`LearnerError`] when there is no verdict, or from the backbone.
    pub fn fit(
        features: &[f64],
        columns: usize,
        agents: usize,
        verdicts: &[PairVerdict],
        backbone: &Backbone,
    ) -> Result<Self, LearnerError> {
        if verdicts.is_empty() {
            return Err(LearnerError(
                "no verdict to fit the pooled outcome model on".into(),
            ));
        }
        let width = columns + 2 * agents;
        let mut design = Vec::with_capacity(2 * verdicts.len() * width);
        let mut targets = Vec::with_capacity(2 * verdicts.len());
        for v in verdicts {
            let x = &features[v.row * columns..(v.row + 1) * columns];
            push_row(&mut design, x, agents, v.first, v.second);
            targets.push(v.verdict);
            push_row(&mut design, x, agents, v.second, v.first);
            targets.push(-v.verdict);
        }
        let model = backbone.fit_regressor(&design, width, &targets, None)?;
        Ok(Self {
            agents,
            columns,
            model,
        })
    }

    /// `μ̂_jk(x)` for every context of `features` and every pair of `pairs`,
    /// `contexts × pairs` row-major; built `PREDICTION_CHUNK` contexts at a time.
    pub fn predict(&self, features: &[f64], pairs: &[(usize, usize)]) -> Vec<f64> {
        let (columns, agents) = (self.columns, self.agents);
        let n = features.len() / columns.max(1);
        let width = columns + 2 * agents;
        let mut out = Vec::with_capacity(n * pairs.len());
        let mut design = Vec::new();
        for chunk in features.chunks(PREDICTION_CHUNK * columns.max(1)) {
            design.clear();
            for x in chunk.chunks(columns.max(1)) {
                for &(j, k) in pairs {
                    push_row(&mut design, x, agents, j.min(k), j.max(k));
                }
            }
            let raw = self.model.predict(&design);
            debug_assert_eq!(raw.len() * width, design.len());
            let signs = pairs
                .iter()
                .map(|&(j, k)| if j <= k { 1.0 } else { -1.0 })
                .cycle();
            out.extend(raw.iter().zip(signs).map(|(f, sign)| sign * f));
        }
        out
    }

    /// Checks a loaded model's dimensions.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, agents: usize, columns: usize) -> Result<(), String> {
        if self.agents != agents || self.columns != columns {
            return Err(format!(
                "a pooled outcome model for {} agents and {} features where the model has {agents} and {columns}",
                self.agents, self.columns
            ));
        }
        self.model.check(columns + 2 * agents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_are_antisymmetric_and_recover_a_linear_truth() {
        // Z_jk = s_j - s_k, a truth the ridge design holds exactly; the reversed pair
        // is its negative.
        let s = [0.4, -0.1, -0.3];
        let columns = 1;
        let features: Vec<f64> = (0..60).map(|i| f64::from(i) / 60.0).collect();
        let verdicts: Vec<PairVerdict> = (0..60)
            .map(|row| {
                let (first, second) = [(0, 1), (0, 2), (1, 2)][row % 3];
                PairVerdict {
                    row,
                    first,
                    second,
                    verdict: s[first] - s[second],
                }
            })
            .collect();
        let model = PooledOutcome::fit(
            &features,
            columns,
            3,
            &verdicts,
            &Backbone::Linear { lambda: 1e-9 },
        )
        .unwrap();
        let pairs = [(0, 1), (1, 0), (1, 2)];
        let predicted = model.predict(&[0.5], &pairs);
        assert!((predicted[0] + predicted[1]).abs() < 1e-12);
        assert!((predicted[0] - 0.5).abs() < 1e-6, "{predicted:?}");
        assert!((predicted[2] - 0.2).abs() < 1e-6, "{predicted:?}");
    }

    #[test]
    fn sampled_negatives_with_weights_recover_the_selection_rates() {
        // Six agents, their fifteen pairs as menus, one selected per context with
        // rates proportional to p_j p_k and no context effect; a logistic model on
        // the agents' multi-hot sees about half the unselected rows (8 of 14) with
        // weight 15/8 and recovers the rates (logit(e) is nearly additive in the
        // agents when every e is small, so a few thousandths of bias remain).
        let p = [1.0, 0.8, 0.6, 0.4, 0.3, 0.2];
        let menus: Vec<Vec<usize>> = (0..6)
            .flat_map(|j| (j + 1..6).map(move |k| vec![j, k]))
            .collect();
        let weights: Vec<f64> = menus.iter().map(|m| p[m[0]] * p[m[1]]).collect();
        let total: f64 = weights.iter().sum();
        let rates: Vec<f64> = weights.iter().map(|w| w / total).collect();
        let n = 20_000;
        // Low-discrepancy draws: context i selects the menu whose cumulative rate
        // interval holds frac(i * golden ratio).
        let chosen: Vec<usize> = (0..n)
            .map(|i| {
                let u = (i as f64 * 0.618_033_988_749_895).fract();
                let mut cumulative = 0.0;
                rates
                    .iter()
                    .position(|r| {
                        cumulative += r;
                        u < cumulative
                    })
                    .unwrap_or(rates.len() - 1)
            })
            .collect();
        let features: Vec<f64> = (0..n).map(|i| (i % 7) as f64 / 7.0).collect();
        let rows: Vec<usize> = (0..n).collect();
        let model = PooledPropensity::fit(
            &features,
            1,
            6,
            &menus,
            &rows,
            &|i, m| chosen[i] == m,
            &Backbone::Linear { lambda: 1e-6 },
            1,
        )
        .unwrap();
        let at: Vec<(usize, usize)> = (0..menus.len()).map(|m| (0, m)).collect();
        let e = model.predict_at(&[0.5], &at, &menus);
        for (got, want) in e.iter().zip(&rates) {
            // Relative to the rate (0.014 to 0.19 here): an absolute 0.01 would pass a
            // rate of 0.014 fitted as 0.004. The largest relative bias seen is 5.4%, on
            // the rarest pair, where logit additivity is worst.
            assert!((got - want).abs() < 0.08 * want, "{got} vs {want}");
        }
    }

    #[test]
    fn no_verdict_is_an_error() {
        let e =
            PooledOutcome::fit(&[0.0], 1, 2, &[], &Backbone::Linear { lambda: 1.0 }).unwrap_err();
        assert!(e.0.contains("no verdict"));
    }
}

/// Menus per context, besides the selected ones, that the pooled propensity model
/// trains on.
pub const SAMPLED_MENUS_PER_CONTEXT: usize = 8;

/// The pooled propensity model: one classifier of `S^m` over `(x, agents of m, |m|)`
/// for every menu, instead of one per menu. Every selected (context, menu) is a row
/// with weight 1; each unselected one is kept with probability
/// `r = min(1, SAMPLED_MENUS_PER_CONTEXT / |Q|)` and weight `1/r`, so the weighted
/// log loss is an unbiased estimate of the log loss over all (context, menu) rows
/// (Horvitz–Thompson) and the fitted probabilities estimate `e^m(x)` itself, with
/// `|Q| / SAMPLED_MENUS_PER_CONTEXT` times fewer rows. The menu enters as the
/// multi-hot of its agents and its size, so a rare menu borrows from the menus that
/// share its agents.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PooledPropensity {
    /// Agents K.
    pub agents: usize,
    /// Context features.
    pub columns: usize,
    /// The classifier on `columns + K + 1` inputs.
    pub model: Model,
}

/// Appends the design row of menu `menu` at context `x`: `x`, the multi-hot of its
/// agents, its size.
pub(crate) fn push_menu_row(out: &mut Vec<f64>, x: &[f64], agents: usize, menu: &[usize]) {
    out.extend_from_slice(x);
    out.extend((0..agents).map(|a| f64::from(u8::from(menu.contains(&a)))));
    out.push(menu.len() as f64);
}

impl PooledPropensity {
    /// Fits on the contexts `rows` of `features`; `selected(row, menu)` is `S^m`.
    ///
    /// # Errors
    /// [`LearnerError`] from the backbone (e.g. when no menu was ever selected).
    #[allow(clippy::too_many_arguments)]
    pub fn fit(
        features: &[f64],
        columns: usize,
        agents: usize,
        menus: &[Vec<usize>],
        rows: &[usize],
        selected: &dyn Fn(usize, usize) -> bool,
        backbone: &Backbone,
        seed: u64,
    ) -> Result<Self, LearnerError> {
        let (cells, weights) = sampled_cells(
            rows.iter().copied(),
            menus.len(),
            selected,
            SAMPLED_MENUS_PER_CONTEXT,
            seed ^ 0x0000_9E0B_5E1E,
        );
        let mut design = Vec::new();
        for &(i, m) in &cells {
            push_menu_row(
                &mut design,
                &features[i * columns..(i + 1) * columns],
                agents,
                &menus[m],
            );
        }
        let labels: Vec<f64> = cells
            .iter()
            .map(|&(i, m)| f64::from(u8::from(selected(i, m))))
            .collect();
        let width = columns + agents + 1;
        let model = backbone.fit_classifier(&design, width, &labels, Some(&weights))?;
        Ok(Self {
            agents,
            columns,
            model,
        })
    }

    /// `ê^m(x)` at each `(row, menu)` of `at`: `row` of `features` (`contexts ×
    /// columns`), `menu` an index into `menus`; built `PREDICTION_CHUNK × |Q|` rows at
    /// a time, so a fold predicts only the (context, menu) cells it needs.
    pub fn predict_at(
        &self,
        features: &[f64],
        at: &[(usize, usize)],
        menus: &[Vec<usize>],
    ) -> Vec<f64> {
        let columns = self.columns;
        let mut out = Vec::with_capacity(at.len());
        let mut design = Vec::new();
        for chunk in at.chunks(PREDICTION_CHUNK * menus.len().max(1)) {
            design.clear();
            for &(row, menu) in chunk {
                let x = &features[row * columns..(row + 1) * columns];
                push_menu_row(&mut design, x, self.agents, &menus[menu]);
            }
            out.extend(self.model.predict(&design));
        }
        out
    }
}
