//! The soft budget of NashEval Appendix F.3 (Eq. 52–53): `Omega(pi) = Omega_0(pi) +
//! phi(c^T pi)` with `Omega_0 = rho/2 ||pi - 1/K||^2` and the smooth price
//! `phi(s) = lambda_0 s + lambda_bar gamma ln(1 + exp((s - B) / gamma))`, whose marginal
//! price `phi'(s) = lambda_0 + lambda_bar sigma((s - B) / gamma)` rises from `lambda_0`
//! to `lambda_0 + lambda_bar` as the expected spend `s` crosses `B`.
//!
//! Both the equilibrium and the best response reduce to the linear price of Eq. 20 at
//! the right marginal price: `phi` is convex, so at the optimum `phi(c^T q)` may be
//! replaced by its tangent `phi'(s*) c^T q`. For a fixed marginal price the solution's
//! spend falls as the price rises, while `phi'` rises with the spend: the spend `s*` is
//! the unique fixed point of a nonincreasing map, bracketed by `[min c, max c]` and
//! found by regula falsi. The equilibrium is certified by the VI gap
//! `<F(pi), pi> - min_j F_j(pi)` of `F(pi) = -A pi + rho (pi - 1/K) + phi'(c^T pi) c`.

use serde::{Deserialize, Serialize};

use crate::certificate::Lottery;
use crate::payoff::check_costs;
use crate::simplex::{cross_payoff, priced_gap_gradient, priced_response_into};
use crate::{regularized_equilibrium, GameError, PayoffMatrix, Regularizer};

/// Most root-finding steps on the spend (Illinois converges in about ten).
const ROOT_STEPS: usize = 100;

/// The parameters of the smooth price `phi` of Eq. 53. Only the budget has no
/// default: the prices default to [`SoftBudgetPrices::DEFAULT_BASE_PRICE`],
/// [`SoftBudgetPrices::DEFAULT_SURCHARGE`] and [`SoftBudgetPrices::DEFAULT_WIDTH`]
/// (also when read from a document that leaves them out).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftBudgetPrices {
    /// Base marginal price `lambda_0 >= 0` (also read as `price`).
    #[serde(default, alias = "price")]
    pub base_price: f64,
    /// Extra marginal price above the budget, `lambda_bar >= 0`.
    #[serde(default = "SoftBudgetPrices::default_surcharge")]
    pub surcharge: f64,
    /// The soft budget `B`.
    pub budget: f64,
    /// Transition width `gamma > 0`.
    #[serde(default = "SoftBudgetPrices::default_width")]
    pub width: f64,
}

impl SoftBudgetPrices {
    /// Default base price `lambda_0`: nothing below the budget.
    pub const DEFAULT_BASE_PRICE: f64 = 0.0;
    /// Default surcharge `lambda_bar`: one unit of payoff per unit of cost above it.
    pub const DEFAULT_SURCHARGE: f64 = 1.0;
    /// Default transition width `gamma`.
    pub const DEFAULT_WIDTH: f64 = 0.01;

    /// Budget `budget` with the default prices.
    pub fn with_budget(budget: f64) -> Self {
        Self {
            base_price: Self::DEFAULT_BASE_PRICE,
            surcharge: Self::DEFAULT_SURCHARGE,
            budget,
            width: Self::DEFAULT_WIDTH,
        }
    }

    /// The soft budget `budget`, when there is one, priced at `base_price` below it,
    /// `base_price + surcharge` above, over a transition of `width` (Eq. 53) — the
    /// settings documents' four flat settings as one.
    pub fn given(budget: Option<f64>, base_price: f64, surcharge: f64, width: f64) -> Option<Self> {
        budget.map(|budget| Self {
            base_price,
            surcharge,
            budget,
            width,
        })
    }

    fn default_surcharge() -> f64 {
        Self::DEFAULT_SURCHARGE
    }

    fn default_width() -> f64 {
        Self::DEFAULT_WIDTH
    }

    /// `phi(s) = lambda_0 s + lambda_bar gamma ln(1 + exp((s - B) / gamma))` (Eq. 53),
    /// with the softplus evaluated without overflow.
    pub fn price(&self, spend: f64) -> f64 {
        let z = (spend - self.budget) / self.width;
        let softplus = z.max(0.0) + (-z.abs()).exp().ln_1p();
        self.base_price * spend + self.surcharge * self.width * softplus
    }

    /// `phi'(s) = lambda_0 + lambda_bar sigma((s - B) / gamma)`.
    pub fn marginal_price(&self, spend: f64) -> f64 {
        let z = (spend - self.budget) / self.width;
        let sigma = if z >= 0.0 {
            1.0 / (1.0 + (-z).exp())
        } else {
            z.exp() / (1.0 + z.exp())
        };
        self.base_price + self.surcharge * sigma
    }

    /// Finite prices, `lambda_0, lambda_bar >= 0` and `gamma > 0`.
    ///
    /// # Errors
    /// [`GameError::Solver`] naming the condition that fails.
    pub fn validate(&self) -> Result<(), GameError> {
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

/// The soft budget: per-agent costs `c` and the price `phi` of their expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftBudget {
    /// Per-agent costs `c`.
    pub costs: Vec<f64>,
    /// The price `phi`.
    pub prices: SoftBudgetPrices,
}

impl SoftBudget {
    /// `c^T q`.
    pub fn spend(&self, q: &[f64]) -> f64 {
        q.iter().zip(&self.costs).map(|(p, c)| p * c).sum()
    }

    fn validate(&self, agents: usize) -> Result<(), GameError> {
        check_costs(&self.costs, agents)?;
        self.prices.validate()
    }

