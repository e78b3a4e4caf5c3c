//! Mutation fuzzing of every reader: valid files — battle logs in each format (CSV,
//! JSON Lines, JSON, Parquet), contextual contexts and feedback tables (CSV and
//! Parquet), payoff matrices, cost files, judges.toml, spend ledgers, model files and
//! battle logs with a weight column —
//! are mutated byte-wise (flips, insertions, deletions, truncation), line-wise
//! (duplicated, dropped, swapped lines) and, for model files, structurally (array
//! lengths and numbers changed in the JSON), and each reader must answer with a value
//! or an error, never a panic; a model that loads must predict finite probabilities, a
//! matrix that makes a game must be solved to a distribution.
//!
//! CI runs a short pass (`VERDICT_FUZZ_CASES`, default 64 cases per target). A long
//! run gives each target a time instead, e.g.
//! `VERDICT_FUZZ_SECONDS=1800 cargo test --release -p verdict-cli --test suite fuzz:: -- --nocapture`, and
//! prints the executions per target. Cases that once failed are kept as named tests at
//! the end of this file.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use verdict::io::{
    read_battles, read_contextual_log, read_costs, read_named_matrix, ContextualOptions, Format,
    ReadOptions, Source,
};

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Runs `test` on values of `strategy`: `VERDICT_FUZZ_CASES` cases (default 64), or,
/// when `VERDICT_FUZZ_SECONDS` is set, rounds of fresh random cases until that time is
/// up. A failure panics with the smallest failing value found.
fn drive<S: Strategy>(
    name: &str,
    strategy: &S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let deadline =
        env_number("VERDICT_FUZZ_SECONDS").map(|s| Instant::now() + Duration::from_secs(s));
    let cases = match deadline {
        Some(_) => 2_000,
        None => env_number("VERDICT_FUZZ_CASES").unwrap_or(64) as u32,
    };
    let started = Instant::now();
    let mut executions = 0u64;
    for round in 0u64.. {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&round.to_le_bytes());
        seed[8..16].copy_from_slice(&(name.len() as u64).to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases,
                failure_persistence: None,
                ..Config::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
        );
        if let Err(e) = runner.run(strategy, &test) {
            panic!("{name}: {e}");
        }
        executions += u64::from(cases);
        if deadline.is_none_or(|d| Instant::now() >= d) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {executions} executions in {:.0} s, no panic",
        started.elapsed().as_secs_f64()
    );
}

/// One edit of a file's bytes.
#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    DuplicateLine(usize),
    DropLine(usize),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let position = any::<usize>();
    // Bytes that matter to the formats more often than chance would pick them.
    let byte = prop_oneof![
        any::<u8>(),
        prop::sample::select(b",\n\"{}[]:-.0123456789eE \\\tnNaI=#".to_vec()),
    ];
    prop_oneof![
        (position, byte.clone()).prop_map(|(p, b)| Edit::Flip(p, b)),
        (position, byte).prop_map(|(p, b)| Edit::Insert(p, b)),
        position.prop_map(Edit::Delete),
        position.prop_map(Edit::Truncate),
        position.prop_map(Edit::DuplicateLine),
        position.prop_map(Edit::DropLine),
        (position, position).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for edit in edits {
        let len = out.len().max(1);
        let mut lines: Vec<Vec<u8>> = out
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        let count = lines.len().max(1);
        match *edit {
            Edit::Flip(p, b) if !out.is_empty() => out[p % len] = b,
            Edit::Insert(p, b) => out.insert(p % (out.len() + 1), b),
            Edit::Delete(p) if !out.is_empty() => {
                out.remove(p % len);
            }
            Edit::Truncate(p) => out.truncate(p % len),
            Edit::DuplicateLine(p) if !lines.is_empty() => {
                let line = lines[p % count].clone();
                lines.insert(p % count, line);
                out = lines.concat();
            }
            Edit::DropLine(p) if !lines.is_empty() => {
                lines.remove(p % count);
                out = lines.concat();
            }
            Edit::SwapLines(a, b) if !lines.is_empty() => {
                lines.swap(a % count, b % count);
                out = lines.concat();
            }
            _ => {}
        }
    }
    out
}

/// Runs `check` on mutations of `seed` (1–5 edits each).
pub(crate) fn fuzz(name: &str, seed: &[u8], check: impl Fn(&[u8])) {
    drive(name, &prop::collection::vec(edit(), 1..6), |edits| {
        check(&apply(seed, &edits));
        Ok(())
    });
}

