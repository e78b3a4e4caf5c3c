//! `verdict ope` end to end: decision logs written by a real `verdict serve` run
//! (exploration on), single answers and duels, and the same decisions as a table,
//! joined with outcomes; costs, the report page, and bad input refused by row.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::common::{failure, json as run_json, succeed, write};
use crate::serving::{contexts, fitted, Server};

/// Serves `n` contexts with exploration 0.3 (duels when `menu_size` is 2) and returns
/// the directory, the decision log and its lines.
fn served_log(
    n: usize,
    menu_size: usize,
    extra: &[&str],
) -> (tempfile::TempDir, PathBuf, Vec<Value>) {
    let fitted = fitted();
    let dir = tempfile::tempdir().unwrap();
    let decisions = dir.path().join("decisions");
    let mut args = vec![
        "--decisions",
        decisions.to_str().unwrap(),
        "--seed",
        "13",
        "--explore",
        "0.3",
    ];
    args.extend_from_slice(extra);
    let server = Server::start(&fitted.model, &args, &[]);
    for (i, context) in contexts(n, 77).iter().enumerate() {
        let routed = server.post(
            "/v1/route",
            &json!({"context": context, "request_id": format!("r{i}"), "menu_size": menu_size}),
        );
        assert_eq!(routed.status, 200, "{}", routed.body);
    }
    let log_path = server.decisions.clone().unwrap();
    server.stop();
    let lines: Vec<Value> = std::fs::read_to_string(&log_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (dir, log_path, lines)
}

/// `verdict ope --decisions DECISIONS --outcomes OUTCOMES` and the rest.
fn ope_args(decisions: &str, outcomes: &str, rest: &[&str]) -> Vec<String> {
    ["ope", "--decisions", decisions, "--outcomes", outcomes]
        .iter()
        .chain(rest)
        .map(|a| (*a).to_owned())
        .collect()
}

/// The agent a context's sign of `x1` names: the one that wins there.
fn good(line: &Value) -> String {
    let x1 = line["context"]["x1"].as_f64().unwrap();
    fitted().agents[if x1 > 0.0 { 0 } else { 1 }].clone()
}

/// `verdict ope` on a log a real `verdict serve` run wrote (exploration on) joined with
/// outcomes: the logging policy's IPS value is the mean outcome exactly (every weight
/// 1); a fixed agent's value is within four standard errors of its value on the logged
/// contexts (known here: the outcome is 1 exactly when the routed agent is the one the
/// context's sign of `x1` names); a model candidate is read at the logged contexts;
/// an outcome for a request never decided, or two for one request, is refused.
#[test]
fn ope_scores_candidates_on_a_served_decision_log() {
    let fitted = fitted();
    let (dir, log_path, lines) = served_log(600, 1, &[]);
    let mut outcomes = String::from("request_id,outcome\n");
    let mut total = 0.0;
    for line in &lines {
        let outcome = f64::from(u8::from(line["chosen"] == good(line).as_str()));
        total += outcome;
        outcomes += &format!("{},{outcome}\n", line["request_id"].as_str().unwrap());
    }
    let outcomes_path = write(dir.path(), "outcomes.csv", &outcomes);
    let first = &fitted.agents[0];
    let truth = lines.iter().filter(|l| good(l) == *first).count() as f64 / lines.len() as f64;
    let report: Value = run_json(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--policy",
            "logged",
            "--policy",
            &format!("agent:{first}"),
            "--policy",
            fitted.model.to_str().unwrap(),
            "--format",
            "json",
        ],
    ));
    assert_eq!(report["rows"], 600);
    let candidates = report["candidates"].as_array().unwrap();
    let logged = &candidates[0]["ips"];
    assert!((logged["estimate"].as_f64().unwrap() - total / 600.0).abs() < 1e-12);
    for estimator in ["ips", "snips", "dr"] {
        let e = &candidates[1][estimator];
        let (estimate, se) = (
            e["estimate"].as_f64().unwrap(),
            e["std_error"].as_f64().unwrap(),
        );
        assert!(
            (estimate - truth).abs() < 4.0 * se,
            "{estimator}: {estimate} ± {se} vs {truth}"
        );
    }
    assert!(candidates[2]["dr"]["estimate"]
        .as_f64()
        .unwrap()
        .is_finite());
    assert!(candidates[1]["versus_first"].is_array());
    assert!(report["outcome_model"].as_str().unwrap().contains("ridge"));
    let refused = |decisions: &str, outcomes: &str| {
        failure(&ope_args(decisions, outcomes, &["--policy", "logged"]))
    };
    // An outcome for a request the log never decided, and two for one request.
    for (extra, message) in [
        ("nowhere,1\n", "has an outcome but no decision"),
        ("r3,0\n", "has two outcomes"),
    ] {
        let bad = write(dir.path(), "bad.csv", &(outcomes.clone() + extra));
        let error = refused(log_path.to_str().unwrap(), &bad);
        assert!(
            error.contains(message) && error.contains("bad.csv"),
            "{error}"
        );
    }
    // Two decisions for one request: the log is refused at the second, by line.
    let text = std::fs::read_to_string(&log_path).unwrap();
    let first_line = text.lines().next().unwrap();
    let doubled = write(
        dir.path(),
        "doubled.jsonl",
        &format!("{text}{first_line}\n"),
    );
    let error = refused(&doubled, &outcomes_path);
    assert!(
        error.contains("doubled.jsonl:601") && error.contains("already decided on line 1"),
        "{error}"
    );
}

