//! Vote hygiene: duplicates collapsed to the first by time, each judge's daily cap
//! keeping the day's earliest votes, and the anomalous-judge test — its e-value against
//! a hand computation, its power against a judge who always votes against the crowd,
//! and its false alarms among judges who vote like the crowd, over many seeds.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use verdict::hygiene::{DropReason, Hygiene, HygieneReport};
use verdict::io::{read_battles, LoadedBattles, ReadOptions, Source};

const HEADER: &str = "model_a,model_b,winner,judge,tstamp,prompt";

/// A battle row: `(model_a, model_b, winner, judge, time, prompt)`.
type Row<'a> = (&'a str, &'a str, &'a str, String, String, String);

/// The rows as a log read with the hygiene columns kept.
fn load(rows: &[Row]) -> LoadedBattles {
    let mut text = format!("{HEADER}\n");
    for (a, b, winner, judge, time, prompt) in rows {
        text.push_str(&format!("{a},{b},{winner},{judge},{time},{prompt}\n"));
    }
    let options = ReadOptions {
        keep: ["judge", "tstamp", "prompt"].map(String::from).to_vec(),
        ..ReadOptions::default()
    };
    let source = Source::Bytes {
        label: "battles.csv".into(),
        data: text.into_bytes(),
    };
    read_battles(&source, &options).unwrap()
}

fn hygiene() -> Hygiene {
    Hygiene {
        judge_col: Some("judge".into()),
        time_col: Some("tstamp".into()),
        prompt_col: Some("prompt".into()),
        ..Hygiene::default()
    }
}

fn dropped_rows(report: &HygieneReport, reason: DropReason) -> Vec<usize> {
    report
        .dropped
        .iter()
        .filter(|(_, why)| *why == reason)
        .map(|(row, _)| *row)
        .collect()
}

fn row<'a>(a: &'a str, b: &'a str, w: &'a str, judge: &str, time: f64, prompt: &str) -> Row<'a> {
    (a, b, w, judge.into(), time.to_string(), prompt.into())
}

/// The same judge, prompt and pair (either side) keeps its earliest battle by time,
/// whatever the row order; another judge, prompt or pair is another battle.
#[test]
fn duplicates_keep_the_earliest_battle_of_each_judge_prompt_and_pair() {
    let rows = [
        row("A", "B", "model_a", "j1", 30.0, "p1"), // 0: a later duplicate
        row("B", "A", "model_b", "j1", 10.0, "p1"), // 1: the earliest: kept
        row("A", "B", "tie", "j1", 20.0, "p1"),     // 2: a duplicate
        row("A", "B", "model_a", "j2", 25.0, "p1"), // 3: another judge
        row("A", "B", "model_a", "j1", 40.0, "p2"), // 4: another prompt
        row("A", "C", "model_a", "j1", 50.0, "p1"), // 5: another pair
    ];
    let loaded = load(&rows);
    let cleaning = Hygiene {
        collapse_duplicates: true,
        ..hygiene()
    };
    let (cleaned, report) = cleaning.apply(&loaded).unwrap();
    assert_eq!(dropped_rows(&report, DropReason::Duplicate), vec![0, 2]);
    assert_eq!(report.dropped.len(), 2);
    assert_eq!(cleaned.log.len(), 4);
    assert_eq!(cleaned.metadata.rows(), 4);
    assert!(report
        .note(6)
        .contains("2 of 6 battles dropped (2 duplicates"));
}

