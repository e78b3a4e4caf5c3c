//! `verdict fit --method lottery|robust-lottery|pluralistic`: the paper's global
//! baselines (NashEval Appendix I.3, Eq. 78–84) as models that play one lottery at
//! every context, on small hand-made logs whose answers have closed forms.

use crate::common;

use common::{failure, json, linear_fit_args, succeed, write};
use serde_json::Value;

/// Thirty contexts, one pairwise record each, pooling into the cycle x ≻ y (8 of 10),
/// y ≻ z (7 of 10), z ≻ x (6 of 10); contexts alternate between sources alpha and
/// beta.
fn cyclic_log(dir: &std::path::Path) -> (String, String) {
    let mut contexts = String::from("context_id,length,source\n");
    let mut feedback = String::from("context_id,menu,modality,response\n");
    let records = [("x", "y", 8), ("y", "z", 7), ("z", "x", 6)];
    let mut c = 0;
    for (first, second, first_wins) in records {
        for i in 0..10 {
            let source = if c % 2 == 0 { "alpha" } else { "beta" };
            contexts.push_str(&format!("c{c},{},{source}\n", (c * 7) % 11 + 1));
            let winner = if i < first_wins { first } else { second };
            feedback.push_str(&format!("c{c},{first}|{second},pairwise,{winner}\n"));
            c += 1;
        }
    }
    (
        write(dir, "contexts.csv", &contexts),
        write(dir, "feedback.csv", &feedback),
    )
}

/// Fits `method` with `extra` flags on the log; returns the model file's JSON.
fn fit(dir: &std::path::Path, log: &(String, String), method: &str, extra: &[&str]) -> Value {
    let model = dir.join(format!("{method}.json")).display().to_string();
    succeed(&linear_fit_args(&log.0, &log.1, method, &model, extra));
    serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap()
}

/// The probability of each of `agents` at every context `verdict predict` gives.
fn predicted(
    dir: &std::path::Path,
    log: &(String, String),
    method: &str,
    agents: &[&str],
) -> Vec<Vec<f64>> {
    let model = dir.join(format!("{method}.json")).display().to_string();
    let rows: Value = json(&["predict", &model, "--contexts", &log.0]);
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            agents
                .iter()
                .map(|a| row["equilibrium"][a].as_f64().unwrap())
                .collect()
        })
        .collect()
}

/// The maximal lottery of the 3-cycle `M = [[0, a, −b], [−a, 0, c], [b, −c, 0]]` with
/// `a, b, c > 0` is `(c, b, a)/(a + b + c)` (it solves `Mπ = 0`): here `a = 0.6`,
/// `b = 0.2`, `c = 0.4`, so `(1/3, 1/6, 1/2)`, at every context.
#[test]
fn global_lottery_is_the_maximal_lottery_of_the_pooled_margins() {
    let dir = tempfile::tempdir().unwrap();
    let log = cyclic_log(dir.path());
    fit(dir.path(), &log, "lottery", &["--rho", "0"]);
    let expected = [1.0 / 3.0, 1.0 / 6.0, 0.5];
    let policies = predicted(dir.path(), &log, "lottery", &["x", "y", "z"]);
    assert_eq!(policies.len(), 30);
    for pi in policies {
        for (p, e) in pi.iter().zip(expected) {
            assert!((p - e).abs() < 1e-7, "{pi:?}");
        }
    }
}

/// The robust lottery's radius defaults to Eq. 80 (two groups, 30 prompts:
/// `√(2/30) + √(2/30 · ln 40) = 0.7541`), its groups are the sources with their shares,
/// its worst case is what it guarantees; without `--groups-by` it is refused by name.
#[test]
fn robust_lottery_holds_up_across_the_groups_of_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let log = cyclic_log(dir.path());
    let model = fit(
        dir.path(),
        &log,
        "robust-lottery",
        &["--groups-by", "source"],
    );
    let detail = &model["global"]["detail"];
    let radius = (2.0f64 / 30.0).sqrt() + (2.0f64 / 30.0 * 40f64.ln()).sqrt();
    assert!((detail["radius"].as_f64().unwrap() - radius).abs() < 1e-12);
    assert_eq!(detail["groups"], serde_json::json!(["alpha", "beta"]));
    assert_eq!(detail["weights"], serde_json::json!([0.5, 0.5]));
    assert!(detail["worst_case"].as_f64().unwrap() <= 1e-9);
    let policies = predicted(dir.path(), &log, "robust-lottery", &["x", "y", "z"]);
    assert!(policies.iter().all(|pi| pi == &policies[0]));
    // Radius 0 leaves the adversary no room: the maximal lottery of the groups'
    // mixture. Each source holds five records of every pair, with margins (alpha,
    // beta) of (0.6, 0.6) for x over y, (0.6, 0.2) for y over z and (0.2, 0.2) for z
    // over x: the mixture is the pooled cycle, so the closed form above again.
    let zero = fit(
        dir.path(),
        &log,
        "robust-lottery",
        &["--groups-by", "source", "--robust-radius", "0"],
    );
    assert_eq!(zero["global"]["detail"]["radius"], 0.0);
    let pi = predicted(dir.path(), &log, "robust-lottery", &["x", "y", "z"]);
    for (p, e) in pi[0].iter().zip([1.0 / 3.0, 1.0 / 6.0, 0.5]) {
        assert!((p - e).abs() < 1e-6, "{:?}", pi[0]);
    }

    let (contexts, feedback) = &log;
    let out = dir.path().join("refused.json").display().to_string();
    let refused = |extra: &[&str]| {
        failure(&linear_fit_args(
            contexts,
            feedback,
            "robust-lottery",
            &out,
            extra,
        ))
    };
    let message = refused(&[]);
    assert!(
        message.contains("groups_by") || message.contains("groups-by"),
        "{message}"
    );
    assert!(
        !std::path::Path::new(&out).exists(),
        "no model written on refusal"
    );
    let message = refused(&["--groups-by", "length"]);
    assert!(
        message.contains("one-hot categorical column \"length\""),
        "{message}"
    );
}