pub(crate) fn bytes_source(label: &str, data: &[u8]) -> Source {
    Source::Bytes {
        label: label.into(),
        data: data.to_vec(),
    }
}

fn example(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    // The first 60 lines keep each case fast.
    text.lines()
        .take(60)
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes()
}

#[test]
fn battle_logs_in_every_format_never_panic() {
    let csv = example("llmfao.csv");
    let rows: Vec<serde_json::Value> = (0..40)
        .map(|i| {
            let winner = ["model_a", "model_b", "tie", "tie (bothbad)"][i % 4];
            serde_json::json!({
                "model_a": format!("m{}", i % 5),
                "model_b": format!("m{}", (i + 1 + i / 5) % 5),
                "winner": winner,
                "tstamp": 1000 + i,
            })
        })
        .collect();
    let jsonl: String = rows.iter().map(|r| format!("{r}\n")).collect();
    let array = serde_json::to_string(&rows).unwrap();
    for (format, seed) in [
        (Format::Csv, csv),
        (Format::JsonLines, jsonl.into_bytes()),
        (Format::Json, array.into_bytes()),
    ] {
        fuzz(&format!("{format:?} battle log"), &seed, |data| {
            let options = ReadOptions {
                format: Some(format),
                order_by: (format != Format::Csv).then(|| "tstamp".to_string()),
                ..ReadOptions::default()
            };
            let _ = read_battles(&bytes_source("fuzz", data), &options);
        });
    }
}

#[test]
fn parquet_battle_logs_never_panic() {
    use verdict::io::{write_parquet_table, ColumnData};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("battles.parquet");
    let text = |f: &dyn Fn(usize) -> String| ColumnData::Text((0..40).map(f).collect());
    write_parquet_table(
        &path,
        &[
            ("model_a", text(&|i| format!("m{}", i % 5))),
            ("model_b", text(&|i| format!("m{}", (i + 1 + i / 5) % 5))),
            (
                "winner",
                text(&|i| ["model_a", "model_b", "tie"][i % 3].into()),
            ),
            (
                "tstamp",
                ColumnData::Float((0..40).map(|i| i as f64).collect()),
            ),
        ],
    )
    .unwrap();
    let seed = std::fs::read(&path).unwrap();
    fuzz("Parquet battle log", &seed, |data| {
        let options = ReadOptions {
            format: Some(Format::Parquet),
            order_by: Some("tstamp".into()),
            ..ReadOptions::default()
        };
        let _ = read_battles(&bytes_source("fuzz.parquet", data), &options);
    });
}

#[test]
fn parquet_contextual_tables_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let sim = common::small_simulation(dir.path());
    let read = |name: &str| std::fs::read(format!("{sim}/{name}")).unwrap();
    let (contexts, feedback) = (read("contexts.parquet"), read("feedback.parquet"));
    let options = ContextualOptions::default();
    let parquet = |label: &str, data: &[u8]| bytes_source(label, data);
    fuzz("Parquet contexts table", &contexts, |data| {
        let _ = read_contextual_log(
            &parquet("contexts.parquet", data),
            &parquet("feedback.parquet", &feedback),
            &options,
        );
    });
    fuzz("Parquet feedback table", &feedback, |data| {
        let _ = read_contextual_log(
            &parquet("contexts.parquet", &contexts),
            &parquet("feedback.parquet", data),
            &options,
        );
    });
}

#[test]
fn payoff_matrices_never_panic_and_games_solve_to_distributions() {
    use verdict::equilibrium::{solve, EquilibriumSettings};
    use verdict::game::PayoffMatrix;
    // A rock-paper-scissors cycle with a fourth agent beaten by all: a game whose
    // equilibrium is mixed, so mutations reach the solver's harder paths.
    let seed = b"agent,R,P,S,D\nR,0,-1,1,0.5\nP,1,0,-1,0.25\nS,-1,1,0,0.75\nD,-0.5,-0.25,-0.75,0\n";
    fuzz("payoff matrix", seed, |data| {
        let Ok(matrix) = read_named_matrix(&bytes_source("matrix.csv", data), None) else {
            return;
        };
        let Ok(game) = PayoffMatrix::new(&matrix.values) else {
            return;
        };
        if let Ok(lottery) = solve(&game, &matrix.agents, &EquilibriumSettings::default()) {
            let p = &lottery.probabilities;
            let total: f64 = p.iter().sum();
            assert!(
                p.iter().all(|x| x.is_finite() && *x >= -1e-9) && (total - 1.0).abs() < 1e-6,
                "{p:?}"
            );
        }
    });
}

