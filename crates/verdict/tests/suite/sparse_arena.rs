//! A planted sparse arena: a known game, pairs hidden by an arena-like sampling design,
//! and each option for the missing pairs (`unobserved`) against the full game.
//!
//! The game: nine models in three eras, Bradley–Terry strengths rising with the era
//! and a rock–paper–scissors cycle among the newest three, so the full game's maximal
//! lottery is a mixture of the newest era. The design: a model battles only the models
//! live when it is (its era), and one model of each of the first two eras lives on
//! into the next — 15 of the 36 pairs met (42%, the share of the public arena counts).
//! The counts are the expected ones (4,000 battles per pair that met, wins rounded), so
//! the tolerances measure the options, not sampling noise.

use verdict::equilibrium::{solve, EquilibriumSettings};
use verdict::feedback::{Interner, PairCountsBuilder};
use verdict::game::PayoffMatrix;
use verdict::rank::{rank_counts, Intervals, Method, RankSettings};
use verdict::ratings::Bootstrap;
use verdict::ratings::{MarginFill, PairCounts, SkewLowRank, UnobservedPairs};
use verdict::report::{RankOutput, RankReport};

const MODELS: usize = 9;
const BATTLES: f64 = 4_000.0;

/// Bradley–Terry strengths: era A (0–2), era B (3–5), era C (6–8). Model 0 is era A's
/// champion and model 3 era B's; models 2 and 5 are the ones that live on.
const STRENGTH: [f64; MODELS] = [-0.7, -1.1, -0.9, 0.0, -0.3, -0.1, 0.8, 0.8, 0.8];

/// The era each model lives in, and the next one for the models that live on.
fn eras(m: usize) -> &'static [usize] {
    match m {
        0 | 1 => &[0],
        2 => &[0, 1],
        3 | 4 => &[1],
        5 => &[1, 2],
        _ => &[2],
    }
}

fn met(j: usize, k: usize) -> bool {
    eras(j).iter().any(|e| eras(k).contains(e))
}

/// The true log-odds of `j` beating `k`: Bradley–Terry plus a cycle among 6, 7, 8.
fn true_logit(j: usize, k: usize) -> f64 {
    let cycle = |a: usize, b: usize| match (a, b) {
        (6, 7) | (7, 8) | (8, 6) => 1.2,
        (7, 6) | (8, 7) | (6, 8) => -1.2,
        _ => 0.0,
    };
    STRENGTH[j] - STRENGTH[k] + cycle(j, k)
}

fn true_margin(j: usize, k: usize) -> f64 {
    (true_logit(j, k) / 2.0).tanh()
}

fn names() -> Vec<String> {
    (0..MODELS).map(|m| format!("m{m}")).collect()
}

/// The expected counts of the pairs the design lets meet.
fn sparse_counts(
    models: usize,
    logit: impl Fn(usize, usize) -> f64,
    met: impl Fn(usize, usize) -> bool,
) -> PairCounts {
    let mut builder = PairCountsBuilder::default();
    for j in 0..models {
        for k in (j + 1..models).filter(|&k| met(j, k)) {
            let wins = (BATTLES / (1.0 + (-logit(j, k)).exp())).round();
            builder.add(j as u32, k as u32, [wins, BATTLES - wins, 0.0]);
        }
    }
    builder.finish(models)
}

/// The maximal lottery of the true game over `models`.
fn true_lottery(models: &[usize]) -> Vec<f64> {
    let rows: Vec<Vec<f64>> = models
        .iter()
        .map(|&j| {
            models
                .iter()
                .map(|&k| if j == k { 0.0 } else { true_margin(j, k) })
                .collect()
        })
        .collect();
    let names: Vec<String> = models.iter().map(|m| format!("m{m}")).collect();
    let game = PayoffMatrix::new(&rows).unwrap();
    solve(&game, &names, &EquilibriumSettings::default())
        .unwrap()
        .probabilities
}

