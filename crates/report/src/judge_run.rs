//! A judging run as one page, from its spend ledger: what was spent against the
//! budget, spend per judge and per item, and the allocation (how many scored calls
//! each judge made on each item).

use std::fmt::Write;
use verdict_settings::Setting;

use html_escape::encode_text as text;
use verdict_judges::{BudgetPlan, GoldReport, ItemScore, JudgedScores, LedgerSpend};

use crate::html::{bar_chart, grid_heatmap, html_table, page, section};
use crate::{ReportError, TextTable};

/// Most items drawn one bar each; past this the page shows the costliest.
const MAX_ITEM_BARS: usize = 40;

/// Most items the allocation shows one row each; past this items are its columns.
const MAX_ITEM_ROWS: usize = 20;

/// The run's sections: `summary` (what the run printed), spend per judge and per
/// item, and the allocation.
pub fn judge_run_sections(spend: &LedgerSpend, budget: f64, summary: &str) -> String {
    let mut body = String::new();
    let total = spend.total();
    let mut overview = format!(
        "{summary}\nspent {total:.4} of the budget {budget} ({:.1}%) on {} scored calls",
        100.0 * total / budget,
        spend.scored.iter().flatten().sum::<u32>()
    );
    if spend.failed + spend.lost + spend.in_doubt > 0 {
        let _ = write!(
            overview,
            "; {} failed (not charged), {} lost in flight (charged), {} in doubt",
            spend.failed, spend.lost, spend.in_doubt
        );
    }
    section(&mut body, "Run", &format!("<pre>{}</pre>", text(&overview)));
    let per_judge: Vec<(String, f64)> = spend
        .judges
        .iter()
        .cloned()
        .zip(spend.per_judge())
        .collect();
    section(
        &mut body,
        "Spend per judge",
        &bar_chart("judge-spend", &per_judge, ""),
    );
    let mut per_item: Vec<(String, f64)> =
        spend.items.iter().cloned().zip(spend.per_item()).collect();
    let shown = if per_item.len() > MAX_ITEM_BARS {
        per_item.sort_by(|a, b| b.1.total_cmp(&a.1));
        per_item.truncate(MAX_ITEM_BARS);
        format!(
            "<p>The {MAX_ITEM_BARS} costliest of {} items.</p>",
            spend.items.len()
        )
    } else {
        String::new()
    };
    section(
        &mut body,
        "Spend per item",
        &(shown + &bar_chart("item-spend", &per_item, "")),
    );
    let calls: Vec<Vec<f64>> = spend
        .scored
        .iter()
        .map(|row| row.iter().map(|&c| f64::from(c)).collect())
        .collect();
    let most = calls.iter().flatten().fold(1.0f64, |m, &v| m.max(v));
    let shade = |v: f64| 0.5 + 0.5 * v / most;
    // Items down the side while they fit; past that, across (the figure scrolls).
    let figure = if spend.items.len() <= MAX_ITEM_ROWS {
        grid_heatmap(&spend.items, &spend.judges, &calls, shade, "calls")
    } else {
        let by_judge: Vec<Vec<f64>> = (0..spend.judges.len())
            .map(|j| calls.iter().map(|row| row[j]).collect())
            .collect();
        grid_heatmap(&spend.judges, &spend.items, &by_judge, shade, "calls")
    };
    section(
        &mut body,
        "Allocation: scored calls per item and judge",
        &format!("<div class=\"scroll\">{figure}</div>"),
    );
    body
}

/// The run as one self-contained HTML page: [`judge_run_sections`] and, when the run's
/// estimate is at hand, [`judged_scores_sections`].
pub fn judge_run_html(
    spend: &LedgerSpend,
    budget: f64,
    summary: &str,
    scores: Option<&JudgedScores>,
    title: &str,
) -> String {
    let mut body = judge_run_sections(spend, budget, summary);
    if let Some(scores) = scores {
        body.push_str(&judged_scores_sections(scores));
    }
    page(title, &body)
}

