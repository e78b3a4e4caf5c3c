//! `verdict ope`: candidate routers scored on a decision log joined with outcomes.

use std::fmt::Write;

use verdict::io::Source;
use verdict::ope::Estimate;
use verdict::ope_log::{evaluate_log, read_decision_log, OpeReport, PolicySpec};

use crate::args::{OpeArgs, OutputFormat};

pub fn run(args: &OpeArgs) -> anyhow::Result<()> {
    let log = read_decision_log(&args.decisions)?;
    let specs: Vec<PolicySpec> = args.policies.iter().map(|p| PolicySpec::parse(p)).collect();
    let encoder = crate::predict::load_encoder(args.encoder.as_deref())?;
    let report = evaluate_log(
        &log,
        &Source::File(args.outcomes.clone()),
        (&args.request_col, &args.outcome_col),
        &specs,
        encoder.as_ref(),
        args.floor,
        args.folds,
    )?;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        OutputFormat::Table | OutputFormat::Csv => print!("{}", table(&report)),
    }
    Ok(())
}

fn shown(e: &Estimate) -> String {
    format!("{:.4} [{:.4}, {:.4}]", e.estimate, e.ci_low, e.ci_high)
}

/// The report for people: one block per candidate.
fn table(report: &OpeReport) -> String {
    let mut text = format!(
        "{} logged decisions with an outcome ({} without, left out); outcome model: {}\n",
        report.rows, report.without_outcome, report.outcome_model
    );
    for c in &report.candidates {
        let v = &c.value;
        let _ = writeln!(text, "\n{}", c.policy);
        let _ = writeln!(text, "  IPS    {}", shown(&v.ips));
        let _ = writeln!(text, "  SNIPS  {}", shown(&v.snips));
        let _ = writeln!(text, "  DR     {}", shown(&v.dr));
        let _ = writeln!(
            text,
            "  overlap: effective sample size {:.1}, largest weight {:.2}",
            v.overlap.effective_sample_size, v.overlap.max_weight
        );
        if v.overlap.flagged {
            let _ = writeln!(
                text,
                "  warning: {:.1}% of its mass is on agents the logger offered below {}: these estimates extrapolate",
                100.0 * v.overlap.mass_below_floor,
                report.floor
            );
        }
        if let Some((ips, dr)) = &c.versus_first {
            let _ = writeln!(
                text,
                "  against {}: IPS {}, DR {}",
                report.candidates[0].policy,
                shown(ips),
                shown(dr)
            );
        }
    }
    text
}
