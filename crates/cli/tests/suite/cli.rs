//! End-to-end tests of the `verdict` binary, run in temporary folders.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{failure, json, stdout, verdict, write};
use serde_json::Value;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data")
}

/// The demo prints every figure the tutorial prints for Bradley–Terry and the first
/// Elo update, plus the true fixed point, with the tutorial's rounding; the cyclic
/// arena's lottery as EXPERIMENTS.md records it; and writes one page with every part,
/// replacing its own page but never a file it did not write.
#[test]
fn demo_tours_all_three_parts_and_writes_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("demo-report.html");
    let out = page.to_str().unwrap();
    let text = stdout(&verdict(&["demo", "--out", out]));
    for expected in [
        "A 1000 -> 1016.0, B 1000 -> 984.0",
        "it 1  0.4444  0.3333  0.1667  0.0556",
        "it 2  0.5195  0.3274  0.1179  0.0352",
        "it 3  0.5655  0.3122  0.0933  0.0290",
        "it 20  0.7015  0.2314  0.0506  0.0164",
        "P(A beats D) = 0.977, P(B beats C) = 0.821",
        "maximum-likelihood fixed point: 0.7052  0.2287  0.0498  0.0162",
        "at the MLE: P(A beats D) = 0.978",
        "total rating: 4000.0 as listed, 4000.0 shuffled",
        "Bradley–Terry strengths bit-identical",
        // GenAI-Arena's anonymous image-editing battles: 21/43, 15/43, 7/43, the
        // maximal lottery scipy 1.17.1's linprog finds, unique over the optimal set
        // (scripts/goldens/genai_lottery.py).
        "imagenhub_InstructPix2Pix_edition       0.4884",
        "imagenhub_MagicBrush_edition            0.3488",
        "imagenhub_Prompt2prompt_edition         0.1628",
        "Condorcet winner: none",
        "NashEval (this model)",
        "adaptive run: 40 items",
    ] {
        assert!(text.contains(expected), "demo lacks {expected:?}:\n{text}");
    }
    assert!(text.contains(out), "the demo says where its page is");
    let html = std::fs::read_to_string(&page).unwrap();
    for anchor in ["tutorial", "lottery", "nasheval", "judges", "judge-run"] {
        assert!(
            html.contains(&format!("<article class=\"part\" id=\"{anchor}\">")),
            "the page lacks the part {anchor}"
        );
    }
    // The tutorial's (A, D) cell of the predicted win probabilities.
    assert!(html.contains("data-row=\"A\" data-col=\"D\" data-value=\"0.978\""));
    assert!(html.contains("<h2>Who wins where, by language</h2>"));
    assert!(html.contains("<h2>Allocation: scored calls per item and judge</h2>"));
    assert!(!html.contains("http") && !html.contains("<script"));
    // Its own page is replaced; a file it did not write is left untouched.
    stdout(&verdict(&["demo", "--out", out]));
    let mine = dir.path().join("mine.html");
    std::fs::write(&mine, "<p>my notes</p>").unwrap();
    let message = failure(&["demo", "--out", mine.to_str().unwrap()]);
    assert!(
        message.contains("not written by verdict") && message.contains("--out"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "<p>my notes</p>");
}

/// `--style-control` on a log with the per-side columns: the board with each model's
/// rank change and the coefficients with intervals; bad requests exit 2 naming why.
#[test]
fn style_control_board_and_its_refusals() {
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/style_control_log.csv");
    let log = log.to_str().unwrap();
    let report = json(&[
        "rank",
        log,
        "--style-control",
        "--ci",
        "sandwich",
        "--format",
        "json",
    ]);
    assert_eq!(report["method"], "bradley-terry-covariates");
    let coefficients = report["coefficients"].as_array().unwrap();
    let names: Vec<&str> = coefficients
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["length", "headers", "lists", "bold"]);
    for c in coefficients {
        assert!(c["ci_low"].as_f64().unwrap() < c["estimate"].as_f64().unwrap());
    }
    let moved: i64 = report["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["rank_change"].as_i64().unwrap())
        .sum();
    assert_eq!(moved, 0);
    let table = stdout(&verdict(&[
        "rank",
        log,
        "--covariates",
        "sum_assistant_a_tokens",
        "--bootstrap",
        "20",
    ]));
    assert!(
        table.contains("vs plain") && table.contains("sum_assistant_a_tokens"),
        "{table}"
    );
    let error = failure(&["rank", log, "--style-control", "--method", "elo"]);
    assert!(error.contains("Bradley–Terry method only"), "{error}");
    let error = failure(&["rank", log, "--covariates", "no_such_column"]);
    assert!(error.contains("no_such_column"), "{error}");
    let tutorial = examples().join("tutorial-arena.csv");
    let error = failure(&["rank", tutorial.to_str().unwrap(), "--style-control"]);
    assert!(error.contains("sum_assistant_a_tokens"), "{error}");
    let dir = tempfile::tempdir().unwrap();
    let error = failure(&["rank", dir.path().to_str().unwrap(), "--style-control"]);
    assert!(error.contains("read one file"), "{error}");
}

/// `--weight-col`: weights of 2 on some battles give the board of the log with those
/// battles repeated, a constant weight changes no score, and the refusals name the flag
/// or the row (with no output written).
#[test]
fn weighted_battles_and_their_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples().join("tutorial-arena.csv")).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let table = |weight: &dyn Fn(usize) -> &'static str| {
        let mut out = String::from("model_a,model_b,winner,w\n");
        for (r, row) in rows.iter().enumerate() {
            out.push_str(&format!("{row},{}\n", weight(r)));
        }
        out
    };
    let weighted = write(
        dir.path(),
        "weighted.csv",
        &table(&|r| if r % 3 == 0 { "2" } else { "1" }),
    );
    let mut repeated = String::from("model_a,model_b,winner\n");
    for (r, row) in rows.iter().enumerate() {
        for _ in 0..if r % 3 == 0 { 2 } else { 1 } {
            repeated.push_str(&format!("{row}\n"));
        }
    }
    let repeated = write(dir.path(), "repeated.csv", &repeated);
    let scores = |path: &str, extra: &[&str]| -> Vec<(String, f64)> {
        board_with(Path::new(path), extra)
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["name"].as_str().unwrap().to_owned(),
                    m["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    for method in ["bt", "lottery", "schulze"] {
        let ours = scores(&weighted, &["--weight-col", "w", "--method", method]);
        let theirs = scores(&repeated, &["--method", method]);
        assert_eq!(ours.len(), 4);
        for ((name, w), (other, r)) in ours.iter().zip(theirs) {
            assert_eq!(name, &other);
            assert!((w - r).abs() < 1e-6, "{method} {name}: {w} vs {r}");
        }
    }
    let constant = write(dir.path(), "constant.csv", &table(&|_| "0.25"));
    let plain = examples().join("tutorial-arena.csv");
    for ((name, c), (_, p)) in scores(&constant, &["--weight-col", "w"])
        .iter()
        .zip(scores(plain.to_str().unwrap(), &[]))
    {
        assert!((c - p).abs() < 1e-6, "{name}: {c} vs {p}");
    }
    let all = json(&[
        "rank",
        &weighted,
        "--weight-col",
        "w",
        "--method",
        "all",
        "--format",
        "json",
    ]);
    assert!(all["notes"].to_string().contains("Elo left out"), "{all}");
    let error = failure(&["rank", &weighted, "--weight-col", "w", "--method", "elo"]);
    assert!(error.contains("--weight-col"), "{error}");
    let error = failure(&["rank", &weighted, "--weight-col", "no_such"]);
    assert!(error.contains("no_such"), "{error}");
    let negative = write(
        dir.path(),
        "negative.csv",
        &table(&|r| if r == 4 { "-1" } else { "1" }),
    );
    let out = dir.path().join("board.json");
    let error = failure(&[
        "rank",
        &negative,
        "--weight-col",
        "w",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        error.contains("negative.csv:6") && error.contains("negative weight"),
        "{error}"
    );
    assert!(!out.exists());
    let not_a_number = write(
        dir.path(),
        "text.csv",
        &table(&|r| if r == 2 { "heavy" } else { "1" }),
    );
    let error = failure(&["rank", &not_a_number, "--weight-col", "w"]);
    assert!(error.contains("heavy"), "{error}");
    let error = failure(&[
        "rank",
        dir.path().join("*.parquet").to_str().unwrap(),
        "--weight-col",
        "w",
    ]);
    assert!(error.contains("keep no weights"), "{error}");
}

/// `--fragility` on a log where the count is known by construction: x beats y 12
/// times and y beats x 5 times, so they are level once 7 of x's wins are gone
/// (`beta_x - beta_y = ln((12 - k) / 5)`). The column, the top flip and the refusals.
#[test]
fn fragility_counts_the_battles_that_flip_an_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("model_a,model_b,winner\n");
    for (a, b, n) in [("x", "y", 12), ("y", "x", 5)] {
        for _ in 0..n {
            text.push_str(&format!("{a},{b},model_a\n"));
        }
    }
    let log = write(dir.path(), "log.csv", &text);
    let report = json(&[
        "rank",
        &log,
        "--fragility",
        "--bootstrap",
        "0",
        "--format",
        "json",
    ]);
    let models = report["models"].as_array().unwrap();
    let names: Vec<&str> = models.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(models[0]["flip"]["battles"], 7, "{report}");
    assert!(models[1].get("flip").is_none());
    assert_eq!(report["top_flip"]["challenger"], "y");
    assert_eq!(report["top_flip"]["battles"], 7);
    let output = verdict(&["rank", &log, "--fragility", "--bootstrap", "0"]);
    let table = format!(
        "{}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        table.contains("flip") && table.contains("removing 7 of"),
        "{table}"
    );
    let error = failure(&["rank", &log, "--fragility", "--method", "lottery"]);
    assert!(
        error.contains("--fragility") && error.contains("--method bt"),
        "{error}"
    );
}

/// `--warm`: LLMFAO split in three days, each refitted from the previous day's saved
/// counts (`--save-counts`) and its own battles, gives the whole log's board —
/// scores and bootstrap intervals — to 1e-9; the refusals.
#[test]
fn a_warm_refit_equals_the_full_fit() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples().join("llmfao.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let days: Vec<String> = rows
        .chunks(rows.len().div_ceil(3))
        .enumerate()
        .map(|(d, chunk)| {
            write(
                dir.path(),
                &format!("day{d}.csv"),
                &format!("{header}\n{}\n", chunk.join("\n")),
            )
        })
        .collect();
    let mut state: Option<String> = None;
    let mut last = Value::Null;
    for (d, day) in days.iter().enumerate() {
        let saved = dir
            .path()
            .join(format!("state{d}.csv"))
            .to_str()
            .unwrap()
            .to_owned();
        let mut args = vec![
            "rank",
            day.as_str(),
            "--bootstrap",
            "50",
            "--format",
            "json",
            "--save-counts",
            &saved,
        ];
        if let Some(previous) = &state {
            args.extend(["--warm", previous.as_str()]);
        }
        last = json(&args);
        state = Some(saved);
    }
    let whole = examples().join("llmfao.csv");
    let full = json(&[
        "rank",
        whole.to_str().unwrap(),
        "--bootstrap",
        "50",
        "--format",
        "json",
    ]);
    assert_eq!(last["battles"], full["battles"]);
    let (warm, full) = (
        last["models"].as_array().unwrap(),
        full["models"].as_array().unwrap(),
    );
    assert_eq!(warm.len(), full.len());
    for (w, f) in warm.iter().zip(full) {
        assert_eq!(w["name"], f["name"]);
        for key in ["score", "ci_low", "ci_high"] {
            let (a, b) = (w[key].as_f64().unwrap(), f[key].as_f64().unwrap());
            assert!((a - b).abs() < 1e-9, "{} {key}: {a} vs {b}", w["name"]);
        }
    }
    let state = state.unwrap();
    let error = failure(&["rank", &days[0], "--warm", &state, "--method", "elo"]);
    assert!(error.contains("--warm"), "{error}");
    let error = failure(&["rank", &days[0], "--warm", &state, "--save-counts", &state]);
    assert!(error.contains("also an input"), "{error}");
    let page = dir.path().join("page.html");
    let error = failure(&[
        "rank",
        &days[0],
        "--method",
        "elo",
        "--save-counts",
        dir.path().join("s.csv").to_str().unwrap(),
        "--report",
        page.to_str().unwrap(),
    ]);
    assert!(error.contains("--save-counts"), "{error}");
    assert!(!page.exists() && !dir.path().join("s.csv").exists());
}