/// Six prompts rank A > B > C > D and four rank C > B > A > D (every pair compared at
/// every prompt). The pluralistic leaderboard ranks A, C, B, D (derived by hand in
/// the library's test of the same profile) and plays A, B and C a third each.
#[test]
fn pluralistic_leaderboard_plays_its_top_three() {
    let dir = tempfile::tempdir().unwrap();
    let mut contexts = String::from("context_id,length\n");
    let mut feedback = String::from("context_id,menu,modality,response\n");
    let camps = [(["A", "B", "C", "D"], 6), (["C", "B", "A", "D"], 4)];
    let mut c = 0;
    for (order, prompts) in camps {
        for _ in 0..prompts {
            contexts.push_str(&format!("p{c},{}\n", c % 5));
            for i in 0..4 {
                for j in i + 1..4 {
                    feedback.push_str(&format!(
                        "p{c},{}|{},pairwise,{}\n",
                        order[i], order[j], order[i]
                    ));
                }
            }
            c += 1;
        }
    }
    let log = (
        write(dir.path(), "contexts.csv", &contexts),
        write(dir.path(), "feedback.csv", &feedback),
    );
    let page = dir.path().join("pluralistic.html");
    let model = fit(
        dir.path(),
        &log,
        "pluralistic",
        &["--report", page.to_str().unwrap()],
    );
    let agents: Vec<String> = model["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let ranking: Vec<&str> = model["global"]["detail"]["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| agents[j.as_u64().unwrap() as usize].as_str())
        .collect();
    assert_eq!(ranking, ["A", "C", "B", "D"]);
    // The page shows the ranking, each prefix's stability (`{A}`: the four prompts
    // of the second camp prefer C) and the lottery.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("ranking               A &gt; C &gt; B &gt; D"),
        "{html}"
    );
    assert!(html.contains("top 1: 0.400, top 2: 0.000"));
    assert!(html.contains("One lottery for every context"));
    for pi in predicted(dir.path(), &log, "pluralistic", &["A", "B", "C", "D"]) {
        assert_eq!(pi, [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0]);
    }
}

/// The global lottery of a log whose pairs did not all meet: w met only z. Without a
/// choice it refuses and names every option; as ties, w (unbeaten because it never met
/// x or y) enters the winner set; filled by Bradley–Terry (x ≻ y ≻ z, w a little above
/// z), x beats every other model, observed or predicted, so the lottery is x alone.
#[test]
fn the_global_lottery_fills_pairs_never_compared_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut contexts = String::from("context_id,length,source\n");
    let mut feedback = String::from("context_id,menu,modality,response\n");
    let records = [("x", "y", 8), ("y", "z", 8), ("x", "z", 8), ("w", "z", 6)];
    let mut c = 0;
    for (first, second, first_wins) in records {
        for i in 0..10 {
            contexts.push_str(&format!("c{c},{},alpha\n", (c * 7) % 11 + 1));
            let winner = if i < first_wins { first } else { second };
            feedback.push_str(&format!("c{c},{first}|{second},pairwise,{winner}\n"));
            c += 1;
        }
    }
    let log = (
        write(dir.path(), "contexts.csv", &contexts),
        write(dir.path(), "feedback.csv", &feedback),
    );
    let model = dir.path().join("refused.json").display().to_string();
    let stderr = failure(&linear_fit_args(
        &log.0,
        &log.1,
        "lottery",
        &model,
        &["--allow-unobserved"],
    ));
    for wanted in [
        "never compared",
        "--unobserved",
        "bradley-terry",
        "low-rank",
        "core",
    ] {
        assert!(stderr.contains(wanted), "{wanted}: {stderr}");
    }
    assert!(
        !std::path::Path::new(&model).exists(),
        "no half-written model"
    );
    let probability = |option: &str| -> Vec<f64> {
        let fitted = fit(
            dir.path(),
            &log,
            "lottery",
            &["--allow-unobserved", "--unobserved", option],
        );
        let agents: Vec<String> = serde_json::from_value(fitted["agents"].clone()).unwrap();
        let p = &fitted["global"]["probabilities"];
        ["x", "y", "z", "w"]
            .iter()
            .map(|a| {
                p[agents.iter().position(|n| n == a).unwrap()]
                    .as_f64()
                    .unwrap()
            })
            .collect()
    };
    let ties = probability("ties");
    assert!(ties[3] > 1e-6, "w looks unbeaten as ties: {ties:?}");
    let predicted = probability("bradley-terry");
    assert!((predicted[0] - 1.0).abs() < 1e-9, "{predicted:?}");
}
