//! `verdict fit`, `predict` and `evaluate` end to end on a small simulation: the
//! model file round-trips, predictions agree across formats, evaluation reports the
//! documented JSON, and bad settings or a different feature schema fail clearly.

use crate::common;

use std::path::Path;

use common::{failure, json, succeed};
use serde_json::Value;
use verdict::game::{exploitability, PayoffMatrix};

fn simulate(dir: &Path) -> String {
    let out = dir.join("sim").display().to_string();
    succeed(&[
        "simulate",
        "--voters",
        "3",
        "--contexts",
        "2000",
        "--test-contexts",
        "300",
        "--seed",
        "71",
        "--rho",
        "0.001",
        "--out",
        &out,
    ]);
    out
}

/// `verdict fit` on the simulation's log, writing `out`, with `extra` flags.
fn fit_args(sim: &str, out: &str, extra: &[&str]) -> Vec<String> {
    let contexts = format!("{sim}/contexts.parquet");
    let feedback = format!("{sim}/feedback.parquet");
    [
        "fit",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--out",
        out,
    ]
    .iter()
    .chain(extra)
    .map(|a| a.to_string())
    .collect()
}

/// The mean exploitability of the uniform policy on the test truth, computed here
/// from the truth file (an independent baseline every fit must beat).
fn uniform_exploitability(sim: &str) -> f64 {
    let table = verdict::io::read_table(
        &verdict::io::Source::File(Path::new(sim).join("test_truth.parquet")),
        None,
        None,
    )
    .unwrap();
    let payoff = table.column("payoff").unwrap();
    let total: f64 = (0..table.rows())
        .map(|r| {
            let values: Vec<f64> = serde_json::from_str(payoff.value(r).unwrap()).unwrap();
            let rows: Vec<Vec<f64>> = values.chunks(5).map(<[f64]>::to_vec).collect();
            exploitability(&PayoffMatrix::new(&rows).unwrap(), &[0.2; 5])
        })
        .sum();
    total / table.rows() as f64
}

