//! `verdict game MATRIX.csv`: the canonical maximal lottery of a payoff matrix.

use anyhow::Context;
use serde::Serialize;
use verdict::equilibrium::solve;
use verdict::game::{exploitability, game_value, GameError, PayoffMatrix};
use verdict::io::{read_named_matrix, Source};
use verdict::report::TextTable;

use crate::args::{GameArgs, OutputFormat};

#[derive(Serialize)]
struct AgentProbability {
    name: String,
    probability: f64,
}

/// The JSON of `verdict game`: `gap` certifies the solved (possibly regularized or
/// budgeted) game; `exploitability` is the unregularized Eq. 69.
#[derive(Serialize)]
struct GameReport {
    models: Vec<AgentProbability>,
    exploitability: f64,
    gap: f64,
    value: f64,
    /// Proved to be the only equilibrium.
    unique: bool,
}

/// Reads the matrix: the first column names the rows, the other headers the columns,
/// in the same order.
pub fn read_matrix(path: &std::path::Path) -> anyhow::Result<(Vec<String>, Vec<Vec<f64>>)> {
    let matrix = read_named_matrix(&Source::File(path.to_path_buf()), None)?;
    Ok((matrix.agents, matrix.values))
}

/// Names the agents in a game error instead of indices.
fn describe(error: GameError, names: &[String], file: &str) -> anyhow::Error {
    let name = |i: usize| names.get(i).map_or("?", String::as_str);
    match error {
        GameError::NotSkewSymmetric { row, column, value, .. } if row == column => anyhow::anyhow!(
            "{file}: the diagonal A[{}][{}] = {value} must be 0 (an agent neither wins nor loses against itself)",
            name(row), name(row)
        ),
        GameError::NotSkewSymmetric { row, column, value, mirror } => anyhow::anyhow!(
            "{file}: not skew-symmetric: A[{}][{}] = {value} but A[{}][{}] = {mirror}; payoffs must satisfy A = -A^T with a zero diagonal",
            name(row), name(column), name(column), name(row)
        ),
        GameError::NotFinite { row, column, value } | GameError::OutOfRange { row, column, value } => anyhow::anyhow!(
            "{file}: payoff A[{}][{}] = {value}; every payoff must be a finite number in [-1, 1]",
            name(row), name(column)
        ),
        other => anyhow::anyhow!("{file}: {other}"),
    }
}

pub fn run(args: &GameArgs) -> anyhow::Result<()> {
    let (names, rows) = read_matrix(&args.matrix)?;
    let file = args.matrix.display().to_string();
    let game = PayoffMatrix::new(&rows).map_err(|e| describe(e, &names, &file))?;
    let settings = crate::rank::equilibrium_settings(&args.equilibrium)?;
    let lottery = solve(&game, &names, &settings).with_context(|| format!("solving {file}"))?;
    let pi = &lottery.probabilities;
    let report = GameReport {
        models: names
            .iter()
            .zip(pi)
            .map(|(name, &probability)| AgentProbability {
                name: name.clone(),
                probability,
            })
            .collect(),
        exploitability: exploitability(&game, pi),
        gap: lottery.gap,
        value: game_value(&game, pi, pi),
        unique: lottery.unique,
    };
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        _ => {
            let mut order: Vec<usize> = (0..names.len()).collect();
            order.sort_by(|&a, &b| pi[b].total_cmp(&pi[a]).then(a.cmp(&b)));
            let mut table = TextTable::new(["agent", "probability"]);
            for m in order {
                table.push(vec![names[m].clone(), format!("{:.6}", pi[m])]);
            }
            format!(
                "Equilibrium of {file} ({} agents, rho = {}): gap {:.2e}, exploitability {:.2e}, game value {:.2e}{}\n\n{}",
                names.len(),
                settings.rho,
                report.gap,
                report.exploitability,
                report.value,
                if report.unique {
                    ", proved unique"
                } else {
                    ""
                },
                table.render()
            )
        }
    };
    crate::output::emit(&text, None)
}
