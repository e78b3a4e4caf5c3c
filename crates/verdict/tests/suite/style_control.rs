//! Bradley–Terry with covariates (LMArena's style control) against arena-rank 0.1.1's
//! `ContextualBradleyTerry` on a generated log with known style effects
//! (tests/golden/make_style_control_golden.py writes the log, the truth and the
//! package's answers), and the promises of the leaderboard built on it.

use std::collections::HashMap;
use std::path::PathBuf;

use verdict::io::{ReadOptions, Source};
use verdict::rank::{Intervals, Method, RankSettings};
use verdict::ratings::{Bootstrap, CovariateBattles, CovariateBradleyTerry, PairCounts};
use verdict::report::RankReport;
use verdict::style::{rank_with_covariates, read_covariate_log, CovariateLog, CovariateRequest};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(name)
}

fn style_log() -> CovariateLog {
    let request = CovariateRequest {
        columns: Vec::new(),
        style_control: true,
    };
    let source = Source::File(golden("style_control_log.csv"));
    read_covariate_log(&source, &ReadOptions::default(), &request).unwrap()
}

/// `(setting, parameter) -> (estimate, standard error)` from the golden CSV.
fn arena_rank() -> HashMap<(String, String), (f64, f64)> {
    let text = std::fs::read_to_string(golden("style_control_golden.csv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                (f[0].to_owned(), f[1].to_owned()),
                (f[2].parse().unwrap(), f[3].parse().unwrap()),
            )
        })
        .collect()
}

fn truth() -> HashMap<String, f64> {
    let text = std::fs::read_to_string(golden("style_control_truth.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let (name, value) = line.split_once(',').unwrap();
            (name.to_owned(), value.parse().unwrap())
        })
        .collect()
}

fn battles(log: &CovariateLog) -> CovariateBattles {
    CovariateBattles::new(&log.loaded.log, log.names.clone(), &log.columns).unwrap()
}

#[test]
fn style_control_reaches_arena_ranks_optimum_and_sandwich() {
    let log = style_log();
    assert_eq!(log.names, ["length", "headers", "lists", "bold"]);
    let battles = battles(&log);
    let golden = arena_rank();
    let models = log.loaded.log.models().names().to_vec();
    let weighted = CovariateBradleyTerry {
        pair_weights: Some(50.0),
        ..CovariateBradleyTerry::default()
    };
    let settings = [
        ("mle", CovariateBradleyTerry::default()),
        ("weighted_mle", weighted.clone()),
        (
            "arena_rank_defaults",
            CovariateBradleyTerry {
                reg: 1.0,
                ..weighted
            },
        ),
    ];
    for (setting, model) in settings {
        let fit = model.fit(&battles).unwrap();
        let variances = model.sandwich(&battles, &fit).unwrap();
        let expect = |name: &str| golden[&(setting.to_owned(), name.to_owned())];
        // With a penalty arena-rank's sandwich leaves it out of the bread (its
        // Hessian is the log-loss's alone) while verdict's is the Hessian of the
        // objective it minimised, so standard errors are compared without one.
        let compare_errors = model.reg == 0.0;
        let parameters = models.iter().map(|name| (name, None)).chain(
            log.names
                .iter()
                .enumerate()
                .map(|(j, name)| (name, Some(j))),
        );
        for (name, coefficient) in parameters {
            let (estimate, error) = expect(name);
            let (value, variance) = match coefficient {
                None => {
                    let m = models.iter().position(|n| n == name).unwrap();
                    (fit.beta[m], variances.ratings[m])
                }
                Some(j) => (fit.theta[j], variances.coefficients[j]),
            };
            assert!(
                (value - estimate).abs() < 1e-6,
                "{setting} {name}: {value} vs {estimate}"
            );
            let relative = (variance.sqrt() / error - 1.0).abs();
            assert!(
                !compare_errors || relative < 0.01,
                "{setting} {name}: sandwich se {} vs {error}",
                variance.sqrt()
            );
        }
    }
}