/// A page refers to nothing outside itself (`url(#…)` names a marker in the page).
fn assert_self_contained(html: &str) {
    for external in ["http://", "https://", "src=", "href=", "@import", "<script"] {
        assert!(!html.contains(external), "the page refers to {external}");
    }
    assert_eq!(html.matches("url(").count(), html.matches("url(#").count());
}

/// `--report` writes one self-contained page: the scores figure has one interval bar
/// per model in score order, the heatmap's (A, D) cell carries 0.978 (P(A beats D)
/// at the MLE, 0.9776 by choix and scipy; the tutorial's 0.977 is its iterate 20),
/// and nothing is fetched from anywhere.
#[test]
fn rank_report_is_a_self_contained_page_with_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let log = examples().join("tutorial-arena.csv");
    let args = [
        "rank",
        log.to_str().unwrap(),
        "--matrix",
        "--report",
        page.to_str().unwrap(),
    ];
    stdout(&verdict(&args));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_self_contained(&html);
    let figure = &html[html.find("<svg class=\"leaderboard\"").unwrap()..];
    let figure = &figure[..figure.find("</svg>").unwrap()];
    let rows: Vec<&str> = figure
        .split("<g class=\"row\" data-model=\"")
        .skip(1)
        .map(|r| &r[..r.find('"').unwrap()])
        .collect();
    assert_eq!(rows, ["A", "B", "C", "D"], "one row per model, best first");
    assert_eq!(figure.matches("class=\"interval\"").count(), 4);
    let heatmap = &html[html.find("<svg class=\"heatmap win-probability\"").unwrap()..];
    assert!(heatmap.contains("data-row=\"A\" data-col=\"D\" data-value=\"0.978\""));
    // A cyclic game: `verdict game --report` draws the cycle among its winner set.
    let csv = write(
        dir.path(),
        "rps.csv",
        ",r,p,s\nr,0,-1,1\np,1,0,-1\ns,-1,1,0\n",
    );
    let game_page = dir.path().join("game.html");
    stdout(&verdict(&[
        "game",
        &csv,
        "--report",
        game_page.to_str().unwrap(),
    ]));
    let html = std::fs::read_to_string(&game_page).unwrap();
    assert_self_contained(&html);
    for (from, to) in [("p", "r"), ("s", "p"), ("r", "s")] {
        let arrow = format!("class=\"beats\" data-from=\"{from}\" data-to=\"{to}\"");
        assert!(html.contains(&arrow), "no arrow {from} -> {to}");
    }
    assert_eq!(html.matches("class=\"beats\"").count(), 3);
    assert!(html.contains("data-row=\"p\" data-col=\"r\" data-value=\"1.000\""));
    // A failed run leaves no page behind.
    let missing = dir.path().join("missing.html");
    failure(&[
        "rank",
        "no-such-log.csv",
        "--report",
        missing.to_str().unwrap(),
    ]);
    assert!(!missing.exists());
}

/// `--group-by` with `--report`: each group's own board beside the whole log's, and a
/// group whose board cannot be made says why instead of stopping the others.
#[test]
fn rank_report_shows_each_groups_board() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "log.csv",
        "model_a,model_b,winner,category\n\
         a,b,model_a,full\nb,c,model_a,full\nc,a,model_a,full\na,b,model_a,full\n\
         a,b,model_b,part\nb,c,model_a,part\n",
    );
    let page = dir.path().join("page.html");
    let args = [
        "rank",
        &log,
        "--method",
        "lottery",
        "--group-by",
        "category",
        "--report",
        page.to_str().unwrap(),
    ];
    stdout(&verdict(&args));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<h2>Per category</h2>"),
        "no per-category section"
    );
    assert!(
        html.contains("full (4 battles)"),
        "no board for the full group"
    );
    // The part group never compares a and c, so its lottery has no board.
    assert!(
        html.contains("part: ") && html.contains("never met"),
        "no reason for part"
    );
}

/// The JSON schema scripts rely on: models sorted by score with every field.
#[test]
fn rank_json_has_the_documented_schema() {
    let log = examples().join("llmfao.csv");
    let report = json(&[
        "rank",
        log.to_str().unwrap(),
        "--format",
        "json",
        "--bootstrap",
        "50",
        "--matrix",
    ]);
    assert_eq!(report["method"], "bradley-terry");
    let models = report["models"].as_array().unwrap();
    assert_eq!(models.len(), 59);
    for field in [
        "name", "score", "ci_low", "ci_high", "rank", "rank_ub", "wins", "losses", "ties",
        "battles",
    ] {
        assert!(models[0].get(field).is_some(), "missing {field}");
    }
    let scores: Vec<f64> = models
        .iter()
        .map(|m| m["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert!(models
        .iter()
        .all(|m| m["ci_low"].as_f64() <= m["score"].as_f64()
            && m["score"].as_f64() <= m["ci_high"].as_f64()));
    assert_eq!(report["fit"]["status"], "converged");
    assert_eq!(report["matrices"]["wins"].as_array().unwrap().len(), 59);
    // Mean of the scores is 1000 (the default centre).
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    assert!((mean - 1000.0).abs() < 1e-9);

    let all = json(&[
        "rank",
        log.to_str().unwrap(),
        "--method",
        "all",
        "--format",
        "json",
        "--bootstrap",
        "0",
        "--allow-unobserved",
    ]);
    assert_eq!(all["method"], "all");
    let methods: Vec<&str> = all["leaderboards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["bradley-terry", "elo", "maximal-lottery"]);
    // Without the flag, `all` leaves the lottery out and says why.
    let two = json(&[
        "rank",
        log.to_str().unwrap(),
        "--method",
        "all",
        "--format",
        "json",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(two["leaderboards"].as_array().unwrap().len(), 2);
    assert!(two["notes"][0]
        .as_str()
        .unwrap()
        .contains("784 pairs of models never met"));
    // LLMFAO has 784 unplayed pairs: without the flag the lottery refuses, naming every
    // remedy by the flag that chooses it.
    let stderr = failure(&["rank", log.to_str().unwrap(), "--method", "lottery"]);
    for wanted in [
        "784 of the",
        "pairs of models never met",
        "--unobserved",
        "bradley-terry",
        "low-rank",
        "core",
        "ties",
    ] {
        assert!(stderr.contains(wanted), "{wanted}: {stderr}");
    }
}

/// The same battles as CSV, JSON Lines, a JSON array and Parquet give the same
/// leaderboard; so does a shuffled copy of the CSV for Bradley–Terry (bit for bit),
/// while Elo changes with the order.
#[test]
fn every_format_and_any_order_give_the_same_bradley_terry() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("arena.csv");
    let parquet = dir.path().join("arena.parquet");
    for out in [&csv, &parquet] {
        stdout(&verdict(&[
            "bench",
            "arena",
            "--models",
            "12",
            "--battles",
            "3000",
            "--seed",
            "5",
            "--out",
            out.to_str().unwrap(),
        ]));
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    let fields = |line: &str| -> Vec<String> { line.split(',').map(str::to_owned).collect() };
    let jsonl: String = lines
        .iter()
        .map(|l| {
            let f = fields(l);
            format!(
                "{{\"model_a\":\"{}\",\"model_b\":\"{}\",\"winner\":\"{}\"}}\n",
                f[0], f[1], f[2]
            )
        })
        .collect();
    let jsonl_path = write(dir.path(), "arena.jsonl", &jsonl);
    let array = format!("[{}]", jsonl.trim_end().replace('\n', ","));
    let array_path = write(dir.path(), "arena.json", &array);
    lines.reverse();
    let reversed_path = write(
        dir.path(),
        "reversed.csv",
        &format!("{header}\n{}\n", lines.join("\n")),
    );

    let board = |path: &str, method: &str| -> Vec<(String, String)> {
        let report = json(&[
            "rank",
            path,
            "--format",
            "json",
            "--bootstrap",
            "0",
            "--method",
            method,
        ]);
        report["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["name"].as_str().unwrap().to_owned(),
                    m["score"].to_string(),
                )
            })
            .collect()
    };
    let reference = board(csv.to_str().unwrap(), "bt");
    for path in [
        parquet.to_str().unwrap(),
        &jsonl_path,
        &array_path,
        &reversed_path,
    ] {
        assert_eq!(board(path, "bt"), reference, "{path}");
    }
    assert_ne!(
        board(&reversed_path, "elo"),
        board(csv.to_str().unwrap(), "elo")
    );
    let listed = board_with(&csv, &["--method", "elo"]);
    let shuffled = board_with(&csv, &["--method", "elo", "--shuffle-seed", "3"]);
    assert_ne!(shuffled, listed);
}

fn board_with(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "rank",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--bootstrap",
        "0",
    ];
    args.extend_from_slice(extra);
    json(&args)["models"].clone()
}

/// Bootstrap intervals are reproducible and independent of the thread count.
#[test]
fn bootstrap_is_seeded_and_thread_independent() {
    let log = examples().join("llmfao.csv");
    let run = |threads: &str, seed: &str| {
        stdout(&verdict(&[
            "--threads",
            threads,
            "rank",
            log.to_str().unwrap(),
            "--format",
            "csv",
            "--bootstrap",
            "200",
            "--seed",
            seed,
        ]))
    };
    assert_eq!(run("1", "4"), run("2", "4"));
    assert_ne!(run("2", "4"), run("2", "5"));
}

/// Other schemas real dumps use: one-hot winner columns, evalica's left/right, labels
/// like both_bad, a filter and an anchor.
#[test]
fn accepts_other_spellings_filters_and_anchors() {
    let dir = tempfile::tempdir().unwrap();
    let one_hot = write(
        dir.path(),
        "one_hot.csv",
        "model_a,model_b,winner_model_a,winner_model_b,winner_tie,language\nx,y,1,0,0,en\ny,z,0,1,0,en\nz,x,0,0,1,de\nx,z,1,0,0,en\ny,x,1,0,0,en\n",
    );
    let board = board_with(Path::new(&one_hot), &["--anchor", "x=1114"]);
    let x = board
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "x")
        .unwrap();
    assert_eq!(x["score"].as_f64().unwrap(), 1114.0);
    assert_eq!(x["wins"], 2);
    let english = board_with(Path::new(&one_hot), &["--filter", "language=en"]);
    assert_eq!(
        english
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["battles"].as_u64().unwrap())
            .sum::<u64>(),
        8
    );
    let labels = write(dir.path(), "labels.jsonl", "{\"model_a\":\"p\",\"model_b\":\"q\",\"winner\":\"both_bad\"}\n{\"model_a\":\"p\",\"model_b\":\"q\",\"winner\":\"model_a\"}\n");
    let board = board_with(Path::new(&labels), &[]);
    assert_eq!(board[0]["ties"], 1);
}