#[test]
fn fit_predict_evaluate_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path());
    let contexts = format!("{sim}/contexts.parquet");
    let model = dir.path().join("model.verdict").display().to_string();
    let page = dir.path().join("fit.html");
    let summary: Value = json(&fit_args(
        &sim,
        &model,
        &[
            "--max-epochs",
            "60",
            "--format",
            "json",
            "--quiet",
            "--report",
            page.to_str().unwrap(),
        ],
    ));
    let html = std::fs::read_to_string(&page).unwrap();
    for section in [
        "<h2>Fit</h2>",
        "<h2>Time per stage</h2>",
        "<h2>Held-out choice of surface</h2>",
    ] {
        assert!(html.contains(section), "the fit page lacks {section}");
    }
    for stage in ["nuisances", "selection", "policy"] {
        assert!(
            html.contains(&format!("data-label=\"{stage}\"")),
            "no bar for {stage}"
        );
    }
    assert!(!html.contains("http") && !html.contains("<script"));
    let s = &summary["summary"];
    assert_eq!(s["contexts"], 2000);
    assert_eq!(
        s["fold_sizes"],
        serde_json::json!([400, 400, 400, 400, 400])
    );
    let candidates: Vec<&str> = s["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        candidates,
        [
            "plugin",
            "debiased-shared",
            "debiased-per-pair",
            "debiased-structured"
        ]
    );
    assert!(["plugin", "debiased"].contains(&s["chosen"].as_str().unwrap()));
    // The network starts from the solver's equilibria by default.
    assert!(s["training"]["distilled_epochs"].as_u64().unwrap() > 0);
    assert!(s["collapsed_training"].is_null() && s["solver_fallback"] == false);
    let evaluate =
        |model: &str| -> Value { json(&["evaluate", model, "--truth", &sim, "--format", "json"]) };
    let report = evaluate(&model);
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "exploitability",
            "support_f1",
            "game_value",
            "contexts",
            "condorcet_contexts",
            "payoff_rmse"
        ]
    );
    assert_eq!(report["contexts"], 300);
    let uniform = uniform_exploitability(&sim);
    let learned = report["exploitability"].as_f64().unwrap();
    assert!(
        learned < 0.8 * uniform,
        "learned {learned} vs uniform {uniform}"
    );

    // Predictions: JSON, CSV and Parquet agree; distributions sum to one; winners are
    // the agents above the 1e-3 threshold.
    let test = format!("{sim}/test_contexts.parquet");
    let predictions: Value = json(&["predict", &model, "--contexts", &test, "--payoff"]);
    let rows = predictions.as_array().unwrap();
    assert_eq!(rows.len(), 300);
    for row in rows {
        let pi: Vec<f64> = row["equilibrium"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let winners = row["winners"].as_array().unwrap().len();
        assert_eq!(winners, pi.iter().filter(|&&p| p > 1e-3).count());
        let a = row["payoff"].as_array().unwrap();
        for (j, k) in (0..5).flat_map(|j| (0..5).map(move |k| (j, k))) {
            let (x, y) = (a[j][k].as_f64().unwrap(), a[k][j].as_f64().unwrap());
            assert!(x == -y && x.abs() <= 1.0);
        }
    }
    let csv = succeed(&["predict", &model, "--contexts", &test, "--format", "csv"]);
    let first: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(first[0], rows[0]["context_id"]);
    let agent = csv.lines().next().unwrap().split(',').nth(1).unwrap();
    assert_eq!(
        first[1].parse::<f64>().unwrap(),
        rows[0]["equilibrium"][agent].as_f64().unwrap()
    );
    let parquet = dir.path().join("p.parquet").display().to_string();
    succeed(&[
        "predict",
        &model,
        "--contexts",
        &test,
        "--format",
        "parquet",
        "--out",
        &parquet,
    ]);
    let table =
        verdict::io::read_table(&verdict::io::Source::File(parquet.into()), None, None).unwrap();
    assert_eq!(table.rows(), 300);
    assert_eq!(
        table
            .column(agent)
            .unwrap()
            .value(0)
            .unwrap()
            .parse::<f64>()
            .unwrap(),
        rows[0]["equilibrium"][agent].as_f64().unwrap()
    );

    // The oracle with the solver policy, from the truth's nuisances; and the plug-in
    // on the linear backbone with a randomly initialized network: both evaluate.
    let oracle = dir.path().join("oracle.verdict").display().to_string();
    succeed(&fit_args(
        &sim,
        &oracle,
        &[
            "--variant",
            "oracle",
            "--truth",
            &sim,
            "--policy",
            "solver",
            "--quiet",
        ],
    ));
    assert!(evaluate(&oracle)["exploitability"].as_f64().unwrap() < uniform);
    let linear = dir.path().join("linear.verdict").display().to_string();
    let random: Value = json(&fit_args(
        &sim,
        &linear,
        &[
            "--variant",
            "plugin",
            "--backbone",
            "linear",
            "--network-init",
            "random",
            "--max-epochs",
            "60",
            "--format",
            "json",
            "--quiet",
        ],
    ));
    let s = &random["summary"];
    // A random start distils only to rescue a collapse.
    let distilled = s["training"]["distilled_epochs"].as_u64().unwrap();
    assert_eq!(distilled > 0, !s["collapsed_training"].is_null(), "{s}");
    assert!(evaluate(&linear)["exploitability"].as_f64().unwrap() < uniform);

    // A different feature schema, a damaged or foreign model file: clear errors.
    let extra = dir.path().join("extra.csv");
    std::fs::write(&extra, "context_id,x1,x2,x3,x4,x5,x6\nq,0,0,0,0,0,1\n").unwrap();
    let message = failure(&["predict", &model, "--contexts", extra.to_str().unwrap()]);
    assert!(
        message.contains("\"x6\"") && message.contains("refit"),
        "{message}"
    );
    let missing = dir.path().join("missing.csv");
    std::fs::write(&missing, "context_id,x1,x2,x3,x4\nq,0,0,0,0\n").unwrap();
    let message = failure(&["predict", &model, "--contexts", missing.to_str().unwrap()]);
    assert!(message.contains("lack feature \"x5\""), "{message}");
    let text = std::fs::read_to_string(&model).unwrap();
    let future = dir.path().join("future.verdict");
    std::fs::write(&future, text.replacen("\"version\":1", "\"version\":99", 1)).unwrap();
    let message = failure(&["predict", future.to_str().unwrap(), "--contexts", &test]);
    assert!(message.contains("version 99"), "{message}");
    let message = failure(&["predict", &contexts, "--contexts", &test]);
    assert!(
        message.contains("not a model written by verdict fit"),
        "{message}"
    );
}