/// A cap of N keeps each judge's first N votes of each UTC day in time order; days
/// come from seconds since 1970 or from dates.
#[test]
fn the_daily_cap_keeps_each_judges_earliest_votes_of_a_day() {
    let day = 86_400.0;
    // j1: five votes on day 0 in shuffled row order, two on day 1; j2: three on day 0.
    let times = [4.0, 1.0, 5.0, 2.0, 3.0, day + 1.0, day + 2.0];
    let mut rows: Vec<Row> = times
        .iter()
        .enumerate()
        .map(|(i, &t)| row("A", "B", "model_a", "j1", t, &format!("p{i}")))
        .collect();
    for t in [7.0, 8.0, 9.0] {
        rows.push(row("A", "C", "model_b", "j2", t, "q"));
    }
    let capped = Hygiene {
        max_votes_per_judge_day: Some(2),
        ..hygiene()
    };
    let (cleaned, report) = capped.apply(&load(&rows)).unwrap();
    // j1's day 0 keeps times 1 and 2 (rows 1, 3) and drops 3, 4, 5 (rows 4, 0, 2);
    // day 1 keeps both; j2 keeps its first two.
    assert_eq!(
        dropped_rows(&report, DropReason::OverDailyCap),
        vec![0, 2, 4, 9]
    );
    assert_eq!(cleaned.log.len(), 6);

    let mut dated = rows.clone();
    for (r, date) in dated.iter_mut().zip([
        "2024-02-12T08:00:00Z",
        "2024-02-12",
        "2024-02-12T23:59:59",
        "2024-02-13",
    ]) {
        r.4 = date.into();
    }
    let (_, report) = capped.apply(&load(&dated)).unwrap();
    // Dates sort as days: rows 0-2 share 2024-02-12 (stable among equal days), so the
    // third, row 2, goes.
    assert_eq!(
        dropped_rows(&report, DropReason::OverDailyCap),
        vec![2, 9],
        "{report:?}"
    );
}

/// Three honest judges cast 99 votes for A over B; judge X votes B three times. Each
/// of X's votes has p = 2 (1 + 0) / (1 + 99) = 0.02, so e = 1 / (2 sqrt 0.02) and the
/// running product peaks at e^3 = 44.19; with J = 4 judges the test flags X at
/// alpha = 0.1 (threshold 40) and not at 0.05 (threshold 80). The honest judges' votes
/// have p = 1 (e = 1/2).
#[test]
fn the_outlier_tests_evidence_is_the_product_of_calibrated_p_values() {
    let mut rows = Vec::new();
    for i in 0..99 {
        let judge = format!("h{}", i % 3);
        rows.push(row(
            "A",
            "B",
            "model_a",
            &judge,
            f64::from(i),
            &format!("p{i}"),
        ));
    }
    for i in 0..3 {
        rows.push(row("A", "B", "model_b", "X", 100.0 + f64::from(i), "x"));
    }
    let loaded = load(&rows);
    let at = |alpha| Hygiene {
        outlier_alpha: Some(alpha),
        ..hygiene()
    };
    let (cleaned, report) = at(0.1).apply(&loaded).unwrap();
    let expected = (1.0 / (2.0 * 0.02f64.sqrt())).powi(3);
    assert_eq!(report.flagged_judges.len(), 1);
    assert_eq!(report.flagged_judges[0].0, "X");
    assert!((report.flagged_judges[0].1 - expected).abs() < 1e-9 * expected);
    assert_eq!(
        dropped_rows(&report, DropReason::OutlierJudge),
        vec![99, 100, 101]
    );
    assert_eq!(cleaned.log.len(), 99);
    let (_, report) = at(0.05).apply(&loaded).unwrap();
    assert!(report.dropped.is_empty(), "{report:?}");
}

/// Four models whose log-odds differ by 2 a step; each honest judge votes by
/// Bradley–Terry on random pairs over a few days.
fn seeded_arena(seed: u64, judges: usize, votes: usize, contrarian: bool) -> Vec<Row<'static>> {
    const MODELS: [&str; 4] = ["A", "B", "C", "D"];
    let strength = [6.0, 4.0, 2.0, 0.0];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = Vec::new();
    let mut time = 1_700_000_000.0;
    for vote in 0..votes {
        for judge in 0..judges + usize::from(contrarian) {
            let i = rng.random_range(0..4);
            let j = (i + rng.random_range(1..4)) % 4;
            let first_wins = if judge == judges {
                strength[i] < strength[j]
            } else {
                let p = 1.0 / (1.0 + f64::exp(strength[j] - strength[i]));
                rng.random::<f64>() < p
            };
            let winner = if first_wins { "model_a" } else { "model_b" };
            time += 600.0;
            let prompt = format!("p{vote}");
            rows.push(row(
                MODELS[i],
                MODELS[j],
                winner,
                &format!("u{judge}"),
                time,
                &prompt,
            ));
        }
    }
    rows
}