/// Each kind of bad input gets one clear error naming file, row and column, exit 2,
/// and no output file.
#[test]
fn bad_input_fails_clearly_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("board.json");
    let out_arg = out.to_str().unwrap().to_owned();
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (
            write(dir.path(), "missing.csv", "model_a,model_b\nx,y\n"),
            vec![],
            "missing column \"winner\" (columns present: model_a, model_b)",
        ),
        (
            write(dir.path(), "label.csv", "model_a,model_b,winner\nx,y,model_a\nx,y,draw!\n"),
            vec![],
            "label.csv:3: column \"winner\": expected model_a | model_b | tie | tie (bothbad), found \"draw!\"",
        ),
        (
            write(dir.path(), "self.csv", "model_a,model_b,winner\nx,y,model_a\nx,x,tie\n"),
            vec![],
            "self.csv:3: column \"model_b\": model \"x\" battles itself",
        ),
        (
            write(dir.path(), "ragged.csv", "model_a,model_b,winner\nx,y,model_a\nx,y\n"),
            vec![],
            "ragged.csv:3: expected 3 fields like the header, found 2",
        ),
        (
            write(dir.path(), "empty.csv", "model_a,model_b,winner,anony\nx,y,model_a,false\n"),
            vec!["--filter", "anony=true"],
            "no battles left after filtering with anony=true (1 rows read)",
        ),
        (
            write(dir.path(), "nothing.csv", "model_a,model_b,winner\n"),
            vec![],
            "the log holds no battles",
        ),
        (
            write(dir.path(), "broken.parquet", "PAR1 this is not parquet"),
            vec![],
            "broken.parquet: not a readable Parquet file",
        ),
        (
            write(dir.path(), "lines.jsonl", "{\"model_a\":\"x\",\"model_b\":\"y\",\"winner\":\"model_a\"}\n[1,2]\n"),
            vec![],
            "lines.jsonl:2: expected a JSON object per line",
        ),
        (
            write(dir.path(), "anchor.csv", "model_a,model_b,winner\nx,y,model_a\ny,x,model_a\n"),
            vec!["--anchor", "nobody=1000"],
            "anchor model \"nobody\" is not in the log",
        ),
        (
            write(dir.path(), "odd.txt", "model_a,model_b,winner\n"),
            vec![],
            "cannot tell the format from the extension",
        ),
        (
            dir.path().join("absent.csv").display().to_string(),
            vec![],
            "absent.csv: no such file or directory; check the path",
        ),
        (
            {
                let link = dir.path().join("dangling.csv");
                std::os::unix::fs::symlink(dir.path().join("gone.csv"), &link).unwrap();
                link.display().to_string()
            },
            vec![],
            "dangling.csv: a symbolic link to nothing",
        ),
    ];
    for (file, extra, message) in cases {
        let mut args = vec![
            "rank",
            file.as_str(),
            "--bootstrap",
            "0",
            "--format",
            "json",
            "--out",
            &out_arg,
        ];
        args.extend(extra);
        let stderr = failure(&args);
        assert!(
            stderr.contains(message),
            "for {file}: expected {message:?} in {stderr:?}"
        );
        assert!(!out.exists(), "no output file after an error ({file})");
    }
    let one_model = write(
        dir.path(),
        "one.csv",
        "model_a,model_b,winner\nx,y,model_a\n",
    );
    let stderr = failure(&["rank", &one_model, "--ci", "1.5"]);
    assert!(stderr.contains("strictly between 0 and 1"), "{stderr}");
}