/// A plan for a person: the pilot, and the budgets the target needs.
pub fn budget_plan_text(plan: &BudgetPlan) -> String {
    let shared = plan.shared.as_ref().map_or(String::new(), |s| {
        let budget = match (s.after_pilot, s.total) {
            (Some(after), Some(total)) => format!(
                "the shared-error allocation needs about {after:.4} more, {total:.4} in all"
            ),
            _ => "no budget reaches the target".into(),
        };
        format!(
            "\nshared mistakes: {}; the error floor (every judge called without end) is {:.4}; {budget} ({})",
            s.bias_sd
                .map_or("not identified".into(), |sd| format!("a judge's bias at an item has sd {sd:.4}")),
            s.error_floor,
            s.note
        )
    });
    let text = format!(
        "pilot: {} calls of every (item, judge) pair, spent {:.4}\n\
         for an estimated l_{} error of {}: the oracle allocation for the pilot's variances \
         (the rule Est-IVWE's Phase II spends by) needs about {:.4} more, {:.4} in all \
         ({n0} {} {budget} {:.4}); the uniform allocation about {:.4} in all\n\
         (a prediction that takes the pilot's variances for the true ones: where they are \
         noisy, judges chosen on them cost more; {target_error} stops a run on the error \
         it measures)",
        plan.pilot_calls_per_pair,
        plan.pilot_spent,
        plan.p,
        plan.target_error,
        plan.oracle_after_pilot,
        plan.oracle_total,
        plan.pilot_calls_per_pair,
        plan.oracle_total,
        plan.uniform_total,
        n0 = Setting("n0"),
        budget = Setting("budget"),
        target_error = Setting("target_error"),
    );
    text + &shared
}

/// A plan as CSV: one `quantity, value` row per figure.
///
/// # Errors
/// [`ReportError`] when the CSV writer fails.
pub fn budget_plan_csv(plan: &BudgetPlan) -> Result<String, ReportError> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["quantity", "value"])?;
    for (name, value) in [
        ("target_error", plan.target_error.to_string()),
        ("p", plan.p.clone()),
        (
            "pilot_calls_per_pair",
            plan.pilot_calls_per_pair.to_string(),
        ),
        ("pilot_spent", plan.pilot_spent.to_string()),
        ("oracle_after_pilot", plan.oracle_after_pilot.to_string()),
        ("oracle_total", plan.oracle_total.to_string()),
        ("uniform_total", plan.uniform_total.to_string()),
    ] {
        csv.write_record([name, value.as_str()])?;
    }
    if let Some(shared) = &plan.shared {
        let shown = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        for (name, value) in [
            ("shared_bias_sd", shown(shared.bias_sd)),
            ("shared_error_floor", shared.error_floor.to_string()),
            ("shared_after_pilot", shown(shared.after_pilot)),
            ("shared_total", shown(shared.total)),
        ] {
            csv.write_record([name, value.as_str()])?;
        }
    }
    finish_csv(csv)
}

/// Most items the page lists one row each; past this the widest intervals are shown.
const MAX_INTERVAL_ROWS: usize = 60;

/// The estimate's sections: the mean and the target, each item's score with its
/// interval, and — with gold labels — the corrected mean, each judge against the labels
/// and the judges' agreement.
pub fn judged_scores_sections(result: &JudgedScores) -> String {
    let mut body = String::new();
    let percent = 100.0 * result.level;
    section(
        &mut body,
        "Estimate",
        &format!("<pre>{}</pre>", text(&result.summary().join("\n"))),
    );
    let mut rows: Vec<&ItemScore> = result.items.iter().collect();
    let shown = if rows.len() > MAX_INTERVAL_ROWS {
        rows.sort_by(|a, b| {
            let width = |i: &ItemScore| i.interval.high - i.interval.low;
            width(b).total_cmp(&width(a))
        });
        rows.truncate(MAX_INTERVAL_ROWS);
        format!(
            "<p>The {MAX_INTERVAL_ROWS} widest intervals of {} items; every item is in the run's CSV or JSON output.</p>",
            result.items.len()
        )
    } else {
        String::new()
    };
    section(
        &mut body,
        &format!("Scores with {percent}% intervals"),
        &(shown + &html_table(&interval_table(&rows))),
    );
    section(
        &mut body,
        "Shared mistakes",
        &shared_mistakes_content(&result.shared_errors, &result.judges, percent),
    );
    if let Some(gold) = &result.gold {
        section(
            &mut body,
            "Gold labels",
            &gold_content(gold, &result.judges, percent),
        );
    }
    body
}

