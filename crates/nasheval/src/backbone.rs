//! Backbones: which learner fits a nuisance or the payoff regression, and the fitted
//! models in a form that can be saved with a NashEval model.
//!
//! The gradient-boosted trees are LightGBM itself (the paper's backbone, NashEval
//! Appendix I.2) through `lightgbm3`; the linear backbone is the ridge/logistic pair of
//! [`crate::learner`]. Each [`Model`] is one fitted learner behind the
//! [`Regressor`]/[`Classifier`] traits, serializable (a LightGBM booster as its model
//! text).

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::booster::{Booster, Rows};
use crate::learner::{check, Classifier, LearnerError, Logistic, Regressor, Ridge};

/// LightGBM settings (the hyperparameters of NashEval Tables 12–13). The number of
/// trees is a maximum: a share of the rows is held out and training stops when its
/// loss has not improved for `early_stopping_rounds` trees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GbdtParams {
    /// Learning rate `lr`.
    pub learning_rate: f64,
    /// Maximum leaves per tree `n_leaf`.
    pub num_leaves: u32,
    /// Maximum tree depth `d_max` (`-1`: unlimited).
    pub max_depth: i32,
    /// Minimum observations per leaf `n_min`.
    pub min_data_in_leaf: u32,
    /// L2 penalty on leaf values `lambda_2`.
    pub lambda_l2: f64,
    /// Feature fraction per tree `f`.
    pub feature_fraction: f64,
    /// Number of trees `T` (maximum, with early stopping).
    pub num_trees: u32,
    /// Trees without improvement of the held-out loss before stopping; 0 disables
    /// early stopping (and the held-out split).
    pub early_stopping_rounds: u32,
    /// Share of rows held out for early stopping.
    pub validation_fraction: f64,
    /// Seed of LightGBM's own randomness and of the held-out split.
    pub seed: u64,
}

impl GbdtParams {
    /// The nuisance models' defaults: 200 trees of 15 leaves (the reference set-up the
    /// NashEval experiments quote), learning rate 0.05, at least 50 rows per leaf.
    pub fn nuisance() -> Self {
        Self {
            learning_rate: 0.05,
            num_leaves: 15,
            max_depth: -1,
            min_data_in_leaf: 50,
            lambda_l2: 0.1,
            feature_fraction: 1.0,
            num_trees: 200,
            early_stopping_rounds: 20,
            validation_fraction: 0.1,
            seed: 0,
        }
    }

    /// The payoff regressor's defaults: 300 trees of 31 leaves, learning rate 0.05,
    /// at least 100 rows per leaf (NashEval Appendix I.3).
    pub fn payoff() -> Self {
        Self {
            num_leaves: 31,
            num_trees: 300,
            min_data_in_leaf: 100,
            ..Self::nuisance()
        }
    }

    fn parameters(&self, objective: &str, metric: &str) -> serde_json::Value {
        json!({
            "objective": objective,
            "metric": metric,
            "num_iterations": self.num_trees,
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "max_depth": self.max_depth,
            "min_data_in_leaf": self.min_data_in_leaf,
            "lambda_l2": self.lambda_l2,
            "feature_fraction": self.feature_fraction,
            "early_stopping_rounds": self.early_stopping_rounds,
            "seed": self.seed,
            "deterministic": true,
            "force_row_wise": true,
            "verbosity": -1,
        })
    }
}

/// A learner family, without its settings: what a command line or a notebook names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum BackboneKind {
    /// LightGBM gradient-boosted trees.
    Gbdt,
    /// Ridge regression and L2 logistic regression.
    Linear,
}

impl BackboneKind {
    /// This family with its default settings: LightGBM with `gbdt`'s parameters
    /// ([`GbdtParams::nuisance`] or [`GbdtParams::payoff`]), or the linear learners
    /// with penalty `linear_penalty`.
    pub fn with(self, gbdt: GbdtParams, linear_penalty: f64) -> Backbone {
        match self {
            Self::Gbdt => Backbone::Gbdt(gbdt),
            Self::Linear => Backbone::Linear {
                lambda: linear_penalty,
            },
        }
    }
}

/// Which learner a nuisance or the payoff regression uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Backbone {
    /// Ridge regression / L2 logistic regression with penalty `lambda`.
    Linear {
        /// Ridge / logistic penalty.
        lambda: f64,
    },
    /// LightGBM gradient-boosted trees.
    Gbdt(GbdtParams),
}