/// Sandwich intervals, a plot in both formats, output to a file, standard input.
#[test]
fn sandwich_plots_files_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let log = examples().join("llmfao.csv");
    let svg = dir.path().join("board.svg");
    let png = dir.path().join("board.png");
    let out = dir.path().join("board.csv");
    for plot in [&svg, &png] {
        stdout(&verdict(&[
            "rank",
            log.to_str().unwrap(),
            "--ci",
            "sandwich",
            "--plot",
            plot.to_str().unwrap(),
            "--format",
            "csv",
            "--out",
            out.to_str().unwrap(),
        ]));
    }
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.starts_with("method,name,score,ci_low,ci_high,rank,rank_ub"));
    assert_eq!(csv.lines().count(), 60);

    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args([
            "rank",
            "-",
            "--input-format",
            "csv",
            "--bootstrap",
            "0",
            "--format",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"model_a,model_b,winner\nx,y,model_a\ny,x,tie\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["models"][0]["name"], "x");
    let stderr = failure(&["rank", "-"]);
    assert!(stderr.contains("needs --input-format"));
}

/// `--method lottery` on a cyclic arena: the uniform lottery, no Condorcet winner,
/// probabilities in the JSON; `verdict game` on a matrix file, and its errors.
#[test]
fn lottery_and_game_commands() {
    let dir = tempfile::tempdir().unwrap();
    let cycle = write(
        dir.path(),
        "cycle.csv",
        "model_a,model_b,winner\nrock,scissors,model_a\nscissors,paper,model_a\npaper,rock,model_a\n",
    );
    let report = json(&["rank", &cycle, "--method", "lottery", "--format", "json"]);
    assert_eq!(report["method"], "maximal-lottery");
    assert_eq!(report["lottery"]["condorcet_winner"], Value::Null);
    assert_eq!(report["lottery"]["support"].as_array().unwrap().len(), 3);
    for model in report["models"].as_array().unwrap() {
        assert!((model["probability"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert!(model.get("support_share").is_none() && model["ci_low"].is_null());
    }
    // Bootstrapped on request: three battles resample to logs that lose a pair, which
    // the notes count; every model carries its interval and support share.
    let bootstrapped = ["rank", &cycle, "--method", "lottery", "--bootstrap", "50"];
    let report = json(&[&bootstrapped[..], &["--format", "json"]].concat());
    for model in report["models"].as_array().unwrap() {
        let share = model["support_share"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&share));
        assert!(model["ci_low"].as_f64().unwrap() <= model["ci_high"].as_f64().unwrap());
    }
    let notes = report["notes"].to_string();
    assert!(notes.contains("drew no battle for a pair"), "{notes}");
    let table = stdout(&verdict(&bootstrapped));
    assert!(table.contains("in support"), "{table}");
    let matrix = write(
        dir.path(),
        "rps.csv",
        ",rock,paper,scissors\nrock,0,-1,1\npaper,1,0,-1\nscissors,-1,1,0\n",
    );
    let game = json(&["game", &matrix, "--format", "json"]);
    assert_eq!(game["models"][0]["name"], "rock");
    assert!(game["exploitability"].as_f64().unwrap() <= 1e-9);
    assert!(game["value"].as_f64().unwrap().abs() <= 1e-12);
    // A hard budget on both players: rock 0.1, paper 0.5, scissors 0.9, C = 0.3 gives
    // rock/paper half and half (spend 0.3, and no affordable mix beats it).
    let costs = write(
        dir.path(),
        "costs.csv",
        "model,cost\nrock,0.1\npaper,0.5\nscissors,0.9\n",
    );
    let budgeted = json(&[
        "game", &matrix, "--costs", &costs, "--budget", "0.3", "--format", "json",
    ]);
    let p: Vec<f64> = (0..3)
        .map(|j| budgeted["models"][j]["probability"].as_f64().unwrap())
        .collect();
    assert!(
        (p[0] - 0.5).abs() < 1e-9 && (p[1] - 0.5).abs() < 1e-9 && p[2].abs() < 1e-9,
        "{p:?}"
    );
    assert!(budgeted["gap"].as_f64().unwrap() <= 1e-9);
    let regularized = json(&[
        "game", &matrix, "--rho", "0.1", "--costs", &costs, "--format", "json",
    ]);
    assert!(regularized["gap"].as_f64().unwrap() <= 1e-9);
    for extra in [
        ["--rho", "0.05", "--budget", "0.3"],
        ["--rho", "0", "--budget", "0.3"],
    ] {
        let mut args = vec![
            "game",
            matrix.as_str(),
            "--costs",
            costs.as_str(),
            "--format",
            "json",
        ];
        args.extend(extra);
        let solved = json(&args);
        assert!(solved["gap"].as_f64().unwrap() <= 1e-9, "{extra:?}");
        let spend: f64 = (0..3)
            .map(|j| solved["models"][j]["probability"].as_f64().unwrap() * [0.1, 0.5, 0.9][j])
            .sum();
        assert!(spend <= 0.3 + 1e-9, "{extra:?}: spends {spend}");
    }
    // Soft budget: with a steep surcharge above B = 0.3 the spend falls towards B.
    let soft = json(&[
        "game",
        &matrix,
        "--costs",
        &costs,
        "--rho",
        "0.1",
        "--soft-budget",
        "0.3",
        "--surcharge",
        "5",
        "--format",
        "json",
    ]);
    assert!(soft["gap"].as_f64().unwrap() <= 1e-9);
    let entropy = json(&["game", &matrix, "--max-entropy", "--format", "json"]);
    assert!((entropy["models"][0]["probability"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-6);
    let bad_costs = write(
        dir.path(),
        "bad_costs.csv",
        "model,cost\nrock,0.1\npaper,0.5\nlizard,0.9\n",
    );
    let missing = write(
        dir.path(),
        "missing.csv",
        "model,cost\nrock,0.1\npaper,0.5\n",
    );
    for (extra, message) in [
        (
            vec!["--costs", bad_costs.as_str(), "--rho", "0.1"],
            "names agents that are not in the game: lizard",
        ),
        (
            vec!["--costs", missing.as_str(), "--rho", "0.1"],
            "no cost for agent \"scissors\"",
        ),
        (
            vec!["--costs", costs.as_str(), "--budget", "0.05"],
            "budget 0.05 is below the cheapest agent's cost 0.1",
        ),
        (vec!["--budget", "0.5"], "a budget needs per-agent costs"),
    ] {
        let mut args = vec!["game", matrix.as_str()];
        args.extend(extra);
        let stderr = failure(&args);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    for (name, text, message) in [
        (
            "skew.csv",
            ",a,b\na,0,0.5\nb,0.4,0\n",
            "not skew-symmetric: A[a][b] = 0.5 but A[b][a] = 0.4",
        ),
        (
            "nan.csv",
            ",a,b\na,0,x\nb,0,0\n",
            "nan.csv:2: column \"b\": \"x\" is not a number",
        ),
        ("one.csv", ",a\na,0\n", "at least 2 agents, found 1"),
        (
            "order.csv",
            ",a,b\nb,0,1\na,-1,0\n",
            "row 1 is named \"b\" but column 1 is \"a\"",
        ),
    ] {
        let path = write(dir.path(), name, text);
        let stderr = failure(&["game", &path]);
        assert!(stderr.contains(message), "{name}: {stderr}");
    }
}

/// `--group-by COLUMN --robust`: the robust lottery over groups with Eq. 80's default
/// radius `min{1, sqrt(|G|/n) + sqrt(2/n ln(2/0.05))}`, and a given radius.
#[test]
fn robust_lottery_over_groups() {
    let log = examples().join("genai-arena-battles-20240220.json");
    let log = log.to_str().unwrap();
    let base = [
        "rank",
        log,
        "--filter",
        "model_a~_generation",
        "--skip-self-battles",
        "--method",
        "lottery",
    ];
    let mut args = base.to_vec();
    args.extend(["--group-by", "anony", "--robust", "--format", "json"]);
    let report = json(&args);
    let robust = &report["lottery"]["robust"];
    assert_eq!(robust["groups"].as_array().unwrap().len(), 2);
    let n = 1977.0_f64;
    let expected = (2.0 / n).sqrt() + (2.0 / n * (2.0_f64 / 0.05).ln()).sqrt();
    assert!((robust["radius"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert!(robust["worst_case"].as_f64().unwrap() <= 1e-9);
    args.extend(["--radius", "0.5"]);
    assert_eq!(json(&args)["lottery"]["robust"]["radius"], 0.5);
    let mut no_groups = base.to_vec();
    no_groups.push("--robust");
    let stderr = failure(&no_groups);
    assert!(stderr.contains("--group-by"), "{stderr}");
}

/// `verdict bench judges --format json`: one row per (norm, budget, method) with the
/// documented fields; the oracle beats uniform on every row pair, budgets too small
/// for a method are reported as such, and bad flags are clear errors.
#[test]
fn bench_judges_reports_every_cell() {
    let args = [
        "bench",
        "judges",
        "--items",
        "30",
        "--judges",
        "3",
        "--budgets",
        "100,2000",
        "--reps",
        "3",
        "--p",
        "1,inf",
        "--format",
        "json",
        "--seed",
        "4",
    ];
    let value = json(&args);
    let rows = value["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 2 * 5);
    for row in rows {
        for field in ["method", "budget", "p", "error_mean", "error_std"] {
            assert!(row.get(field).is_some(), "{row}");
        }
    }
    let cell = |method: &str, budget: f64, p: &str| {
        rows.iter()
            .find(|r| r["method"] == method && r["budget"] == budget && r["p"] == p)
            .unwrap()
            .clone()
    };
    for p in ["1", "inf"] {
        let oracle = cell("oracle", 2000.0, p)["error_mean"].as_f64().unwrap();
        let uniform = cell("uniform", 2000.0, p)["error_mean"].as_f64().unwrap();
        assert!(
            oracle < uniform,
            "p={p}: oracle {oracle} vs uniform {uniform}"
        );
        // 100 cannot pay two exploration rounds of 30 items × 3 judges.
        assert!(cell("est-ivwe", 100.0, p)["error_mean"].is_null());
        assert_eq!(cell("est-ivwe", 100.0, p)["infeasible"], 3);
    }
    // Same seed, same numbers; the page carries the log–log curves, inline.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("judges.html");
    let mut with_page: Vec<&str> = args.to_vec();
    with_page.extend(["--report", page.to_str().unwrap()]);
    assert_eq!(json(&with_page), value);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Error against budget</h2>") && html.contains("<svg"));
    assert!(html.contains("est-ivwe") && html.contains("oracle"));
    assert!(!html.contains("http") && !html.contains("<script"));
    assert!(failure(&["bench", "judges", "--p", "0.5"]).contains("p >= 1"));
    assert!(failure(&["bench", "judges", "--methods", "magic"]).contains("unknown method"));
    assert!(failure(&["bench", "judges", "--budgets=-5"]).contains("--budgets"));
}

/// Writes six items, a command judge that echoes the item's truth after a pause and a
/// judge replaying recorded scores; returns the `verdict judge` arguments.
fn judge_setup(dir: &Path) -> Vec<String> {
    let items: String = (1..=6)
        .map(|i| format!("{{\"id\": \"q{i}\", \"truth\": 0.{}}}\n", i + 2))
        .collect();
    std::fs::write(dir.join("items.jsonl"), items).unwrap();
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/judge-recorded.csv");
    std::fs::copy(recorded, dir.join("recorded.csv")).unwrap();
    let config = r#"range = 1.0

[[judge]]
name = "echo-truth"
cost = 0.5
command = ["sh", "-c", "sleep 0.01; sed -n 's/.*\"truth\": *\\([0-9.]*\\).*/\\1/p'"]
timeout_seconds = 5
idempotent = true

[[judge]]
name = "recorded"
cost = 0.2
replay = "recorded.csv"
"#;
    std::fs::write(dir.join("judges.toml"), config).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    vec![
        "judge".into(),
        "--items".into(),
        path("items.jsonl"),
        "--judges".into(),
        path("judges.toml"),
        "--budget".into(),
        "30".into(),
        "--ledger".into(),
        path("spend.jsonl"),
        "--out".into(),
        path("scores.csv"),
    ]
}

/// Runs `verdict` and checks that it succeeded; returns the whole output (the
/// judge's progress report is on stderr).
fn succeed(args: &[String]) -> Output {
    let output = verdict(args);
    stdout(&output);
    output
}

/// Calls the ledger records as ended (whole lines only: a line cut short by a kill
/// does not count).
fn ledger_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("spend.jsonl"))
        .map(|t| {
            t.split_inclusive('\n')
                .filter(|l| l.ends_with('\n') && l.contains("\"event\":\"end\""))
                .count()
        })
        .unwrap_or(0)
}

/// Kills `child` with SIGKILL once `happened` says the event `what` names did — an
/// event, not a time, so the kill lands where the test says. The wait is not for
/// ever: a run that ends (or stalls) before the event fails the test instead of
/// hanging it; 120 s is far past any run here and no race, since reaching it is a
/// failure.
fn kill_once(child: &mut std::process::Child, what: &str, happened: impl Fn() -> bool) {
    let waited = std::time::Instant::now();
    while !happened() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}");
        }
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(120),
            "not in 120 s: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Killed with SIGKILL mid-run and restarted with the same ledger, `verdict judge`
/// ends with the same scores and the same ledger as a run never interrupted, and the
/// restart pays only for the calls not yet recorded.
#[test]
fn judge_run_killed_and_resumed_matches_an_uninterrupted_run() {
    let whole = tempfile::tempdir().unwrap();
    let args = judge_setup(whole.path());
    succeed(&args);
    let calls = ledger_lines(whole.path());

    let cut = tempfile::tempdir().unwrap();
    let args = judge_setup(cut.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    kill_once(&mut child, "20 calls were recorded", || {
        ledger_lines(cut.path()) >= 20
    });
    let before = ledger_lines(cut.path());
    assert!(before < calls, "the run finished before it was killed");
    assert!(
        !cut.path().join("scores.csv").exists(),
        "no output from a killed run"
    );
    let output = succeed(&args);
    let message = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(message.contains(&format!("{before} replayed")), "{message}");
    assert!(
        message.contains(&format!("{} made", calls - before)),
        "{message}"
    );
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(
        read(cut.path(), "scores.csv"),
        read(whole.path(), "scores.csv")
    );
    let strip = |text: String| -> Vec<Value> {
        text.lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("time");
                v
            })
            .collect()
    };
    assert_eq!(
        strip(read(cut.path(), "spend.jsonl")),
        strip(read(whole.path(), "spend.jsonl"))
    );
    let spent: f64 = strip(read(cut.path(), "spend.jsonl"))
        .iter()
        .filter_map(|v| v["cost"].as_f64())
        .sum();
    assert!(spent <= 30.0 + 1e-9);
}

/// `verdict judge --report`: the page's spend per judge and per item and its
/// allocation agree with the ledger, counted here line by line.
#[test]
fn judge_report_reads_spend_and_allocation_from_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = judge_setup(dir.path());
    let page = dir.path().join("run.html");
    args.extend(["--report".into(), page.display().to_string()]);
    succeed(&args);
    let html = std::fs::read_to_string(&page).unwrap();
    for section in [
        "<h2>Run</h2>",
        "<h2>Spend per judge</h2>",
        "<h2>Spend per item</h2>",
        "<h2>Allocation: scored calls per item and judge</h2>",
    ] {
        assert!(html.contains(section), "the page lacks {section}");
    }
    assert!(!html.contains("http") && !html.contains("<script"));
    let ledger = std::fs::read_to_string(dir.path().join("spend.jsonl")).unwrap();
    let ends: Vec<Value> = ledger
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == "end")
        .collect();
    for judge in ["echo-truth", "recorded"] {
        let spent: f64 = ends
            .iter()
            .filter(|v| v["judge"] == judge)
            .map(|v| v["cost"].as_f64().unwrap())
            .sum();
        let needle = format!("data-label=\"{judge}\" data-value=\"");
        let at = html.find(&needle).unwrap() + needle.len();
        let shown: f64 = html[at..at + html[at..].find('"').unwrap()]
            .parse()
            .unwrap();
        assert!(
            (shown - spent).abs() < 1e-9,
            "{judge}: page {shown}, ledger {spent}"
        );
        for item in ["q1", "q6"] {
            let calls = ends
                .iter()
                .filter(|v| v["judge"] == judge && v["item"] == item && v["score"].is_number())
                .count();
            let cell = format!("data-row=\"{item}\" data-col=\"{judge}\" data-value=\"{calls}\"");
            assert!(html.contains(&cell), "no cell {cell}");
        }
    }
}

#[test]
fn judge_reports_bad_configurations_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let args = judge_setup(dir.path());
    let mut refs: Vec<String> = args.clone();
    // A budget below two exploration rounds.
    refs[6] = "3".into();
    let r: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert!(failure(&r).contains("Phase I"));
    // A judge with neither command nor replay.
    std::fs::write(
        dir.path().join("judges.toml"),
        "range = 1.0\n[[judge]]\nname = \"x\"\ncost = 1.0\n",
    )
    .unwrap();
    let r: Vec<&str> = args.iter().map(String::as_str).collect();
    assert!(failure(&r).contains("exactly one of command"));
    // An item without an id.
    judge_setup(dir.path());
    std::fs::write(dir.path().join("items.jsonl"), "{\"truth\": 0.3}\n").unwrap();
    assert!(failure(&r).contains("\"id\""));
}

/// A rehearsal with a simulated judge (Beta around each item's truth) and the
/// adaptive method: scores near the truth, the same on a second run from the ledger,
/// and a clear error for an item without a truth.
#[test]
fn judge_rehearses_with_a_simulated_judge() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = judge_setup(dir.path());
    std::fs::write(
        dir.path().join("judges.toml"),
        "range = 1.0\n[[judge]]\nname = \"sim\"\ncost = 0.5\nsimulate = 0.01\n\n[[judge]]\nname = \"recorded\"\ncost = 0.2\nreplay = \"recorded.csv\"\n",
    )
    .unwrap();
    args[6] = "200".into();
    args.extend(["--method".into(), "adaptive".into()]);
    succeed(&args);
    let scores = std::fs::read_to_string(dir.path().join("scores.csv")).unwrap();
    for (i, line) in scores.lines().skip(1).enumerate() {
        let score: f64 = line.split(',').nth(1).unwrap().parse().unwrap();
        let truth = 0.1 * (i as f64 + 3.0);
        assert!(
            (score - truth).abs() < 0.1,
            "q{}: {score} vs {truth}",
            i + 1
        );
    }
    let again = succeed(&args);
    assert!(String::from_utf8_lossy(&again.stderr).contains("0 made"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("scores.csv")).unwrap(),
        scores
    );
    std::fs::write(dir.path().join("items.jsonl"), "{\"id\": \"q1\"}\n").unwrap();
    std::fs::remove_file(dir.path().join("spend.jsonl")).unwrap();
    assert!(failure(&args).contains("\"truth\""));
}

/// `verdict simulate`: every file and the manifest, byte-identical for the same seed,
/// a different log for another seed, clear refusals for bad settings and for an
/// output directory that is not an earlier simulation (left untouched).
#[test]
fn simulate_writes_a_reproducible_data_set() {
    let dir = tempfile::tempdir().unwrap();
    // A setting of the other world is refused by its flag, and nothing is written.
    let elsewhere = dir.path().join("elsewhere");
    let message = failure(&[
        "simulate",
        "--world",
        "arena",
        "--voters",
        "2",
        "--out",
        elsewhere.to_str().unwrap(),
    ]);
    assert!(
        message.contains("--voters: not a setting of the arena world"),
        "{message}"
    );
    assert!(!elsewhere.exists());
    let run = |out: &Path, seed: &str| {
        let out = out.to_str().unwrap().to_string();
        succeed(
            &[
                "simulate",
                "--feedback",
                "ranking",
                "--voters",
                "3",
                "--contexts",
                "300",
                "--test-contexts",
                "50",
                "--seed",
                seed,
                "--out",
                &out,
            ]
            .map(String::from),
        )
    };
    let (first, second, other) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    run(&first, "70");
    run(&second, "70");
    run(&other, "71");
    let files = [
        "contexts.parquet",
        "feedback.parquet",
        "test_contexts.parquet",
        "truth.parquet",
        "test_truth.parquet",
        "manifest.json",
    ];
    for file in files {
        let a = std::fs::read(first.join(file)).unwrap();
        assert_eq!(a, std::fs::read(second.join(file)).unwrap(), "{file}");
    }
    assert_ne!(
        std::fs::read(first.join("feedback.parquet")).unwrap(),
        std::fs::read(other.join("feedback.parquet")).unwrap()
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["feedback"], "ranking");
    assert_eq!(manifest["voters"], 3);
    assert_eq!(manifest["menus"].as_array().unwrap().len(), 5);
    assert_eq!(manifest["files"]["truth.parquet"]["rows"], 300);
    // Round trip: the log read back has exactly the simulated responses.
    let log = verdict::io::read_contextual_log(
        &verdict::io::Source::File(first.join("contexts.parquet")),
        &verdict::io::Source::File(first.join("feedback.parquet")),
        &verdict::io::ContextualOptions::default(),
    )
    .unwrap();
    use verdict_lab::worlds::nasheval::{
        replication_contexts, simulate_feedback, FeedbackKind, World,
    };
    let (contexts, _) = replication_contexts(70, 300, 50);
    let records = simulate_feedback(&World::draw(70), &contexts, 3, FeedbackKind::Ranking, 70);
    assert_eq!(log.feedback.len(), records.len());
    assert_eq!(log.feature_names, ["x1", "x2", "x3", "x4", "x5"]);
    assert_eq!(log.features[..5], contexts[0]);
    let menus = FeedbackKind::Ranking.menus();
    let by_key: std::collections::HashMap<(usize, Vec<usize>), &Vec<usize>> = records
        .iter()
        .map(|r| ((r.context, menus[r.menu].clone()), &r.response))
        .collect();
    for observed in &log.feedback {
        let agents: Vec<usize> = log.menus[observed.menu]
            .iter()
            .map(|&a| log.agents[a][6..].parse::<usize>().unwrap() - 1)
            .collect();
        let mut sorted = agents.clone();
        sorted.sort_unstable();
        let response = by_key[&(observed.context, sorted)];
        let place = |x: usize| response.iter().position(|&r| r == x).unwrap() as f64;
        for (j, &a) in agents.iter().enumerate() {
            for (k, &b) in agents.iter().enumerate() {
                let z = (place(b) - place(a)).signum() * f64::from(u8::from(a != b));
                assert_eq!(observed.verdicts[j * agents.len() + k], z);
            }
        }
    }
    // Rerunning onto an earlier simulation replaces it.
    run(&first, "71");
    assert_eq!(
        std::fs::read(first.join("feedback.parquet")).unwrap(),
        std::fs::read(other.join("feedback.parquet")).unwrap()
    );
    // Bad settings.
    let message = failure(&[
        "simulate",
        "--voters",
        "6",
        "--out",
        dir.path().join("d").to_str().unwrap(),
    ]);
    assert!(message.contains("--voters 6: expected 1 to 5"), "{message}");
    assert!(!dir.path().join("d").exists());
    let leftovers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".verdict")
        })
        .count();
    assert_eq!(leftovers, 0, "staging directories left behind");
}

