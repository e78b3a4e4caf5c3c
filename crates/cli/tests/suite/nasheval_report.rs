//! The NashEval page of `verdict fit --report` and `verdict evaluate --report` on a
//! small arena world, fitted with the linear backbone (no LightGBM needed): who wins
//! where beside the truth (NashEval Figure 4), checked against the truth file counted
//! here independently; the scores against the truth; propensities per menu; the
//! training curve.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{failure, succeed};
use verdict::game::{exploitability, PayoffMatrix};
use verdict::io::{read_table, Source};

/// The `data-value` of the first heatmap cell at (`row`, `col`) after `from` in `html`.
fn cell_after(html: &str, from: usize, row: &str, col: &str) -> f64 {
    let needle = format!("data-row=\"{row}\" data-col=\"{col}\" data-value=\"");
    let at = html[from..]
        .find(&needle)
        .unwrap_or_else(|| panic!("no cell ({row}, {col})"))
        + from
        + needle.len();
    let end = html[at..].find('"').unwrap() + at;
    html[at..end].parse().unwrap()
}

/// A column of a Parquet table as text, one value per row.
fn column(path: &Path, name: &str) -> Vec<String> {
    let table = read_table(&Source::File(path.to_path_buf()), None, None).unwrap();
    let c = table.column(name).unwrap();
    (0..table.rows())
        .map(|r| c.value(r).unwrap().to_string())
        .collect()
}

