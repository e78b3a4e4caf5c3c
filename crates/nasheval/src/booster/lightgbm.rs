//! The LightGBM booster behind [`crate::backbone::Gbdt`], through `lightgbm3`.

use lightgbm3::Dataset;

use super::Rows;
use crate::learner::LearnerError;

/// A LightGBM booster that may move between threads and be shared by them (a fitted
/// model held by a Python object, say). The `lightgbm3` crate leaves its handle
/// `!Send` and `!Sync` because it is a raw pointer, but LightGBM guards every booster
/// itself: its C API takes the booster's shared lock to predict and its exclusive
/// lock to train or load (`c_api.cpp`, `Booster::mutex_`), and a handle has no
/// affinity to the thread that made it.
pub(crate) struct Booster(lightgbm3::Booster);

// SAFETY: see the type's comment: LightGBM locks each booster internally and its
// handle may be used and freed from any thread.
unsafe impl Send for Booster {}
// SAFETY: as above; `&Booster` exposes only calls that take LightGBM's shared lock.
unsafe impl Sync for Booster {}

fn lightgbm(e: lightgbm3::Error) -> LearnerError {
    LearnerError(format!("LightGBM: {e}"))
}

fn dataset(
    rows: &Rows<'_>,
    columns: usize,
    reference: Option<&Dataset>,
) -> Result<Dataset, LearnerError> {
    let mut data = match reference {
        Some(r) => Dataset::from_slice_with_reference(
            rows.features,
            rows.labels,
            columns as i32,
            true,
            Some(r),
        ),
        None => Dataset::from_slice(rows.features, rows.labels, columns as i32, true),
    }
    .map_err(lightgbm)?;
    if let Some(w) = rows.weights {
        data.set_weights(w).map_err(lightgbm)?;
    }
    Ok(data)
}

impl Booster {
    /// Trains with LightGBM's `parameters` on `train`, early-stopping on `valid` when
    /// given.
    pub fn train(
        train: &Rows<'_>,
        valid: Option<&Rows<'_>>,
        columns: usize,
        parameters: &serde_json::Value,
    ) -> Result<Self, LearnerError> {
        let train = dataset(train, columns, None)?;
        let booster = match valid {
            Some(valid) => {
                let valid = dataset(valid, columns, Some(&train))?;
                lightgbm3::Booster::train_with_valid(train, Some(valid), parameters)
            }
            None => lightgbm3::Booster::train(train, parameters),
        }
        .map_err(lightgbm)?;
        Ok(Self(booster))
    }

    /// A booster from LightGBM's model text.
    pub fn from_text(model: &str) -> Result<Self, String> {
        lightgbm3::Booster::from_string(model)
            .map(Self)
            .map_err(|e| format!("LightGBM model: {e}"))
    }

    /// LightGBM's model text.
    pub fn to_text(&self) -> Option<String> {
        self.0.save_string().ok()
    }

    /// Trees after early stopping.
    pub fn trees(&self) -> usize {
        self.0.num_iterations().max(0) as usize
    }

    /// Raw predictions (probabilities for a classifier) of row-major `features`.
    pub fn predict(&self, features: &[f64], columns: usize) -> Vec<f64> {
        self.0
            .predict(features, columns as i32, true)
            .expect("LightGBM prediction on a matrix of the fitted width")
    }
}