/// `verdict log`: a contextual log and a battle log with context columns are checked
/// and summarised; a feedback row for an unknown context fails with its place.
#[test]
fn log_checks_and_summarises_contextual_logs() {
    let dir = tempfile::tempdir().unwrap();
    let contexts = write(
        dir.path(),
        "contexts.csv",
        "context_id,prompt\nq1,sort a list\nq2,prove a lemma\n",
    );
    let feedback = write(
        dir.path(),
        "feedback.jsonl",
        concat!(
            "{\"context_id\":\"q1\",\"menu\":[\"a\",\"b\",\"c\"],\"modality\":\"ranking\",\"response\":[\"b\",\"a\",\"c\"]}\n",
            "{\"context_id\":\"q1\",\"menu\":[\"a\",\"b\",\"c\"],\"modality\":\"winner\",\"response\":\"c\"}\n",
            "{\"context_id\":\"q2\",\"menu\":[\"a\",\"c\"],\"modality\":\"pairwise\",\"response\":\"tie\"}\n",
        ),
    );
    let summary = json(&[
        "log",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--text-col",
        "prompt",
        "--text-dim",
        "8",
        "--format",
        "json",
    ]);
    assert_eq!(summary["contexts"], 2);
    assert_eq!(summary["agents"], serde_json::json!(["a", "b", "c"]));
    assert_eq!(summary["features"].as_array().unwrap().len(), 8);
    assert_eq!(summary["responses"], 3);
    assert_eq!(summary["observed_context_menus"], 2);
    assert_eq!(summary["menus"][0]["responses"], 2);
    assert_eq!(summary["menus"][1]["selection_rate"], 0.5);

    let battles = write(
        dir.path(),
        "battles.csv",
        "model_a,model_b,winner,language\nx,y,model_a,en\ny,x,tie,de\n",
    );
    let arena = json(&[
        "log",
        "--battles",
        &battles,
        "--context-cols",
        "language",
        "--format",
        "json",
    ]);
    assert_eq!(arena["contexts"], 2);
    assert_eq!(
        arena["features"],
        serde_json::json!(["language=en", "language=de"])
    );

    let stray = write(
        dir.path(),
        "stray.jsonl",
        "{\"context_id\":\"q9\",\"menu\":[\"a\",\"b\"],\"modality\":\"pairwise\",\"response\":\"a\"}\n",
    );
    let catalogue = write(dir.path(), "menus.json", "[[\"a\", \"c\"]]");
    let message = failure(&[
        "log",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--catalogue",
        &catalogue,
    ]);
    assert!(message.contains("column \"menu\""), "{message}");
    assert!(message.contains("catalogue"), "{message}");
    let message = failure(&["log", "--contexts", &contexts, "--feedback", &stray]);
    assert!(message.contains("stray.jsonl:1"), "{message}");
    assert!(message.contains("\"q9\""), "{message}");
}

/// `verdict simulate --out DIR` never removes or overwrites a file it did not write:
/// files a user added to an earlier simulation survive a rerun, a directory whose
/// manifest merely looks like ours or that holds a file of the same name as one the
/// run writes is refused with nothing moved, and the staging directory of a killed
/// run is cleaned up by the next one.
#[test]
fn simulate_never_loses_a_file_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sim");
    let simulate = |out: &Path, seed: &str| {
        verdict(&[
            "simulate".to_string(),
            "--contexts".into(),
            "20".into(),
            "--test-contexts".into(),
            "5".into(),
            "--seed".into(),
            seed.into(),
            "--out".into(),
            out.display().to_string(),
        ])
    };
    assert!(simulate(&out, "1").status.success());
    std::fs::write(out.join("notes.txt"), "my notes").unwrap();
    std::fs::create_dir(out.join("analysis")).unwrap();
    std::fs::write(out.join("analysis/plot.R"), "plot(x)").unwrap();
    let first = std::fs::read(out.join("feedback.parquet")).unwrap();
    assert!(simulate(&out, "2").status.success());
    assert_ne!(std::fs::read(out.join("feedback.parquet")).unwrap(), first);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "my notes"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("analysis/plot.R")).unwrap(),
        "plot(x)"
    );
    // A file verdict wrote and the user then changed is no longer verdict's.
    std::fs::write(out.join("truth.parquet"), "edited by hand").unwrap();
    let refused = simulate(&out, "3");
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("truth.parquet"), "{message}");
    assert_eq!(
        std::fs::read_to_string(out.join("truth.parquet")).unwrap(),
        "edited by hand"
    );
    // A manifest that only looks like ours proves nothing.
    let forged = dir.path().join("forged");
    std::fs::create_dir(&forged).unwrap();
    std::fs::write(
        forged.join("manifest.json"),
        r#"{"generator":"NashEval Appendix G"}"#,
    )
    .unwrap();
    std::fs::write(forged.join("contexts.parquet"), "mine").unwrap();
    let refused = simulate(&forged, "1");
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(forged.join("contexts.parquet")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(forged.join("manifest.json")).unwrap(),
        r#"{"generator":"NashEval Appendix G"}"#
    );
    // A directory of the user's with other files: the simulation goes in beside them.
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    assert!(simulate(&mine, "1").status.success());
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    // No staging directory is left behind, and a killed run's is removed.
    let stale = dir.path().join(".verdict-staging-4194304-abc");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join(".verdict-staging"), "4194304").unwrap();
    std::fs::write(stale.join("feedback.parquet"), vec![0u8; 1000]).unwrap();
    assert!(simulate(&out.with_file_name("again"), "1").status.success());
    let hidden: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".verdict"))
        .collect();
    assert!(hidden.is_empty(), "left behind: {hidden:?}");
}

/// A real killed run, not a hand-made folder: `simulate` is killed with SIGKILL once
/// its staging directory and its marker exist (an event: the test waits for them,
/// then kills), which proves the kill landed after staging began; the
/// directory is left behind, the output never appears half made, and the next run in
/// the same folder removes it.
#[test]
fn a_killed_simulate_leaves_no_output_and_the_next_run_removes_its_staging() {
    let dir = tempfile::tempdir().unwrap();
    let simulate = |out: &Path, contexts: &str| {
        Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args([
                "--quiet",
                "simulate",
                "--contexts",
                contexts,
                "--test-contexts",
                "500",
            ])
            .arg("--out")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let staging = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(".verdict-staging-")
            })
            .collect()
    };
    let out = dir.path().join("big");
    let mut child = simulate(&out, "200000");
    // Staged: the directory and its marker (the pid that made it) both exist.
    kill_once(&mut child, "it staged", || {
        staging(dir.path())
            .iter()
            .any(|p| p.join(".verdict-staging").exists())
    });
    assert_eq!(
        staging(dir.path()).len(),
        1,
        "the killed run's staging is there"
    );
    assert!(!out.exists(), "a killed run published an output");
    let again = dir.path().join("small");
    assert!(simulate(&again, "20").wait().unwrap().success());
    assert!(
        staging(dir.path()).is_empty(),
        "left behind: {:?}",
        staging(dir.path())
    );
    assert!(again.join("feedback.parquet").exists());
}