#[test]
fn contextual_tables_never_panic() {
    let contexts =
        b"context_id,x1,x2,lang\nc1,0.5,1.0,en\nc2,0.1,-2.0,de\nc3,0.9,0.0,en\n".to_vec();
    let feedback = b"context_id,menu,modality,response\nc1,a|b,pairwise,a\nc2,a|b|c,ranking,\"[\"\"c\"\",\"\"a\"\",\"\"b\"\"]\"\nc3,b|c,pairwise,c\n".to_vec();
    let options = ContextualOptions::default();
    fuzz("contexts table", &contexts, |data| {
        let _ = read_contextual_log(
            &bytes_source("contexts.csv", data),
            &bytes_source("feedback.csv", &feedback),
            &options,
        );
    });
    fuzz("feedback table", &feedback, |data| {
        let _ = read_contextual_log(
            &bytes_source("contexts.csv", &contexts),
            &bytes_source("feedback.csv", data),
            &options,
        );
    });
}

#[test]
fn cost_files_never_panic() {
    let seed = b"model,cost\ngpt-4,1.0\nclaude,0.8\nllama,0.05\n".to_vec();
    fuzz("costs", &seed, |data| {
        let _ = read_costs(&bytes_source("costs.csv", data), Some(Format::Csv));
    });
}

/// Decision logs for `verdict ope` — a `verdict serve` log (JSON Lines, single answers
/// and duels) and a decision table (CSV) — their outcomes and a lottery candidate's
/// file, damaged: reading,
/// joining and scoring the logging policy and a fixed agent never panic, and a log
/// that scores gives estimates that are numbers or NaN, never a crash.
#[cfg(feature = "nasheval")]
#[test]
fn decision_logs_and_outcomes_never_panic() {
    use verdict::ope_log::{read_decision_log, DecisionColumns, OutcomeColumns};
    use verdict::ope_report::{evaluate_log, OpeRequest, PolicySpec};
    let mut serve_log = String::new();
    let mut outcomes = String::from("request_id,outcome\n");
    for i in 0..12 {
        let (menu, p, verdict) = if i % 3 == 2 {
            ("a|b", 0.25, "a")
        } else {
            (["a", "b", "c"][i % 3], 0.4, "1")
        };
        serve_log += &format!(
            "{{\"request_id\":\"r{i}\",\"context\":{{\"context_id\":\"c{i}\",\"x1\":{x}}},\"menu\":\"{menu}\",\"chosen\":\"{}\",\"propensity\":{p},\"routed_probabilities\":{{\"a\":0.4,\"b\":0.4,\"c\":0.2}}}}\n",
            &menu[..1],
            x = f64::from(i as u32) / 10.0
        );
        outcomes += &format!("r{i},{verdict}\n");
    }
    let table = "request_id,chosen,propensity,routed:a,routed:b,x1\nr0,a,0.5,0.5,0.5,1\nr1,b,0.5,0.5,0.5,2\nr2,a,0.5,0.5,0.5,3\nr3,b,0.5,0.5,0.5,4\nr4,a,0.5,0.5,0.5,5\nr5,b,0.5,0.5,0.5,6\n";
    let request = OpeRequest {
        policies: vec![PolicySpec::Logged, PolicySpec::parse("agent:a")],
        against: None,
        columns: OutcomeColumns {
            request: "request_id".into(),
            outcome: "outcome".into(),
            cost: None,
        },
        prices: None,
        floor: 0.01,
        folds: 2,
    };
    let columns = DecisionColumns {
        request: "request_id".into(),
    };
    let score = |log: &verdict::ope_log::DecisionLog, outcomes: &[u8]| {
        if let Ok(report) = evaluate_log(
            log.clone(),
            &bytes_source("outcomes.csv", outcomes),
            &request,
            None,
        ) {
            for c in &report.candidates {
                if let Some(v) = &c.value {
                    assert!(!v.ips.estimate.is_infinite(), "{report:?}");
                }
            }
        }
    };
    fuzz("decision-log", serve_log.as_bytes(), |data| {
        if let Ok(log) = read_decision_log(&bytes_source("decisions.jsonl", data), &columns) {
            score(&log, outcomes.as_bytes());
        }
    });
    fuzz("decision-table", table.as_bytes(), |data| {
        if let Ok(log) = read_decision_log(&bytes_source("decisions.csv", data), &columns) {
            score(&log, outcomes.as_bytes());
        }
    });
    let log = read_decision_log(
        &bytes_source("decisions.jsonl", serve_log.as_bytes()),
        &columns,
    )
    .unwrap();
    // The undamaged log scores: single answers and duels.
    let report = evaluate_log(
        log.clone(),
        &bytes_source("outcomes.csv", outcomes.as_bytes()),
        &request,
        None,
    )
    .unwrap();
    assert_eq!((report.rows, report.duels), (8, 4));
    fuzz("ope-outcomes", outcomes.as_bytes(), |data| {
        score(&log, data)
    });
    // A lottery candidate's file (`lottery:FILE`, the JSON of `rank --method lottery`),
    // damaged: refused or scored, never a panic.
    let dir = tempfile::tempdir().unwrap();
    let lottery = dir.path().join("lottery.json");
    let board = br#"{"models": [{"name": "a", "probability": 0.5}, {"name": "b", "probability": 0.3}, {"name": "c", "probability": 0.2}]}"#;
    fuzz("ope-lottery", board, |data| {
        std::fs::write(&lottery, data).unwrap();
        let request = OpeRequest {
            policies: vec![PolicySpec::Lottery(lottery.clone())],
            ..request.clone()
        };
        let _ = evaluate_log(
            log.clone(),
            &bytes_source("outcomes.csv", outcomes.as_bytes()),
            &request,
            None,
        );
    });
}

