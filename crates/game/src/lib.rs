#![warn(missing_docs)]
//! Preference games (NashEval Sections 3–4, Appendices C, E, I.1).
//!
//! A symmetric zero-sum game over K agents is a skew-symmetric payoff matrix
//! `A = -A^T` with entries in `[-1, 1]`; `A_jk > 0` means the population prefers j to k.
//! A mixed strategy `pi` on the simplex earns `pi^T A q` against `q`. The **maximal
//! lottery** is an equilibrium: no agent beats it in expectation, `(A pi)_j <= 0` for
//! every j; it stays meaningful when preferences are cyclic, where Bradley–Terry's
//! transitive scores cannot be.
//!
//! This crate holds the payoff type, the maximal lottery (canonical minimum-norm when
//! several exist), the regularized best response and gap of Appendix C (Eq. 29–33),
//! the evaluation metrics of Appendix I.1 (Eq. 69–72), and the social-choice winners
//! (Condorcet, Copeland, Borda) used in reports and baselines, the social-choice orders
//! (Copeland, Schulze, ranked pairs, Kemeny–Young), Nash averaging and α-Rank.

mod active_set;
mod alpha_rank;
mod batch;
mod certificate;
mod error;
mod interior;
mod lottery;
mod matrix_game;
mod metrics;
mod nash_averaging;
mod payoff;
mod problem;
mod qp;
mod regularized;
mod robust;
mod simplex;
mod social;
mod soft_budget;
mod voting;

pub use alpha_rank::AlphaRank;
pub use batch::{solve_batch, solve_each};
pub use error::GameError;
pub use lottery::{
    budgeted_lottery, max_entropy_lottery, maximal_lottery, merge_near_ties, priced_lottery,
    HardBudget, Lottery, LotteryStatus, GAP_TOLERANCE, TIE_TOLERANCE,
};
pub use matrix_game::{minimax_mixture, worst_column, MinimaxMixture};
pub use metrics::{
    exploitability, game_value, strict_win_rate, support, support_f1, SUPPORT_THRESHOLD,
};
pub use nash_averaging::{log_odds_from_counts, nash_averaging, NashAverage};
pub use payoff::{skew_from_upper_rows_into, PayoffMatrix, SKEW_TOLERANCE};
pub use problem::Equilibrium;
pub use regularized::{budgeted_regularized_equilibrium, regularized_equilibrium};
pub use robust::{
    default_radius, robust_lottery, worst_case_payoff, RobustLottery, RADIUS_CONFIDENCE,
};
pub use simplex::{project_to_simplex, Regularizer};
pub use social::{borda_winners, condorcet_winner, copeland_winners};
pub use soft_budget::{soft_budget_equilibrium, SoftBudget, SoftBudgetPrices, SoftRegularizer};
pub use voting::{
    copeland, kemeny_young, ranked_pairs, schulze, strongest_paths, KemenyYoung, SocialOrder,
    KEMENY_MAX_AGENTS,
};