#[test]
fn style_control_recovers_the_generating_effects_that_plain_bradley_terry_absorbs() {
    let log = style_log();
    let battles = battles(&log);
    let model = CovariateBradleyTerry::default();
    let fit = model.fit(&battles).unwrap();
    let variances = model.sandwich(&battles, &fit).unwrap();
    let truth = truth();
    // Coefficients are per standard deviation of the normalized difference; the
    // generator's are per unit of it.
    for (j, name) in log.names.iter().enumerate() {
        let sd = fit.standardization[j].1;
        let (estimate, error) = (fit.theta[j] / sd, variances.coefficients[j].sqrt() / sd);
        let gap = (estimate - truth[name]).abs();
        assert!(
            gap < 3.0 * error,
            "{name}: {estimate} ± {error} against {}",
            truth[name]
        );
    }
    let models = log.loaded.log.models().names();
    let rms = |beta: &[f64]| {
        let sum: f64 = models
            .iter()
            .zip(beta)
            .map(|(name, b)| (b - truth[name]).powi(2))
            .sum();
        (sum / models.len() as f64).sqrt()
    };
    let plain = verdict::ratings::BradleyTerry::default()
        .fit(&PairCounts::from_log(&log.loaded.log))
        .unwrap();
    let (controlled, uncontrolled) = (rms(&fit.beta), rms(&plain.beta));
    assert!(
        controlled < 0.5 * uncontrolled,
        "strength error with style control {controlled}, without {uncontrolled}"
    );
}

fn board(settings: &RankSettings) -> RankReport {
    let log = style_log();
    rank_with_covariates(
        &log.loaded.log,
        &log.names,
        &log.columns,
        &CovariateBradleyTerry::default(),
        "style_control_log.csv",
        settings,
        &|| {},
    )
    .unwrap()
}

#[test]
fn the_board_carries_intervals_coefficients_and_rank_changes() {
    let settings = RankSettings {
        intervals: Intervals::Bootstrap(Bootstrap {
            rounds: 200,
            seed: 3,
        }),
        ..RankSettings::default()
    };
    let report = board(&settings);
    let output = report.outputs()[0];
    assert_eq!(output.leaderboard.method.name(), "bradley-terry-covariates");
    for s in &output.leaderboard.models {
        let (low, high) = (s.ci_low.unwrap(), s.ci_high.unwrap());
        assert!(
            low <= s.score && s.score <= high,
            "{}: {} not in [{low}, {high}]",
            s.name,
            s.score
        );
        assert!(s.rank_change.is_some());
    }
    let changes: i64 = output
        .leaderboard
        .models
        .iter()
        .map(|s| s.rank_change.unwrap())
        .sum();
    assert_eq!(
        changes, 0,
        "ranks are a permutation on both boards (no ties here)"
    );
    let coefficients = output.coefficients.as_ref().unwrap();
    assert_eq!(coefficients.len(), 4);
    for c in coefficients {
        let (low, high) = (c.ci_low.unwrap(), c.ci_high.unwrap());
        assert!(
            low < c.estimate && c.estimate < high,
            "{}: {} not in [{low}, {high}]",
            c.name,
            c.estimate
        );
    }
    // Same seed, same numbers; the sandwich gives intervals of the same size.
    assert_eq!(board(&settings), report);
    let sandwich = board(&RankSettings {
        intervals: Intervals::Sandwich,
        ..RankSettings::default()
    });
    let width = |r: &RankReport| {
        let c = &r.outputs()[0].coefficients.as_ref().unwrap()[0];
        c.ci_high.unwrap() - c.ci_low.unwrap()
    };
    let ratio = width(&sandwich) / width(&report);
    assert!(
        (0.8..1.25).contains(&ratio),
        "sandwich / bootstrap width {ratio}"
    );
}