/// The output manifest (`.verdict-outputs.json`, the record of which files verdict
/// wrote in a directory), damaged: checking and writing outputs beside it never panics,
/// and a damaged record never lets verdict replace a file the user made.
#[test]
fn output_manifests_never_panic_nor_let_a_users_file_be_replaced() {
    use verdict::io::{OutputFile, OUTPUTS_MANIFEST};
    let dir = tempfile::tempdir().unwrap();
    let ours = OutputFile::new(dir.path().join("board.csv"), "--out");
    ours.write_bytes(b"rank,model\n1,a\n").unwrap();
    OutputFile::new(dir.path().join("plot.svg"), "--plot")
        .write_bytes(b"<svg/>")
        .unwrap();
    let seed = std::fs::read(dir.path().join(OUTPUTS_MANIFEST)).unwrap();
    fuzz("output manifests", &seed, |data| {
        let case = tempfile::tempdir().unwrap();
        std::fs::write(case.path().join(OUTPUTS_MANIFEST), data).unwrap();
        let users = case.path().join("board.csv");
        std::fs::write(&users, b"the user's own table").unwrap();
        let target = OutputFile::new(&users, "--out");
        assert!(target.check().is_err());
        assert!(target.write_bytes(b"verdict's").is_err());
        assert_eq!(std::fs::read(&users).unwrap(), b"the user's own table");
        // A new file beside the damaged manifest is written whole.
        let fresh = OutputFile::new(case.path().join("fresh.csv"), "--out");
        fresh.write_bytes(b"new").unwrap();
        assert_eq!(
            std::fs::read(case.path().join("fresh.csv")).unwrap(),
            b"new"
        );
    });
}

#[test]
fn judge_configurations_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("recorded.csv"), "item,score\nq1,0.5\n").unwrap();
    let seed = br#"range = 1.0

[[judge]]
name = "small"
cost = 0.1
command = ["sh", "-c", "echo 0.5"]
timeout_seconds = 5

[[judge]]
name = "large"
cost = 1.0
replay = "recorded.csv"
idempotent = false

[[judge]]
name = "rehearsal"
cost = 0.5
simulate = 0.02
"#
    .to_vec();
    let path = dir.path().join("judges.toml");
    fuzz("judges.toml", &seed, |data| {
        std::fs::write(&path, data).unwrap();
        if let Ok(config) = verdict::judges::JudgesConfig::read(&path) {
            let items = vec![serde_json::json!({"id": "q1", "truth": 0.4})];
            let _ = verdict::judges::ConfiguredPool::new(items, config, 0);
        }
    });
}

