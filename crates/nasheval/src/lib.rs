//! NashEval (contextual equilibrium evaluation): the pieces that turn a contextual
//! log into a debiased payoff matrix — menu aggregators (Appendix F.2) and the
//! efficient-influence-function pseudo-outcomes `Gamma_jk` (Eq. 42) whose conditional
//! mean is the contextual payoff `A_jk(x)` (Theorem 1) — and the nuisance learners
//! behind regressor/classifier traits with the cross-fitting folds of Algorithm 1.

mod aggregator;
mod learner;
mod pseudo;

pub use aggregator::{Aggregator, AggregatorError};
pub use learner::{context_folds, Classifier, LearnerError, Logistic, Regressor, Ridge};
pub use pseudo::{plugin_payoff, pseudo_outcome, MenuObservation};
