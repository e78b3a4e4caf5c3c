//! `verdict evaluate`: a fitted model on a simulation's test contexts against the
//! ground truth (NashEval Appendix I.1): average unregularized exploitability
//! (Eq. 69), support F1 at tau = 1e-3 (Eq. 70) and the game value against the true
//! equilibrium (Eq. 71).

use anyhow::{bail, Context as _};

use verdict::game::{exploitability, game_value, support_f1, PayoffMatrix, SUPPORT_THRESHOLD};

use crate::args::{EvaluateArgs, OutputFormat};
use crate::fit::load_model;
use crate::predict::model_features;
use crate::truth::SimulatorTruth;

pub fn run(args: &EvaluateArgs) -> anyhow::Result<()> {
    let model = load_model(&args.model)?;
    let truth = SimulatorTruth::read(&args.truth, "test_truth.parquet")?;
    let (table, features) = model_features(&model, &args.truth.join("test_contexts.parquet"))?;
    if table.ids != truth.ids {
        bail!(
            "{}: test_contexts.parquet and test_truth.parquet list different contexts",
            args.truth.display()
        );
    }
    if (truth.rho - model.options.rho).abs() > 1e-12 {
        eprintln!(
            "warning: the true equilibria use rho = {} but the model rho = {}; support F1 compares different games",
            truth.rho, model.options.rho
        );
    }
    let policies = model.policy(&features)?;
    let score = score(&model.agents, &policies, &truth)?;
    let report = serde_json::to_value(score)?;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        OutputFormat::Table | OutputFormat::Csv => println!(
            "{} test contexts: exploitability {:.4}, support F1 {:.4}, game value vs the true equilibrium {:+.4}",
            score.contexts, score.exploitability, score.support_f1, score.game_value
        ),
    }
    Ok(())
}

/// The Appendix I.1 metrics of policies against the truth, averaged over contexts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Score {
    /// Average unregularized exploitability (Eq. 69).
    pub exploitability: f64,
    /// Average support F1 at tau = 1e-3 (Eq. 70).
    pub support_f1: f64,
    /// Average game value against the true equilibrium (Eq. 71).
    pub game_value: f64,
    /// Contexts scored.
    pub contexts: usize,
}

/// Scores `policies` (`contexts × K`, agents in `agents` order, contexts in the
/// truth's order) against `truth`.
pub fn score(agents: &[String], policies: &[f64], truth: &SimulatorTruth) -> anyhow::Result<Score> {
    // Agent j of the policies is truth agent order[j].
    let order = agents
        .iter()
        .map(|a| {
            truth
                .agents
                .iter()
                .position(|t| t == a)
                .with_context(|| format!("agent {a:?} of the model is not in the simulation"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if order.len() != truth.agents.len() {
        bail!(
            "the model knows {} agents, the simulation {}",
            order.len(),
            truth.agents.len()
        );
    }
    let k = order.len();
    let (mut expl, mut f1, mut value) = (0.0, 0.0, 0.0);
    for (i, pi_model) in policies.chunks(k).enumerate() {
        let mut pi = vec![0.0; k];
        for (j, &t) in order.iter().enumerate() {
            pi[t] = pi_model[j];
        }
        let rows: Vec<Vec<f64>> = truth.payoff[i * k * k..(i + 1) * k * k]
            .chunks(k)
            .map(<[f64]>::to_vec)
            .collect();
        let a =
            PayoffMatrix::new(&rows).with_context(|| format!("true payoff of {}", truth.ids[i]))?;
        let star = &truth.equilibrium[i * k..(i + 1) * k];
        expl += exploitability(&a, &pi);
        f1 += support_f1(&pi, star, SUPPORT_THRESHOLD);
        value += game_value(&a, &pi, star);
    }
    let n = truth.ids.len().max(1) as f64;
    Ok(Score {
        exploitability: expl / n,
        support_f1: f1 / n,
        game_value: value / n,
        contexts: truth.ids.len(),
    })
}
