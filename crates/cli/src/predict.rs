//! `verdict predict`: a fitted model's equilibrium and winner set at new contexts.

use anyhow::bail;

use verdict::io::{ContextTable, Source, TextEncoder};
use verdict::model_file::{load_model, predict_at, read_model_contexts, write_predictions_parquet};
use verdict::nasheval::NashEvalModel;
use verdict::report::{predictions_csv, predictions_json};

use crate::args::{PredictArgs, PredictFormat};
use crate::output::emit;

/// Reads `path` with the model's featurizer and puts its features in the model's
/// order (a different schema is an error; unseen categories are warned about).
pub fn model_features(
    model: &NashEvalModel,
    path: &std::path::Path,
) -> anyhow::Result<(ContextTable, Vec<f64>)> {
    let read = read_model_contexts(model, &Source::File(path.to_path_buf()), None)?;
    if let Some(warning) = read.unseen_warning() {
        eprintln!("{warning}");
    }
    Ok((read.table, read.features))
}

pub fn run(args: &PredictArgs) -> anyhow::Result<()> {
    let out = crate::output::outputs().optional(args.out.as_deref(), "--out");
    verdict::outputs::Outputs::check_with_inputs(
        std::slice::from_ref(&out),
        &[&args.model, &args.contexts],
    )?;
    let model = load_model(&args.model)?;
    let contexts = Source::File(args.contexts.clone());
    let encoder = load_encoder(args.encoder.as_deref())?;
    let predictions = predict_at(&model, &contexts, encoder.as_ref(), args.payoff, &|w| {
        eprintln!("{w}")
    })?;
    match (args.format, &out) {
        (PredictFormat::Json, out) => emit(&predictions_json(&predictions), out.as_ref()),
        (PredictFormat::Csv, out) => emit(&predictions_csv(&predictions)?, out.as_ref()),
        (PredictFormat::Parquet, Some(out)) => Ok(write_predictions_parquet(out, &predictions)?),
        (PredictFormat::Parquet, None) => bail!("--format parquet writes a file; give --out FILE"),
    }
}

/// The encoder of `--encoder`, if given: loaded plain, and normalized as the model
/// recorded when it reads it.
pub fn load_encoder(dir: Option<&std::path::Path>) -> anyhow::Result<Option<TextEncoder>> {
    Ok(dir.map(|dir| TextEncoder::load(dir, false)).transpose()?)
}