/// Duels (`menu_size` 2) logged by a real server, each judged: the context's good
/// agent wins when offered, else a tie. A fixed agent's payoff against another is
/// known on the logged contexts (1 where it is the good one, 0 where the other is),
/// and IPS and DR land within four standard errors of it; the default opponent is the
/// logging policy; a verdict that names no agent of the duel is refused by row.
#[test]
fn duels_from_a_served_log_score_candidates_against_an_opponent() {
    let fitted = fitted();
    let (dir, log_path, lines) = served_log(800, 2, &[]);
    let mut outcomes = String::from("request_id,winner\n");
    for line in &lines {
        let menu: Vec<&str> = line["menu"].as_str().unwrap().split('|').collect();
        assert_eq!(menu.len(), 2, "{line}");
        let good = good(line);
        let winner = if menu.contains(&good.as_str()) {
            good
        } else {
            "tie".into()
        };
        outcomes += &format!("{},{winner}\n", line["request_id"].as_str().unwrap());
    }
    let outcomes_path = write(dir.path(), "verdicts.csv", &outcomes);
    let (a, b) = (&fitted.agents[0], &fitted.agents[1]);
    let truth = lines.iter().filter(|l| good(l) == *a).count() as f64 / lines.len() as f64;
    let report = run_json(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--outcome-col",
            "winner",
            "--policy",
            &format!("agent:{a}"),
            "--policy",
            fitted.model.to_str().unwrap(),
            "--against",
            &format!("agent:{b}"),
            "--format",
            "json",
        ],
    ));
    assert_eq!(
        (report["rows"].clone(), report["duels"].clone()),
        (json!(0), json!(800))
    );
    assert_eq!(report["opponent"], format!("agent:{b}"));
    let duel = &report["candidates"][0]["duel"];
    for estimator in ["ips", "dr"] {
        let (estimate, se) = (
            duel[estimator]["estimate"].as_f64().unwrap(),
            duel[estimator]["std_error"].as_f64().unwrap(),
        );
        assert!(
            (estimate - truth).abs() < 4.0 * se && se > 0.0,
            "{estimator}: {estimate} ± {se} vs {truth}"
        );
    }
    assert!(
        report["candidates"][1]["duel"]["versus_first"]["dr"]["estimate"]
            .as_f64()
            .unwrap()
            .is_finite()
    );
    let against_logger = run_json(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--outcome-col",
            "winner",
            "--policy",
            "logged",
            "--format",
            "json",
        ],
    ));
    assert_eq!(against_logger["opponent"], "logged");
    // The logger against itself: exactly one half, every row's gain being 0.
    let own = &against_logger["candidates"][0]["duel"]["dr"];
    assert!(
        (own["estimate"].as_f64().unwrap() - 0.5).abs() < 1e-12,
        "{own}"
    );
    let bad = write(
        dir.path(),
        "bad.csv",
        &outcomes.replacen(",tie\n", ",nobody\n", 1),
    );
    let error = failure(&ope_args(
        log_path.to_str().unwrap(),
        &bad,
        &["--outcome-col", "winner", "--policy", "logged"],
    ));
    assert!(
        error.contains("bad.csv") && error.contains("\"nobody\" is not a duel's verdict"),
        "{error}"
    );
}

