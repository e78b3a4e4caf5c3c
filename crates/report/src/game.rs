//! A solved payoff matrix for people and scripts (`verdict game`).

use serde::{Deserialize, Serialize};

use crate::TextTable;

/// One agent's probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentProbability {
    /// Agent name.
    pub name: String,
    /// Its probability in the equilibrium.
    pub probability: f64,
}

/// The equilibrium of a payoff matrix: `gap` certifies the solved (possibly
/// regularized or budgeted) game; `exploitability` is the unregularized Eq. 69 and
/// `value` the game value of the equilibrium against itself (Eq. 71).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameReport {
    /// Agents in the matrix's order.
    pub models: Vec<AgentProbability>,
    /// `max_j (A pi)_j`.
    pub exploitability: f64,
    /// The solver's certificate.
    pub gap: f64,
    /// `pi^T A pi`.
    pub value: f64,
    /// Proved to be the only equilibrium.
    pub unique: bool,
    /// The payoff matrix as read, rows and columns in `models` order: asked for with
    /// `--matrix`, and always drawn on a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoffs: Option<Vec<Vec<f64>>>,
}

impl GameReport {
    /// The report without its payoff matrix (drawn on a page, not asked for in print).
    pub fn without_payoffs(&self) -> GameReport {
        GameReport {
            payoffs: None,
            ..self.clone()
        }
    }
}

/// The report as text: a headline naming `file` and `rho`, then the agents by
/// probability, highest first (ties in matrix order).
pub fn game_table(report: &GameReport, file: &str, rho: f64) -> String {
    let mut order: Vec<&AgentProbability> = report.models.iter().collect();
    order.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    let mut table = TextTable::new(["agent", "probability"]);
    for m in order {
        table.push(vec![m.name.clone(), format!("{:.6}", m.probability)]);
    }
    format!(
        "Equilibrium of {file} ({} agents, rho = {rho}): gap {:.2e}, exploitability {:.2e}, game value {:.2e}{}\n\n{}",
        report.models.len(),
        report.gap,
        report.exploitability,
        report.value,
        if report.unique { ", proved unique" } else { "" },
        table.render()
    )
}