#[test]
fn gold_label_files_never_panic_and_labels_are_in_range() {
    let dir = tempfile::tempdir().unwrap();
    let seed = b"id,score\nq1,0.25\nq2,1\n\"q3\",0\nq4,0.5e0\n".to_vec();
    let path = dir.path().join("gold.csv");
    let ids: Vec<String> = (1..=5).map(|i| format!("q{i}")).collect();
    fuzz("gold.csv", &seed, |data| {
        std::fs::write(&path, data).unwrap();
        if let Ok(labels) = verdict::judges::read_gold(&path, &ids, 1.0) {
            assert_eq!(labels.len(), ids.len());
            assert!(labels.iter().flatten().all(|y| (0.0..=1.0).contains(y)));
        }
    });
}

#[test]
fn ledgers_never_panic() {
    use verdict::judges::{
        estimate, EstimateSettings, JudgePool, Ledger, LedgeredPool, Method, Norm, Scenario,
        SimulatedJudges,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spend.jsonl");
    let instance = {
        use rand::SeedableRng;
        Scenario::Random.draw(3, 2, &mut rand_chacha::ChaCha8Rng::seed_from_u64(1))
    };
    let mut pool = SimulatedJudges::new(instance.clone(), 1);
    let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let (items, judges) = (
        names("item", pool.items()),
        names("judge", pool.costs().len()),
    );
    let mut ledgered = LedgeredPool::open(
        &mut pool,
        items.clone(),
        judges.clone(),
        Default::default(),
        &path,
    )
    .unwrap();
    estimate(
        &mut ledgered,
        60.0,
        &Method::Uniform,
        &EstimateSettings::new(Norm::P(2.0)),
    )
    .unwrap();
    let seed = std::fs::read(&path).unwrap();
    fuzz("ledger", &seed, |data| {
        std::fs::write(&path, data).unwrap();
        let _ = Ledger::read(&path);
        // `verdict report` draws a ledger's run.
        if let Ok(result) =
            verdict::results::read_result(&path, &[verdict_lab::results::LAB_RESULTS])
        {
            let _ = result.sections("fuzz");
        }
        let mut pool = SimulatedJudges::new(instance.clone(), 1);
        if let Ok(mut ledgered) = LedgeredPool::open(
            &mut pool,
            items.clone(),
            judges.clone(),
            Default::default(),
            &path,
        ) {
            if let Ok(result) = estimate(
                &mut ledgered,
                60.0,
                &Method::Uniform,
                &EstimateSettings::new(Norm::P(2.0)),
            ) {
                assert!(result.spent <= 60.0 + 1e-9, "spent {}", result.spent);
            }
        }
    });
}

/// Every numeric array of a JSON value, by path, for structural mutations.
fn arrays(value: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        serde_json::Value::Array(items) => {
            if items.iter().all(serde_json::Value::is_number) {
                out.push(path.clone());
            }
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                arrays(item, path, out);
                path.pop();
            }
        }
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                path.push(key.clone());
                arrays(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'v>(value: &'v mut serde_json::Value, path: &[String]) -> &'v mut serde_json::Value {
    path.iter().fold(value, |v, key| match v {
        serde_json::Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
        other => &mut other[key.as_str()],
    })
}

/// Runs `check` on structural mutations of `seed` (1–3 each): a numeric array somewhere
/// in it loses its last number, gains one, has its middle one replaced (by an extreme,
/// a negative, zero or any number) or is emptied.
fn fuzz_arrays(
    name: &str,
    seed: &serde_json::Value,
    check: impl Fn(serde_json::Value) -> Result<(), TestCaseError>,
) {
    let mut paths = Vec::new();
    arrays(seed, &mut Vec::new(), &mut paths);
    let mutation = prop::collection::vec(
        (
            0..paths.len(),
            0..4u8,
            prop_oneof![
                Just(f64::MAX),
                Just(-1.0),
                Just(0.0),
                Just(1e-300),
                any::<f64>()
            ],
        ),
        1..4,
    );
    drive(name, &mutation, |changes| {
        let mut value = seed.clone();
        for (which, kind, number) in changes {
            let target = at(&mut value, &paths[which]);
            let items = target.as_array_mut().unwrap();
            let number = serde_json::json!(number);
            match kind {
                0 => {
                    items.pop();
                }
                1 => items.push(number),
                2 if !items.is_empty() => {
                    let i = items.len() / 2;
                    items[i] = number;
                }
                _ => items.clear(),
            }
        }
        check(value)
    });
}

