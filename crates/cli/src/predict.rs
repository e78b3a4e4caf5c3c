//! `verdict predict`: a fitted model's equilibrium and winner set at new contexts.

use anyhow::{bail, Context as _};

use verdict::game::{support, SUPPORT_THRESHOLD};
use verdict::io::{write_parquet_table, ColumnData, ContextTable, Source};
use verdict::model_file::read_model_contexts;
use verdict::nasheval::NashEvalModel;

use crate::args::{PredictArgs, PredictFormat};
use crate::output::emit;
use verdict::model_file::load_model;

/// Reads `path` with the model's featurizer and puts its features in the model's
/// order (a different schema is an error; unseen categories are warned about).
pub fn model_features(
    model: &NashEvalModel,
    path: &std::path::Path,
) -> anyhow::Result<(ContextTable, Vec<f64>)> {
    let read = read_model_contexts(model, &Source::File(path.to_path_buf()))?;
    if !read.unseen_categories.is_empty() {
        eprintln!(
            "warning: categories unseen in training treated as none of the known ones: {}",
            read.unseen_categories.join(", ")
        );
    }
    Ok((read.table, read.features))
}

pub fn run(args: &PredictArgs) -> anyhow::Result<()> {
    let model = load_model(&args.model)?;
    let (table, features) = model_features(&model, &args.contexts)?;
    let policies = model.policy(&features)?;
    let payoffs = args.payoff.then(|| model.payoffs(&features));
    let k = model.agents.len();
    let winners: Vec<Vec<String>> = policies
        .chunks(k)
        .map(|pi| {
            support(pi, SUPPORT_THRESHOLD)
                .into_iter()
                .map(|j| model.agents[j].clone())
                .collect()
        })
        .collect();
    let payoff_rows = |i: usize| -> Option<Vec<Vec<f64>>> {
        payoffs.as_ref().map(|p| {
            p[i * k * k..(i + 1) * k * k]
                .chunks(k)
                .map(<[f64]>::to_vec)
                .collect()
        })
    };
    match args.format {
        PredictFormat::Json => {
            let rows: Vec<serde_json::Value> = table
                .ids
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    let mut row = serde_json::json!({
                        "context_id": id,
                        "equilibrium": model.agents.iter().zip(&policies[i * k..(i + 1) * k])
                            .map(|(a, p)| (a.clone(), serde_json::json!(p)))
                            .collect::<serde_json::Map<_, _>>(),
                        "winners": winners[i],
                    });
                    if let Some(matrix) = payoff_rows(i) {
                        row["payoff"] = serde_json::json!(matrix);
                    }
                    row
                })
                .collect();
            emit(
                &(serde_json::to_string_pretty(&rows)? + "\n"),
                args.out.as_deref(),
            )
        }
        PredictFormat::Csv => {
            let mut writer = csv::Writer::from_writer(Vec::new());
            let mut header = vec!["context_id".to_string()];
            header.extend(model.agents.iter().cloned());
            header.push("winners".into());
            if payoffs.is_some() {
                header.push("payoff".into());
            }
            writer.write_record(&header)?;
            for (i, id) in table.ids.iter().enumerate() {
                let mut record = vec![id.clone()];
                record.extend(policies[i * k..(i + 1) * k].iter().map(|p| p.to_string()));
                record.push(winners[i].join(";"));
                if let Some(matrix) = payoff_rows(i) {
                    record.push(serde_json::to_string(&matrix)?);
                }
                writer.write_record(&record)?;
            }
            let bytes = writer.into_inner().context("CSV output")?;
            emit(&String::from_utf8(bytes)?, args.out.as_deref())
        }
        PredictFormat::Parquet => {
            let Some(out) = &args.out else {
                bail!("--format parquet writes a file; give --out FILE");
            };
            let mut columns = vec![("context_id", ColumnData::Text(table.ids.clone()))];
            for (j, agent) in model.agents.iter().enumerate() {
                let column = policies.iter().skip(j).step_by(k).copied().collect();
                columns.push((agent.as_str(), ColumnData::Float(column)));
            }
            columns.push(("winners", ColumnData::TextList(winners)));
            if let Some(p) = &payoffs {
                let matrices = p.chunks(k * k).map(<[f64]>::to_vec).collect();
                columns.push(("payoff", ColumnData::FloatList(matrices)));
            }
            write_parquet_table(out, &columns)?;
            Ok(())
        }
    }
}
