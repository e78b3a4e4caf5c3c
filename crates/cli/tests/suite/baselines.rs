//! `verdict fit --method`: the paper's per-context baselines (NashEval Appendix I.3)
//! as models `predict` and `evaluate` accept, fitted with the linear backbone on a
//! small Appendix G simulation; each policy checked against its closed form at the
//! predicted surface.

use crate::common;

use common::{failure, json, linear_fit_args, succeed, write};
use serde_json::Value;

struct Fixture {
    _dir: tempfile::TempDir,
    sim: String,
    root: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim").display().to_string();
    succeed(&[
        "simulate",
        "--voters",
        "3",
        "--contexts",
        "1200",
        "--test-contexts",
        "120",
        "--seed",
        "73",
        "--rho",
        "0.001",
        "--out",
        &sim,
    ]);
    let root = dir.path().to_path_buf();
    Fixture {
        _dir: dir,
        sim,
        root,
    }
}

/// Fits `method` with `extra` flags; returns the model's path.
fn fit(f: &Fixture, method: &str, extra: &[&str]) -> String {
    let model = f.root.join(format!("{method}.json")).display().to_string();
    let contexts = format!("{}/contexts.parquet", f.sim);
    let feedback = format!("{}/feedback.parquet", f.sim);
    succeed(&linear_fit_args(
        &contexts, &feedback, method, &model, extra,
    ));
    model
}

/// Each test context's policy and predicted surface `Â(x)`.
fn predict(f: &Fixture, model: &str) -> Vec<(Vec<f64>, Vec<Vec<f64>>)> {
    let test = format!("{}/test_contexts.parquet", f.sim);
    let rows: Value = json(&["predict", model, "--contexts", &test, "--payoff"]);
    let agents = ["agent_1", "agent_2", "agent_3", "agent_4", "agent_5"];
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let pi = agents
                .iter()
                .map(|a| row["equilibrium"][a].as_f64().unwrap())
                .collect();
            let payoff = serde_json::from_value(row["payoff"].clone()).unwrap();
            (pi, payoff)
        })
        .collect()
}

fn first_argmax(values: &[f64]) -> usize {
    (0..values.len()).fold(0, |b, j| if values[j] > values[b] { j } else { b })
}

#[test]
fn baselines_are_models_whose_policies_follow_their_closed_forms() {
    let f = fixture();
    // Borda: all mass on the largest row sum of the predicted debiased surface.
    let borda = predict(&f, &fit(&f, "borda", &[]));
    for (pi, a) in &borda {
        let sums: Vec<f64> = a.iter().map(|row| row.iter().sum()).collect();
        let mut expected = vec![0.0; 5];
        expected[first_argmax(&sums)] = 1.0;
        assert_eq!(pi, &expected);
    }
    // BT-debiased plays as Borda on complete pairs (NashEval Appendix I.3).
    let bt = predict(&f, &fit(&f, "bt-debiased", &[]));
    assert_eq!(
        bt.iter().map(|(pi, _)| pi.clone()).collect::<Vec<_>>(),
        borda.iter().map(|(pi, _)| pi.clone()).collect::<Vec<_>>()
    );
    // BT-Reg is an interior lottery (rho > 0 on a tanh game), BT-plug-in a point mass.
    for (pi, _) in predict(&f, &fit(&f, "bt-reg", &[])) {
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    let plugin = fit(&f, "bt-plugin", &[]);
    for (pi, _) in predict(&f, &plugin) {
        assert_eq!(pi.iter().filter(|&&p| p == 1.0).count(), 1);
    }
    // evaluate accepts a baseline model like any other.
    let score: Value = json(&["evaluate", &plugin, "--truth", &f.sim, "--format", "json"]);
    assert_eq!(score["contexts"], 120);
}

#[test]
fn bt_cost_spends_within_the_budget_and_needs_costs() {
    let f = fixture();
    let contexts = format!("{}/contexts.parquet", f.sim);
    let feedback = format!("{}/feedback.parquet", f.sim);
    let out = f.root.join("x.json").display().to_string();
    let message = failure(&[
        "fit",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--backbone",
        "linear",
        "--method",
        "bt-cost",
        "--out",
        &out,
    ]);
    assert!(
        message.contains("costs") && message.contains("budget"),
        "{message}"
    );
    let message = failure(&[
        "fit",
        "--contexts",
        &contexts,
        "--feedback",
        &feedback,
        "--method",
        "bt-plugin",
        "--variant",
        "debiased",
        "--out",
        &out,
    ]);
    assert!(
        message.contains("bt-plugin baseline sets the surface"),
        "{message}"
    );
    assert!(!std::path::Path::new(&out).exists());

    let costs_csv = "model,cost\nagent_1,5\nagent_2,1\nagent_3,3\nagent_4,2\nagent_5,8\n";
    let costs = write(&f.root, "costs.csv", costs_csv);
    let cost = [5.0, 1.0, 3.0, 2.0, 8.0];
    let model = fit(&f, "bt-cost", &["--costs", &costs, "--budget", "2.5"]);
    for (pi, _) in predict(&f, &model) {
        let spent: f64 = pi.iter().zip(cost).map(|(p, c)| p * c).sum();
        assert!(spent <= 2.5 + 1e-9, "{pi:?} spends {spent}");
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

/// `verdict bench nasheval --variants` fits only the surfaces named, with the
/// baselines that read them, and a later run with more variants adds only the cells
/// still missing (the global baselines are not scored twice).
#[test]
fn bench_cells_follow_the_variants_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cells.jsonl").display().to_string();
    let run = |variants: &str| {
        succeed(&[
            "--quiet",
            "bench",
            "nasheval",
            "--seeds",
            "3",
            "--voters",
            "3",
            "--contexts",
            "600",
            "--test-contexts",
            "60",
            "--outcome-backbone",
            "linear",
            "--propensity-backbone",
            "linear",
            "--payoff-backbone",
            "linear",
            "--policies",
            "solver",
            "--baselines",
            "--variants",
            variants,
            "--out",
            &out,
        ]);
        let text = std::fs::read_to_string(&out).unwrap();
        let mut cells: Vec<(String, Option<String>)> = text
            .lines()
            .map(|l| {
                let cell: Value = serde_json::from_str(l).unwrap();
                (
                    cell["method"].as_str().unwrap().to_string(),
                    cell["variant"].as_str().map(str::to_string),
                )
            })
            .collect();
        cells.sort();
        cells
    };
    let named =
        |method: &str, variant: Option<&str>| (method.to_string(), variant.map(str::to_string));
    assert_eq!(
        run("auto"),
        [
            named("lottery", None),
            named("nasheval", Some("auto")),
            named("pluralistic", None)
        ]
    );
    assert_eq!(
        run("auto,plugin"),
        [
            named("bt-plugin", Some("plugin")),
            named("bt-reg", Some("plugin")),
            named("lottery", None),
            named("nasheval", Some("auto")),
            named("nasheval", Some("plugin")),
            named("pluralistic", None)
        ]
    );
}