impl Backbone {
    /// A regressor of `targets` on `features` (`rows × columns`, row-major), returned
    /// trained: ridge or LightGBM with squared error, each row weighted by `weights`
    /// when given (a sample weighted by its inverse sampling rate estimates the full
    /// data's loss without bias).
    ///
    /// # Errors
    /// [`LearnerError`] from the learner or for bad weights.
    pub fn fit_regressor(
        &self,
        features: &[f64],
        columns: usize,
        targets: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Model, LearnerError> {
        Ok(match self {
            Self::Linear { lambda } => {
                Model::Ridge(Ridge::new(*lambda).fit_weighted(features, columns, targets, weights)?)
            }
            Self::Gbdt(params) => Model::GbdtRegressor(Gbdt::new(params.clone()).train(
                features,
                columns,
                targets,
                weights,
                "regression",
                "l2",
            )?),
        })
    }

    /// A binary classifier of 0/1 `labels`, returned trained: L2 logistic regression or
    /// LightGBM with log loss, rows weighted as in [`Self::fit_regressor`].
    ///
    /// # Errors
    /// [`LearnerError`] from the learner, for labels that are not 0/1 or bad weights.
    pub fn fit_classifier(
        &self,
        features: &[f64],
        columns: usize,
        labels: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Model, LearnerError> {
        crate::learner::check_labels(labels)?;
        Ok(match self {
            Self::Linear { lambda } => Model::Logistic(
                Logistic::new(*lambda).fit_weighted(features, columns, labels, weights)?,
            ),
            Self::Gbdt(params) => Model::GbdtClassifier(Gbdt::new(params.clone()).train(
                features,
                columns,
                labels,
                weights,
                "binary",
                "binary_logloss",
            )?),
        })
    }

    /// `linear` or `gbdt`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Linear { .. } => "linear",
            Self::Gbdt(_) => "gbdt",
        }
    }
}

/// One fitted learner: the unit saved in a model file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Model {
    /// Ridge regression.
    Ridge(Ridge),
    /// Logistic regression.
    Logistic(Logistic),
    /// LightGBM with squared error.
    GbdtRegressor(Gbdt),
    /// LightGBM with binary log loss.
    GbdtClassifier(Gbdt),
}

impl Model {
    /// Predictions (regressors) or probabilities of label 1 (classifiers).
    pub fn predict(&self, features: &[f64]) -> Vec<f64> {
        match self {
            Self::Ridge(m) => m.predict(features),
            Self::GbdtRegressor(m) => m.predict(features),
            Self::Logistic(m) => m.predict_probability(features),
            Self::GbdtClassifier(m) => m.predict_probability(features),
        }
    }

    /// Checks a loaded model against `inputs` features (linear models; LightGBM's
    /// text is checked by LightGBM when it is loaded).
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, inputs: usize) -> Result<(), String> {
        match self {
            Self::Ridge(m) => m.check(inputs),
            Self::Logistic(m) => m.check(inputs),
            Self::GbdtRegressor(_) | Self::GbdtClassifier(_) => Ok(()),
        }
    }

    /// Whether this model predicts probabilities.
    pub fn is_classifier(&self) -> bool {
        matches!(self, Self::Logistic(_) | Self::GbdtClassifier(_))
    }
}

/// A LightGBM booster with its settings; saved as LightGBM's model text.
#[derive(Serialize, Deserialize)]
#[serde(into = "GbdtText", try_from = "GbdtText")]
pub struct Gbdt {
    params: GbdtParams,
    columns: usize,
    booster: Option<Booster>,
}

impl std::fmt::Debug for Gbdt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gbdt")
            .field("params", &self.params)
            .field("columns", &self.columns)
            .field("trees", &self.trees())
            .finish()
    }
}

/// The saved form of [`Gbdt`].
#[derive(Serialize, Deserialize)]
struct GbdtText {
    params: GbdtParams,
    columns: usize,
    model: Option<String>,
}

impl From<Gbdt> for GbdtText {
    fn from(g: Gbdt) -> Self {
        Self {
            model: g.booster.as_ref().and_then(Booster::to_text),
            params: g.params,
            columns: g.columns,
        }
    }
}

impl TryFrom<GbdtText> for Gbdt {
    type Error = String;
    fn try_from(text: GbdtText) -> Result<Self, String> {
        let booster = text.model.map(|m| Booster::from_text(&m)).transpose()?;
        Ok(Self {
            params: text.params,
            columns: text.columns,
            booster,
        })
    }
}

