#![warn(missing_docs)]
//! Ratings from pairwise battles: the win matrix, online Elo, Bradley–Terry by maximum
//! likelihood (MM and Newton solvers, three tie models), and intervals by bootstrap or
//! sandwich.
//!
//! Bradley–Terry (arena tutorial, BT section): `P(i beats j) = p_i / (p_i + p_j)`, with
//! `p_i = exp(beta_i)`. Scores are shown on the LMArena scale
//! `400 * log10(p_i) + c = 400/ln(10) * beta_i + c`, `c` placing the mean at 1000 or an
//! anchor model at a chosen rating.

mod binomial;
mod bootstrap;
mod bradley_terry;
mod covariate_bt;
mod elo;
mod error;
mod existence;
mod fragility;
mod grounded;
mod leaderboard;
mod likelihood;
mod margin_fill;
mod method;
mod multinomial;
mod newton;
mod normal_interval;
mod plackett_luce;
mod sandwich;
mod scale;
mod skew_low_rank;

pub use bootstrap::CountResampler;
pub use bradley_terry::{
    mm_iterates, BradleyTerry, BtFit, FitStatus, Regularization, Solver, DEFAULT_PRIOR_L2,
};
pub use covariate_bt::{
    CovariateBattles, CovariateBradleyTerry, CovariateDraws, CovariateFit, CovariateVariances,
    DEFAULT_COVARIATE_TOLERANCE, DEFAULT_MIN_PAIR_COUNT,
};
pub use elo::{shuffled_order, Elo, EloRun};
pub use error::RatingsError;
pub use existence::{mle_obstacles, MleObstacle};
pub use fragility::{battles_to_flip, fragility, Flip, Fragility, LEVEL_TOLERANCE};
pub use grounded::{
    outcome_probabilities, BothBad, GroundedCell, GroundedCounts, GroundedFit, GroundedRaoKupper,
};
pub use leaderboard::{Interval, IntervalMethod, Leaderboard, PointEstimate, Standing};
pub use likelihood::TieModel;
pub use margin_fill::{
    observed_core, observed_margins, CompletedMargins, FillModel, MarginFill, UnobservedPairs,
};
pub use method::{
    bootstrap, percentile, Bootstrap, BootstrapDraws, RatingKind, RatingMethod, Replicate, Resample,
};
pub use normal_interval::{normal_intervals, normal_quantile, normal_upper_tail};
pub use plackett_luce::{PlFit, PlackettLuce, Ranking, Rankings};
pub use sandwich::sandwich_covariance;
pub use scale::{Center, EloScale};
pub use skew_low_rank::{SkewLowRank, SkewLowRankFit, MAX_COMPLETION_RANK};
pub use verdict_feedback::{ModelTally, PairCounts, PairTally};
