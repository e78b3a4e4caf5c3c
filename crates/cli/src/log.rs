//! `verdict log`: reads a contextual feedback log with every check and summarises it,
//! so a log can be validated before anything is fitted on it.

use std::fmt::Write as _;

use anyhow::Context as _;

use verdict::feedback::ContextualLog;
use verdict::io::{
    read_battles_as_contextual, read_contextual_log, CategoricalEncoding, ContextualOptions, Source,
};
use verdict::model_file::{Categorical, Featurizer};
use verdict::report::TextTable;

use crate::args::{CategoricalArg, ContextLogArgs, LogSourceArgs, OutputFormat};

pub fn run(args: &ContextLogArgs) -> anyhow::Result<()> {
    let (log, _) = read_log(&args.source)?;
    let summary = summarise(&log);
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&summary)? + "\n",
        OutputFormat::Table | OutputFormat::Csv => table(&summary),
    };
    print!("{text}");
    Ok(())
}

/// The featurizer settings of `args`, as a model records them.
pub fn featurizer(args: &LogSourceArgs) -> serde_json::Value {
    Featurizer {
        text_column: args.text_col.clone(),
        text_dim: args.text_dim,
        categorical: match args.categorical {
            CategoricalArg::Onehot => Categorical::Onehot,
            CategoricalArg::Codes => Categorical::Codes,
        },
    }
    .to_value()
}

/// Reads the log `args` names, with the featurizer settings to record.
pub fn read_log(args: &LogSourceArgs) -> anyhow::Result<(ContextualLog, serde_json::Value)> {
    let options = ContextualOptions {
        text_column: args.text_col.clone(),
        text_dim: args.text_dim,
        categorical: match args.categorical {
            CategoricalArg::Onehot => CategoricalEncoding::OneHot,
            CategoricalArg::Codes => CategoricalEncoding::Codes,
        },
        catalogue: args
            .catalogue
            .as_ref()
            .map(|path| -> anyhow::Result<Vec<Vec<String>>> {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                serde_json::from_str(&text).with_context(|| {
                    format!(
                        "{}: the catalogue must be a JSON list of menus, each a list of agent names",
                        path.display()
                    )
                })
            })
            .transpose()?,
    };
    let log = match (&args.contexts, &args.feedback, &args.battles) {
        (Some(contexts), Some(feedback), None) => read_contextual_log(
            &Source::File(contexts.clone()),
            &Source::File(feedback.clone()),
            &options,
        )?,
        (None, None, Some(battles)) => read_battles_as_contextual(
            &Source::File(battles.clone()),
            args.context_cols.as_deref().unwrap_or(&[]),
            &options,
        )?,
        _ => anyhow::bail!("give --contexts and --feedback, or --battles with --context-cols"),
    };
    Ok((log, featurizer(args)))
}

/// Counts per menu and overall, as JSON.
fn summarise(log: &ContextualLog) -> serde_json::Value {
    let contexts = log.contexts.len();
    let menus: Vec<serde_json::Value> = log
        .menus
        .iter()
        .enumerate()
        .map(|(m, agents)| {
            let observed: Vec<_> = log.feedback.iter().filter(|f| f.menu == m).collect();
            serde_json::json!({
                "agents": agents.iter().map(|&a| log.agents[a].clone()).collect::<Vec<_>>(),
                "contexts": observed.len(),
                "selection_rate": observed.len() as f64 / contexts as f64,
                "responses": observed.iter().map(|f| f.responses).sum::<usize>(),
            })
        })
        .collect();
    serde_json::json!({
        "contexts": contexts,
        "agents": log.agents,
        "features": log.feature_names,
        "observed_context_menus": log.feedback.len(),
        "responses": log.feedback.iter().map(|f| f.responses).sum::<usize>(),
        "menus": menus,
        "unmet_pairs": log
            .unheld_pairs()
            .iter()
            .map(|&(j, k)| [log.agents[j].clone(), log.agents[k].clone()])
            .collect::<Vec<_>>(),
    })
}

fn table(summary: &serde_json::Value) -> String {
    let mut out = String::new();
    let features = summary["features"].as_array().map_or(0, Vec::len);
    let _ = writeln!(
        out,
        "{} contexts, {} agents, {} features, {} responses on {} (context, menu) pairs",
        summary["contexts"],
        summary["agents"].as_array().map_or(0, Vec::len),
        features,
        summary["responses"],
        summary["observed_context_menus"]
    );
    let mut table = TextTable::new(["menu", "contexts", "selected", "responses"]);
    for menu in summary["menus"].as_array().into_iter().flatten() {
        let agents: Vec<&str> = menu["agents"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str())
            .collect();
        let count = |key: &str| menu[key].as_u64().unwrap_or(0).to_string();
        table.push(vec![
            agents.join(", "),
            count("contexts"),
            format!(
                "{:.1}%",
                100.0 * menu["selection_rate"].as_f64().unwrap_or(0.0)
            ),
            count("responses"),
        ]);
    }
    out.push_str(&table.render());
    let unmet: Vec<String> = summary["unmet_pairs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pair| Some(format!("{} vs {}", pair[0].as_str()?, pair[1].as_str()?)))
        .collect();
    if !unmet.is_empty() {
        let _ = writeln!(
            out,
            "{} pairs never met in any menu ({}): fit needs --allow-unobserved to extrapolate them",
            unmet.len(),
            unmet.join(", ")
        );
    }
    out
}