#[test]
fn fit_refuses_bad_settings_without_writing_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path());
    let model = dir.path().join("m.verdict");
    let out = model.to_str().unwrap();
    for (extra, expected) in [
        (&["--variant", "oracle"][..], "--truth"),
        (&["--budget", "1"][..], "--policy solver"),
        (&["--rho", "0"][..], "rho > 0"),
        (&["--folds", "1"][..], "at least 2 folds"),
        // 2,000 contexts cannot fill 1,500 folds twice: the message names both ways out.
        (&["--folds", "1500"][..], "fewer --folds, at least 2"),
        (&["--folds", "1500"][..], "--context-cols"),
        (&["--aggregator", "median"][..], "mean or cubic"),
        (&["--propensity-floor", "0"][..], "propensity floor"),
    ] {
        let args = fit_args(&sim, out, &[extra, &["--quiet"]].concat());
        let message = failure(&args);
        assert!(message.contains(expected), "{extra:?}: {message}");
        assert!(!model.exists(), "no model written after {extra:?}");
    }
}

/// A soft budget (Eq. 52–53) is a fit option: with the solver policy each context's
/// equilibrium is the one `verdict game` finds for that context's `Â(x)` under the
/// same costs and prices; the network policy trains under it; the model file records
/// it; a soft budget without costs, or with a hard budget, is refused.
#[test]
fn soft_budget_is_a_fit_option() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path());
    let costs = dir.path().join("costs.csv").display().to_string();
    std::fs::write(
        &costs,
        "agent,cost\nagent_1,0.1\nagent_2,0.9\nagent_3,0.5\nagent_4,0.2\nagent_5,0.7\n",
    )
    .unwrap();
    let budget = [
        "--costs",
        &costs,
        "--rho",
        "0.05",
        "--soft-budget",
        "0.3",
        "--surcharge",
        "2",
        "--width",
        "0.05",
    ];
    let solver = dir.path().join("solver.verdict").display().to_string();
    let linear = ["--backbone", "linear", "--variant", "plugin", "--quiet"];
    succeed(&fit_args(
        &sim,
        &solver,
        &[&linear[..], &budget, &["--policy", "solver"]].concat(),
    ));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&solver).unwrap()).unwrap();
    assert_eq!(
        saved["options"]["soft_budget"],
        serde_json::json!({"base_price": 0.0, "surcharge": 2.0, "budget": 0.3, "width": 0.05})
    );
    let test = format!("{sim}/test_contexts.parquet");
    let predictions: Value = json(&["predict", &solver, "--contexts", &test, "--payoff"]);
    for row in predictions.as_array().unwrap().iter().take(5) {
        let agents: Vec<&String> = row["equilibrium"].as_object().unwrap().keys().collect();
        let payoff = row["payoff"].as_array().unwrap();
        let mut csv = format!(
            ",{}\n",
            agents
                .iter()
                .map(|a| a.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
        for (agent, values) in agents.iter().zip(payoff) {
            let values: Vec<String> = values
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap().to_string())
                .collect();
            csv.push_str(&format!("{agent},{}\n", values.join(",")));
        }
        let matrix = dir.path().join("context.csv");
        std::fs::write(&matrix, csv).unwrap();
        let game: Value = json(
            &[
                &["game", matrix.to_str().unwrap(), "--format", "json"][..],
                &budget,
            ]
            .concat(),
        );
        for (j, agent) in agents.iter().enumerate() {
            assert_eq!(game["models"][j]["name"], agent.as_str());
            let expected = game["models"][j]["probability"].as_f64().unwrap();
            let fitted = row["equilibrium"][agent.as_str()].as_f64().unwrap();
            assert!(
                (expected - fitted).abs() < 1e-9,
                "{agent}: {fitted} vs {expected}"
            );
        }
    }
    let network = dir.path().join("network.verdict").display().to_string();
    let summary: Value = json(&fit_args(
        &sim,
        &network,
        &[
            &linear[..],
            &budget,
            &["--max-epochs", "20", "--format", "json"],
        ]
        .concat(),
    ));
    assert!(summary["summary"]["final_gap"]
        .as_f64()
        .unwrap()
        .is_finite());
    for (extra, expected) in [
        (&["--soft-budget", "0.3"][..], "needs agent costs"),
        (
            &["--costs", &costs, "--soft-budget", "0.3", "--budget", "0.4"][..],
            "cannot be used with",
        ),
    ] {
        let model = dir.path().join("refused.verdict");
        let args = fit_args(
            &sim,
            model.to_str().unwrap(),
            &[extra, &["--quiet"]].concat(),
        );
        let message = failure(&args);
        assert!(message.contains(expected), "{extra:?}: {message}");
        assert!(!model.exists());
    }
}

