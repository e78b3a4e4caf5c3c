//! A router's decision log with known truth (`verdict bench decision-log`): contexts of
//! `features` uniform numbers, `agents` agents whose outcome is 1 with probability
//! `σ(w_a · x)`, and a logger that routes by a softmax of the same scores mixed with
//! uniform exploration — written as `verdict serve --decisions` writes its log, with
//! the outcomes beside it and each fixed agent's and the logger's exact value on the
//! logged contexts. For timing `verdict ope` at scale and checking it where the answer
//! is known.

use std::io::Write;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};
use verdict::io::StagedDir;
use verdict::VerdictError;

/// The world's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionWorld {
    /// Logged decisions.
    pub rows: usize,
    /// Agents.
    pub agents: usize,
    /// Context features.
    pub features: usize,
    /// The logger's share of uniform routing.
    pub explore: f64,
    /// Seed.
    pub seed: u64,
}

/// What is known of the log written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DecisionTruth {
    /// Each agent's name.
    pub agents: Vec<String>,
    /// Each fixed agent's mean success probability over the logged contexts.
    pub agent_values: Vec<f64>,
    /// The logger's.
    pub logger_value: f64,
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl DecisionWorld {
    /// Writes `decisions.jsonl`, `outcomes.csv` and `truth.json` to the new directory
    /// `out` (staged, published whole).
    ///
    /// # Errors
    /// [`VerdictError::Settings`] for no agent, row or feature or an exploration
    /// share outside `(0, 1]`; I/O errors naming the file.
    pub fn write(&self, out: &Path) -> Result<DecisionTruth, VerdictError> {
        if self.agents < 2 || self.rows == 0 || self.features == 0 {
            return Err(VerdictError::Settings(
                "a decision log needs at least 2 agents, 1 row and 1 feature".into(),
            ));
        }
        if !(self.explore > 0.0 && self.explore <= 1.0) {
            return Err(VerdictError::Settings(format!(
                "explore {} must lie in (0, 1]: a logger that never explores leaves agents unseen",
                self.explore
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (k, d) = (self.agents, self.features);
        let weights: Vec<f64> = (0..k * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let names: Vec<String> = (0..k).map(|a| format!("agent_{a:02}")).collect();
        let staged = StagedDir::new(out, "manifest.json")?;
        let io =
            |path: &Path, e: std::io::Error| VerdictError::Data(format!("{}: {e}", path.display()));
        let decisions_path = staged.path().join("decisions.jsonl");
        let outcomes_path = staged.path().join("outcomes.csv");
        let mut decisions = std::io::BufWriter::new(
            std::fs::File::create(&decisions_path).map_err(|e| io(&decisions_path, e))?,
        );
        let mut outcomes = std::io::BufWriter::new(
            std::fs::File::create(&outcomes_path).map_err(|e| io(&outcomes_path, e))?,
        );
        writeln!(outcomes, "request_id,outcome").map_err(|e| io(&outcomes_path, e))?;
        let mut agent_values = vec![0.0; k];
        let mut logger_value = 0.0;
        for row in 0..self.rows {
            let x: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
            let scores: Vec<f64> = (0..k)
                .map(|a| {
                    weights[a * d..(a + 1) * d]
                        .iter()
                        .zip(&x)
                        .map(|(w, x)| w * x)
                        .sum()
                })
                .collect();
            let success: Vec<f64> = scores.iter().map(|&s| sigmoid(s)).collect();
            let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let soft: Vec<f64> = scores.iter().map(|s| (2.0 * (s - top)).exp()).collect();
            let total: f64 = soft.iter().sum();
            let logging: Vec<f64> = soft
                .iter()
                .map(|s| (1.0 - self.explore) * s / total + self.explore / k as f64)
                .collect();
            let u: f64 = rng.random();
            let mut chosen = k - 1;
            let mut cumulative = 0.0;
            for (a, p) in logging.iter().enumerate() {
                cumulative += p;
                if u < cumulative {
                    chosen = a;
                    break;
                }
            }
            let outcome = u8::from(rng.random::<f64>() < success[chosen]);
            for (v, s) in agent_values.iter_mut().zip(&success) {
                *v += s;
            }
            logger_value += logging
                .iter()
                .zip(&success)
                .map(|(p, s)| p * s)
                .sum::<f64>();
            let id = format!("r{row}");
            let mut context = Map::new();
            context.insert("context_id".into(), Value::String(format!("c{row}")));
            for (j, v) in x.iter().enumerate() {
                context.insert(format!("x{}", j + 1), json!(v));
            }
            let routed: Map<String, Value> = names
                .iter()
                .zip(&logging)
                .map(|(a, p)| (a.clone(), json!(p)))
                .collect();
            let line = json!({
                "request_id": id,
                "context_id": format!("c{row}"),
                "context": context,
                "menu": names[chosen],
                "chosen": names[chosen],
                "propensity": logging[chosen],
                "routed_probabilities": routed,
            });
            writeln!(decisions, "{line}").map_err(|e| io(&decisions_path, e))?;
            writeln!(outcomes, "{id},{outcome}").map_err(|e| io(&outcomes_path, e))?;
        }
        decisions.flush().map_err(|e| io(&decisions_path, e))?;
        outcomes.flush().map_err(|e| io(&outcomes_path, e))?;
        let n = self.rows as f64;
        let truth = DecisionTruth {
            agents: names,
            agent_values: agent_values.iter().map(|v| v / n).collect(),
            logger_value: logger_value / n,
        };
        let truth_path = staged.path().join("truth.json");
        std::fs::write(
            &truth_path,
            serde_json::to_string_pretty(&truth).expect("JSON serialises") + "\n",
        )
        .map_err(|e| io(&truth_path, e))?;
        let mut manifest = Map::new();
        manifest.insert("command".into(), "bench decision-log".into());
        manifest.insert("rows".into(), self.rows.into());
        manifest.insert("agents".into(), self.agents.into());
        manifest.insert("seed".into(), self.seed.into());
        staged.publish(manifest)?;
        Ok(truth)
    }
}
