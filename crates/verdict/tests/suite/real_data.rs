//! Real data: published leaderboards and another library's goldens, reproduced from
//! the battle logs. Logs small enough and licensed for it are bundled in
//! `examples/data` (see its README for origin and license); the rest is read from the
//! shared data folder beside the repository, and each such test says so when the
//! folder is absent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use verdict::io::{read_battles, read_table, Filter, LoadedBattles, ReadOptions, Source};
use verdict::ratings::{BradleyTerry, Elo, EloScale, PairCounts, Regularization};

use crate::shared_data::shared_data;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data")
}

fn load(path: &Path, filters: &[&str], skip_self_battles: bool) -> LoadedBattles {
    let options = ReadOptions {
        filters: filters
            .iter()
            .map(|f| f.parse::<Filter>().unwrap())
            .collect(),
        skip_self_battles,
        ..ReadOptions::default()
    };
    read_battles(&Source::File(path.to_path_buf()), &options).unwrap()
}

/// `key -> (anony, full)` from a GenAI-Arena leaderboard CSV.
fn published(file: &str) -> HashMap<String, (f64, f64)> {
    let table = read_table(&Source::File(examples().join(file)), None, None).unwrap();
    let column = |name: &str| table.column(name).unwrap();
    (0..table.rows())
        .map(|r| {
            let number = |name: &str| column(name).value(r).unwrap().parse::<f64>().unwrap();
            (
                column("key").value(r).unwrap().to_owned(),
                (
                    number("Arena Elo rating (anony)"),
                    number("Arena Elo rating (full)"),
                ),
            )
        })
        .collect()
}

