//! A build without LightGBM (the `lightgbm` feature off, as in the quick `cargo demo`
//! build): the linear backbone works, and asking for the `gbdt` backbone, or loading a
//! model fitted with it, is refused with the way out.

use super::{absent, Rows};
use crate::learner::LearnerError;

/// No booster can exist in this build: the type has no values.
pub(crate) enum Booster {}

impl Booster {
    /// Refused: this build has no LightGBM.
    pub fn train(
        _train: &Rows<'_>,
        _valid: Option<&Rows<'_>>,
        _columns: usize,
        _parameters: &serde_json::Value,
    ) -> Result<Self, LearnerError> {
        Err(LearnerError(absent()))
    }

    /// Refused: this build has no LightGBM.
    pub fn from_text(_model: &str) -> Result<Self, String> {
        Err(absent())
    }

    pub fn to_text(&self) -> Option<String> {
        match *self {}
    }

    pub fn trees(&self) -> usize {
        match *self {}
    }

    pub fn predict(&self, _features: &[f64], _columns: usize) -> Vec<f64> {
        match *self {}
    }
}
