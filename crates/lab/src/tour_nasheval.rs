//! The tour's NashEval part: a small simulated arena (five agents, one pair per
//! prompt) fitted with the linear backbone and scored against its exact truth, with
//! who wins where by language beside the truth (NashEval Figure 4).

use std::fmt::Write;

use crate::worlds::arena_world::ArenaWorldSettings;
use verdict::io::{read_contextual_log, ContextualOptions, Source};
use verdict::nasheval::{fit, BackboneKind, FitOptions, NetworkOptions, LINEAR_PENALTY};
use verdict::report::{fit_sections, FitPage, PagePart};

use crate::simulation::{evaluate_with_references, test_winners_by, write_arena, ArenaSimulation};
use verdict::model_file::Featurizer;
use verdict::VerdictError;

/// The regularization of the fit and of the true equilibria alike.
const RHO: f64 = 0.001;

/// Simulates, fits, scores and describes.
pub(crate) fn nasheval_part(text: &mut String) -> Result<PagePart, VerdictError> {
    let dir = tempfile::tempdir()
        .map_err(|e| VerdictError::Data(format!("cannot make a temporary directory: {e}")))?;
    let sim = dir.path().join("sim");
    let settings = ArenaSimulation {
        world: ArenaWorldSettings {
            agents: 5,
            seed: 7,
            ..ArenaWorldSettings::default()
        },
        contexts: 10_000,
        test_contexts: 500,
        rho: RHO,
        training_truth: true,
    };
    write_arena(&settings, &sim)?;
    let reading = ContextualOptions {
        text_column: Some("prompt".into()),
        ..ContextualOptions::default()
    };
    let log = read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &reading,
    )?;
    let options = FitOptions {
        rho: RHO,
        folds: 3,
        network: NetworkOptions {
            max_epochs: 80,
            ..NetworkOptions::default()
        },
        ..FitOptions::default()
    }
    .with_backbones(
        BackboneKind::Linear,
        BackboneKind::Linear,
        BackboneKind::Linear,
        LINEAR_PENALTY,
    );
    let started = std::time::Instant::now();
    let featurizer = Featurizer::from_options(&reading).to_value();
    let model = fit(&log, &options, featurizer, &|_, _, _| {})?;
    let seconds = started.elapsed().as_secs_f64();
    let scores = evaluate_with_references(&model, &sim)?;
    let (fitted, truth) = test_winners_by(&model, &sim, "language")?;
    let _ = writeln!(
        text,
        "\nNashEval on a simulated arena: {} agents, {} prompts with one battle each, linear backbone ({seconds:.1} s); on {} test prompts:",
        model.agents.len(),
        settings.contexts,
        settings.test_contexts
    );
    for (policy, score) in &scores {
        let _ = writeln!(
            text,
            "  {policy:<42} exploitability {:.4}, support F1 {:.3}",
            score.exploitability, score.support_f1
        );
    }
    let extras = FitPage {
        winners: Some(("language", &fitted)),
        true_winners: Some(&truth),
        scores: scores
            .into_iter()
            .map(|(policy, s)| s.page_row(policy))
            .collect(),
    };
    Ok(PagePart {
        title: "Each context's winners, learned from selective feedback (NashEval)".into(),
        anchor: "nasheval".into(),
        intro: format!(
            "A simulated arena with exact truth: {} prompts in eight languages, one battle each between a pair chosen by popularity. NashEval learns each prompt's equilibrium over the agents (here with the linear backbone, for speed; LightGBM is the default) and is scored on {} new prompts.",
            settings.contexts, settings.test_contexts
        ),
        body: fit_sections(&model, "(in memory)", Some(seconds), &extras),
    })
}
