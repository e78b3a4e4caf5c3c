//! `verdict fit`: NashEval on a contextual log, written as one model file.

use std::cell::RefCell;
use std::collections::HashMap;

use anyhow::bail;
use indicatif::ProgressBar;

use verdict::contextual::read_catalogue;
use verdict::fit_params::FitParams;
use verdict::fit_request::FitRequest;
use verdict::io::Source;
use verdict::model_file::{category_column, winners_by};
use verdict::nasheval::Stage;
use verdict::report::{fit_html, fit_notes, fit_summary, FitPage};
use verdict_lab::simulation::fit_with_truth;

use crate::args::{FitArgs, OutputFormat};
use crate::log::log_source;
use crate::progress::bar;

pub fn run(args: &FitArgs, quiet: bool) -> anyhow::Result<()> {
    let model_file = crate::output::outputs().model(&args.out, "--out");
    let page = crate::output::outputs().optional_page(args.report.as_deref(), "--report");
    let inputs: Vec<&std::path::Path> = [
        &args.source.contexts,
        &args.source.feedback,
        &args.source.battles,
    ]
    .into_iter()
    .flatten()
    .map(|p| p.as_path())
    .collect();
    verdict::outputs::Outputs::check_with_inputs(
        &[Some(model_file.clone()), page.clone()],
        &inputs,
    )?;
    if let (Some(column), Some(contexts)) = (&args.winners_by, &args.source.contexts) {
        // Checked before the fit, so a bad column costs nothing.
        category_column(&Source::File(contexts.clone()), column)?;
    }
    let request = request(args)?;
    let bars: RefCell<HashMap<&'static str, ProgressBar>> = RefCell::default();
    let progress = |stage: Stage, done: usize, total: usize| {
        let mut bars = bars.borrow_mut();
        let bar = bars
            .entry(stage.label())
            .or_insert_with(|| bar(total, stage.label(), quiet));
        bar.set_position(done as u64);
        if done >= total {
            bar.finish();
        }
    };
    let started = std::time::Instant::now();
    let warn = |warning: &str| eprintln!("{warning}");
    let model = fit_with_truth(&request, args.truth.as_deref(), &warn, &progress)?;
    drop(bars);
    for note in fit_notes(&model) {
        eprintln!("{note}");
    }
    verdict::model_file::save_model(&model, &model_file)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(page_file) = &page {
        let winners = match (&args.winners_by, &args.source.contexts) {
            (None, _) => None,
            (Some(column), Some(contexts)) => Some((
                column.as_str(),
                winners_by(
                    &model,
                    &Source::File(contexts.clone()),
                    request.reading.text_encoder.as_ref(),
                    column,
                )?,
            )),
            (Some(_), None) => bail!(
                "--winners-by reads a column of the contexts table: give the log as --contexts and --feedback"
            ),
        };
        let extras = FitPage {
            winners: winners.as_ref().map(|(c, w)| (*c, w)),
            ..FitPage::default()
        };
        let html = fit_html(
            &model,
            &verdict::page::shown_name(&args.out),
            Some(seconds),
            &extras,
        );
        verdict::page::write_page(page_file, &html)?;
    }
    match args.format {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "model": args.out.display().to_string(),
                "seconds": seconds,
                "stage_seconds": model.summary.stage_seconds,
                "summary": model.summary,
            }))?
        ),
        OutputFormat::Table | OutputFormat::Csv => print!(
            "{}",
            fit_summary(&model, &args.out.display().to_string(), Some(seconds))
        ),
    }
    Ok(())
}

/// The request the flags make: the flags as the fit's settings document and the log
/// where they say it is.
fn request(args: &FitArgs) -> anyhow::Result<FitRequest> {
    Ok(params(args)?.request(log_source(&args.source)?)?)
}

/// The flags as the fit's settings document (the files they name read).
fn params(args: &FitArgs) -> anyhow::Result<FitParams> {
    let source = &args.source;
    Ok(FitParams {
        context_cols: source.context_cols.clone().unwrap_or_default(),
        text_col: source.text_col.clone(),
        text_dim: source.text_dim,
        encoder: source.encoder.encoder.clone(),
        normalize_embeddings: source.encoder.normalize_embeddings,
        categorical: source.categorical,
        catalogue: source
            .catalogue
            .as_deref()
            .map(read_catalogue)
            .transpose()?,
        propensity_col: source.propensity_col.clone(),
        method: args.method,
        variant: args.variant,
        policy: args.policy,
        backbone: args.backbone,
        outcome_backbone: args.outcome_backbone,
        propensity_backbone: args.propensity_backbone,
        payoff_backbone: args.payoff_backbone,
        linear_penalty: args.linear_penalty,
        payoff_regression: args.payoff_regression,
        aggregator: args.aggregator,
        rho: args.rho,
        folds: args.folds,
        seed: args.seed,
        costs: args.costs.costs_table()?,
        budget: args.costs.budget,
        soft_budget: args.costs.soft_budget,
        price: args.costs.price,
        surcharge: args.costs.surcharge,
        width: args.costs.width,
        tune: args.tune,
        nuisance_design: args.nuisance_design,
        surface_rank: args.surface_rank,
        rank_criterion: args.rank_criterion,
        allow_unobserved: args.allow_unobserved,
        propensity_floor: args.propensity_floor,
        propensity_floor_share: args.propensity_floor_share,
        network_init: args.network_init,
        hidden: args.hidden,
        learning_rate: args.learning_rate,
        weight_decay: args.weight_decay,
        batch_size: args.batch_size,
        max_epochs: args.max_epochs,
        patience: args.patience,
        groups_by: args.groups_by.clone(),
        robust_radius: args.robust_radius,
        unobserved: args.unobserved,
        completion_rank: args.completion_rank,
    })
}
