//! Equilibria of payoff matrices: the maximal lottery as `verdict game` reports it.

use pyo3::prelude::*;

use verdict::equilibrium::{game_report, named_game, EquilibriumSettings};

use crate::failure;

/// The equilibrium of a payoff matrix as `verdict game --format json` reports it: each
/// agent's probability, the certificate `gap`, the unregularized exploitability
/// (NashEval Eq. 69), the game value (Eq. 71) and whether it is proved unique; `rho`
/// regularizes (Eq. 74); `costs` (name → cost per use) with `budget` keeps the
/// expected cost within the budget.
#[pyfunction]
#[pyo3(signature = (matrix, names, *, rho=0.0, costs=None, budget=None))]
pub fn maximal_lottery_json(
    py: Python<'_>,
    matrix: Vec<Vec<f64>>,
    names: Vec<String>,
    rho: f64,
    costs: Option<Vec<(String, f64)>>,
    budget: Option<f64>,
) -> PyResult<String> {
    py.detach(|| {
        let game = named_game(&names, &matrix, "matrix").map_err(failure)?;
        let settings = EquilibriumSettings {
            rho,
            costs,
            budget,
            ..EquilibriumSettings::default()
        };
        let report = game_report(&game, &names, &settings).map_err(failure)?;
        // The caller holds the matrix it passed.
        serde_json::to_string(&report.without_payoffs()).map_err(failure)
    })
}
