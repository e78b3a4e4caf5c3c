//! `verdict log`: reads a contextual feedback log with every check and summarises it,
//! so a log can be validated before anything is fitted on it.

use verdict::contextual::{complete_pairs, read_catalogue, LogSource};
use verdict::feedback::ContextualLog;
use verdict::io::{ContextualOptions, Source, TextEncoder};
use verdict::nasheval::NuisanceDesign;
use verdict::report::{log_summary, rank_choice_lines};

use crate::args::{ContextLogArgs, LogSourceArgs, OutputFormat};

pub fn run(args: &ContextLogArgs) -> anyhow::Result<()> {
    let mut log = read_log(&args.source)?;
    let summary = log.summary();
    let cycles = if args.cycles {
        // Pairs that never met are extrapolated, as `fit --allow-unobserved` does.
        if let Some(warning) = complete_pairs(&mut log, true, NuisanceDesign::Structured)? {
            eprintln!("{warning}");
        }
        Some(verdict::nasheval::cycle_evidence(
            &log,
            args.seed,
            &|_, _, _| {},
        )?)
    } else {
        None
    };
    let text = match args.format {
        OutputFormat::Json => {
            let mut value = serde_json::to_value(&summary)?;
            if let Some(cycles) = &cycles {
                value["cycles"] = serde_json::to_value(cycles)?;
            }
            serde_json::to_string_pretty(&value)? + "\n"
        }
        OutputFormat::Table | OutputFormat::Csv => {
            let mut text = log_summary(&summary);
            if let Some(cycles) = &cycles {
                rank_choice_lines(&mut text, cycles);
            }
            text
        }
    };
    print!("{text}");
    Ok(())
}

/// Reads the log `args` names.
pub fn read_log(args: &LogSourceArgs) -> anyhow::Result<ContextualLog> {
    let options = contextual_options(args)?;
    Ok(verdict::contextual::read_log(&log_source(args)?, &options)?)
}

/// How the flags featurize contexts.
pub fn contextual_options(args: &LogSourceArgs) -> anyhow::Result<ContextualOptions> {
    let text_encoder = args
        .encoder
        .encoder
        .as_deref()
        .map(|dir| TextEncoder::load(dir, args.encoder.normalize_embeddings))
        .transpose()?;
    Ok(ContextualOptions {
        text_column: args.text_col.clone(),
        text_dim: args.text_dim,
        text_encoder,
        categorical: args.categorical,
        catalogue: args.catalogue.as_deref().map(read_catalogue).transpose()?,
        propensity_column: args.propensity_col.clone(),
    })
}

/// Where the flags say the log is.
pub fn log_source(args: &LogSourceArgs) -> anyhow::Result<LogSource> {
    let file = |path: &Option<std::path::PathBuf>| path.clone().map(Source::File);
    Ok(LogSource::from_tables(
        file(&args.contexts),
        file(&args.feedback),
        file(&args.battles),
        args.context_cols.clone().unwrap_or_default(),
    )?)
}