fn lottery_of(option: UnobservedPairs, bootstrap: Option<Bootstrap>) -> RankOutput {
    let mut models = Interner::new();
    for name in names() {
        models.intern(&name);
    }
    let counts = sparse_counts(MODELS, true_logit, met);
    let lottery_bootstrap = bootstrap.is_some();
    let settings = RankSettings {
        method: Method::Lottery,
        unobserved: option,
        intervals: bootstrap.map_or(Intervals::None, Intervals::Bootstrap),
        lottery_bootstrap,
        ..RankSettings::default()
    };
    match rank_counts(&models, &counts, "planted", &settings, &|| {}).unwrap() {
        RankReport::Single(output) => *output,
        other => panic!("one board: {other:?}"),
    }
}

fn probabilities(output: &RankOutput) -> Vec<f64> {
    let mut p = vec![0.0; MODELS];
    for standing in &output.leaderboard.models {
        let m: usize = standing.name[1..].parse().unwrap();
        p[m] = standing.probability.unwrap();
    }
    p
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

#[test]
fn the_design_hides_most_pairs_and_the_full_game_is_a_mixture_of_the_newest_era() {
    let met_pairs = (0..MODELS)
        .flat_map(|j| (j + 1..MODELS).map(move |k| (j, k)))
        .filter(|&(j, k)| met(j, k))
        .count();
    assert_eq!(met_pairs, 15);
    let full = true_lottery(&(0..MODELS).collect::<Vec<_>>());
    // Closed form: the cycle is symmetric, so its maximal lottery is uniform on 6, 7, 8.
    for (m, p) in full.iter().enumerate() {
        let want = if m >= 6 { 1.0 / 3.0 } else { 0.0 };
        assert!((p - want).abs() < 1e-9, "{full:?}");
    }
}

#[test]
fn ties_keep_the_old_champions_and_the_diagnosis_names_exactly_them() {
    let output = lottery_of(UnobservedPairs::Ties, None);
    let lottery = output.lottery.as_ref().unwrap();
    // m0 and m3 never met the models that would beat them: as ties, they look unbeaten.
    for planted in ["m0", "m3"] {
        assert!(lottery.support.iter().any(|s| s == planted), "{lottery:?}");
    }
    let diagnosis = lottery.unobserved_diagnosis.as_ref().unwrap();
    assert_eq!(diagnosis.filled_by, "ties");
    assert!((diagnosis.observed_share - 15.0 / 36.0).abs() < 1e-12);
    let artefacts = diagnosis.likely_artefacts();
    // Exactly the members outside the full game's winner set (m6, m7, m8).
    assert_eq!(artefacts, ["m0", "m3"], "{diagnosis:?}");
    assert!(
        output
            .notes
            .iter()
            .any(|n| n.contains("likely artefacts of the fill")),
        "{:?}",
        output.notes
    );
}

#[test]
fn predicted_margins_recover_the_full_games_lottery() {
    let full = true_lottery(&(0..MODELS).collect::<Vec<_>>());
    // Tolerance 0.01 in L1: the cycle lives among pairs that met, so both completions
    // keep it; the missing pairs only need the right sign and a clear size.
    for option in [UnobservedPairs::BradleyTerry, UnobservedPairs::LowRank] {
        let output = lottery_of(option, None);
        let got = probabilities(&output);
        assert!(l1(&got, &full) < 0.01, "{option:?}: {got:?} vs {full:?}");
        let lottery = output.lottery.as_ref().unwrap();
        assert_eq!(
            lottery.unobserved_diagnosis.as_ref().unwrap().filled_by,
            option.name()
        );
    }
}

#[test]
fn the_bootstrap_refits_the_fill_and_never_keeps_the_old_champions() {
    let output = lottery_of(
        UnobservedPairs::BradleyTerry,
        Some(Bootstrap {
            rounds: 40,
            seed: 5,
        }),
    );
    let shares: Vec<(String, f64)> = output
        .leaderboard
        .models
        .iter()
        .map(|s| (s.name.clone(), s.support_share.unwrap()))
        .collect();
    for (name, share) in &shares {
        let newest = ["m6", "m7", "m8"].contains(&name.as_str());
        assert_eq!(*share > 0.5, newest, "{shares:?}");
    }
    assert!(output
        .notes
        .iter()
        .any(|n| n.contains("fills the pairs that never met afresh")));
}

#[test]
fn the_core_is_a_complete_block_and_its_lottery_is_the_full_games_there() {
    let output = lottery_of(UnobservedPairs::Core, None);
    let diagnosis = output
        .lottery
        .as_ref()
        .unwrap()
        .unobserved_diagnosis
        .clone()
        .unwrap();
    // By hand: the complete blocks of the design are {0, 1, 2}, {2, 3, 4, 5} and
    // {5, 6, 7, 8}; peeling the least-played models first keeps era B with its bridge.
    let core = diagnosis.core.unwrap();
    assert_eq!(core, ["m2", "m3", "m4", "m5"]);
    let want = true_lottery(&[2, 3, 4, 5]);
    let got = probabilities(&output);
    let inside: Vec<f64> = [2, 3, 4, 5].iter().map(|&m| got[m]).collect();
    assert!(l1(&inside, &want) < 0.01, "{inside:?} vs {want:?}");
    assert!(got
        .iter()
        .enumerate()
        .all(|(m, &p)| (2..=5).contains(&m) || p == 0.0));
}

/// A game whose cycle runs through the missing pairs: twelve models, Bradley–Terry plus
/// one cyclic component over all of them, a third of the pairs hidden. The low-rank
/// completion carries the cycle over; Bradley–Terry cannot.
#[test]
fn the_low_rank_completion_recovers_the_margins_of_hidden_pairs() {
    let models = 12;
    let angle = |m: usize| 2.0 * std::f64::consts::PI * m as f64 / models as f64;
    let beta = |m: usize| 0.5 - 0.08 * m as f64;
    let logit = |j: usize, k: usize| {
        let (u, v) = (
            |m: usize| 1.1 * angle(m).cos(),
            |m: usize| 1.1 * angle(m).sin(),
        );
        beta(j) - beta(k) + u(j) * v(k) - v(j) * u(k)
    };
    let hidden = |j: usize, k: usize| (j + 2 * k).is_multiple_of(3);
    let counts = sparse_counts(models, logit, |j, k| !hidden(j, k));
    let completed = |option: UnobservedPairs| {
        MarginFill {
            unobserved: option,
            completion_rank: SkewLowRank::default().rank,
            ..MarginFill::default()
        }
        .complete(&counts)
        .unwrap()
    };
    let low_rank = completed(UnobservedPairs::LowRank);
    let bradley_terry = completed(UnobservedPairs::BradleyTerry);
    let hidden_pairs = (0..models)
        .flat_map(|j| (j + 1..models).map(move |k| (j, k)))
        .filter(|&(j, k)| hidden(j, k))
        .count();
    assert_eq!(low_rank.unobserved.len(), hidden_pairs);
    assert_eq!(hidden_pairs, 18, "18 of the 66 pairs are hidden");
    let worst = |margins: &[f64]| {
        low_rank
            .unobserved
            .iter()
            .map(|&(j, k)| (margins[j * models + k] - (logit(j, k) / 2.0).tanh()).abs())
            .fold(0.0, f64::max)
    };
    // Tolerance 0.03: the counts are rounded and the ridge (λ = 1) shrinks a little.
    let (low, bt) = (worst(&low_rank.margins), worst(&bradley_terry.margins));
    assert!(low < 0.03, "low-rank misses a hidden margin by {low}");
    assert!(bt > 0.2, "Bradley–Terry should miss the cycle: {bt}");
}