    /// The marginal price `phi'(s)` at the fixed point `s = spend_at(phi'(s))`:
    /// `spend_at(price)` is the spend of the linear-price solution, continuous and
    /// nonincreasing in the price, so `f(s) = spend_at(phi'(s)) - s` is decreasing with
    /// `f(min c) >= 0 >= f(max c)`. The root is bracketed and found by the Illinois
    /// variant of regula falsi (superlinear; each step is one linear-price solve).
    fn fixed_point_price<E>(
        &self,
        mut spend_at: impl FnMut(f64) -> Result<f64, E>,
    ) -> Result<f64, E> {
        let mut excess =
            |s: f64| -> Result<f64, E> { Ok(spend_at(self.prices.marginal_price(s))? - s) };
        let (low, high) = self
            .costs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &c| {
                (l.min(c), h.max(c))
            });
        let scale = 1.0 + low.abs().max(high.abs());
        let tolerance = 1e-14 * scale;
        let (mut a, mut fa) = (low, excess(low)?);
        if fa <= tolerance {
            return Ok(self.prices.marginal_price(a));
        }
        let (mut b, mut fb) = (high, excess(high)?);
        if fb >= -tolerance {
            return Ok(self.prices.marginal_price(b));
        }
        let mut kept = 0i8;
        for _ in 0..ROOT_STEPS {
            let c = ((a * fb - b * fa) / (fb - fa)).clamp(a, b);
            let fc = excess(c)?;
            if fc.abs() <= tolerance || b - a <= f64::EPSILON * scale {
                return Ok(self.prices.marginal_price(c));
            }
            if fc > 0.0 {
                (a, fa) = (c, fc);
                if kept == 1 {
                    fb *= 0.5;
                }
                kept = 1;
            } else {
                (b, fb) = (c, fc);
                if kept == -1 {
                    fa *= 0.5;
                }
                kept = -1;
            }
        }
        Ok(self.prices.marginal_price(0.5 * (a + b)))
    }

    /// The linear price `price * c` of Eq. 20 as a [`Regularizer`].
    fn priced(&self, rho: f64, price: f64) -> Regularizer {
        Regularizer {
            rho,
            costs: self.costs.iter().map(|c| price * c).collect(),
        }
    }
}

/// `Omega(q) = rho/2 ||q - 1/K||^2 + phi(c^T q)` (NashEval Eq. 52), with its best
/// response and gap as [`Regularizer`] has them for the linear price of Eq. 20.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftRegularizer {
    /// Strength `rho > 0`.
    pub rho: f64,
    /// The soft budget.
    pub budget: SoftBudget,
}

impl SoftRegularizer {
    /// `Omega(q)`.
    pub fn value(&self, q: &[f64]) -> f64 {
        let uniform = 1.0 / q.len() as f64;
        let quadratic: f64 = q.iter().map(|&x| (x - uniform).powi(2)).sum();
        0.5 * self.rho * quadratic + self.budget.prices.price(self.budget.spend(q))
    }

    /// `T(pi) = argmin_q pi^T A q + Omega(q)` (Eq. 29) into `out`: the linear-price
    /// best response at the fixed-point marginal price.
    pub fn best_response_into(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut Vec<f64>,
        out: &mut [f64],
    ) {
        let budget = &self.budget;
        let mut respond = |price: f64, out: &mut [f64]| {
            let cost = |j: usize| price * budget.costs[j];
            priced_response_into(a, pi, self.rho, cost, scratch, out);
        };
        let price = budget.fixed_point_price(|price| {
            respond(price, out);
            Ok::<_, std::convert::Infallible>(budget.spend(out))
        });
        let Ok(price) = price;
        respond(price, out);
    }

    /// `G(pi) = Omega(pi) - pi^T A T(pi) - Omega(T(pi))` (Eq. 30); `response`
    /// receives `T(pi)`.
    pub fn gap(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        scratch: &mut Vec<f64>,
        response: &mut [f64],
    ) -> f64 {
        self.best_response_into(a, pi, scratch, response);
        (self.value(pi) - cross_payoff(a, pi, response) - self.value(response)).max(0.0)
    }

    /// `grad G(pi) = -A T(pi) + rho (pi - 1/K) + phi'(c^T pi) c` (Eq. 33) into
    /// `gradient`, given `response = T(pi)`.
    pub fn gap_gradient(
        &self,
        a: &PayoffMatrix,
        pi: &[f64],
        response: &[f64],
        gradient: &mut [f64],
    ) {
        let price = self.budget.prices.marginal_price(self.budget.spend(pi));
        let cost = |j: usize| price * self.budget.costs[j];
        priced_gap_gradient(a, pi, response, self.rho, cost, gradient);
    }
}

/// The equilibrium under `rho` and the soft budget.
///
/// # Errors
/// Bad settings (see [`SoftBudgetPrices::validate`]), `rho <= 0`, solver failures.
pub fn soft_budget_equilibrium(
    a: &PayoffMatrix,
    rho: f64,
    soft: &SoftBudget,
) -> Result<Lottery, GameError> {
    soft.validate(a.agents())?;
    let solve = |price: f64| regularized_equilibrium(a, &soft.priced(rho, price));
    let price = soft.fixed_point_price(|price| Ok(soft.spend(&solve(price)?.probabilities)))?;
    let solution = solve(price)?;
    // Certify at the marginal price of the solution's own spend.
    let pi = solution.probabilities;
    let priced = soft.priced(rho, soft.prices.marginal_price(soft.spend(&pi)));
    let mut field = vec![0.0; pi.len()];
    priced.operator_into(a, &pi, &mut field);
    let at_pi: f64 = field.iter().zip(&pi).map(|(f, p)| f * p).sum();
    let gap = (at_pi - field.iter().copied().fold(f64::INFINITY, f64::min)).max(0.0);
    Ok(Lottery::with_gap(pi, gap, solution.iterations))
}
