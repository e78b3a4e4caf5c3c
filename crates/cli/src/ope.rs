//! `verdict ope`: candidate routers scored on a decision log joined with outcomes.

use verdict::io::{read_costs, Source};
use verdict::ope_log::{read_decision_log, DecisionColumns, OutcomeColumns};
use verdict::ope_report::{evaluate_log, OpeRequest, PolicySpec};
use verdict::ope_view::{ope_html, ope_text};

use crate::args::{OpeArgs, OutputFormat};

pub fn run(args: &OpeArgs) -> anyhow::Result<()> {
    let outputs = crate::output::outputs();
    let out = outputs.optional(args.out.as_deref(), "--out");
    let page = outputs.optional_page(args.report.as_deref(), "--report");
    let mut inputs = vec![args.decisions.as_path(), args.outcomes.as_path()];
    inputs.extend(args.costs.as_deref());
    verdict::outputs::Outputs::check_with_inputs(&[out.clone(), page.clone()], &inputs)?;
    let log = read_decision_log(
        &Source::File(args.decisions.clone()),
        &DecisionColumns {
            request: args.request_col.clone(),
        },
    )?;
    let prices = match &args.costs {
        Some(file) => Some(read_costs(&Source::File(file.clone()), None)?),
        None => None,
    };
    let request = OpeRequest {
        policies: args.policies.iter().map(|p| PolicySpec::parse(p)).collect(),
        against: args.against.as_deref().map(PolicySpec::parse),
        columns: OutcomeColumns {
            request: args.request_col.clone(),
            outcome: args.outcome_col.clone(),
            cost: args.cost_col.clone(),
        },
        prices,
        floor: args.floor,
        folds: args.folds,
    };
    let encoder = crate::predict::load_encoder(args.encoder.as_deref())?;
    let report = evaluate_log(
        log,
        &Source::File(args.outcomes.clone()),
        &request,
        encoder.as_ref(),
    )?;
    if let Some(page) = &page {
        let title = format!(
            "verdict ope: {}",
            verdict::page::shown_name(&args.decisions)
        );
        verdict::page::write_page(page, &ope_html(&report, &title))?;
    }
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        OutputFormat::Table | OutputFormat::Csv => ope_text(&report),
    };
    crate::output::emit(&text, out.as_ref())
}
