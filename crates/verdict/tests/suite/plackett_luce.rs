//! Plackett–Luce on rankings: against choix on a random ranking log, against
//! Bradley–Terry where every ranking is a duel (the two models coincide there), and the
//! leaderboard's bootstrap and notes.

use std::path::{Path, PathBuf};

use verdict::io::{read_rankings, Source};
use verdict::plackett_luce::rank_rankings;
use verdict::rank::{Intervals, RankSettings};
use verdict::ratings::{
    Bootstrap, BradleyTerry, FitStatus, PairCounts, PlackettLuce, Rankings, Regularization,
};

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// Agreement with choix 0.4.1 (`ilsr_rankings`, which agrees with its `mm_rankings` to
/// 3e-14; see tests/golden/make_choix_pl_golden.py) on 1,500 random rankings of menus
/// of 3–5 among 10 models, to 1e-6 in natural-log strength.
#[test]
fn matches_choix_on_a_random_ranking_log() {
    let loaded = read_rankings(&Source::File(golden().join("choix_rankings.csv")), None).unwrap();
    let rankings = Rankings::new(loaded.models.len(), loaded.rankings).unwrap();
    let fit = PlackettLuce::default().fit(&rankings).unwrap();
    assert_eq!(fit.status, FitStatus::Converged);
    assert_eq!(fit.regularization, Regularization::None);
    let text = std::fs::read_to_string(golden().join("choix_pl_golden.csv")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let (name, value) = line.split_once(',').unwrap();
        let expected: f64 = value.parse().unwrap();
        let model = loaded.models.iter().position(|m| m == name).unwrap();
        let got = fit.beta[model];
        assert!(
            (got - expected).abs() < 1e-6,
            "{name}: {got} vs choix {expected}"
        );
        checked += 1;
    }
    assert_eq!(checked, 10);
}

/// A ranking of two is a duel: on the bundled LLMFAO battles (ties dropped), written as
/// two-block rankings, Plackett–Luce's strengths equal Bradley–Terry's (`ties` drop)
/// to 1e-9.
#[test]
fn duels_give_bradley_terry() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    let loaded = verdict::io::read_battles(
        &Source::File(examples.join("llmfao.csv")),
        &verdict::io::ReadOptions::default(),
    )
    .unwrap();
    let counts = PairCounts::from_log(&loaded.log);
    let bt = BradleyTerry {
        ties: verdict::ratings::TieModel::Drop,
        ..BradleyTerry::default()
    }
    .fit(&counts)
    .unwrap();
    let mut duels = Vec::new();
    for pair in counts.pairs() {
        let (i, j) = (pair.i as usize, pair.j as usize);
        for _ in 0..pair.wins_i as usize {
            duels.push(vec![vec![i], vec![j]]);
        }
        for _ in 0..pair.wins_j as usize {
            duels.push(vec![vec![j], vec![i]]);
        }
    }
    let rankings = Rankings::new(counts.models(), duels).unwrap();
    let pl = PlackettLuce::default().fit(&rankings).unwrap();
    assert_eq!(pl.regularization, bt.regularization);
    for (a, b) in pl.beta.iter().zip(&bt.beta) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
}

/// The leaderboard: scores on the LMArena scale (mean 1000), seeded bootstrap
/// intervals that repeat exactly, the implied pairwise tallies, and notes for a tied
/// block and a single-block ranking.
#[test]
fn the_leaderboard_is_seeded_and_says_what_it_approximated() {
    let loaded = read_rankings(&Source::File(golden().join("choix_rankings.csv")), None).unwrap();
    let mut rankings = loaded.rankings.clone();
    rankings.push(vec![vec![0, 1], vec![2]]);
    rankings.push(vec![vec![3, 4]]);
    let settings = RankSettings {
        intervals: Intervals::Bootstrap(Bootstrap {
            rounds: 60,
            seed: 4,
        }),
        ..RankSettings::default()
    };
    let run = || rank_rankings(&loaded.models, rankings.clone(), "r", &settings, &|| {}).unwrap();
    let (first, second) = (run(), run());
    let board = &first.outputs()[0].leaderboard;
    assert_eq!(board, &second.outputs()[0].leaderboard);
    assert_eq!(board.method.name(), "plackett-luce");
    let mean = board.models.iter().map(|s| s.score).sum::<f64>() / 10.0;
    assert!((mean - 1000.0).abs() < 1e-9);
    for s in &board.models {
        assert!(
            s.ci_low.unwrap() < s.score && s.score < s.ci_high.unwrap(),
            "{}",
            s.name
        );
    }
    // Every ranking of a menu of m models implies m(m−1)/2 comparisons.
    let implied: u64 = board.models.iter().map(|s| s.battles).sum::<u64>() / 2;
    let expected: usize = rankings
        .iter()
        .map(|r| {
            let m: usize = r.iter().map(Vec::len).sum();
            m * (m - 1) / 2
        })
        .sum();
    assert_eq!(implied as usize, expected);
    let notes = first.outputs()[0].notes.join("\n");
    assert!(notes.contains("Breslow"), "{notes}");
    assert!(
        notes.contains("1 of 1502 rankings are a single block"),
        "{notes}"
    );
}
