//! "Both bad" verdicts: dropped, they leave the board of the log without them; as their
//! own outcome, the grounded Rao–Kupper fit equals a direct maximum-likelihood fit by
//! scipy (tests/golden/make_grounded_rk_golden.py) on GenAI-Arena's log, sandwich
//! standard errors included, and the settings it cannot take are refused by name.

use std::path::Path;

use verdict::feedback::Outcome;
use verdict::io::{read_battles, ReadOptions, Source};
use verdict::rank::{rank, Intervals, Method, RankSettings};
use verdict::ratings::{BothBad, EloScale};

fn genai_log() -> verdict::feedback::BattleLog {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/genai-arena-battles-20240220.json");
    let options = ReadOptions {
        skip_self_battles: true,
        ..ReadOptions::default()
    };
    read_battles(&Source::File(path), &options).unwrap().log
}

fn settings(both_bad: BothBad) -> RankSettings {
    RankSettings {
        both_bad,
        intervals: Intervals::Sandwich,
        ..RankSettings::default()
    }
}

#[test]
fn the_grounded_fit_matches_a_direct_maximum_likelihood_fit() {
    let golden = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/golden/grounded_rk_genai_golden.csv"),
    )
    .unwrap();
    let report = rank(&genai_log(), "genai", &settings(BothBad::Bad), &|| {}).unwrap();
    let board = &report.outputs()[0].leaderboard;
    let factor = EloScale::default().factor();
    let z = 1.959_963_984_540_054; // the standard normal's 97.5% quantile
    let mut checked = 0;
    for line in golden.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (beta, se): (f64, f64) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        let ours = board.models.iter().find(|s| s.name == fields[0]).unwrap();
        let our_beta = (ours.score - 1000.0) / factor;
        // scipy's BFGS on finite-difference gradients stops within about 1e-5 of the
        // optimum along the flattest directions (the models with a handful of
        // battles): agreement to 1/10,000 of each estimate's own standard error.
        assert!(
            (our_beta - beta).abs() < 1e-4 * se,
            "{}: {our_beta} vs {beta}",
            fields[0]
        );
        let our_se = (ours.ci_high.unwrap() - ours.ci_low.unwrap()) / (2.0 * z * factor);
        assert!(
            (our_se / se - 1.0).abs() < 1e-3,
            "{}: se {our_se} vs {se}",
            fields[0]
        );
        let usable = 1.0 / (1.0 + (-our_beta).exp());
        assert!((ours.usable.unwrap() - usable).abs() < 1e-9);
        checked += 1;
    }
    assert_eq!(checked, 13);
    let notes = report.outputs()[0].notes.join(" ");
    assert!(notes.contains("theta = 1.2951"), "{notes}");
}

#[test]
fn dropped_both_bad_verdicts_leave_the_board_of_the_rest() {
    let log = genai_log();
    let mut rest = verdict::feedback::BattleLog::new();
    for (a, b, outcome) in log.iter() {
        if outcome != Outcome::TieBothBad {
            rest.push(log.models().name(a), log.models().name(b), outcome)
                .unwrap();
        }
    }
    let dropped = rank(&log, "genai", &settings(BothBad::Drop), &|| {}).unwrap();
    let plain = rank(&rest, "genai", &settings(BothBad::Tie), &|| {}).unwrap();
    let (ours, theirs) = (&dropped.outputs()[0], &plain.outputs()[0]);
    assert_eq!(ours.leaderboard, theirs.leaderboard);
    assert!(
        ours.notes.join(" ").contains("427 of 2060 battles"),
        "{:?}",
        ours.notes
    );
}

#[test]
fn the_grounded_model_refuses_what_it_cannot_take() {
    let log = genai_log();
    for (changed, expected) in [
        (
            RankSettings {
                method: Method::Lottery,
                ..settings(BothBad::Bad)
            },
            "method",
        ),
        (
            RankSettings {
                anchor: Some(("imagenhub_SDXL_generation".into(), 1100.0)),
                ..settings(BothBad::Bad)
            },
            "anchor",
        ),
        (
            RankSettings {
                fragility: true,
                ..settings(BothBad::Bad)
            },
            "fragility",
        ),
    ] {
        let error = rank(&log, "genai", &changed, &|| {})
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{error}");
    }
    let mut no_bad = verdict::feedback::BattleLog::new();
    no_bad.push("a", "b", Outcome::WinA).unwrap();
    no_bad.push("b", "a", Outcome::Tie).unwrap();
    let error = rank(&no_bad, "x", &settings(BothBad::Bad), &|| {})
        .unwrap_err()
        .to_string();
    assert!(error.contains("both bad"), "{error}");
}
