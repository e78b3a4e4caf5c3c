//! Leaderboards from pair counts: a counts table (wide or long), or a log read as a
//! Hive-partitioned Parquet dataset, gives the same numbers as the raw log — point
//! estimates and bootstrap intervals alike — and what counts cannot give is refused.

use std::collections::BTreeMap;
use std::path::Path;

use verdict::feedback::BattleLog;
use verdict::io::{
    dataset_files, read_battles, read_pair_counts, write_battles, DatasetFile, Filter, ReadOptions,
    Source,
};
use verdict::rank::{rank, rank_counts, Method, RankSettings};
use verdict::ratings::Bootstrap;

/// The GenAI-Arena image-generation log bundled in the examples.
fn bundled_log() -> BattleLog {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/genai-arena-battles-20240220.json");
    read_battles(&Source::File(path), &skip_self_battles())
        .unwrap()
        .log
}

/// The log has a few battles of a model against itself, which no method counts.
fn skip_self_battles() -> ReadOptions {
    ReadOptions {
        skip_self_battles: true,
        ..ReadOptions::default()
    }
}

/// Counts per ordered pair `(model_a, model_b)` as a SQL `GROUP BY` gives them:
/// `[wins_a, wins_b, ties]`, neither orientation folded into the other.
fn grouped_counts(log: &BattleLog) -> BTreeMap<(String, String), [u64; 3]> {
    let mut table = BTreeMap::new();
    for (a, b, outcome) in log.iter() {
        let key = (
            log.models().name(a).to_owned(),
            log.models().name(b).to_owned(),
        );
        let cells: &mut [u64; 3] = table.entry(key).or_default();
        cells[match outcome {
            verdict::feedback::Outcome::WinA => 0,
            verdict::feedback::Outcome::WinB => 1,
            _ => 2,
        }] += 1;
    }
    table
}

fn settings(method: Method) -> RankSettings {
    RankSettings {
        method,
        intervals: verdict::rank::Intervals::Bootstrap(Bootstrap {
            rounds: 300,
            seed: 17,
        }),
        lottery_bootstrap: true,
        unobserved: verdict::ratings::UnobservedPairs::Ties,
        ..RankSettings::default()
    }
}

fn json(report: &verdict::report::RankReport) -> String {
    serde_json::to_string_pretty(report).unwrap()
}

/// Ranks the counts read from `path` (a file or a dataset directory).
fn rank_read_counts(path: &Path, options: &ReadOptions, method: Method) -> String {
    let loaded = read_pair_counts(&dataset_files(path).unwrap(), options).unwrap();
    json(
        &rank_counts(
            &loaded.models,
            &loaded.counts,
            "log",
            &settings(method),
            &|| {},
        )
        .unwrap(),
    )
}

#[test]
fn wide_and_long_counts_tables_rank_as_the_raw_log_bootstrap_included() {
    let log = bundled_log();
    let dir = tempfile::tempdir().unwrap();
    let (wide, long) = (dir.path().join("wide.csv"), dir.path().join("long.csv"));
    let mut wide_text = String::from("model_a,model_b,wins_a,wins_b,ties\n");
    let mut long_text = String::from("model_a,model_b,winner,count\n");
    for ((a, b), [wa, wb, t]) in grouped_counts(&log) {
        wide_text.push_str(&format!("{a},{b},{wa},{wb},{t}\n"));
        for (label, n) in [("model_a", wa), ("model_b", wb), ("tie", t)] {
            long_text.push_str(&format!("{a},{b},{label},{n}\n"));
        }
    }
    std::fs::write(&wide, wide_text).unwrap();
    std::fs::write(&long, long_text).unwrap();
    for method in [Method::BradleyTerry, Method::Lottery] {
        let from_log = json(&rank(&log, "log", &settings(method), &|| {}).unwrap());
        assert!(
            !from_log.contains("\"ci_low\": null"),
            "intervals were computed"
        );
        for table in [&wide, &long] {
            let from_counts = rank_read_counts(table, &ReadOptions::default(), method);
            assert_eq!(from_counts, from_log, "{method:?} from {}", table.display());
        }
    }
}

#[test]
fn a_hive_partitioned_parquet_dataset_reads_as_one_log_with_partition_filters() {
    let log = bundled_log();
    let dir = tempfile::tempdir().unwrap();
    // Battles dealt round-robin into three shards, two Parquet files each.
    let mut shards: Vec<Vec<usize>> = vec![Vec::new(); 6];
    for battle in 0..log.len() {
        shards[battle % 6].push(battle);
    }
    for (part, battles) in shards.iter().enumerate() {
        let shard_dir = dir.path().join(format!("shard={}", part % 3));
        std::fs::create_dir_all(&shard_dir).unwrap();
        let file = shard_dir.join(format!("part-{part}.parquet"));
        write_battles(&file, &log.reordered(battles)).unwrap();
    }
    std::fs::write(dir.path().join("_SUCCESS"), "").unwrap();
    let everything = rank_read_counts(dir.path(), &ReadOptions::default(), Method::BradleyTerry);
    let from_log = json(&rank(&log, "log", &settings(Method::BradleyTerry), &|| {}).unwrap());
    assert_eq!(everything, from_log);

    // The partition column filters like any other column.
    let options = ReadOptions {
        filters: vec!["shard!=2".parse::<Filter>().unwrap()],
        ..ReadOptions::default()
    };
    let kept: Vec<usize> = (0..log.len()).filter(|b| b % 3 != 2).collect();
    let subset = json(
        &rank(
            &log.reordered(&kept),
            "log",
            &settings(Method::BradleyTerry),
            &|| {},
        )
        .unwrap(),
    );
    assert_eq!(
        rank_read_counts(dir.path(), &options, Method::BradleyTerry),
        subset
    );

    // A quoted glob names the same files.
    let pattern = dir.path().join("shard=*/part-*.parquet");
    assert_eq!(dataset_files(&pattern).unwrap().len(), 6);
}

