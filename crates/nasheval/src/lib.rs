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
//!   oracle, shared, per pair or structured ([`payoff`], [`structured`]: each agent's
//!   score and cyclic coordinates from one model of the context) — and a data-driven
//!   choice between them ([`selection`]);
//! - the gap loss (Eq. 17, [`gap`]) and the policy network ([`network`]);
//! - the whole fit in the order data flows: checked options ([`options`]) → cross-fit
//!   and surface ([`fit`]) → a fitted model ([`fitted`]) with its schema checks
//!   ([`schema`]) and what it measured ([`summary`]).

mod aggregator;
pub mod backbone;
pub mod baselines;
mod booster;
pub mod context_dependence;
pub mod crossfit;
mod error;
pub mod fit;
pub mod fitted;
pub mod gap;
pub mod global;
mod groups;
mod histogram;
mod learner;
mod mlp;
pub mod network;
pub mod options;
pub mod pairs;
pub mod payoff;
pub mod pluralistic;
pub mod pooled;
mod pseudo;
pub mod rank_choice;
mod schema;
pub mod selection;
mod settings;
pub mod structured;
pub mod structured_propensity;
pub mod summary;
#[cfg(test)]
mod test_support;
pub mod tune;
pub mod winners;

pub use aggregator::{Aggregator, AggregatorError};
pub use backbone::{Backbone, BackboneKind, GbdtParams, Model};
pub use context_dependence::ContextDependence;
pub use crossfit::{
    cross_fit, menu_floors, CrossFit, CrossFitOptions, Nuisances, Observed, Outcomes,
    PER_MENU_LIMIT,
};
pub use error::FitError;
pub use fit::{cycle_evidence, fit, fit_prepared, prepare, CrossFitted, Prepared};
pub use fitted::{NashEvalModel, Predictions, FORMAT, VERSION};
pub use gap::{payoff_matrices, GameSet, Games, GapLoss, GapScratch};
pub use global::{GlobalDetail, GlobalPolicy};
pub use groups::context_groups;
pub use histogram::PropensityHistogram;
pub use learner::{context_folds, Classifier, LearnerError, Logistic, Regressor, Ridge};
pub use network::{Network, NetworkOptions, TrainingReport};
pub use options::{
    CheckedOptions, FitMethod, FitOptions, NetworkInit, PolicyKind, Variant, LINEAR_PENALTY,
};
pub use pairs::{AggregatorKind, PairHolder, PairMap};
pub use payoff::{PairTargets, PayoffSurface, PseudoOutcomes};
pub use pluralistic::PluralisticBoard;
pub use pooled::{PairVerdict, PooledOutcome};
pub use pseudo::{plugin_payoff, pseudo_outcome, MenuObservation};
pub use schema::AlignedFeatures;
pub use settings::{NuisanceDesign, PayoffRegression, PolicyRule, RankCriterion};
pub use structured::{
    HeadTable, PairTarget, StructuredOptions, StructuredReport, StructuredSurface,
};
pub use summary::{FitSummary, Stage};
pub use winners::WinnerFrequency;
