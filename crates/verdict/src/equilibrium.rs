//! Equilibrium settings shared by `verdict rank --method lottery` and `verdict game`:
//! the regularizer strength `rho`, per-agent costs by name, and a hard budget, turned
//! into one call of the game layer.

use verdict_game::{
    exploitability, game_value, max_entropy_lottery, merge_near_ties, Equilibrium, GameError,
    Lottery, PayoffMatrix, TIE_TOLERANCE,
};
use verdict_io::{read_named_matrix, Source};
use verdict_report::{AgentProbability, GameReport};
use verdict_settings::Setting;

/// The prices of a soft budget (NashEval Eq. 53); the costs come from the cost file.
pub use verdict_game::SoftBudgetPrices;

use crate::VerdictError;

/// How to solve the game.
///
/// | Name | Default | Meaning |
/// |---|---|---|
/// | `rho` | 0 | `rho/2 ‖pi − 1/K‖²` (NashEval Eq. 74); 0 is the maximal lottery |
/// | `costs` | none | per-agent costs by name: a linear price `c^T pi` (Eq. 20), or with `budget` the budget's costs |
/// | `budget` | none | hard budget `c^T pi ≤ C` on both players (Eq. 54–55) |
/// | `max_entropy` | false | canonical choice: maximum entropy instead of minimum norm |
/// | `soft_budget` | none | smooth price `phi(c^T pi)` of Eq. 53 (needs costs, rho > 0) |
///
/// The settings read by name too (serde, each missing one at its default).
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EquilibriumSettings {
    /// Regularizer strength, ≥ 0.
    pub rho: f64,
    /// Costs by agent name.
    pub costs: Option<Vec<(String, f64)>>,
    /// Hard budget `C` (needs `costs`).
    pub budget: Option<f64>,
    /// Among several maximal lotteries pick the one of maximum entropy instead of
    /// minimum norm (plain maximal lottery only).
    pub max_entropy: bool,
    /// Soft budget (Eq. 52–53) instead of a linear price: `(lambda_0, lambda_bar, B,
    /// gamma)`, with `costs` and `rho > 0`.
    pub soft_budget: Option<SoftBudgetPrices>,
}

/// Costs in agent order; every agent needs one and every name must be an agent.
///
/// # Errors
/// [`VerdictError::Settings`] naming the unknown agents or the agent without a cost.
pub fn costs_by_agent(names: &[String], costs: &[(String, f64)]) -> Result<Vec<f64>, VerdictError> {
    let unknown: Vec<&str> = costs
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !names.iter().any(|m| m == n))
        .collect();
    if !unknown.is_empty() {
        return Err(VerdictError::Settings(format!(
            "the cost file names agents that are not in the game: {}",
            unknown.join(", ")
        )));
    }
    names
        .iter()
        .map(|name| {
            costs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, c)| *c)
                .ok_or_else(|| {
                    VerdictError::Settings(format!(
                        "the cost file gives no cost for agent {name:?}"
                    ))
                })
        })
        .collect()
}

/// Solves `game` (agents `names`) under `settings`.
///
/// ```
/// use verdict::equilibrium::{solve, EquilibriumSettings};
/// use verdict::game::PayoffMatrix;
///
/// // Rock, paper, scissors: the maximal lottery is uniform, with zero exploitability.
/// let game = PayoffMatrix::from_row_major(&[0., -1., 1., 1., 0., -1., -1., 1., 0.], 3)?;
/// let names = ["rock", "paper", "scissors"].map(String::from);
/// let lottery = solve(&game, &names, &EquilibriumSettings::default())?;
/// assert!(lottery.probabilities.iter().all(|p| (p - 1.0 / 3.0).abs() < 1e-6));
/// assert!(lottery.gap < 1e-6);
/// # Ok::<(), verdict::VerdictError>(())
/// ```
///
/// # Errors
/// Negative or non-finite `rho`, a budget without costs, costs naming unknown agents
/// or missing an agent, an infeasible budget, solver failures.
pub fn solve(
    game: &PayoffMatrix,
    names: &[String],
    settings: &EquilibriumSettings,
) -> Result<Lottery, VerdictError> {
    let rho = settings.rho;
    if !(rho.is_finite() && rho >= 0.0) {
        return Err(VerdictError::Settings(format!(
            "rho must be a finite number >= 0, found {rho}"
        )));
    }
    let costs = settings
        .costs
        .as_ref()
        .map(|c| costs_by_agent(names, c))
        .transpose()?;
    if settings.max_entropy {
        if rho > 0.0 || costs.is_some() {
            return Err(VerdictError::Settings(
                "maximum entropy selects among plain maximal lotteries; it does not combine with rho, costs or a budget (their equilibria are unique or canonical already)".into(),
            ));
        }
        return Ok(max_entropy_lottery(game)?);
    }
    if settings.soft_budget.is_some() {
        if costs.is_none() {
            return Err(VerdictError::Settings(format!(
                "a soft budget needs per-agent costs ({costs} FILE)",
                costs = Setting("costs")
            )));
        }
        if settings.budget.is_some() || rho <= 0.0 {
            return Err(VerdictError::Settings(format!(
                "a soft budget needs rho > 0 and does not combine with a hard {budget}",
                budget = Setting("budget")
            )));
        }
    }
    if settings.budget.is_some() && costs.is_none() {
        return Err(VerdictError::Settings(format!(
            "a budget needs per-agent costs ({costs} FILE)",
            costs = Setting("costs")
        )));
    }
    let costs = costs.unwrap_or_default();
    let problem = Equilibrium::new(rho, costs, settings.budget, settings.soft_budget);
    Ok(problem.solve(game)?)
}

