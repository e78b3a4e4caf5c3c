//! The pooled outcome model: one regressor over `(x, j, k)` for every pair of every
//! menu, instead of one per (menu, pair). A rare menu borrows strength from the
//! others through the agents' one-hot columns, a menu missing from a fold's training
//! contexts still gets predictions, and so does a pair no menu ever held
//! (extrapolated through the agents' structure, without the support positivity
//! asks for — see [`crate::pairs::complete_catalogue`]).
//!
//! Every observed verdict `Z_jk` is a training row `(x, onehot j, onehot k) → Z_jk`
//! and, mirrored, `(x, onehot k, onehot j) → −Z_jk`; a prediction is antisymmetrized,
//! `μ̂_jk(x) = (f(x, j, k) − f(x, k, j)) / 2`, so `μ̂_kj = −μ̂_jk` exactly. The menu
//! does not enter: the pooled model estimates one mean verdict per pair, which is
//! every holding menu's mean when the menu does not change how a pair is judged
//! (always true for pairwise catalogues, where each pair is one menu).

use serde::{Deserialize, Serialize};

use crate::backbone::{Backbone, Model};
use crate::learner::LearnerError;

/// Contexts predicted at once: bounds the design built for prediction to
/// `PREDICTION_CHUNK × pairs × (columns + 2K)` values.
const PREDICTION_CHUNK: usize = 512;

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
        let mut model = backbone.regressor();
        model.fit(&design, width, &targets)?;
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
                    push_row(&mut design, x, agents, j, k);
                    push_row(&mut design, x, agents, k, j);
                }
            }
            let raw = self.model.predict(&design);
            debug_assert_eq!(raw.len() * width, design.len());
            out.extend(raw.chunks(2).map(|f| (f[0] - f[1]) / 2.0));
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
        // Z_jk = s_j - s_k + 0.3 x, a truth the ridge design holds exactly up to the
        // antisymmetrization, which cancels the x term's symmetric part.
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
    fn no_verdict_is_an_error() {
        let e =
            PooledOutcome::fit(&[0.0], 1, 2, &[], &Backbone::Linear { lambda: 1.0 }).unwrap_err();
        assert!(e.0.contains("no verdict"));
    }
}