/// A judge program that is paid on every call: it appends its call key to `payments`
/// before answering with the item's truth. When `idempotent`, a key already paid is
/// answered again without paying (under a lock, since a killed run's judge may still
/// be running when the next run asks the same key).
fn paying_judge(dir: &Path, idempotent: bool) -> String {
    let pay = dir.join("payments");
    let pay = pay.display();
    // Every attempt is recorded apart from what is charged: an idempotent provider
    // charges a key once however often it is asked, and the attempts show whether
    // verdict asked again under the same key.
    let attempts = dir.join("attempts");
    let attempts = attempts.display();
    let charge = if idempotent {
        format!(
            "flock {pay}.lock sh -c 'grep -qxF \"$VERDICT_CALL_KEY\" {pay} 2>/dev/null || echo \"$VERDICT_CALL_KEY\" >> {pay}'"
        )
    } else {
        format!("echo \"$VERDICT_CALL_KEY\" >> {pay}")
    };
    let script = format!("echo \"$VERDICT_CALL_KEY\" >> {attempts}; {charge}; sleep 0.004; sed -n 's/.*\"truth\": *\\([0-9.]*\\).*/\\1/p'");
    format!(
        "range = 1.0\n\n[[judge]]\nname = \"paid\"\ncost = 0.5\ncommand = [\"sh\", \"-c\", {script:?}]\ntimeout_seconds = 5\nidempotent = {idempotent}\n\n[[judge]]\nname = \"recorded\"\ncost = 0.2\nreplay = \"recorded.csv\"\n"
    )
}

/// The `verdict judge` arguments of [`judge_setup`] with the paying judge of
/// [`paying_judge`] and `budget`.
fn paying_setup(dir: &Path, idempotent: bool, budget: &str) -> Vec<String> {
    let mut args = judge_setup(dir);
    args[6] = budget.into();
    std::fs::write(dir.join("judges.toml"), paying_judge(dir, idempotent)).unwrap();
    args
}

/// `verdict judge` killed with SIGKILL at random points — between calls, during a
/// call, in the middle of writing the ledger — hundreds of times, then finished: the
/// paid judge never sees one call key twice (nor, when idempotent, is charged twice for
/// one call under two keys), some kills are shown to have landed mid-call, the ledger
/// accounts for every payment,
/// the recorded spend never exceeds the budget, and with an idempotent judge the
/// scores are exactly an uninterrupted run's — also when a target error stops the run
/// before the budget (its rounds decided on the calls replayed).
#[test]
fn judge_killed_hundreds_of_times_never_pays_twice_nor_overspends() {
    const BUDGET: &str = "200";
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next_delay = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::time::Duration::from_micros(1_000 + state % 25_000)
    };
    for (idempotent, target) in [(false, None), (true, None), (true, Some("0.1"))] {
        let setup = |dir: &Path| {
            let mut args = paying_setup(dir, idempotent, BUDGET);
            if let Some(target) = target {
                args.extend(["--target-error".into(), target.into()]);
            }
            args
        };
        let whole = tempfile::tempdir().unwrap();
        let args = setup(whole.path());
        let finished = succeed(&args);
        if target.is_some() {
            let message = String::from_utf8_lossy(&finished.stderr).to_string();
            assert!(message.contains("target error 0.1 reached"), "{message}");
        }
        let expected = std::fs::read_to_string(whole.path().join("scores.csv")).unwrap();

        let cut = tempfile::tempdir().unwrap();
        let args = setup(cut.path());
        let mut kills = 0;
        while kills < 400 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(next_delay());
            if child.try_wait().unwrap().is_some() {
                break; // finished before the kill
            }
            child.kill().unwrap();
            child.wait().unwrap();
            if cut.path().join("scores.csv").exists() {
                break; // the kill came after the run had written its output
            }
            kills += 1;
        }
        succeed(&args);
        // A judge orphaned by the last kill may still be paying.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let payments = std::fs::read_to_string(cut.path().join("payments")).unwrap();
        let mut keys: Vec<&str> = payments.lines().collect();
        let paid = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys.len(),
            paid,
            "a call was paid twice (idempotent: {idempotent})"
        );
        let ledger = verdict::judges::Ledger::read(&cut.path().join("spend.jsonl")).unwrap();
        let recorded_paid: f64 = ledger
            .ended()
            .filter(|e| e.judge == "paid")
            .map(|e| e.cost)
            .sum();
        assert!(
            recorded_paid >= 0.5 * paid as f64 - 1e-9,
            "{paid} payments but the ledger charges {recorded_paid}"
        );
        assert!(ledger.spent() <= 200.0 + 1e-9, "spent {}", ledger.spent());
        assert!(kills >= 200, "only {kills} kills landed mid-run");
        // The kills landed where the test claims: some mid-call, as the ledger itself
        // records (a call started and not ended when the run died) — settled as lost
        // by a non-idempotent judge, asked again under the same key by an idempotent
        // one (the attempts log shows that key twice, the charges once).
        let attempts = std::fs::read_to_string(cut.path().join("attempts")).unwrap();
        let mut asked: Vec<&str> = attempts.lines().collect();
        let attempted = asked.len();
        asked.sort_unstable();
        asked.dedup();
        let calls = ledger.ended().filter(|e| e.judge == "paid").count();
        if idempotent {
            assert!(
                attempted > asked.len(),
                "no call was in flight at a kill and asked again ({attempted} attempts)"
            );
            // Each call charged once, under one key: a re-ask under a new key would
            // be a second charge for one call.
            assert_eq!(keys.len(), calls, "charged keys against recorded calls");
        } else {
            let lost = ledger.ended().filter(|e| e.is_lost()).count();
            assert!(lost > 0, "no kill landed during a call");
            assert_eq!(attempted, asked.len(), "a call was asked twice");
        }
        if idempotent {
            let scores = std::fs::read_to_string(cut.path().join("scores.csv")).unwrap();
            assert_eq!(scores, expected);
        }
    }
}

/// Inputs that used to be accepted silently or crash: a mixed-type order column, a
/// repeated CSV header, duplicate agents and a non-zero diagonal in a payoff matrix,
/// an absurd bootstrap count, a duplicate judge name and a timeout that is not a
/// duration. Each is refused with exit 2 and a message saying what is wrong.
#[test]
fn hostile_inputs_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut log = String::from("model_a,model_b,winner,tstamp\n");
    for i in 0..12 {
        let stamp = if i == 5 {
            "n/a".to_string()
        } else {
            (i + 1).to_string()
        };
        log.push_str(&format!("m{},m{},model_a,{stamp}\n", i % 3, (i + 1) % 3));
    }
    let battles = write(d, "battles.csv", &log);
    let message = failure(&["rank", &battles, "--method", "elo", "--order-by", "tstamp"]);
    assert!(message.contains("battles.csv:7"), "{message}");
    assert!(message.contains("\"n/a\""), "{message}");
    let fixed = write(d, "fixed.csv", &log.replace("n/a", "6"));
    let table = stdout(&verdict(&[
        "rank",
        &fixed,
        "--method",
        "elo",
        "--order-by",
        "tstamp",
    ]));
    assert!(table.contains("replayed in tstamp order"), "{table}");
    let message = failure(&[
        "rank",
        &write(
            d,
            "twice.csv",
            "model_a,model_b,winner,winner\na,b,model_a,tie\n",
        ),
    ]);
    assert!(message.contains("\"winner\" twice"), "{message}");
    let message = failure(&["rank", &fixed, "--bootstrap", "18446744073709551615"]);
    assert!(message.contains("bootstrap rounds"), "{message}");

    let twice = write(d, "twice-agent.csv", "agent,A,A\nA,0,1\nA,-1,0\n");
    assert!(failure(&["game", &twice]).contains("\"A\" twice"));
    let diagonal = write(d, "diagonal.csv", "agent,A,B\nA,1,1\nB,-1,0\n");
    let message = failure(&["game", &diagonal]);
    assert!(
        message.contains("diagonal A[A][A] = 1 must be 0"),
        "{message}"
    );

    let args = judge_setup(d);
    for (config, expected) in [
        (
            "range = 1.0\n[[judge]]\nname = \"x\"\ncost = 1.0\nsimulate = 0.01\n[[judge]]\nname = \"x\"\ncost = 2.0\nsimulate = 0.01\n",
            "two judges are named \"x\"",
        ),
        (
            "range = 1.0\n[[judge]]\nname = \"x\"\ncost = 1.0\ncommand = [\"true\"]\ntimeout_seconds = 1e300\n",
            "timeout_seconds",
        ),
        (
            "range = 1.0\n[[judge]]\nname = \"x\"\ncost = 1.0\ncommand = [\"true\"]\ntimeout_seconds = -1\n",
            "timeout_seconds",
        ),
    ] {
        std::fs::write(d.join("judges.toml"), config).unwrap();
        let message = failure(&args);
        assert!(message.contains(expected), "{message}");
        assert!(!message.contains("rerun"), "{message}");
        assert!(!d.join("spend.jsonl").exists(), "an empty ledger was left behind");
    }
}

/// A judge that never reads its stdin cannot hold the run past its timeout, and ids
/// with commas or newlines come out as quoted CSV.
#[test]
fn judge_timeouts_cover_the_input_and_ids_are_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut args = judge_setup(d);
    let big = "x".repeat(300_000);
    std::fs::write(
        d.join("items.jsonl"),
        format!("{{\"id\": \"a,b\", \"truth\": 0.4, \"pad\": \"{big}\"}}\n{{\"id\": \"line\\nbreak\", \"truth\": 0.6}}\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("judges.toml"),
        "range = 1.0\n[[judge]]\nname = \"sleepy\"\ncost = 1.0\ncommand = [\"sleep\", \"30\"]\ntimeout_seconds = 0.5\n",
    )
    .unwrap();
    args[6] = "10".into();
    let started = std::time::Instant::now();
    let message = failure(&args);
    assert!(
        started.elapsed().as_secs_f64() < 15.0,
        "the timeout did not hold"
    );
    assert!(message.contains("timed out"), "{message}");
    assert!(message.contains("\"sleepy\""), "{message}");
    assert!(message.contains("\"a,b\""), "{message}");
    // The rehearsal judge scores them; the CSV quotes the ids.
    std::fs::write(
        d.join("judges.toml"),
        "range = 1.0\n[[judge]]\nname = \"sim\"\ncost = 1.0\nsimulate = 0.01\n",
    )
    .unwrap();
    let ledger = d.join("spend.jsonl");
    let _ = std::fs::remove_file(&ledger);
    succeed(&args);
    let mut reader = csv::Reader::from_path(d.join("scores.csv")).unwrap();
    let ids: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[0].to_string())
        .collect();
    assert_eq!(ids, ["a,b", "line\nbreak"]);
}