/// GenAI-Arena's published leaderboards (Feb 2024), both tasks, anonymous and full:
/// their recipe is Bradley–Terry with ties as half wins and sklearn's L2 penalty,
/// `--l2 0.5` here. Tolerance 0.15 rating points: the published numbers come from
/// sklearn's L-BFGS stopped at its default tolerance (an independent Newton solve of
/// the same objective differs from them by up to 0.11, per the data's README).
#[test]
fn reproduces_genai_arena_leaderboards() {
    let log_path = examples().join("genai-arena-battles-20240220.json");
    let settings = BradleyTerry {
        l2: Some(0.5),
        ..BradleyTerry::default()
    };
    let mut checked = 0;
    for (task_filter, suffix, board) in [
        (
            "model_a~_generation",
            "_generation",
            "t2i_generation_leaderboard.csv",
        ),
        (
            "model_a~_edition",
            "_edition",
            "image_editing_leaderboard.csv",
        ),
    ] {
        let expected = published(board);
        for anonymous in [true, false] {
            let mut filters = vec![task_filter];
            if anonymous {
                filters.push("anony=true");
            }
            // The full log has one row where a model battles itself; sklearn's design
            // row for it is all zeros, so dropping it is the same fit.
            let loaded = load(&log_path, &filters, true);
            let fit = settings.fit(&PairCounts::from_log(&loaded.log)).unwrap();
            assert_eq!(fit.regularization, Regularization::L2 { l2: 0.5 });
            let scores = EloScale::default().scores(&fit.beta);
            for (name, score) in loaded.log.models().names().iter().zip(&scores) {
                let key = name
                    .trim_start_matches("imagenhub_")
                    .trim_end_matches(suffix);
                let (anony, full) = expected[key];
                let want = if anonymous { anony } else { full };
                assert!(
                    (score - want).abs() < 0.15,
                    "{board} {key} anony={anonymous}: {score} vs published {want}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 6 + 2 * 7);
}

/// `item -> score` of one algorithm in an evalica golden file.
fn golden(path: &Path, algorithm: &str) -> HashMap<String, f64> {
    let table = read_table(&Source::File(path.to_path_buf()), None, None).unwrap();
    let column = |name: &str| table.column(name).unwrap();
    (0..table.rows())
        .filter(|&r| column("algorithm").value(r) == Some(algorithm))
        .map(|r| {
            (
                column("item").value(r).unwrap().to_owned(),
                column("score").value(r).unwrap().parse().unwrap(),
            )
        })
        .collect()
}

/// evalica's goldens for `log` (columns left, right, winner in left/right/tie):
/// Bradley–Terry strengths normalised to sum one within evalica's test tolerance
/// rtol = 1e-4, and Elo (K = 4, file order) to 1e-9 points.
fn check_evalica(log_path: &Path, golden_path: &Path) {
    let loaded = load(log_path, &[], false);
    let names = loaded.log.models().names();
    let fit = BradleyTerry::default()
        .fit(&PairCounts::from_log(&loaded.log))
        .unwrap();
    let strengths = fit.strengths();
    let bt = golden(golden_path, "bradley_terry");
    assert_eq!(bt.len(), names.len());
    for (name, p) in names.iter().zip(&strengths) {
        let want = bt[name];
        assert!(
            ((p - want) / want).abs() < 1e-4,
            "BT {name}: {p} vs evalica {want}"
        );
    }
    let elo = Elo {
        k: 4.0,
        ..Elo::default()
    };
    let ratings = elo.run(&loaded.log).unwrap();
    let golden_elo = golden(golden_path, "elo");
    for (name, rating) in names.iter().zip(&ratings) {
        let want = golden_elo[name];
        assert!(
            (rating - want).abs() < 1e-9,
            "Elo {name}: {rating} vs evalica {want}"
        );
    }
}

/// LLMFAO (bundled): 8,931 crowd comparisons of 59 models.
#[test]
fn matches_evalica_goldens_on_llmfao() {
    check_evalica(
        &examples().join("llmfao.csv"),
        &examples().join("llmfao-golden.csv"),
    );
}

/// evalica's two small test sets, read from the shared data folder.
#[test]
fn matches_evalica_goldens_on_simple_and_food() {
    let Some(folder) = shared_data("evalica-llmfao") else {
        return;
    };
    for name in ["simple", "food"] {
        check_evalica(
            &folder.join(format!("{name}.csv")),
            &folder.join(format!("{name}-golden.csv")),
        );
    }
}

/// `(name, rating, lower, upper)` of an arena-rank golden file in tests/golden.
fn arena_rank_golden(file: &str) -> Vec<(String, f64, f64, f64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.rsplitn(4, ',').collect();
            let number = |k: usize| fields[k].parse::<f64>().unwrap();
            (fields[3].to_owned(), number(2), number(1), number(0))
        })
        .collect()
}

/// Checks a sandwich board against an arena-rank golden: scores within `score_tol`
/// points, interval widths within `width_tol` relative; every golden model checked.
fn assert_matches_arena_rank(
    report: &verdict::report::RankReport,
    golden: &str,
    score_tol: f64,
    width_tol: f64,
) {
    let board = &report.outputs()[0].leaderboard;
    let golden = arena_rank_golden(golden);
    for (name, rating, lower, upper) in &golden {
        let ours = board.models.iter().find(|s| &s.name == name).unwrap();
        assert!(
            (ours.score - rating).abs() < score_tol,
            "{name}: {} vs {rating}",
            ours.score
        );
        let width = ours.ci_high.unwrap() - ours.ci_low.unwrap();
        assert!(
            (width / (upper - lower) - 1.0).abs() < width_tol,
            "{name}: width {width} vs {}",
            upper - lower
        );
    }
    assert_eq!(golden.len(), board.models.len());
}

/// LMArena's own sandwich intervals (arena-rank 0.1.1, recorded by
/// tests/golden/make_arena_rank_golden.py) on LLMFAO. Scores agree to 0.05 points
/// (arena-rank stops L-BFGS at gtol 1e-9); interval widths to 1% because arena-rank
/// adds 1e-5·N to the Hessian diagonal (0.09 here, against diagonal entries of about
/// 30), which narrows its intervals by a fraction of a percent.
#[test]
fn sandwich_intervals_match_arena_rank() {
    use verdict::rank::{rank, Intervals, RankSettings};
    let loaded = load(&examples().join("llmfao.csv"), &[], false);
    let settings = RankSettings {
        intervals: Intervals::Sandwich,
        ..RankSettings::default()
    };
    let report = rank(&loaded.log, "llmfao.csv", &settings, &|| {}).unwrap();
    assert_matches_arena_rank(&report, "arena_rank_llmfao_sandwich.csv", 0.05, 0.01);
}

/// Weighted Bradley–Terry and its sandwich against arena-rank 0.1.1's, recorded by
/// tests/golden/make_weighted_bt_golden.py: LLMFAO with each battle weighing
/// `1 / max(n_pair, 5)` (arena-rank's inverse-propensity reweighting). Scores agree to
/// 1e-5 points (arena-rank was run to gtol 1e-13); widths to 1e-4 relative, arena-rank
/// adding 1e-5 to the weighted Hessian's diagonal (entries of about 0.5 here).
#[test]
fn weighted_sandwich_matches_arena_rank() {
    use verdict::rank::{rank_with_groups, BattleWeights, Intervals, RankSettings};
    let loaded = load(&examples().join("llmfao.csv"), &[], false);
    let log = &loaded.log;
    let mut per_pair: HashMap<(usize, usize), f64> = HashMap::new();
    let pair = |a: usize, b: usize| (a.min(b), a.max(b));
    for (a, b, _) in log.iter() {
        *per_pair.entry(pair(a.index(), b.index())).or_insert(0.0) += 1.0;
    }
    let weights = BattleWeights {
        column: "1/max(n_pair, 5)".into(),
        of_battle: log
            .iter()
            .map(|(a, b, _)| 1.0 / per_pair[&pair(a.index(), b.index())].max(5.0))
            .collect(),
    };
    let settings = RankSettings {
        intervals: Intervals::Sandwich,
        ..RankSettings::default()
    };
    let report =
        rank_with_groups(log, None, Some(&weights), "llmfao.csv", &settings, &|| {}).unwrap();
    assert_matches_arena_rank(&report, "weighted_bt_llmfao_golden.csv", 1e-5, 1e-4);
}

/// Elo with bootstrap intervals reports the replicates' median (FastChat's convention),
/// which always lies inside its percentile interval. On the MTEB arena's retrieval log
/// the replay in log order does not: some models' log-order ratings fall outside their
/// own interval (e.g. mxbai-embed-large-v1 at about 960 against [964, 1082]), which is
/// why the median is shown.
#[test]
fn elo_with_bootstrap_reports_the_median_inside_its_interval() {
    use verdict::rank::{rank, Method, RankSettings};
    use verdict::ratings::{bootstrap, Bootstrap, EloScale, PointEstimate};
    let Some(folder) = shared_data("mteb-arena") else {
        return;
    };
    let loaded = load(&folder.join("clean_battle_retrieval.json"), &[], false);
    let settings = RankSettings {
        method: Method::Elo,
        ..RankSettings::default()
    };
    let report = rank(&loaded.log, "retrieval", &settings, &|| {}).unwrap();
    let board = &report.outputs()[0].leaderboard;
    assert_eq!(board.point, PointEstimate::BootstrapMedian);
    let names = loaded.log.models().names();
    let replay = settings.elo.run(&loaded.log).unwrap();
    let (log, scale) = (&loaded.log, EloScale::default());
    let draws = bootstrap(
        &settings.elo,
        log,
        &replay,
        &scale,
        &Bootstrap::default(),
        &|| {},
    )
    .unwrap();
    let mut outside = 0;
    for (m, name) in names.iter().enumerate() {
        let standing = board.models.iter().find(|s| &s.name == name).unwrap();
        // The median of 1000 values: the mean of the 500th and 501st smallest.
        let mut column: Vec<f64> = draws.scores.iter().map(|round| round[m]).collect();
        column.sort_by(f64::total_cmp);
        let median = (column[499] + column[500]) / 2.0;
        assert!((standing.score - median).abs() < 1e-9, "{name}");
        let (low, high) = (standing.ci_low.unwrap(), standing.ci_high.unwrap());
        assert!(low <= standing.score && standing.score <= high, "{name}");
        if replay[m] < low || replay[m] > high {
            outside += 1;
        }
    }
    assert!(
        outside > 0,
        "the log-order replay was expected outside some interval"
    );
}
