#![warn(missing_docs)]
//! NashEval (contextual equilibrium evaluation): from a contextual log to each
//! context's regularized equilibrium over agents, robustly to errors in the nuisance
//! models (NashEval Sections 4–5, Algorithm 1).
//!
//! - menu aggregators (Appendix F.2) and the efficient-influence-function
//!   pseudo-outcomes `Gamma_jk` (Eq. 42) whose conditional mean is `A_jk(x)`
//!   (Theorem 1);
//! - learners behind regressor/classifier traits: LightGBM and ridge/logistic
//!   ([`backbone`], [`learner`]);
//! - cross-fitted nuisances ([`crossfit`]), payoff surfaces — debiased, plug-in,
//!   oracle, shared or per pair ([`payoff`]) — and a data-driven choice between them
//!   ([`selection`]);
//! - the gap loss (Eq. 17, [`gap`]), the policy network ([`network`]) and the whole
//!   fit as one saved model ([`model`]).

mod aggregator;
pub mod backbone;
pub mod crossfit;
pub mod gap;
mod learner;
pub mod model;
pub mod network;
pub mod pairs;
pub mod payoff;
pub mod pooled;
mod pseudo;
pub mod selection;
pub mod tune;

pub use aggregator::{Aggregator, AggregatorError};
pub use backbone::{Backbone, GbdtParams, Model};
pub use crossfit::{
    cross_fit, menu_floors, CrossFit, CrossFitOptions, NuisanceDesign, Nuisances, Observed,
    PER_MENU_LIMIT,
};
pub use gap::{payoff_matrices, GapLoss, GapScratch};
pub use learner::{context_folds, Classifier, LearnerError, Logistic, Regressor, Ridge};
pub use model::{
    fit, fit_prepared, prepare, AlignedFeatures, FitError, FitOptions, FitSummary, NashEvalModel,
    NetworkInit, PolicyKind, Prepared, Stage, Variant,
};
pub use network::{Network, NetworkOptions, TrainingReport};
pub use pairs::{AggregatorKind, Holder, PairMap};
pub use payoff::{PayoffRegression, PayoffSurface};
pub use pooled::{PairVerdict, PooledOutcome};
pub use pseudo::{plugin_payoff, pseudo_outcome, MenuObservation};
