//! `verdict judge` with judges that share their mistakes: replayed judges whose
//! recorded scores carry a bias at each item, shared within a family. The JSON, the
//! CSV, the summary and the page report the bias, the panel's worth and intervals
//! that cover the true scores; one family leaves the bias unidentified and says what
//! would identify it.

use std::path::Path;

use crate::common::verdict;

const ITEMS: usize = 60;

/// Item k's true score and the bias of family f at it: ±0.1 by a pattern of its own.
fn truth(k: usize) -> f64 {
    0.2 + 0.6 * (k % 10) as f64 / 9.0
}

fn family_bias(family: usize, k: usize) -> f64 {
    if (k * (family + 2) / 3 + family).is_multiple_of(2) {
        0.1
    } else {
        -0.1
    }
}

/// Items, and four replayed judges: judge j's recorded calls at item k are truth + the
/// bias of family `biases[j]` ± 0.03, and its configuration names family `labels[j]`.
fn setup(d: &Path, biases: [usize; 4], labels: [usize; 4]) -> Vec<String> {
    let items: String = (0..ITEMS)
        .map(|k| format!("{{\"id\": \"q{k}\"}}\n"))
        .collect();
    std::fs::write(d.join("items.jsonl"), items).unwrap();
    let mut config = String::from("range = 1.0\n");
    for (j, (family, label)) in biases.iter().zip(labels).enumerate() {
        let mut recorded = String::from("item,score\n");
        for k in 0..ITEMS {
            let centre = truth(k) + family_bias(*family, k);
            for noise in [-0.03, 0.03] {
                recorded.push_str(&format!("q{k},{:.4}\n", centre + noise));
            }
        }
        std::fs::write(d.join(format!("judge{j}.csv")), recorded).unwrap();
        config.push_str(&format!(
            "\n[[judge]]\nname = \"judge{j}\"\ncost = 1.0\nreplay = \"judge{j}.csv\"\nfamily = \"maker{label}\"\n"
        ));
    }
    std::fs::write(d.join("judges.toml"), config).unwrap();
    [
        "judge",
        "--items",
        "items.jsonl",
        "--judges",
        "judges.toml",
        "--budget",
        "1000",
    ]
    .map(|a| match a {
        "items.jsonl" | "judges.toml" => d.join(a).display().to_string(),
        other => other.to_string(),
    })
    .to_vec()
}

/// How many of the items' intervals (`rows`, in item order) hold the true score.
fn held(rows: &serde_json::Value) -> usize {
    rows.as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(k, row)| {
            let t = truth(*k);
            row["low"].as_f64().unwrap() <= t && t <= row["high"].as_f64().unwrap()
        })
        .count()
}

/// `verdict judge` on the judges of `labels` with `flags`, through `ledger`: its JSON
/// and what it said on standard error.
fn judge_json(
    d: &Path,
    labels: [usize; 4],
    flags: &[&str],
    ledger: &str,
) -> (serde_json::Value, String) {
    let mut args = setup(d, [0, 0, 1, 1], labels);
    let out = d.join("result.json").display().to_string();
    let ledger = d.join(ledger).display().to_string();
    args.extend(flags.iter().map(|f| f.to_string()));
    args.extend(
        [
            "--ledger", &ledger, "--format", "json", "--out", &out, "--force",
        ]
        .map(String::from),
    );
    let output = verdict(&args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (json, stderr)
}

/// A run with `method`, through the ledger named after it.
fn run(d: &Path, labels: [usize; 4], method: &str) -> (serde_json::Value, String) {
    judge_json(d, labels, &["--method", method], &format!("{method}.jsonl"))
}

#[test]
fn shared_mistakes_are_estimated_reported_and_covered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two families of two: judges of one family repeat each other's bias (±0.1, sd
    // 0.1, correlation 1 within a family, 0 between the two families' patterns).
    let (result, _) = run(d, [0, 0, 1, 1], "uniform");
    let shared = &result["shared_errors"];
    assert_eq!(shared["identified"], true, "{shared}");
    let sd = shared["bias_sd"].as_f64().unwrap();
    assert!((0.08..0.12).contains(&sd), "bias sd {sd}");
    let r = shared["family_correlation"].as_f64().unwrap();
    assert!(r > 0.9, "within-family correlation {r}");
    // Two families whose members agree: the panel is worth about two judges (plus a
    // little from the calls' own noise, 0.03, which the family does not share).
    let worth = shared["panel_effective_judges"].as_f64().unwrap();
    assert!((1.9..2.3).contains(&worth), "panel worth {worth}");
    // The consensus intervals hold what the judges say, which is truth ± 0.1 when both
    // families err the same way; the bias-aware ones hold the truth.
    let (consensus, aware) = (held(&result["items"]), held(&shared["items"]));
    assert!(
        aware >= ITEMS * 9 / 10,
        "bias-aware intervals hold {aware} of {ITEMS}"
    );
    assert!(
        consensus < aware,
        "consensus {consensus}, bias-aware {aware}"
    );
    // The summary says it, the CSV carries the columns, the page has the section.
    let mut args = setup(d, [0, 0, 1, 1], [0, 0, 1, 1]);
    let csv = d.join("scores.csv").display().to_string();
    let page = d.join("run.html").display().to_string();
    let ledger = d.join("uniform.jsonl").display().to_string();
    args.extend(
        [
            "--method", "uniform", "--ledger", &ledger, "--out", &csv, "--report", &page,
        ]
        .map(String::from),
    );
    let output = verdict(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("shared mistakes: a judge's bias at an item has sd"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with(
        "id,score,std_error,low,high,bias_aware_score,bias_aware_std_error,bias_aware_low,bias_aware_high,effective_judges\n"
    ));
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("<h2>Shared mistakes</h2>"));
}