impl Clone for Gbdt {
    fn clone(&self) -> Self {
        let booster = self
            .booster
            .as_ref()
            .and_then(Booster::to_text)
            .and_then(|m| Booster::from_text(&m).ok());
        Self {
            params: self.params.clone(),
            columns: self.columns,
            booster,
        }
    }
}

impl Gbdt {
    /// An unfitted booster with `params`.
    pub fn new(params: GbdtParams) -> Self {
        Self {
            params,
            columns: 0,
            booster: None,
        }
    }

    /// Trees in the fitted booster (after early stopping).
    pub fn trees(&self) -> usize {
        self.booster.as_ref().map_or(0, Booster::trees)
    }

    /// These settings trained on `features` and `targets` (row `weights` when given)
    /// for LightGBM's `objective`, early-stopped on `metric`: a fitted booster.
    fn train(
        &self,
        features: &[f64],
        columns: usize,
        targets: &[f64],
        weights: Option<&[f64]>,
        objective: &str,
        metric: &str,
    ) -> Result<Self, LearnerError> {
        let rows = check(features, columns, targets)?;
        crate::learner::check_weights(weights, rows)?;
        let labels: Vec<f32> = targets.iter().map(|&t| t as f32).collect();
        let weights: Option<Vec<f32>> = weights.map(|w| w.iter().map(|&v| v as f32).collect());
        let held_out = if self.params.early_stopping_rounds > 0 {
            ((rows as f64 * self.params.validation_fraction) as usize).min(rows / 2)
        } else {
            0
        };
        let mut parameters = self.params.parameters(objective, metric);
        let booster = if held_out >= 10 {
            // A seeded random share of rows is held out (rows often come grouped,
            // e.g. by pair in the payoff regression: no stride is safe).
            let mut order: Vec<usize> = (0..rows).collect();
            order.shuffle(&mut ChaCha8Rng::seed_from_u64(
                self.params.seed ^ 0x5EED_0FE5,
            ));
            let mut held = vec![false; rows];
            order[..held_out].iter().for_each(|&r| held[r] = true);
            let (mut train_x, mut train_y, mut valid_x, mut valid_y) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let (mut train_w, mut valid_w) = (Vec::new(), Vec::new());
            for r in 0..rows {
                let row = &features[r * columns..(r + 1) * columns];
                let w = weights.as_ref().map_or(1.0, |w| w[r]);
                let (x, y, ws) = if held[r] {
                    (&mut valid_x, &mut valid_y, &mut valid_w)
                } else {
                    (&mut train_x, &mut train_y, &mut train_w)
                };
                x.extend_from_slice(row);
                y.push(labels[r]);
                ws.push(w);
            }
            let weighted = weights.is_some();
            let train = Rows {
                features: &train_x,
                labels: &train_y,
                weights: weighted.then_some(&train_w[..]),
            };
            let valid = Rows {
                features: &valid_x,
                labels: &valid_y,
                weights: weighted.then_some(&valid_w[..]),
            };
            Booster::train(&train, Some(&valid), columns, &parameters)?
        } else {
            parameters["early_stopping_rounds"] = json!(0);
            let train = Rows {
                features,
                labels: &labels,
                weights: weights.as_deref(),
            };
            Booster::train(&train, None, columns, &parameters)?
        };
        Ok(Self {
            params: self.params.clone(),
            columns,
            booster: Some(booster),
        })
    }

    fn raw_predict(&self, features: &[f64]) -> Vec<f64> {
        let Some(booster) = &self.booster else {
            return vec![0.0; features.len() / self.columns.max(1)];
        };
        booster.predict(features, self.columns)
    }
}

impl Regressor for Gbdt {
    fn fit(&self, features: &[f64], columns: usize, targets: &[f64]) -> Result<Self, LearnerError> {
        self.train(features, columns, targets, None, "regression", "l2")
    }

    fn predict(&self, features: &[f64]) -> Vec<f64> {
        self.raw_predict(features)
    }
}

impl Classifier for Gbdt {
    fn fit(&self, features: &[f64], columns: usize, labels: &[f64]) -> Result<Self, LearnerError> {
        crate::learner::check_labels(labels)?;
        self.train(features, columns, labels, None, "binary", "binary_logloss")
    }

    fn predict_probability(&self, features: &[f64]) -> Vec<f64> {
        self.raw_predict(features)
    }
}