/// A Parquet file damaged inside a data page (which the parquet crate asserts on) is
/// one clear error, exit 2, with no panic report on the way.
#[test]
fn a_damaged_parquet_page_is_one_clean_error() {
    use verdict::io::{read_battles, write_parquet_table, ColumnData, Format, ReadOptions, Source};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("battles.parquet");
    let text = |f: &dyn Fn(usize) -> String| ColumnData::Text((0..24).map(f).collect());
    write_parquet_table(
        &path,
        &[
            ("model_a", text(&|i| format!("m{}", i % 4))),
            ("model_b", text(&|i| format!("m{}", (i + 1) % 4))),
            (
                "winner",
                text(&|i| ["model_a", "model_b", "tie"][i % 3].into()),
            ),
        ],
    )
    .unwrap();
    let original = std::fs::read(&path).unwrap();
    let options = ReadOptions {
        format: Some(Format::Parquet),
        ..ReadOptions::default()
    };
    // The first single-byte damage that reaches the decoder's assertions.
    std::panic::set_hook(Box::new(|_| {}));
    let damaged = (0..original.len())
        .flat_map(|p| (0..=255u8).map(move |b| (p, b)))
        .map(|(p, b)| {
            let mut data = original.clone();
            data[p] = b;
            data
        })
        .find(|data| {
            let source = Source::Bytes {
                label: "x".into(),
                data: data.clone(),
            };
            read_battles(&source, &options)
                .is_err_and(|e| e.to_string().contains("damaged data after row"))
        })
        .expect("some damage reaches a page");
    let _ = std::panic::take_hook();
    std::fs::write(&path, damaged).unwrap();
    let output = common::verdict(&["rank", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("damaged data after row"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Two `verdict judge` runs started together on one ledger — also when one names it
/// through a symbolic link: one holds the ledger and the other is refused at once,
/// naming the holder's pid — or, when the first ended before the second began, the
/// second resumes from its ledger. Either way no call is paid twice, the ledger
/// parses, and the spend never exceeds the budget.
#[test]
fn two_runs_on_one_ledger_never_pay_twice_nor_overspend() {
    for round in 0..6 {
        let dir = tempfile::tempdir().unwrap();
        let args = paying_setup(dir.path(), false, "40");
        // From round 3 the second run names the ledger through a symbolic link (made
        // before either run, so it points at a ledger not yet written): before, each
        // name had its own lock and both runs paid ("spent 40 of 40" twice).
        let mut second_args = args.clone();
        if round >= 3 {
            let link = dir.path().join("link.jsonl");
            std::os::unix::fs::symlink(dir.path().join("spend.jsonl"), &link).unwrap();
            second_args[8] = link.display().to_string();
        }
        let start = |args: &[String]| {
            Command::new(env!("CARGO_BIN_EXE_verdict"))
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (start(&args), start(&second_args));
        let outcomes: Vec<_> = [first, second]
            .into_iter()
            .map(|child| child.wait_with_output().unwrap())
            .collect();
        let refused: Vec<String> = outcomes
            .iter()
            .filter(|o| !o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect();
        assert!(
            refused.len() <= 1,
            "round {round}: both runs failed: {refused:?}"
        );
        for message in &refused {
            assert!(
                message.contains("another verdict judge run (pid ") && message.contains("--ledger"),
                "round {round}: {message}"
            );
        }
        let payments = std::fs::read_to_string(dir.path().join("payments")).unwrap();
        let mut keys: Vec<&str> = payments.lines().collect();
        let paid = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), paid, "round {round}: a call was paid twice");
        let ledger = verdict::judges::Ledger::read(&dir.path().join("spend.jsonl")).unwrap();
        assert!(ledger.spent() <= 40.0 + 1e-9, "spent {}", ledger.spent());
        let charged = ledger.ended().filter(|e| e.judge == "paid").count();
        assert_eq!(charged, paid, "round {round}: payments and ledger disagree");
    }
}

/// An item's text reaches a command judge as data on its standard input, never
/// through a shell: items holding `$(…)`, backticks and `; rm` run nothing, and the
/// judge reads them byte for byte.
#[test]
fn an_items_text_reaches_a_command_judge_as_data_never_through_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hostile = [
        "$(touch pwned-dollar)",
        "`touch pwned-backtick`",
        "x; touch pwned-semicolon; rm -rf items.jsonl",
        "' ; touch pwned-quote ; '",
    ];
    let items: String = hostile
        .iter()
        .enumerate()
        .map(|(i, text)| {
            serde_json::json!({"id": format!("q{i}"), "text": text, "truth": 0.5}).to_string()
                + "\n"
        })
        .collect();
    std::fs::write(d.join("items.jsonl"), &items).unwrap();
    // The judge keeps what it was given and prints a score.
    let seen = d.join("seen.jsonl").display().to_string();
    let config = format!(
        "range = 1.0\n\n[[judge]]\nname = \"keeper\"\ncost = 1.0\ncommand = [\"sh\", \"-c\", \"cat >> \\\"$0\\\"; echo; echo 0.5\", {seen:?}]\n"
    );
    std::fs::write(d.join("judges.toml"), config).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .current_dir(d)
        .args([
            "--quiet",
            "judge",
            "--items",
            "items.jsonl",
            "--judges",
            "judges.toml",
            "--budget",
            "8",
            "--method",
            "uniform",
            "--ledger",
            "spend.jsonl",
            "--out",
            "scores.csv",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with("pwned")),
        "an item ran a command: {names:?}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("items.jsonl")).unwrap(),
        items
    );
    let kept = std::fs::read_to_string(d.join("seen.jsonl")).unwrap();
    for text in hostile {
        let as_json = serde_json::to_string(text).unwrap();
        assert!(
            kept.contains(&as_json),
            "{text:?} did not reach the judge: {kept}"
        );
    }
}

/// Maximal-lottery ranks follow the equilibrium, not floating-point noise: on a
/// perfectly symmetric log of seven models the canonical lottery is uniform (the
/// minimum-norm maximal lottery of a zero margin matrix, a closed form) and all seven
/// share rank 1 and the winner set; in rock–paper–scissors with a clone of rock the
/// clones share one probability (1/6 each, paper and scissors 1/3: the minimum-norm
/// split of rock's 1/3) and so do paper and scissors.
#[test]
fn symmetric_and_cloned_lotteries_share_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::from("model_a,model_b,winner\n");
    for a in 0..7 {
        for b in (a + 1)..7 {
            log.push_str(&format!("m{a},m{b},model_a\nm{a},m{b},model_b\n"));
        }
    }
    let path = write(dir.path(), "symmetric.csv", &log);
    let board = json(&[
        "rank",
        &path,
        "--method",
        "lottery",
        "--bootstrap",
        "0",
        "--format",
        "json",
    ]);
    let models = board["models"].as_array().unwrap();
    assert_eq!(models.len(), 7);
    for m in models {
        assert_eq!(m["rank"], 1, "{m}");
        assert!(
            (m["probability"].as_f64().unwrap() - 1.0 / 7.0).abs() < 1e-12,
            "{m}"
        );
        assert_eq!(m["probability"], models[0]["probability"]);
    }
    assert_eq!(board["lottery"]["support"].as_array().unwrap().len(), 7);

    let matrix = write(
        dir.path(),
        "rps-clone.csv",
        ",R,P,S,R2\nR,0,-1,1,0\nP,1,0,-1,1\nS,-1,1,0,-1\nR2,0,-1,1,0\n",
    );
    let game = json(&["game", &matrix, "--format", "json"]);
    let p = |name: &str| {
        game["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap()["probability"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(p("R"), p("R2"));
    assert_eq!(p("P"), p("S"));
    assert!((p("R") - 1.0 / 6.0).abs() < 1e-9, "{}", p("R"));
    assert!((p("P") - 1.0 / 3.0).abs() < 1e-9, "{}", p("P"));
}

/// A page is meant to be shared: given a log by its absolute path, the page's title
/// and heading, and the JSON's `source`, name the file alone, not the directories
/// above it.
#[test]
fn pages_name_inputs_by_their_base_name() {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("home-of-someone");
    std::fs::create_dir(&private).unwrap();
    let log = private.join("x.csv");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/tutorial-arena.csv"),
        &log,
    )
    .unwrap();
    let log = log.display().to_string();
    let page = dir.path().join("p.html");
    let board = json(&[
        "--quiet",
        "rank",
        &log,
        "--bootstrap",
        "0",
        "--format",
        "json",
        "--report",
        &page.display().to_string(),
    ]);
    assert_eq!(board["source"], "x.csv");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("home-of-someone"),
        "the page names the directory"
    );
    assert!(
        html.contains("<title>verdict rank x.csv"),
        "the page's title"
    );
}

/// An HTTP judge's API key, read from its environment variable, never reaches what a
/// run shows or keeps — the error, progress lines, the ledger, the ledger's page —
/// even when the server echoes the request's Authorization header back in its
/// answer.
#[cfg(feature = "http")]
#[test]
fn an_http_judges_api_key_never_reaches_errors_ledgers_or_pages() {
    use std::io::{BufRead, BufReader, Write};
    const KEY: &str = "sk-test-7f3a9c1e";
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    // Answers every request with HTTP 400 and the headers it was sent.
    std::thread::spawn(move || {
        for stream in listener.incoming().take(50).flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut headers = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                // The credentials first, so that the shortened reply in a message
                // still holds them.
                if line.to_ascii_lowercase().starts_with("authorization:") {
                    headers.insert_str(0, &line);
                } else {
                    headers.push_str(&line);
                }
            }
            let mut body = vec![0; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body);
            let reply = format!("you sent:\n{headers}");
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("items.jsonl"),
        "{\"id\": \"q1\", \"answer\": \"42\"}\n",
    )
    .unwrap();
    let config = format!(
        "range = 10.0\n\n[[judge]]\nname = \"endpoint\"\ncost = 1.0\ntimeout_seconds = 5\n[judge.http]\nurl = {url:?}\nmodel = \"m\"\napi_key_env = \"VERDICT_CLI_TEST_KEY\"\nprompt = \"Answer: {{answer}}\"\nretries = 0\n"
    );
    std::fs::write(d.join("judges.toml"), config).unwrap();
    let path = |name: &str| d.join(name).display().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_CLI_TEST_KEY", KEY)
        .args([
            "judge",
            "--items",
            &path("items.jsonl"),
            "--judges",
            &path("judges.toml"),
            "--budget",
            "3",
            "--method",
            "uniform",
            "--ledger",
            &path("spend.jsonl"),
            "--out",
            &path("scores.csv"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("HTTP 400"), "the reason is kept: {stderr}");
    assert!(
        stderr.contains("[API key]"),
        "the echo is shown, redacted: {stderr}"
    );
    assert!(!stderr.contains(KEY), "the key is in the error: {stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
    let ledger = std::fs::read_to_string(d.join("spend.jsonl")).unwrap();
    assert!(ledger.contains("HTTP 400"), "{ledger}");
    assert!(!ledger.contains(KEY), "the key is in the ledger");
    let page = path("ledger.html");
    stdout(&verdict(&[
        "report",
        path("spend.jsonl").as_str(),
        "--out",
        page.as_str(),
    ]));
    assert!(!std::fs::read_to_string(&page).unwrap().contains(KEY));
}

/// `verdict judge` with intervals, a target error, a plan and gold labels: the CSV's
/// intervals hold each score, the JSON's mean is the mean of the scores, and every
/// bad setting or gold file is refused before a judge is paid (no ledger, no output).
#[test]
fn judged_scores_come_with_intervals_and_bad_settings_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = judge_setup(d);
    let output = succeed(&args);
    let message = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(message.contains("(95% interval"), "{message}");
    let csv = std::fs::read_to_string(d.join("scores.csv")).unwrap();
    assert!(
        csv.starts_with("id,score,std_error,low,high,bias_aware_score,"),
        "{csv}"
    );
    for line in csv.lines().skip(1) {
        let v: Vec<f64> = line
            .split(',')
            .skip(1)
            .take(4)
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(v[2] <= v[0] && v[0] <= v[3] && v[1] >= 0.0, "{line}");
    }
    let mut with_json = args.clone();
    with_json[10] = d.join("scores.json").display().to_string();
    with_json.extend(["--format".into(), "json".into()]);
    succeed(&with_json);
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("scores.json")).unwrap()).unwrap();
    let scores: Vec<f64> = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["score"].as_f64().unwrap())
        .collect();
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    assert!((result["mean"]["score"].as_f64().unwrap() - mean).abs() < 1e-12);

    let fresh = |name: &str, extra: &[&str]| {
        let mut run = judge_setup(d);
        run[8] = d.join(format!("{name}.jsonl")).display().to_string();
        run[10] = d.join(format!("{name}.csv")).display().to_string();
        run.extend(extra.iter().map(|s| s.to_string()));
        let message = failure(&run);
        assert!(
            !d.join(format!("{name}.jsonl")).exists(),
            "{name}: a ledger"
        );
        assert!(!d.join(format!("{name}.csv")).exists(), "{name}: an output");
        message
    };
    let gold = write(d, "gold.csv", "id,score\nq1,0.3\nq9,0.5\n");
    let message = fresh("unknown", &["--gold", &gold]);
    assert!(
        message.contains("gold.csv:3: id \"q9\" is not one of the items"),
        "{message}"
    );
    let gold = write(d, "gold-range.csv", "id,score\nq1,1.5\n");
    let message = fresh("range", &["--gold", &gold]);
    assert!(message.contains("must be a number in [0, 1]"), "{message}");
    // One labelled item (or all but one) passes no longer: refused before any call,
    // where the whole budget used to be paid before the correction said so.
    let gold = write(d, "gold-one.csv", "id,score\nq1,0.3\n");
    let message = fresh("one", &["--gold", &gold]);
    assert!(message.contains("at least two labelled items"), "{message}");
    let all_but_one: String = (1..=5).map(|i| format!("q{i},0.5\n")).collect();
    let gold = write(d, "gold-five.csv", &format!("id,score\n{all_but_one}"));
    let message = fresh("five", &["--gold", &gold]);
    assert!(message.contains("two without labels"), "{message}");
    let gold = write(d, "gold-columns.csv", "item,label\nq1,0.5\n");
    let message = fresh("columns", &["--gold", &gold]);
    assert!(message.contains("no \"id\" column"), "{message}");
    let message = fresh("level", &["--level", "1.5"]);
    assert!(message.contains("confidence level 1.5"), "{message}");
    let message = fresh("target", &["--target-error=-1"]);
    assert!(
        message.contains("target error -1 must be a positive number"),
        "{message}"
    );
    let message = fresh("plan", &["--plan"]);
    assert!(message.contains("--target-error"), "{message}");
}

/// Vote hygiene from the command line: duplicates and votes over the daily cap are
/// dropped, the board is the board of the log without them, the note counts each step,
/// `--dropped` lists each row with its reason, and a step without its column, a counts
/// table or `--dropped` without a step is refused before anything is written.
#[test]
fn vote_hygiene_drops_counts_and_lists_what_it_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples().join("tutorial-arena.csv")).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let day = 86_400;
    let start = 1_700_006_400; // 2023-11-15 00:00:00 UTC
    let mut log = String::from("model_a,model_b,winner,judge,tstamp,prompt\n");
    let mut clean = String::from("model_a,model_b,winner\n");
    // The tutorial's battles, one a day from six judges.
    for (r, row) in rows.iter().enumerate() {
        log.push_str(&format!("{row},u{},{},p{r}\n", r % 6, start + r * day));
        clean.push_str(&format!("{row}\n"));
    }
    // Three later repeats of the first three battles (same judge, prompt and pair).
    for (r, row) in rows.iter().enumerate().take(3) {
        log.push_str(&format!("{row},u{r},{},p{r}\n", start + (30 + r) * day));
    }
    // A judge with five votes on one day, in shuffled time order: a cap of 3 keeps the
    // three earliest (seconds 1, 2, 3).
    for (second, winner) in [
        (5, "model_a"),
        (1, "model_b"),
        (4, "model_a"),
        (2, "tie"),
        (3, "model_b"),
    ] {
        log.push_str(&format!(
            "C,D,{winner},spammer,{},s{second}\n",
            start + second
        ));
    }
    for winner in ["model_b", "tie", "model_b"] {
        clean.push_str(&format!("C,D,{winner}\n"));
    }
    let log = write(dir.path(), "judged.csv", &log);
    let clean = write(dir.path(), "clean.csv", &clean);
    let dropped = dir.path().join("dropped.csv");
    let hygiene = [
        "--judge-col",
        "judge",
        "--time-col",
        "tstamp",
        "--prompt-col",
        "prompt",
        "--collapse-duplicates",
        "--max-votes-per-judge-day",
        "3",
        "--outlier-alpha",
        "0.01",
    ];
    let mut args = vec!["rank", &log, "--format", "json", "--bootstrap", "0"];
    args.extend(hygiene);
    args.extend(["--dropped", dropped.to_str().unwrap()]);
    let report = json(&args);
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("vote hygiene: 5 of 26 battles dropped (3 duplicates, 2 over the daily cap, 0 from 0 outlier judges)"),
        "{notes}"
    );
    let cleaned = board_with(Path::new(&clean), &[]);
    for (ours, theirs) in report["models"]
        .as_array()
        .unwrap()
        .iter()
        .zip(cleaned.as_array().unwrap())
    {
        assert_eq!(ours["name"], theirs["name"]);
        let (a, b) = (
            ours["score"].as_f64().unwrap(),
            theirs["score"].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-9, "{ours} vs {theirs}");
    }
    let listed = std::fs::read_to_string(&dropped).unwrap();
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines[0], "location,reason,model_a,model_b,winner,judge");
    assert_eq!(lines.len(), 6, "{listed}");
    assert_eq!(
        lines.iter().filter(|l| l.contains(",duplicate,")).count(),
        3
    );
    // The spammer's rows 22 and 24 of the log (file lines 23 and 25) held seconds 5, 4.
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("judged.csv:23,over daily cap,C,D,model_a,spammer")),
        "{listed}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("judged.csv:25,over daily cap,C,D,model_a,spammer")),
        "{listed}"
    );

    let out = dir.path().join("board.json");
    let out = out.to_str().unwrap();
    let refused = |extra: &[&str], expected: &str| {
        let mut args = vec!["rank", &log, "--out", out];
        args.extend_from_slice(extra);
        let error = failure(&args);
        assert!(error.contains(expected), "{extra:?}: {error}");
        assert!(!Path::new(out).exists(), "{extra:?} wrote its board");
    };
    refused(
        &["--judge-col", "judge", "--max-votes-per-judge-day", "3"],
        "--time-col",
    );
    refused(
        &[
            "--judge-col",
            "judge",
            "--time-col",
            "tstamp",
            "--max-votes-per-judge-day",
            "0",
        ],
        "at least 1",
    );
    refused(
        &["--judge-col", "judge", "--outlier-alpha", "1.5"],
        "--outlier-alpha",
    );
    refused(&["--dropped", "list.csv"], "ask for a step");
    refused(
        &[
            "--collapse-duplicates",
            "--judge-col",
            "judge",
            "--prompt-col",
            "prompt",
            "--method",
            "elo",
            "--save-counts",
            "s.csv",
        ],
        "--save-counts",
    );
    let counts = write(
        dir.path(),
        "counts.csv",
        "model_a,model_b,wins_a,wins_b\nA,B,3,1\n",
    );
    let error = failure(&[
        "rank",
        &counts,
        "--judge-col",
        "judge",
        "--outlier-alpha",
        "0.01",
    ]);
    assert!(error.contains("vote hygiene"), "{error}");
}