/// The served log's decisions written as a CSV table (request id, chosen, propensity,
/// `routed:<agent>` columns, the context's features) score every candidate exactly as
/// the JSON Lines log does; without the `routed:` columns a fixed agent still scores
/// the same by IPS, and the logging policy is refused naming what is missing.
#[test]
fn a_decision_table_evaluates_like_the_serve_log() {
    let fitted = fitted();
    let (dir, log_path, lines) = served_log(400, 1, &[]);
    let mut outcomes = String::from("request_id,outcome\n");
    let features = ["x1", "x2", "x3", "x4", "x5"];
    let header = |routed: bool| {
        let mut h = vec![
            "request_id".to_owned(),
            "chosen".into(),
            "propensity".into(),
        ];
        if routed {
            h.extend(fitted.agents.iter().map(|a| format!("routed:{a}")));
        }
        h.extend(features.iter().map(|f| (*f).to_owned()));
        h.join(",") + "\n"
    };
    let (mut full, mut bare) = (header(true), header(false));
    for line in &lines {
        let id = line["request_id"].as_str().unwrap();
        let outcome = u8::from(line["chosen"] == good(line).as_str());
        outcomes += &format!("{id},{outcome}\n");
        let start = format!(
            "{id},{},{}",
            line["chosen"].as_str().unwrap(),
            line["propensity"].as_f64().unwrap()
        );
        let routed: Vec<String> = fitted
            .agents
            .iter()
            .map(|a| {
                line["routed_probabilities"][a]
                    .as_f64()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let x: Vec<String> = features
            .iter()
            .map(|f| line["context"][f].as_f64().unwrap().to_string())
            .collect();
        full += &format!("{start},{},{}\n", routed.join(","), x.join(","));
        bare += &format!("{start},{}\n", x.join(","));
    }
    let outcomes_path = write(dir.path(), "outcomes.csv", &outcomes);
    let model = fitted.model.to_str().unwrap().to_owned();
    let agent = format!("agent:{}", fitted.agents[0]);
    let score = |decisions: &str, policies: &[&str]| {
        let mut args = vec![
            "ope",
            "--decisions",
            decisions,
            "--outcomes",
            &outcomes_path,
        ];
        for p in policies {
            args.extend(["--policy", p]);
        }
        args.extend(["--format", "json"]);
        run_json(&args)
    };
    let from_log = score(log_path.to_str().unwrap(), &["logged", &agent, &model]);
    let table = write(dir.path(), "decisions.csv", &full);
    let from_table = score(&table, &["logged", &agent, &model]);
    for c in 0..3 {
        for estimator in ["ips", "snips", "dr"] {
            let (x, y) = (
                from_log["candidates"][c][estimator]["estimate"]
                    .as_f64()
                    .unwrap(),
                from_table["candidates"][c][estimator]["estimate"]
                    .as_f64()
                    .unwrap(),
            );
            assert!(
                (x - y).abs() < 1e-12,
                "candidate {c} {estimator}: {x} vs {y}"
            );
        }
    }
    assert_eq!(from_table["logging_known"], true);
    let bare_table = write(dir.path(), "bare.csv", &bare);
    let from_bare = score(&bare_table, &[&agent]);
    assert_eq!(from_bare["logging_known"], false);
    assert_eq!(
        from_bare["candidates"][0]["ips"]["estimate"],
        from_log["candidates"][1]["ips"]["estimate"]
    );
    let error = failure(&ope_args(
        &bare_table,
        &outcomes_path,
        &["--policy", "logged"],
    ));
    assert!(error.contains("routed:<agent> columns"), "{error}");
    // A propensity of 0 in the table is refused naming the row and column.
    let zero = full.replacen(
        &format!(",{},", lines[2]["propensity"].as_f64().unwrap()),
        ",0,",
        1,
    );
    let zero_table = write(dir.path(), "zero.csv", &zero);
    let error = failure(&ope_args(
        &zero_table,
        &outcomes_path,
        &["--policy", &agent],
    ));
    assert!(
        error.contains("zero.csv") && error.contains("propensity 0 is not a probability"),
        "{error}"
    );
}

/// Costs beside value: with each agent's price a fixed agent costs its price exactly
/// and the logging policy its routed probabilities' mean price; with the observed cost
/// of each routed answer (its agent's price here) the doubly-robust cost of a fixed
/// agent is its price again. `--report` draws the candidates with intervals and on the
/// cost–quality plane; `--out` holds what would have been printed. A device named as a
/// candidate or as the log (through a link) is refused, not read for ever.
#[test]
fn costs_beside_value_and_a_page_with_intervals() {
    let fitted = fitted();
    let (dir, log_path, lines) = served_log(300, 1, &[]);
    let prices: Vec<f64> = (0..fitted.agents.len())
        .map(|i| 1.0 + 2.0 * i as f64)
        .collect();
    let price_of = |name: &str| prices[fitted.agents.iter().position(|a| a == name).unwrap()];
    let mut outcomes = String::from("request_id,outcome,spent\n");
    let mut logged_cost = 0.0;
    for line in &lines {
        let chosen = line["chosen"].as_str().unwrap();
        outcomes += &format!(
            "{},{},{}\n",
            line["request_id"].as_str().unwrap(),
            u8::from(chosen == good(line)),
            price_of(chosen)
        );
        logged_cost += fitted
            .agents
            .iter()
            .map(|a| line["routed_probabilities"][a].as_f64().unwrap() * price_of(a))
            .sum::<f64>();
    }
    logged_cost /= lines.len() as f64;
    let outcomes_path = write(dir.path(), "outcomes.csv", &outcomes);
    let mut price_file = String::from("model,cost\n");
    for (a, c) in fitted.agents.iter().zip(&prices) {
        price_file += &format!("{a},{c}\n");
    }
    let prices_path = write(dir.path(), "prices.csv", &price_file);
    let last = fitted.agents.last().unwrap();
    let page = dir.path().join("ope.html");
    let out = dir.path().join("ope.json");
    succeed(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--policy",
            "logged",
            "--policy",
            &format!("agent:{last}"),
            "--costs",
            &prices_path,
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            "--report",
            page.to_str().unwrap(),
        ],
    ));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let cost = |c: usize| {
        report["candidates"][c]["cost"]["estimate"]
            .as_f64()
            .unwrap()
    };
    assert!(
        (cost(0) - logged_cost).abs() < 1e-9,
        "{} vs {logged_cost}",
        cost(0)
    );
    assert!((cost(1) - price_of(last)).abs() < 1e-12);
    let html = std::fs::read_to_string(&page).unwrap();
    for needle in [
        "class=\"candidates\"",
        "data-model=\"logged\"",
        &format!("data-policy=\"agent:{last}\""),
        "class=\"plane\"",
    ] {
        assert!(html.contains(needle), "{needle} missing from the page");
    }
    let observed = run_json(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--policy",
            &format!("agent:{last}"),
            "--cost-col",
            "spent",
            "--format",
            "json",
        ],
    ));
    let estimated = observed["candidates"][0]["cost"]["estimate"]
        .as_f64()
        .unwrap();
    assert!((estimated - price_of(last)).abs() < 1e-6, "{estimated}");
    let both = failure(&ope_args(
        log_path.to_str().unwrap(),
        &outcomes_path,
        &[
            "--policy",
            "logged",
            "--cost-col",
            "spent",
            "--costs",
            &prices_path,
        ],
    ));
    assert!(both.contains("cannot be used with"), "{both}");
    // A device named as a candidate's file is refused at once, not read for ever.
    for policy in ["/dev/zero", "lottery:/dev/zero"] {
        let error = failure(&ope_args(
            log_path.to_str().unwrap(),
            &outcomes_path,
            &["--policy", policy],
        ));
        assert!(error.contains("not a regular file"), "{error}");
    }
    let link = dir.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let error = failure(&ope_args(
        link.to_str().unwrap(),
        &outcomes_path,
        &["--policy", "logged"],
    ));
    assert!(error.contains("not a regular file"), "{error}");
}

