//! A `verdict simulate` directory read back: the manifest and the ground truth of
//! its training or test contexts, for the oracle variant and for evaluation.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context as _};

use verdict::feedback::ContextualLog;
use verdict::io::{read_table, Column, Source};
use verdict::nasheval::{AggregatorKind, Nuisances, PairMap};

/// Ground truth of one file of a simulation, contexts in file order.
pub struct SimulatorTruth {
    /// Agent names (manifest order, the order of every matrix).
    pub agents: Vec<String>,
    /// Rho of the true equilibria.
    pub rho: f64,
    /// Context ids.
    pub ids: Vec<String>,
    /// `e0` per context (every menu).
    pub propensity: Vec<f64>,
    /// `A(x)`, contexts × K × K.
    pub payoff: Vec<f64>,
    /// `pi*(x)`, contexts × K.
    pub equilibrium: Vec<f64>,
    menus: Vec<Vec<String>>,
    /// `mu0`, contexts × menus × K × K.
    menu_means: Vec<f64>,
}

fn cell_text<'t>(column: &'t Column, row: usize, place: &str) -> anyhow::Result<&'t str> {
    column
        .value(row)
        .with_context(|| format!("{place}: missing {}", column.name()))
}

fn floats(text: &str, place: &str) -> anyhow::Result<Vec<f64>> {
    serde_json::from_str(text).with_context(|| format!("{place}: not a list of numbers"))
}

impl SimulatorTruth {
    /// Reads `dir/manifest.json` and `dir/file` (`truth.parquet` or
    /// `test_truth.parquet`).
    pub fn read(dir: &Path, file: &str) -> anyhow::Result<Self> {
        let manifest_path = dir.join("manifest.json");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest_path).with_context(|| {
                format!(
                    "cannot read {}; --truth names a directory written by verdict simulate",
                    manifest_path.display()
                )
            })?)
            .with_context(|| format!("{}: not JSON", manifest_path.display()))?;
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        let agents = strings(&manifest["agents"]);
        let menus: Vec<Vec<String>> = manifest["menus"]
            .as_array()
            .into_iter()
            .flatten()
            .map(strings)
            .collect();
        if agents.len() < 2 || menus.is_empty() {
            bail!("{}: no agents or menus", manifest_path.display());
        }
        let rho = manifest["equilibrium"]["rho"].as_f64().unwrap_or(0.0);
        let path = dir.join(file);
        let table = read_table(&Source::File(path.clone()), None, None)?;
        let column = |name: &str| {
            table
                .column(name)
                .with_context(|| format!("{}: no column {name}", path.display()))
        };
        let (ids, propensity, payoff, means, equilibrium) = (
            column("context_id")?,
            column("propensity")?,
            column("payoff")?,
            column("menu_means")?,
            column("equilibrium")?,
        );
        let k = agents.len();
        let mut truth = Self {
            rho,
            ids: Vec::with_capacity(table.rows()),
            propensity: Vec::with_capacity(table.rows()),
            payoff: Vec::with_capacity(table.rows() * k * k),
            equilibrium: Vec::with_capacity(table.rows() * k),
            menu_means: Vec::with_capacity(table.rows() * menus.len() * k * k),
            agents,
            menus,
        };
        for row in 0..table.rows() {
            let place = format!("{} row {}", path.display(), row + 1);
            truth.ids.push(cell_text(ids, row, &place)?.to_string());
            truth.propensity.push(
                cell_text(propensity, row, &place)?
                    .parse()
                    .with_context(|| format!("{place}: propensity is not a number"))?,
            );
            for (out, c, len) in [
                (&mut truth.payoff, payoff, k * k),
                (&mut truth.menu_means, means, truth.menus.len() * k * k),
                (&mut truth.equilibrium, equilibrium, k),
            ] {
                let values = floats(cell_text(c, row, &place)?, &place)?;
                if values.len() != len {
                    bail!(
                        "{place}: {} holds {} numbers, expected {len}",
                        c.name(),
                        values.len()
                    );
                }
                out.extend(values);
            }
        }
        Ok(truth)
    }

    /// The true nuisances at the contexts of `log` (matched by id, agents and menus
    /// by name), in the layout of the learner's [`PairMap`].
    pub fn nuisances_for(&self, log: &ContextualLog) -> anyhow::Result<Nuisances> {
        let k = self.agents.len();
        let agent = |name: &str| {
            self.agents
                .iter()
                .position(|a| a == name)
                .with_context(|| format!("agent {name:?} of the log is not in the simulation"))
        };
        let row: HashMap<&str, usize> = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        let mut menu_map = Vec::with_capacity(log.menus.len());
        for menu in &log.menus {
            let names: Vec<&str> = menu.iter().map(|&a| log.agents[a].as_str()).collect();
            let position = self
                .menus
                .iter()
                .position(|m| {
                    let mut a: Vec<&str> = m.iter().map(String::as_str).collect();
                    let mut b = names.clone();
                    a.sort_unstable();
                    b.sort_unstable();
                    a == b
                })
                .with_context(|| format!("menu {names:?} of the log is not in the simulation"))?;
            let indices = names
                .iter()
                .map(|n| agent(n))
                .collect::<anyhow::Result<Vec<_>>>()?;
            menu_map.push((position, indices));
        }
        let pairs = PairMap::new(log.agents.len(), &log.menus, AggregatorKind::Mean)
            .map_err(anyhow::Error::msg)?;
        let menus = log.menus.len();
        let blocks = self.menus.len() * k * k;
        let mut propensity = vec![0.0; log.contexts.len() * menus];
        let mut outcome = vec![0.0; log.contexts.len() * pairs.outcomes];
        for (i, id) in log.contexts.iter().enumerate() {
            let &r = row
                .get(id.as_str())
                .with_context(|| format!("context {id:?} of the log has no ground truth"))?;
            propensity[i * menus..(i + 1) * menus].fill(self.propensity[r]);
            for (m, menu_outcomes) in pairs.menu_outcomes.iter().enumerate() {
                let (block, indices) = &menu_map[m];
                let means = &self.menu_means[r * blocks + block * k * k..][..k * k];
                for &(_, h) in menu_outcomes {
                    outcome[i * pairs.outcomes + h.outcome] =
                        means[indices[h.first] * k + indices[h.second]];
                }
            }
        }
        Ok(Nuisances {
            propensity,
            outcome,
        })
    }
}