/// `--linear-penalty` sets the linear backbone's lambda (recorded in the model file)
/// and refuses a negative or non-finite one.
#[test]
fn the_linear_penalty_is_a_setting() {
    let dir = tempfile::tempdir().unwrap();
    let sim = common::small_simulation(dir.path());
    let model = dir.path().join("model.json").display().to_string();
    let args = fit_args(
        &sim,
        &model,
        &[
            "--backbone",
            "linear",
            "--policy",
            "solver",
            "--linear-penalty",
            "10",
        ],
    );
    succeed(&args);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let text = saved["options"].to_string();
    assert!(text.contains("\"lambda\":10.0"), "{text}");
    let bad = fit_args(
        &sim,
        &model,
        &["--backbone", "linear", "--linear-penalty=-1"],
    );
    assert!(failure(&bad).contains("--linear-penalty"));
}

/// The arena world end to end: sixteen agents, one pair per prompt, so some pairs
/// never meet in 600 prompts and some menus are seen in one fold only. The fit
/// refuses unmet pairs by name, fits with --allow-unobserved (structured outcome models,
/// a warning naming the pairs), and the model is evaluated against the truth; the
/// same battles read as an LMArena log with --battles fit too.
#[test]
fn arena_world_fits_with_rare_and_unmet_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("arena").display().to_string();
    succeed(&[
        "simulate",
        "--world",
        "arena",
        "--contexts",
        "600",
        "--test-contexts",
        "100",
        "--out",
        &sim,
    ]);
    let model = dir.path().join("model.json").display().to_string();
    let fit = |extra: &[&str]| {
        let mut args = vec![
            "fit".to_string(),
            "--contexts".into(),
            format!("{sim}/contexts.parquet"),
            "--feedback".into(),
            format!("{sim}/feedback.parquet"),
            "--text-col".into(),
            "prompt".into(),
            "--backbone".into(),
            "linear".into(),
            "--policy".into(),
            "solver".into(),
            "--out".into(),
            model.clone(),
        ];
        args.extend(extra.iter().map(ToString::to_string));
        args
    };
    let message = failure(&fit(&[]));
    assert!(
        message.contains("never met in any menu") && message.contains("--allow-unobserved"),
        "{message}"
    );
    let summary = json(&[
        "log",
        "--contexts",
        &format!("{sim}/contexts.parquet"),
        "--feedback",
        &format!("{sim}/feedback.parquet"),
        "--text-col",
        "prompt",
        "--format",
        "json",
    ]);
    let unmet = summary["unmet_pairs"].as_array().unwrap();
    assert!(!unmet.is_empty());
    let first = format!(
        "{} vs {}",
        unmet[0][0].as_str().unwrap(),
        unmet[0][1].as_str().unwrap()
    );
    assert!(message.contains(&first), "{first}: {message}");
    assert!(!Path::new(&model).exists());
    let output = common::verdict(&fit(&["--allow-unobserved", "--format", "json"]));
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("never met (model_"), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["nuisance_design"], "Structured");
    // The warning names the model that extrapolates: under auto, one shared by every
    // pair (the summary names the design auto chose).
    assert!(
        stderr.contains("extrapolated by the outcome model shared by every pair"),
        "{stderr}"
    );
    // A catalogue of 120 pairs: auto weighs the plug-in against the structured
    // regression alone, and the structured propensity model's out-of-fold log loss
    // is below the constant's, -(e ln e + (1 - e) ln(1 - e)) at e = 1/120 (0.0482).
    let candidates: Vec<&str> = report["summary"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(candidates, ["plugin", "debiased-structured"]);
    let propensity_loss = report["summary"]["propensity_loss"].as_f64().unwrap();
    assert!(
        propensity_loss > 0.0 && propensity_loss < 0.0482,
        "{propensity_loss}"
    );
    assert!(!report["summary"]["sparse_menus"]
        .as_array()
        .unwrap()
        .is_empty());
    let scored = json(&["evaluate", &model, "--truth", &sim, "--format", "json"]);
    let model_exploitability = scored["exploitability"].as_f64().unwrap();
    // By hand from the model's predictions and the true games: the mean over test
    // contexts of max_j (A(x) pi(x))_j.
    let test = format!("{sim}/test_contexts.parquet");
    let predictions: Value = json(&["predict", &model, "--contexts", &test]);
    let truth_of_model =
        verdict_lab::simulation::Truth::open(Path::new(&sim), verdict_lab::simulation::Split::Test)
            .unwrap();
    let names = truth_of_model.agents().to_vec();
    let k = names.len();
    let rows = predictions.as_array().unwrap();
    assert_eq!(rows.len(), truth_of_model.ids.len());
    let by_hand = rows
        .iter()
        .map(|row| {
            let id = row["context_id"].as_str().unwrap();
            let i = truth_of_model.ids.iter().position(|t| t == id).unwrap();
            let pi: Vec<f64> = names
                .iter()
                .map(|a| row["equilibrium"][a].as_f64().unwrap())
                .collect();
            let a = &truth_of_model.payoff[i * k * k..(i + 1) * k * k];
            exploitability(&PayoffMatrix::from_row_major(a, k).unwrap(), &pi)
        })
        .sum::<f64>()
        / rows.len() as f64;
    assert!(
        (model_exploitability - by_hand).abs() < 1e-9,
        "{model_exploitability} vs {by_hand}"
    );
    // The global maximal lottery of the same battles, scored as a constant policy:
    // its exploitability at each context is max_j (A(x) pi)_j, checked here by hand.
    let board = succeed(&[
        "rank",
        &format!("{sim}/battles.parquet"),
        "--method",
        "lottery",
        "--allow-unobserved",
        "--format",
        "json",
    ]);
    let lottery = common::write(dir.path(), "lottery.json", &board);
    let scored = json(&["evaluate", &lottery, "--truth", &sim, "--format", "json"]);
    let board: Value = serde_json::from_str(&board).unwrap();
    let truth =
        verdict_lab::simulation::Truth::open(Path::new(&sim), verdict_lab::simulation::Split::Test)
            .unwrap();
    let agents = truth.agents().to_vec();
    let k = agents.len();
    let mut pi = vec![0.0; k];
    for m in board["models"].as_array().unwrap() {
        let j = agents
            .iter()
            .position(|a| a == m["name"].as_str().unwrap())
            .unwrap();
        pi[j] = m["probability"].as_f64().unwrap();
    }
    let by_hand = truth
        .payoff
        .chunks(k * k)
        .map(|a| exploitability(&PayoffMatrix::from_row_major(a, k).unwrap(), &pi))
        .sum::<f64>()
        / truth.ids.len() as f64;
    let scored = scored["exploitability"].as_f64().unwrap();
    assert!((scored - by_hand).abs() < 1e-12, "{scored} vs {by_hand}");
    succeed(&[
        "fit",
        "--battles",
        &format!("{sim}/battles.parquet"),
        "--context-cols",
        "language,is_code,is_math",
        "--backbone",
        "linear",
        "--policy",
        "solver",
        "--allow-unobserved",
        "--out",
        &model,
    ]);
}