/// `--both-bad`: `bad` adds the `usable` column and its note, `drop` counts what it left
/// out, and a counts table (which folds both bad into the ties) is refused for either.
#[test]
fn both_bad_as_its_own_outcome_or_dropped() {
    let log = examples().join("genai-arena-battles-20240220.json");
    let log = log.to_str().unwrap();
    let table = stdout(&verdict(&[
        "rank",
        log,
        "--skip-self-battles",
        "--both-bad",
        "bad",
    ]));
    assert!(table.contains("usable"), "{table}");
    assert!(table.contains("grounded Rao–Kupper"), "{table}");
    let report = json(&[
        "rank",
        log,
        "--skip-self-battles",
        "--both-bad",
        "drop",
        "--bootstrap",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(report["battles"], 1633);
    let dir = tempfile::tempdir().unwrap();
    let counts = write(
        dir.path(),
        "counts.csv",
        "model_a,model_b,wins_a,wins_b,ties\nA,B,3,1,2\nB,C,2,2,1\n",
    );
    for how in ["bad", "drop"] {
        let error = failure(&["rank", &counts, "--both-bad", how]);
        assert!(error.contains("battle counts"), "{error}");
    }
    let error = failure(&[
        "rank",
        log,
        "--skip-self-battles",
        "--both-bad",
        "bad",
        "--method",
        "elo",
    ]);
    assert!(error.contains("--both-bad bad"), "{error}");
}

/// Where the Bradley–Terry MLE does not exist, the data bound no interval: a model
/// with one battle, a win, is given an unbounded interval (null in JSON), under the
/// sandwich and under the bootstrap, with a note naming it. Before, its finite
/// interval excluded everyone, so every other model's `rank_ub` (the best rank it may
/// hold) counted it as certainly above: no model could be first. Now the best of the
/// others may be first again (`rank_ub` 1), and the models the MLE places keep finite
/// intervals.
#[test]
fn no_certainty_where_the_mle_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("model_a,model_b,winner\n");
    for (a, b) in [
        ("x", "y"),
        ("y", "z"),
        ("z", "x"),
        ("y", "x"),
        ("z", "y"),
        ("x", "z"),
    ] {
        for _ in 0..20 {
            text += &format!("{a},{b},model_a\n");
        }
    }
    text += "newcomer,x,model_a\n";
    let log = write(dir.path(), "one-battle.csv", &text);
    for ci in [
        &["--ci", "sandwich"][..],
        &["--bootstrap", "200", "--seed", "1"][..],
    ] {
        let mut args = vec!["rank", log.as_str(), "--method", "bt", "--format", "json"];
        args.extend_from_slice(ci);
        let report = json(&args);
        let models = report["models"].as_array().unwrap();
        let newcomer = models.iter().find(|m| m["name"] == "newcomer").unwrap();
        assert!(
            newcomer["ci_low"].is_null() && newcomer["ci_high"].is_null(),
            "{ci:?}: {newcomer}"
        );
        let others: Vec<&Value> = models.iter().filter(|m| m["name"] != "newcomer").collect();
        assert_eq!(others[0]["rank_ub"], 1, "{ci:?}: {}", others[0]);
        for other in others {
            assert!(
                other["ci_low"].as_f64().unwrap() < other["ci_high"].as_f64().unwrap(),
                "{other}"
            );
        }
        let notes = report["notes"].to_string();
        assert!(
            notes.contains("no interval for newcomer"),
            "{ci:?}: {notes}"
        );
    }
    // Only ties between two models: every bootstrap resample is the same log, and the
    // zero-width interval that gives is called what it is.
    let ties = write(
        dir.path(),
        "ties.csv",
        &format!("model_a,model_b,winner\n{}", "p,q,tie\n".repeat(30)),
    );
    let report = json(&[
        "rank",
        ties.as_str(),
        "--method",
        "bt",
        "--bootstrap",
        "100",
        "--format",
        "json",
    ]);
    let notes = report["notes"].to_string();
    assert!(notes.contains("zero width"), "{notes}");
}