#[test]
fn one_family_leaves_the_bias_unidentified_and_says_what_would_tell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, first) = run(d, [0, 0, 1, 1], "uniform");
    assert!(
        first.contains("(0 replayed from the ledger, 960 made)"),
        "{first}"
    );
    // Labelled one family, the same judges: a family changes no call, so the same
    // ledger replays every call and none is paid again.
    let (result, again) = run(d, [0, 0, 0, 0], "uniform");
    assert!(
        again.contains("(960 replayed from the ledger, 0 made)"),
        "{again}"
    );
    let shared = &result["shared_errors"];
    assert_eq!(shared["identified"], false, "{shared}");
    assert!(
        shared["note"].as_str().unwrap().contains("another family"),
        "{shared}"
    );
    assert!(shared["items"].as_array().unwrap().is_empty());
    assert!(shared["bias_sd"].is_null());
}

#[test]
fn the_shared_error_allocation_runs_as_a_judging_method() {
    // `--method est-ivwe-shared` on the two families: Phase I, the shared errors
    // estimated with the configuration's families, the rest allocated for them. Its
    // scores are bias-aware already: their intervals hold the truth.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (result, stderr) = run(d, [0, 0, 1, 1], "est-ivwe-shared");
    assert_eq!(result["method"], "est-ivwe-shared");
    assert!(result["spent"].as_f64().unwrap() <= 1000.0, "{stderr}");
    let held = held(&result["items"]);
    assert!(held >= ITEMS * 9 / 10, "{held} of {ITEMS}: {stderr}");
    // Every judge got calls: with a family bias, repeating one judge stops paying.
    let ledger = std::fs::read_to_string(d.join("est-ivwe-shared.jsonl")).unwrap();
    let calls: Vec<u64> = (0..4)
        .map(|j| {
            ledger
                .lines()
                .filter(|l| l.contains("\"end\"") || l.contains("\"score\""))
                .filter(|l| l.contains(&format!("\"judge{j}\"")))
                .count() as u64
        })
        .collect();
    assert!(calls.iter().all(|&n| n > ITEMS as u64), "{calls:?}");
}

#[test]
fn a_plan_for_shared_mistakes_says_the_floor_no_budget_goes_below() {
    // The two families of ±0.1 biases: with every judge called without end, each item
    // keeps two independent family biases of variance 0.01, Var = 0.005, so the l2
    // error over 60 items cannot go below sqrt(60 · 0.005) = 0.548.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = |target: &str, ledger: &str| -> serde_json::Value {
        let flags = [
            "--method",
            "est-ivwe-shared",
            "--plan",
            "--target-error",
            target,
        ];
        judge_json(d, [0, 0, 1, 1], &flags, ledger).0
    };
    let reachable = plan("1.0", "plan-a.jsonl");
    let shared = &reachable["shared"];
    let floor = shared["error_floor"].as_f64().unwrap();
    assert!((0.45..0.65).contains(&floor), "{shared}");
    assert!(shared["total"].as_f64().unwrap() >= reachable["pilot_spent"].as_f64().unwrap());
    let out_of_reach = plan("0.3", "plan-b.jsonl");
    assert!(out_of_reach["shared"]["after_pilot"].is_null());
    assert!(out_of_reach["shared"]["note"]
        .as_str()
        .unwrap()
        .contains("do not average away"));
}

#[test]
fn the_shared_error_method_stops_at_a_target_error_it_measures_with_the_bias() {
    // A target above the floor (0.548): reached within the cap, on an estimated error
    // that counts the bias; a target below it spends the cap and says it was not
    // reached.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let with_target = |target: &str, ledger: &str| -> serde_json::Value {
        let flags = ["--method", "est-ivwe-shared", "--target-error", target];
        judge_json(d, [0, 0, 1, 1], &flags, ledger).0
    };
    let reached = with_target("0.8", "reach.jsonl");
    assert_eq!(reached["target_reached"], true, "{reached}");
    assert!(reached["estimated_error"].as_f64().unwrap() <= 0.8);
    assert!(
        reached["spent"].as_f64().unwrap() < 1000.0,
        "spent {} for an estimated error of {}",
        reached["spent"],
        reached["estimated_error"]
    );
    let floor = with_target("0.3", "floor.jsonl");
    assert_eq!(floor["target_reached"], false);
    assert!(floor["estimated_error"].as_f64().unwrap() > 0.3);
}