/// Saved results read back by `verdict report` — a board with its matrices, a game
/// with its payoffs, a judges experiment — mutated byte-wise and structurally: each is
/// refused or drawn, never a panic.
#[test]
fn saved_results_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/tutorial-arena.csv");
    let matrix = dir.path().join("rps.csv");
    std::fs::write(&matrix, ",r,p,s\nr,0,-1,1\np,1,0,-1\ns,-1,1,0\n").unwrap();
    let seeds = [
        (
            "saved board",
            common::succeed(&[
                "rank",
                log.to_str().unwrap(),
                "--method",
                "all",
                "--matrix",
                "--format",
                "json",
            ]),
        ),
        (
            "saved game",
            common::succeed(&[
                "game",
                matrix.to_str().unwrap(),
                "--format",
                "json",
                "--payoffs",
            ]),
        ),
        (
            "saved judges experiment",
            common::succeed(&[
                "bench",
                "judges",
                "--items",
                "4",
                "--judges",
                "2",
                "--budgets",
                "100",
                "--reps",
                "2",
                "--format",
                "json",
            ]),
        ),
    ];
    #[cfg(feature = "nasheval")]
    let seeds = {
        // A `bench nasheval` results file: its first forty cells.
        let results = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../bench/results/rq1-h2h-all-2026-12-02.jsonl");
        let text = std::fs::read_to_string(results).unwrap();
        let cells: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
        let mut seeds = seeds.to_vec();
        seeds.push(("saved bench nasheval results", cells));
        seeds
    };
    let path = dir.path().join("result.json");
    let draw = |data: &[u8]| {
        std::fs::write(&path, data).unwrap();
        if let Ok(result) =
            verdict::results::read_result(&path, &[verdict_lab::results::LAB_RESULTS])
        {
            let _ = result.sections("fuzz");
        }
    };
    for (name, seed) in &seeds {
        fuzz(name, seed.as_bytes(), draw);
        // One JSON document each; the results file is lines of them.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(seed) else {
            continue;
        };
        fuzz_arrays(&format!("{name}, structurally"), &value, |mutated| {
            draw(mutated.to_string().as_bytes());
            Ok(())
        });
    }
}

#[test]
#[cfg(feature = "nasheval")]
fn model_files_never_panic_and_never_predict_nan() {
    use verdict::nasheval::NashEvalModel;
    let dir = tempfile::tempdir().unwrap();
    let sim = common::small_simulation(dir.path());
    let model_path = dir.path().join("model.json");
    common::succeed(&[
        "fit",
        "--contexts",
        &format!("{sim}/contexts.parquet"),
        "--feedback",
        &format!("{sim}/feedback.parquet"),
        "--backbone",
        "linear",
        "--max-epochs",
        "20",
        "--out",
        model_path.to_str().unwrap(),
    ]);
    let seed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model_path).unwrap()).unwrap();
    let features: Vec<f64> = (0..20).map(|i| (i as f64 * 0.37).sin()).collect();
    fuzz_arrays("model file", &seed, |model| {
        let Ok(model) = serde_json::from_value::<NashEvalModel>(model) else {
            return Ok(());
        };
        if model.check_format().is_err() {
            return Ok(());
        }
        // The model's page draws whatever loads.
        let _ = verdict::report::fit_sections(&model, "fuzz", None, &Default::default());
        let width = model.feature_names.len();
        if let Ok(policies) = model.policy(&features[..features.len() / width * width]) {
            prop_assert!(policies.iter().all(|p| p.is_finite()));
        }
        Ok(())
    });
}

/// A battle log with a weight column (`rank --weight-col`), damaged: every case ends
/// with a leaderboard or a clear error (exit 0 or 2), never a panic (exit 101).
#[test]
fn weight_columns_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("weighted.csv");
    let out = dir.path().join("board.json");
    let seed = b"model_a,model_b,winner,w\nx,y,model_a,1.5\ny,z,model_b,0.25\nz,x,tie,2\nx,z,model_a,1e-3\ny,x,model_b,3\n".to_vec();
    fuzz("weight column", &seed, |data| {
        std::fs::write(&path, data).unwrap();
        let output = common::verdict(&[
            "--force",
            "rank",
            path.to_str().unwrap(),
            "--weight-col",
            "w",
            "--method",
            "bt",
            "--bootstrap",
            "0",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
        ]);
        let code = output.status.code();
        assert!(
            matches!(code, Some(0 | 2)),
            "exit {code:?} on {:?}: {}",
            String::from_utf8_lossy(data),
            String::from_utf8_lossy(&output.stderr)
        );
    });
}