#[test]
fn covariates_are_refused_where_they_do_not_apply() {
    let log = style_log();
    let elo = RankSettings {
        method: Method::Elo,
        ..RankSettings::default()
    };
    let error = rank_with_covariates(
        &log.loaded.log,
        &log.names,
        &log.columns,
        &CovariateBradleyTerry::default(),
        "log",
        &elo,
        &|| {},
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("Bradley–Terry method only"),
        "{error}"
    );

    let csv = "model_a,model_b,winner,len\na,b,model_a,3\nb,a,model_a,many\n";
    let source = Source::Bytes {
        label: "log.csv".into(),
        data: csv.as_bytes().to_vec(),
    };
    let request = CovariateRequest {
        columns: vec!["len".into()],
        style_control: false,
    };
    let error = read_covariate_log(&source, &ReadOptions::default(), &request).unwrap_err();
    assert!(error.to_string().contains("\"many\""), "{error}");
    let style = CovariateRequest {
        columns: Vec::new(),
        style_control: true,
    };
    let error = read_covariate_log(&source, &ReadOptions::default(), &style).unwrap_err();
    assert!(
        error.to_string().contains("sum_assistant_a_tokens"),
        "{error}"
    );
}

#[test]
fn style_counts_nested_in_conv_metadata_read_as_the_flat_columns() {
    // LMArena's dumps keep the per-side counts inside `conv_metadata`, the markdown
    // counts as objects per kind; the same battles written that way give the same
    // covariates.
    let flat = style_log();
    let text = std::fs::read_to_string(golden("style_control_log.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut jsonl = String::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let value = |name: &str| cells[header.iter().position(|h| *h == name).unwrap()];
        let count = |name: &str| value(name).parse::<u64>().unwrap();
        let split = |name: &str| {
            let n = count(name);
            format!("{{\"h1\": {}, \"h2\": {}}}", n / 2, n - n / 2)
        };
        jsonl.push_str(&format!(
            "{{\"model_a\": \"{}\", \"model_b\": \"{}\", \"winner\": \"{}\", \"conv_metadata\": {{\"sum_assistant_a_tokens\": {}, \"sum_assistant_b_tokens\": {}, \"header_count_a\": {}, \"header_count_b\": {}, \"list_count_a\": {}, \"list_count_b\": {}, \"bold_count_a\": {}, \"bold_count_b\": {}}}}}\n",
            value("model_a"),
            value("model_b"),
            value("winner"),
            count("sum_assistant_a_tokens"),
            count("sum_assistant_b_tokens"),
            split("header_count_a"),
            split("header_count_b"),
            count("list_count_a"),
            count("list_count_b"),
            split("bold_count_a"),
            split("bold_count_b"),
        ));
    }
    let source = Source::Bytes {
        label: "dump.jsonl".into(),
        data: jsonl.into_bytes(),
    };
    let request = CovariateRequest {
        columns: Vec::new(),
        style_control: true,
    };
    let nested = read_covariate_log(&source, &ReadOptions::default(), &request).unwrap();
    assert_eq!(nested.names, flat.names);
    assert_eq!(nested.columns, flat.columns);
    let battles = |log: &CovariateLog| log.loaded.log.iter().collect::<Vec<_>>();
    assert_eq!(battles(&nested), battles(&flat));
}

#[test]
fn a_covariate_can_be_a_field_of_a_nested_column() {
    // `--covariates meta.turns` reads field `turns` of the `meta` objects.
    let jsonl = "{\"model_a\": \"a\", \"model_b\": \"b\", \"winner\": \"model_a\", \"meta\": {\"turns\": 2}}\n\
                 {\"model_a\": \"b\", \"model_b\": \"a\", \"winner\": \"model_a\", \"meta\": {\"turns\": 1}}\n\
                 {\"model_a\": \"a\", \"model_b\": \"b\", \"winner\": \"tie\", \"meta\": {\"turns\": 3}}\n";
    let source = Source::Bytes {
        label: "nested.jsonl".into(),
        data: jsonl.as_bytes().to_vec(),
    };
    let request = CovariateRequest {
        columns: vec!["meta.turns".into()],
        style_control: false,
    };
    let log = read_covariate_log(&source, &ReadOptions::default(), &request).unwrap();
    assert_eq!(log.names, ["meta.turns"]);
    assert_eq!(log.columns, [vec![2.0, 1.0, 3.0]]);
}