/// A judge who always votes for the weaker model is flagged, and only they.
#[test]
fn a_judge_voting_against_the_crowd_is_flagged() {
    let rows = seeded_arena(7, 40, 30, true);
    let cleaning = Hygiene {
        outlier_alpha: Some(0.01),
        ..hygiene()
    };
    let (cleaned, report) = cleaning.apply(&load(&rows)).unwrap();
    let flagged: Vec<&str> = report
        .flagged_judges
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(flagged, vec!["u40"]);
    assert_eq!(report.count(DropReason::OutlierJudge), 30);
    assert_eq!(cleaned.log.len(), 40 * 30);
}

/// Judges who vote like the crowd: at alpha = 0.1 the test flags any of 40 judges in
/// at most a tenth of 100 seeded arenas (Ville's inequality with Bonferroni; the
/// calibrator is conservative, so far fewer in practice).
#[test]
fn judges_who_vote_like_the_crowd_are_rarely_flagged() {
    let cleaning = Hygiene {
        outlier_alpha: Some(0.1),
        ..hygiene()
    };
    let alarms = (0..100)
        .filter(|&seed| {
            let rows = seeded_arena(1_000 + seed, 40, 25, false);
            let (_, report) = cleaning.apply(&load(&rows)).unwrap();
            !report.flagged_judges.is_empty()
        })
        .count();
    assert!(alarms <= 10, "{alarms} of 100 arenas had a false alarm");
}

/// Missing judges or unreadable times are errors naming the row and column; a step
/// without its column is an error naming the setting.
#[test]
fn hygiene_refuses_what_it_cannot_read() {
    let mut rows = vec![
        row("A", "B", "model_a", "j1", 1.0, "p"),
        row("A", "B", "model_a", "", 2.0, "p"),
    ];
    let cleaning = Hygiene {
        collapse_duplicates: true,
        ..hygiene()
    };
    let error = cleaning.apply(&load(&rows)).unwrap_err().to_string();
    assert!(
        error.contains("battles.csv:3") && error.contains("judge"),
        "{error}"
    );
    rows[1].3 = "j2".into();
    rows[1].4 = "yesterday".into();
    let capped = Hygiene {
        max_votes_per_judge_day: Some(1),
        ..hygiene()
    };
    let error = capped.apply(&load(&rows)).unwrap_err().to_string();
    assert!(
        error.contains("yesterday") && error.contains("tstamp"),
        "{error}"
    );
    let without_time = Hygiene {
        time_col: None,
        ..capped
    };
    let error = without_time.apply(&load(&rows)).unwrap_err().to_string();
    assert!(error.contains("time_col"), "{error}");
    for alpha in [0.0, 1.0, f64::NAN] {
        let bad = Hygiene {
            outlier_alpha: Some(alpha),
            ..hygiene()
        };
        let error = bad.apply(&load(&rows)).unwrap_err().to_string();
        assert!(error.contains("outlier_alpha"), "{error}");
    }
}

/// GenAI-Arena's public log (bundled) names every voter `arena_user_::1`: a daily cap
/// per judge then caps the whole log, and the note says so.
#[test]
fn an_anonymised_judge_column_is_pointed_out() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/genai-arena-battles-20240220.json");
    let options = ReadOptions {
        keep: ["judge", "tstamp"].map(String::from).to_vec(),
        skip_self_battles: true,
        ..ReadOptions::default()
    };
    let loaded = read_battles(&Source::File(path), &options).unwrap();
    let capped = Hygiene {
        judge_col: Some("judge".into()),
        time_col: Some("tstamp".into()),
        max_votes_per_judge_day: Some(50),
        ..Hygiene::default()
    };
    let (cleaned, report) = capped.apply(&loaded).unwrap();
    assert_eq!(
        report.dominant_judge,
        Some(("arena_user_::1".to_owned(), 2060))
    );
    // sum over UTC days of min(battles that day, 50), counted in Python from the JSON
    // (`floor(tstamp / 86400)` per battle, self-battles left out): 427.
    assert_eq!(cleaned.log.len(), 427);
    assert_eq!(report.count(DropReason::OverDailyCap), 2060 - 427);
    assert!(
        report.note(2060).contains("anonymised"),
        "{}",
        report.note(2060)
    );
}