/// One engine under every face: a model fitted through the library and one fitted by
/// `verdict fit` with the same options are the same bytes.
#[test]
fn library_and_command_line_fits_are_byte_identical() {
    use verdict::io::{read_contextual_log, ContextualOptions, Source};
    use verdict::model_file::{save_model, Featurizer};
    use verdict::nasheval::{fit, FitOptions, PolicyKind};
    let dir = tempfile::tempdir().unwrap();
    let sim = simulate(dir.path());
    let by_cli = dir.path().join("cli.json");
    let args = fit_args(
        &sim,
        &by_cli.display().to_string(),
        &["--policy", "solver", "--folds", "3", "--seed", "5"],
    );
    succeed(&args.iter().map(String::as_str).collect::<Vec<_>>());

    let reading = ContextualOptions::default();
    let log = read_contextual_log(
        &Source::File(Path::new(&sim).join("contexts.parquet")),
        &Source::File(Path::new(&sim).join("feedback.parquet")),
        &reading,
    )
    .unwrap();
    let options = FitOptions {
        policy: PolicyKind::Solver,
        folds: 3,
        seed: 5,
        ..FitOptions::default()
    };
    let featurizer = Featurizer::from_options(&reading).to_value();
    let model = fit(&log, &options, featurizer, &|_, _, _| {}).unwrap();
    let by_library = dir.path().join("library.json");
    save_model(
        &model,
        &verdict::io::OutputFile::new(&by_library, "model file"),
    )
    .unwrap();
    assert!(
        std::fs::read(&by_cli).unwrap() == std::fs::read(&by_library).unwrap(),
        "the command line's model file differs from the library's"
    );
}