/// A decision log with known truth (`verdict bench decision-log`: outcome probabilities
/// `σ(w_a · x)`, a softmax logger with 10% exploration): the DR and SNIPS intervals of
/// every fixed agent and of the logger hold the exact value on the logged contexts
/// (one seeded log; the coverage over many logs is the library tests'), and the
/// outcome model reads the contexts' numeric fields.
#[test]
fn ope_on_a_log_with_known_truth_covers_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("world");
    succeed(&[
        "bench",
        "decision-log",
        "--rows",
        "6000",
        "--agents",
        "4",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("truth.json")).unwrap()).unwrap();
    let agents: Vec<String> = truth["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let mut args = vec![
        "ope".to_owned(),
        "--decisions".into(),
        out.join("decisions.jsonl").display().to_string(),
        "--outcomes".into(),
        out.join("outcomes.csv").display().to_string(),
        "--policy".into(),
        "logged".into(),
    ];
    for a in &agents {
        args.extend(["--policy".into(), format!("agent:{a}")]);
    }
    args.extend(["--format".into(), "json".into()]);
    let report = run_json(&args);
    assert!(report["outcome_model"]
        .as_str()
        .unwrap()
        .contains("x1, x2, x3, x4, x5"));
    let values: Vec<f64> = std::iter::once(truth["logger_value"].as_f64().unwrap())
        .chain(
            truth["agent_values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap()),
        )
        .collect();
    for (candidate, value) in report["candidates"].as_array().unwrap().iter().zip(values) {
        for estimator in ["snips", "dr"] {
            let e = &candidate[estimator];
            let (low, high) = (
                e["ci_low"].as_f64().unwrap(),
                e["ci_high"].as_f64().unwrap(),
            );
            assert!(
                low <= value && value <= high,
                "{} {estimator}: [{low}, {high}] misses {value}",
                candidate["policy"]
            );
        }
    }
    // An agent the log never names has no outcome to estimate from: refused, naming
    // the log's agents, never scored by the outcome model's extrapolation alone.
    let mut typo = args[..7].to_vec();
    typo.extend(["--policy".into(), "agent:agent_1".into()]);
    let message = failure(&typo);
    assert!(
        message.contains("agent:agent_1") && message.contains(&agents.join(", ")),
        "{message}"
    );
}
