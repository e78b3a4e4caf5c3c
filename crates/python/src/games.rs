//! Equilibria of payoff matrices: the maximal lottery as `verdict game` reports it.

use pyo3::prelude::*;

use verdict::equilibrium::{game_report, named_game, EquilibriumSettings};
use verdict::settings::from_document;

use crate::failure;

/// The equilibrium of a payoff matrix as `verdict game --format json` reports it: each
/// agent's probability, the certificate `gap`, the unregularized exploitability
/// (NashEval Eq. 69), the game value (Eq. 71) and whether it is proved unique;
/// `settings` is a settings document of [`EquilibriumSettings`] (`rho` regularizes,
/// Eq. 74; `costs`, name → cost per use, with `budget` keeps the expected cost within
/// the budget).
#[pyfunction]
pub fn maximal_lottery_json(
    py: Python<'_>,
    settings: &str,
    matrix: Vec<Vec<f64>>,
    names: Vec<String>,
) -> PyResult<String> {
    let settings: EquilibriumSettings = from_document(settings).map_err(failure)?;
    py.detach(|| {
        let game = named_game(&names, &matrix, "matrix").map_err(failure)?;
        let report = game_report(&game, &names, &settings).map_err(failure)?;
        // The caller holds the matrix it passed.
        serde_json::to_string(&report.without_payoffs()).map_err(failure)
    })
}