#[test]
fn evaluate_page_shows_who_wins_where_beside_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim");
    let sim_s = sim.display().to_string();
    succeed(&[
        "simulate",
        "--world",
        "arena",
        "--agents",
        "5",
        "--contexts",
        "1500",
        "--test-contexts",
        "300",
        "--seed",
        "5",
        "--rho",
        "0.001",
        "--out",
        &sim_s,
    ]);
    let model = dir.path().join("m.json").display().to_string();
    let fit_page = dir.path().join("fit.html");
    let contexts = format!("{sim_s}/contexts.parquet");
    let feedback = format!("{sim_s}/feedback.parquet");
    succeed(&[
        "--quiet",
        "fit",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--text-col",
        "prompt",
        "--backbone",
        "linear",
        "--folds",
        "3",
        "--max-epochs",
        "40",
        "--out",
        &model,
        "--report",
        fit_page.to_str().unwrap(),
        "--winners-by",
        "language",
    ]);
    let fit_html = std::fs::read_to_string(&fit_page).unwrap();
    for section in [
        "<h2>Who wins where, by language</h2>",
        "<h2>Propensities per menu</h2>",
        "<h2>Network training</h2>",
    ] {
        assert!(fit_html.contains(section), "the fit page lacks {section}");
    }
    // Five agents: every one of the ten pairs is a menu some prompt selected.
    assert!(fit_html.contains("data-menus=\"10\""));
    assert!(fit_html.contains("class=\"held-out\""));

    let page = dir.path().join("eval.html");
    succeed(&[
        "evaluate",
        &model,
        "--truth",
        &sim_s,
        "--report",
        page.to_str().unwrap(),
        "--winners-by",
        "language",
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Against the truth</h2>") && !html.contains("http"));

    // The model file and evaluate's JSON drawn again by `verdict report`: the fit's
    // sections, and the model's score as evaluate printed it.
    let scores = succeed(&["evaluate", &model, "--truth", &sim_s, "--format", "json"]);
    let score: serde_json::Value = serde_json::from_str(&scores).unwrap();
    let scores_file = dir.path().join("scores.json");
    std::fs::write(&scores_file, &scores).unwrap();
    let saved = dir.path().join("saved.html");
    succeed(&[
        "report",
        &model,
        scores_file.to_str().unwrap(),
        "--out",
        saved.to_str().unwrap(),
    ]);
    let again = std::fs::read_to_string(&saved).unwrap();
    for section in [
        "<h2>Propensities per menu</h2>",
        "<h2>Network training</h2>",
        "<h2>Against the truth</h2>",
    ] {
        assert!(
            again.contains(section),
            "the saved results' page lacks {section}"
        );
    }
    let model_exploitability = score["exploitability"].as_f64().unwrap();
    assert!(again.contains(&format!("<td>{model_exploitability:.4}</td>")));
    assert!(again.contains("data-menus=\"10\""));

    // The truth's winner shares, counted here from the truth file: the agent of
    // largest true equilibrium probability at each test context, by language.
    let agents: Vec<String> = serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(sim.join("manifest.json")).unwrap(),
    )
    .unwrap()["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let languages = column(&sim.join("test_contexts.parquet"), "language");
    let equilibria = column(&sim.join("test_truth.parquet"), "equilibrium");
    let payoffs = column(&sim.join("test_truth.parquet"), "payoff");
    let mut wins: BTreeMap<(String, usize), f64> = BTreeMap::new();
    let mut per_language: BTreeMap<String, usize> = BTreeMap::new();
    for (language, star) in languages.iter().zip(&equilibria) {
        let star: Vec<f64> = serde_json::from_str(star).unwrap();
        let best = (0..star.len())
            .max_by(|&a, &b| star[a].total_cmp(&star[b]))
            .unwrap();
        *wins.entry((language.clone(), best)).or_default() += 1.0;
        *per_language.entry(language.clone()).or_default() += 1;
    }
    let truth_panel = html.find("<figcaption>truth</figcaption>").unwrap();
    for ((language, agent), count) in &wins {
        let n = per_language[language];
        let shown = cell_after(
            &html,
            truth_panel,
            &format!("{language} ({n})"),
            &agents[*agent],
        );
        assert!(
            (shown - count / n as f64).abs() <= 0.005,
            "{language}, {}: page {shown}, truth {}",
            agents[*agent],
            count / n as f64
        );
    }

    // The uniform lottery's exploitability, computed here from the true payoffs.
    let k = agents.len();
    let uniform: f64 = payoffs
        .iter()
        .map(|p| {
            let values: Vec<f64> = serde_json::from_str(p).unwrap();
            let rows: Vec<Vec<f64>> = values.chunks(k).map(<[f64]>::to_vec).collect();
            exploitability(&PayoffMatrix::new(&rows).unwrap(), &vec![1.0 / k as f64; k])
        })
        .sum::<f64>()
        / payoffs.len() as f64;
    assert!(
        html.contains(&format!("<td>{uniform:.4}</td>")),
        "the uniform lottery's exploitability {uniform:.4} is not on the page"
    );
}

#[test]
fn winners_by_needs_a_categorical_column() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim").display().to_string();
    succeed(&[
        "simulate",
        "--world",
        "arena",
        "--agents",
        "4",
        "--contexts",
        "400",
        "--test-contexts",
        "50",
        "--out",
        &sim,
    ]);
    let model = dir.path().join("m.json").display().to_string();
    let page = dir.path().join("p.html");
    let contexts = format!("{sim}/contexts.parquet");
    let feedback = format!("{sim}/feedback.parquet");
    let message = failure(&[
        "--quiet",
        "fit",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--text-col",
        "prompt",
        "--backbone",
        "linear",
        "--folds",
        "2",
        "--max-epochs",
        "5",
        "--out",
        &model,
        "--report",
        page.to_str().unwrap(),
        "--winners-by",
        "prompt",
    ]);
    assert!(
        message.contains("distinct values") && message.contains("categorical"),
        "{message}"
    );
    assert!(!page.exists(), "a failed page is not written");
    assert!(
        !Path::new(&model).exists(),
        "the column is checked before the fit"
    );
}

/// `verdict report` of a `bench nasheval` results file: NashEval's Figure 3 and the
/// table `verdict bench summary` prints, row for row (the committed RQ1 head-to-head
/// results).
#[test]
fn a_bench_results_file_gives_its_figure_and_summary() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/results/rq1-h2h-all-2026-12-02.jsonl")
        .display()
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("experiment.html");
    succeed(&["report", &results, "--out", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Exploitability and support F1 against voters</h2>"));
    assert!(html.contains("<div class=\"scroll\"><svg"));
    let summary = succeed(&["bench", "summary", &results]);
    let rows: Vec<&str> = summary.lines().skip(2).collect();
    assert_eq!(
        rows.len(),
        108,
        "three forms × three voter counts × twelve methods"
    );
    for row in rows {
        let cells: String = row
            .trim_matches(|c| c == '|' || c == ' ')
            .split(" | ")
            .enumerate()
            .map(|(column, cell)| {
                // The feedback form and the method are text, left-aligned.
                if column == 0 || column == 2 {
                    format!("<td class=\"t\">{cell}</td>")
                } else {
                    format!("<td>{cell}</td>")
                }
            })
            .collect();
        assert!(html.contains(&format!("<tr>{cells}</tr>")), "no row {row}");
    }
}
