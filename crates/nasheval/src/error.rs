//! What can go wrong in a fit, a prediction or a model file ([`FitError`]): a leaf
//! every stage imports, so that no stage imports another for its error type.

use crate::learner::LearnerError;

/// A fit, prediction or model that cannot be made or used, with the setting, context,
/// feature or file at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A setting out of range, or settings that do not combine.
    #[error("{message}")]
    Setting {
        /// The setting at fault ([`FitOptions`]' field name).
        setting: &'static str,
        /// What is wrong and what it must be.
        message: String,
    },
    /// The log cannot carry the fit asked of it: too few agents or contexts, a
    /// catalogue the aggregators refuse, or a log other than the one the options were
    /// checked against.
    #[error("{0}")]
    Log(String),
    /// A learner could not be fitted.
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// The equilibrium solver failed on a context.
    #[error("equilibrium of context {context}: {message}")]
    Solver {
        /// The context's row (from 0).
        context: usize,
        /// The solver's message.
        message: String,
    },
    /// A model file that is not a NashEval model of this version, is inconsistent, or
    /// gives a probability that is not a number.
    #[error("{0}")]
    Model(String),
    /// New contexts whose features are not the model's.
    #[error("{message}")]
    Schema {
        /// The feature missing or unknown.
        feature: String,
        /// What differs and what to do.
        message: String,
    },
}

impl FitError {
    /// A setting at fault.
    pub(crate) fn setting(setting: &'static str, message: impl Into<String>) -> Self {
        Self::Setting {
            setting,
            message: message.into(),
        }
    }
}
