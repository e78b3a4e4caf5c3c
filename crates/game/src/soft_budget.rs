//! The soft budget of NashEval Appendix F.3 (Eq. 52–53): `Omega(pi) = Omega_0(pi) +
//! phi(c^T pi)` with `Omega_0 = rho/2 ||pi - 1/K||^2` and the smooth price
//! `phi(s) = lambda_0 s + lambda_bar gamma ln(1 + exp((s - B) / gamma))`, whose marginal
//! price `phi'(s) = lambda_0 + lambda_bar sigma((s - B) / gamma)` rises from `lambda_0`
//! to `lambda_0 + lambda_bar` as the expected spend `s` crosses `B`.
//!
//! The equilibrium solves the variational inequality for
//! `F(pi) = -A pi + rho (pi - 1/K) + phi'(c^T pi) c`. For a fixed marginal price the
//! problem is the regularized equilibrium with costs `phi' c`, whose spend falls as the
//! price rises, while `phi'` rises with the spend: the equilibrium spend is the unique
//! fixed point of a nonincreasing map, found by bisection on `s` in `[min c, max c]`.
//! The result is certified by the VI gap `<F(pi), pi> - min_j F_j(pi)`.

use crate::lottery::Lottery;
use crate::payoff::check_costs;
use crate::{regularized_equilibrium, GameError, PayoffMatrix, Regularizer};

/// Bisection steps on the spend (interval shrinks by 2^-60).
const BISECTION_STEPS: usize = 60;

/// The smooth price of Eq. 53.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftBudget {
    /// Per-agent costs `c`.
    pub costs: Vec<f64>,
    /// Base marginal price `lambda_0 >= 0`.
    pub base_price: f64,
    /// Extra marginal price above the budget, `lambda_bar >= 0`.
    pub surcharge: f64,
    /// The soft budget `B`.
    pub budget: f64,
    /// Transition width `gamma > 0`.
    pub width: f64,
}

impl SoftBudget {
    /// `phi'(s)`.
    pub fn marginal_price(&self, spend: f64) -> f64 {
        let z = (spend - self.budget) / self.width;
        let sigma = if z >= 0.0 {
            1.0 / (1.0 + (-z).exp())
        } else {
            z.exp() / (1.0 + z.exp())
        };
        self.base_price + self.surcharge * sigma
    }

    fn validate(&self, agents: usize) -> Result<(), GameError> {
        check_costs(&self.costs, agents)?;
        let finite = [self.base_price, self.surcharge, self.budget, self.width]
            .iter()
            .all(|x| x.is_finite());
        if !finite {
            return Err(GameError::Solver(
                "the soft budget's prices, budget and width must be finite".into(),
            ));
        }
        if self.base_price < 0.0 || self.surcharge < 0.0 || self.width <= 0.0 {
            return Err(GameError::Solver(
                "the soft budget needs lambda_0 >= 0, lambda_bar >= 0 and gamma > 0".into(),
            ));
        }
        Ok(())
    }
}

/// The equilibrium under `rho` and the soft budget.
///
/// # Errors
/// Bad settings (see [`SoftBudget`]), `rho <= 0`, solver failures.
pub fn soft_budget_equilibrium(
    a: &PayoffMatrix,
    rho: f64,
    soft: &SoftBudget,
) -> Result<Lottery, GameError> {
    soft.validate(a.agents())?;
    let solve_at = |spend: f64| -> Result<Lottery, GameError> {
        let price = soft.marginal_price(spend);
        let costs = soft.costs.iter().map(|c| price * c).collect();
        regularized_equilibrium(a, &Regularizer { rho, costs })
    };
    let spend_of = |lottery: &Lottery| -> f64 {
        lottery
            .probabilities
            .iter()
            .zip(&soft.costs)
            .map(|(p, c)| p * c)
            .sum()
    };
    let (mut low, mut high) = soft
        .costs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &c| {
            (l.min(c), h.max(c))
        });
    for _ in 0..BISECTION_STEPS {
        let middle = 0.5 * (low + high);
        if spend_of(&solve_at(middle)?) > middle {
            low = middle;
        } else {
            high = middle;
        }
    }
    let solution = solve_at(0.5 * (low + high))?;
    let pi = solution.probabilities;
    let k = pi.len();
    let price = soft.marginal_price(pi.iter().zip(&soft.costs).map(|(p, c)| p * c).sum());
    let priced = Regularizer {
        rho,
        costs: soft.costs.iter().map(|c| price * c).collect(),
    };
    let mut field = vec![0.0; k];
    priced.operator_into(a, &pi, &mut field);
    let at_pi: f64 = field.iter().zip(&pi).map(|(f, p)| f * p).sum();
    let gap = (at_pi - field.iter().copied().fold(f64::INFINITY, f64::min)).max(0.0);
    Ok(Lottery::with_gap(pi, gap, solution.iterations))
}