#[test]
fn counts_refuse_what_needs_the_battles_and_bad_counts_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("counts.csv");
    std::fs::write(
        &table,
        "model_a,model_b,wins_a,wins_b,ties\nx,y,3,1,0\ny,z,2,2,1\n",
    )
    .unwrap();
    let loaded =
        read_pair_counts(&dataset_files(&table).unwrap(), &ReadOptions::default()).unwrap();
    let elo = rank_counts(
        &loaded.models,
        &loaded.counts,
        "counts.csv",
        &settings(Method::Elo),
        &|| {},
    )
    .unwrap_err()
    .to_string();
    assert!(elo.contains("Elo") && elo.contains("pair counts"), "{elo}");
    let all = json(
        &rank_counts(
            &loaded.models,
            &loaded.counts,
            "counts.csv",
            &settings(Method::All),
            &|| {},
        )
        .unwrap(),
    );
    assert!(all.contains("Elo left out"), "{all}");

    // Read as a battle log, a counts table is refused rather than taken row by row.
    let as_log = read_battles(&Source::File(table.clone()), &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(as_log.contains("battle counts"), "{as_log}");

    // Counts past 2^53 are refused: a float cannot hold them (1e300 used to pass the
    // check and make --bootstrap panic; 99999999999999999999999 was read as another
    // number and per-model battle totals wrapped).
    for (bad, column) in [
        ("-1", "wins_b"),
        ("2.5", "wins_b"),
        ("many", "wins_b"),
        ("1e300", "wins_b"),
        ("99999999999999999999999", "wins_b"),
        ("9007199254740994", "wins_b"),
    ] {
        std::fs::write(
            &table,
            format!("model_a,model_b,wins_a,wins_b\nx,y,3,1\ny,z,2,{bad}\n"),
        )
        .unwrap();
        let error = read_pair_counts(
            &[DatasetFile::single(Source::File(table.clone()))],
            &ReadOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("counts.csv:3") && error.contains(column),
            "{error}"
        );
    }
}

/// A planted sparse arena, as real arenas are: A, B and C (new) met each other and the
/// old D and E, A on top; F (old) beat D and E but never met A, B or C, who would beat
/// it. Counting the three missing pairs as ties puts F in the winner set beside A. The
/// diagnosis: 12 of the 15 pairs observed; F leaves the winner set when its missing
/// pairs go against it, and so does A when its one missing pair (against F) does — the
/// data cannot order the two — but F's place rests on games never played for 3 of the 5
/// opponents that do not beat it, A's for 1 of 5.
#[test]
fn the_lottery_names_the_winners_that_rest_on_pairs_that_never_met() {
    use verdict::feedback::Outcome;
    let mut log = BattleLog::new();
    let mut duel = |a: &str, b: &str, a_wins: usize, b_wins: usize| {
        for i in 0..a_wins + b_wins {
            let outcome = if i < a_wins {
                Outcome::WinA
            } else {
                Outcome::WinB
            };
            log.push(a, b, outcome).unwrap();
        }
    };
    let order = ["A", "B", "C", "D", "E"];
    for (i, a) in order.iter().enumerate() {
        for b in &order[i + 1..] {
            duel(a, b, 30, 10);
        }
    }
    duel("F", "D", 30, 10);
    duel("F", "E", 30, 10);
    let settings = RankSettings {
        method: Method::Lottery,
        unobserved: verdict::ratings::UnobservedPairs::Ties,
        ..RankSettings::default()
    };
    let report = rank(&log, "planted", &settings, &|| {}).unwrap();
    let verdict::report::RankReport::Single(output) = &report else {
        panic!("one board")
    };
    let lottery = output.lottery.as_ref().unwrap();
    assert_eq!(lottery.support, ["A", "F"], "{lottery:?}");
    let diagnosis = lottery.unobserved_diagnosis.as_ref().unwrap();
    assert!((diagnosis.observed_share - 12.0 / 15.0).abs() < 1e-12);
    let members: Vec<(&str, usize, f64, bool, bool)> = diagnosis
        .members
        .iter()
        .map(|m| {
            (
                m.model.as_str(),
                m.unmet,
                m.unbeaten_unmet_share,
                m.owes_place,
                m.leaves_when_predicted,
            )
        })
        .collect();
    // Both rest on the pair that never met; only F leaves when it takes the margin
    // Bradley–Terry predicts (F beat D and E as C did, so A is predicted to beat it).
    assert_eq!(
        members,
        [("A", 1, 0.2, true, false), ("F", 3, 0.6, true, true)],
        "{diagnosis:?}"
    );
    assert!(output
        .notes
        .iter()
        .any(|n| n.contains("80.0% of pairs observed")
            && n.contains("F (never met 3: 60% of the opponents that do not beat it)")));
}