/// A payoff matrix read from a table whose first column names the rows and whose other
/// headers name the columns, in the same order; errors name the agents, not indices.
///
/// # Errors
/// [`VerdictError::Io`] for the table; otherwise as [`named_game`].
pub fn read_game(source: &Source) -> Result<(Vec<String>, PayoffMatrix), VerdictError> {
    let matrix = read_named_matrix(source, None)?;
    let game = named_game(&matrix.agents, &matrix.values, &source.label())?;
    Ok((matrix.agents, game))
}

/// The payoff matrix of `rows` for agents `names` (one per row), from `label`; errors
/// name the agents of an entry, not its indices.
///
/// # Errors
/// [`VerdictError::Data`] naming `label` and the agents of an entry that breaks
/// skew-symmetry, a non-zero diagonal, or a payoff outside `[-1, 1]`, or when the
/// names do not match the rows.
pub fn named_game(
    names: &[String],
    rows: &[Vec<f64>],
    label: &str,
) -> Result<PayoffMatrix, VerdictError> {
    if names.len() != rows.len() {
        return Err(VerdictError::Data(format!(
            "{label}: {} names for {} rows; give one name per row",
            names.len(),
            rows.len()
        )));
    }
    let name = |i: usize| names.get(i).map_or("?", String::as_str);
    PayoffMatrix::new(rows).map_err(|error| {
        VerdictError::Data(match error {
            GameError::NotSkewSymmetric { row, column, value, .. } if row == column => format!(
                "{label}: the diagonal A[{}][{}] = {value} must be 0 (an agent neither wins nor loses against itself)",
                name(row), name(row)
            ),
            GameError::NotSkewSymmetric { row, column, value, mirror } => format!(
                "{label}: not skew-symmetric: A[{}][{}] = {value} but A[{}][{}] = {mirror}; payoffs must satisfy A = -A^T with a zero diagonal",
                name(row), name(column), name(column), name(row)
            ),
            GameError::NotFinite { row, column, value } | GameError::OutOfRange { row, column, value } => format!(
                "{label}: payoff A[{}][{}] = {value}; every payoff must be a finite number in [-1, 1]",
                name(row), name(column)
            ),
            other => format!("{label}: {other}"),
        })
    })
}

/// Solves `game` (agents `names`) under `settings` and reports the equilibrium with
/// its certificate, exploitability (Eq. 69) and value (Eq. 71), and the payoffs.
///
/// # Errors
/// As [`solve`].
pub fn game_report(
    game: &PayoffMatrix,
    names: &[String],
    settings: &EquilibriumSettings,
) -> Result<GameReport, VerdictError> {
    let lottery = solve(game, names, settings)?;
    // Probabilities the solver cannot tell apart are shown equal (and so keep the
    // matrix's order in the table).
    let pi = &merge_near_ties(&lottery.probabilities, TIE_TOLERANCE);
    Ok(GameReport {
        models: names
            .iter()
            .zip(pi)
            .map(|(name, &probability)| AgentProbability {
                name: name.clone(),
                probability,
            })
            .collect(),
        exploitability: exploitability(game, pi),
        gap: lottery.gap,
        value: game_value(game, pi, pi),
        unique: lottery.unique,
        payoffs: Some(
            (0..names.len())
                .map(|j| (0..names.len()).map(|k| game.get(j, k)).collect())
                .collect(),
        ),
    })
}
