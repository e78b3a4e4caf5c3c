//! Which equilibrium of a margin game is asked for, from the regularizer `rho`, the
//! per-agent costs and a hard or soft budget — the one dispatch from those settings to
//! a solver, shared by the leaderboard's lottery and NashEval's solver policy.

use crate::{
    budgeted_lottery, budgeted_regularized_equilibrium, maximal_lottery, priced_lottery,
    regularized_equilibrium, soft_budget_equilibrium, solve_each, GameError, HardBudget, Lottery,
    PayoffMatrix, Regularizer, SoftBudget,
};

/// An equilibrium problem on a payoff matrix `A`.
#[derive(Debug, Clone, PartialEq)]
pub enum Equilibrium {
    /// The maximal lottery (canonical minimum-norm when several exist).
    Maximal,
    /// The maximal lottery of `A - 1 c^T + c 1^T`: costs as a linear price (Eq. 20
    /// with `rho = 0`).
    Priced(Vec<f64>),
    /// The regularized equilibrium of `rho/2 ‖pi − 1/K‖² + c^T pi` (Eq. 20, 74).
    Regularized(Regularizer),
    /// Both players held to `c^T pi <= limit` (Eq. 54–55), regularized by `rho`
    /// when `rho > 0`.
    Budgeted {
        /// `rho` (0: the budgeted maximal lottery).
        rho: f64,
        /// Costs and limit.
        budget: HardBudget,
    },
    /// The costs priced by `phi(c^T pi)` (Eq. 52–53); needs `rho > 0`.
    SoftBudgeted {
        /// `rho > 0`.
        rho: f64,
        /// Costs and price.
        budget: SoftBudget,
    },
}

impl Equilibrium {
    /// The problem of `rho` with `costs` (empty: none), under a hard `budget` limit
    /// or a soft budget: the soft budget when given, else the hard one, else costs as a
    /// price. The caller checks that the settings combine.
    ///
    /// A hard limit at or above every agent's cost binds no lottery (`c^T pi ≤ max c`):
    /// the problem is then the unbudgeted one, solved as such — a limit of 1e15 made a
    /// solver carry a constraint of that scale and answer far from the equilibrium.
    pub fn new(
        rho: f64,
        costs: Vec<f64>,
        budget: Option<f64>,
        soft: Option<crate::SoftBudgetPrices>,
    ) -> Self {
        let slack = |limit: f64| costs.iter().all(|&c| c <= limit);
        match (soft, budget) {
            (None, Some(limit)) if slack(limit) => Self::new(rho, Vec::new(), None, None),
            (Some(prices), _) => Self::SoftBudgeted {
                rho,
                budget: SoftBudget { costs, prices },
            },
            (None, Some(limit)) => Self::Budgeted {
                rho,
                budget: HardBudget { costs, limit },
            },
            (None, None) if rho > 0.0 => Self::Regularized(Regularizer { rho, costs }),
            (None, None) if costs.is_empty() => Self::Maximal,
            (None, None) => Self::Priced(costs),
        }
    }

    /// Solves the problem on `game`.
    ///
    /// # Errors
    /// [`GameError`] from the solver (an infeasible budget, say).
    pub fn solve(&self, game: &PayoffMatrix) -> Result<Lottery, GameError> {
        match self {
            Self::Maximal => maximal_lottery(game),
            Self::Priced(costs) => priced_lottery(game, costs),
            Self::Regularized(regularizer) => regularized_equilibrium(game, regularizer),
            Self::Budgeted { rho, budget } if *rho > 0.0 => {
                budgeted_regularized_equilibrium(game, *rho, budget)
            }
            Self::Budgeted { budget, .. } => budgeted_lottery(game, budget),
            Self::SoftBudgeted { rho, budget } => soft_budget_equilibrium(game, *rho, budget),
        }
    }

    /// Solves the problem on every game, in parallel, results in input order.
    pub fn solve_all(&self, games: &[PayoffMatrix]) -> Vec<Result<Lottery, GameError>> {
        solve_each(games, |game| self.solve(game))
    }
}