/// Item, score, standard error and interval.
fn interval_table(rows: &[&ItemScore]) -> TextTable {
    let mut table = TextTable::new(["item", "score", "std. error", "low", "high"]);
    for row in rows {
        let i = &row.interval;
        table.push(vec![
            row.id.clone(),
            format!("{:.4}", i.score),
            format!("{:.4}", i.std_error),
            format!("{:.4}", i.low),
            format!("{:.4}", i.high),
        ]);
    }
    table
}

/// The judges' shared mistakes: the summary, and each judge's family and call noise.
fn shared_mistakes_content(
    shared: &verdict_judges::SharedMistakes,
    judges: &[String],
    percent: f64,
) -> String {
    let mut table = TextTable::new(["judge", "family", "call sd"]);
    for ((name, family), variance) in judges
        .iter()
        .zip(&shared.families)
        .zip(&shared.call_variance)
    {
        table.push(vec![
            name.clone(),
            family.clone(),
            format!("{:.4}", variance.sqrt()),
        ]);
    }
    format!(
        "<p>{}</p><p>{}.</p>{}",
        text(&shared.summary(percent)),
        text(&shared.note),
        html_table(&table)
    )
}

/// The corrected mean beside the judged one, each judge against the labels, and α.
fn gold_content(gold: &GoldReport, judges: &[String], percent: f64) -> String {
    let mean = &gold.mean;
    let mut means = TextTable::new(["estimate of the mean", "value", "low", "high"]);
    let mut push = |name: &str, i: &verdict_judges::ScoreInterval| {
        means.push(vec![
            name.into(),
            format!("{:.4}", i.score),
            format!("{:.4}", i.low),
            format!("{:.4}", i.high),
        ]);
    };
    push(
        &format!(
            "PPI++ (judged scores corrected by the labels, lambda {:.3})",
            mean.lambda
        ),
        &mean.corrected,
    );
    push("gold labels alone", &mean.gold_only);
    let mut per_judge = TextTable::new(["judge", "labelled items", "bias", "rmse", "correlation"]);
    let shown = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.4}"));
    for (name, agreement) in judges.iter().zip(&gold.judges) {
        per_judge.push(vec![
            name.clone(),
            agreement.items.to_string(),
            shown(agreement.bias),
            shown(agreement.rmse),
            shown(agreement.correlation),
        ]);
    }
    format!(
        "<p>{} labelled and {} other items; the judged mean of all items is {:.4}. Intervals at {percent}%; the correction assumes the labelled items are a uniform random subset.</p>{}{}<p>Krippendorff's alpha (interval) of the judges' mean scores: {}</p>",
        mean.labelled,
        mean.unlabelled,
        mean.judged,
        html_table(&means),
        html_table(&per_judge),
        shown(gold.alpha)
    )
}

/// The estimate as CSV, one row per item: `id, score, std_error, low, high` (the
/// consensus), then `bias_aware_score, bias_aware_std_error, bias_aware_low,
/// bias_aware_high, effective_judges` (empty when the judges' shared mistakes could
/// not be estimated).
///
/// # Errors
/// [`ReportError`] when the CSV writer fails.
pub fn judged_scores_csv(result: &JudgedScores) -> Result<String, ReportError> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "id",
        "score",
        "std_error",
        "low",
        "high",
        "bias_aware_score",
        "bias_aware_std_error",
        "bias_aware_low",
        "bias_aware_high",
        "effective_judges",
    ])?;
    let aware = &result.shared_errors.items;
    for (k, row) in result.items.iter().enumerate() {
        let i = &row.interval;
        let mut record = vec![
            crate::spreadsheet_safe(&row.id),
            i.score.to_string(),
            i.std_error.to_string(),
            i.low.to_string(),
            i.high.to_string(),
        ];
        match aware.get(k) {
            Some(a) => record.extend([
                a.interval.score.to_string(),
                a.interval.std_error.to_string(),
                a.interval.low.to_string(),
                a.interval.high.to_string(),
                a.effective_judges.to_string(),
            ]),
            None => record.extend(std::iter::repeat_n(String::new(), 5)),
        }
        csv.write_record(record)?;
    }
    finish_csv(csv)
}

/// The text a CSV writer holds.
fn finish_csv(csv: csv::Writer<Vec<u8>>) -> Result<String, ReportError> {
    let bytes = csv
        .into_inner()
        .map_err(|e| ReportError::Csv(e.into_error().into()))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8"))
}