/// A structured surface of rank 0 on a constant context is the Bradley–Terry model:
/// fitted on LLMFAO's battles (each battle one context with the same feature) by
/// the structured learner's own Newton iteration, its win probabilities equal those
/// of `verdict rank --method bt` on the same file to 1e-6 — two solvers, one
/// likelihood (ties as half a win).
#[test]
fn structured_rank_zero_on_a_constant_context_is_verdict_rank_bt() {
    use verdict::feedback::Outcome;
    use verdict::io::{read_battles, ReadOptions, Source};
    use verdict::nasheval::structured::Objective;
    use verdict::nasheval::{PairTarget, StructuredOptions, StructuredSurface};

    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/data/llmfao.csv"
    );
    let board = json(&[
        "rank",
        file,
        "--method",
        "bt",
        "--bootstrap",
        "0",
        "--format",
        "json",
    ]);
    let scores: std::collections::HashMap<String, f64> = board["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["score"].as_f64().unwrap(),
            )
        })
        .collect();
    let loaded = read_battles(&Source::File(file.into()), &ReadOptions::default()).unwrap();
    let log = loaded.log;
    let targets: Vec<PairTarget> = log
        .iter()
        .enumerate()
        .map(|(row, (a, b, outcome))| PairTarget {
            row,
            first: a.index(),
            second: b.index(),
            target: match outcome {
                Outcome::WinA => 1.0,
                Outcome::WinB => -1.0,
                Outcome::Tie | Outcome::TieBothBad => 0.0,
            },
            weight: 1.0,
        })
        .collect();
    let agents = log.models().len();
    let (surface, report) = StructuredSurface::fit(
        &vec![1.0; log.len()],
        1,
        agents,
        &targets,
        Objective::Verdict,
        &StructuredOptions {
            rank: Some(0),
            ..StructuredOptions::default()
        },
    )
    .unwrap();
    assert_eq!(report.rank, 0);
    let pairs: Vec<(usize, usize)> = (0..agents)
        .flat_map(|j| (j + 1..agents).map(move |k| (j, k)))
        .collect();
    let values = surface.pair_values(&[1.0], &pairs);
    let names = log.models();
    let mut worst: f64 = 0.0;
    for (&(j, k), value) in pairs.iter().zip(&values) {
        let (sj, sk) = (
            scores[names.name(verdict::feedback::ModelId(j as u32))],
            scores[names.name(verdict::feedback::ModelId(k as u32))],
        );
        // Elo scale: P(j beats k) = 1 / (1 + 10^((s_k − s_j) / 400)).
        let bt = 1.0 / (1.0 + 10f64.powf((sk - sj) / 400.0));
        let difference = ((1.0 + value) / 2.0 - bt).abs();
        assert!(difference.is_finite(), "{j} vs {k}: {value} against {bt}");
        worst = worst.max(difference);
    }
    assert!(
        worst < 1e-6,
        "largest difference in win probability {worst}"
    );
}
