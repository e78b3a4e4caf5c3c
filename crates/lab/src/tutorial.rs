//! The arena tutorial's four bots, end to end, on the bundled log of its 18 battles,
//! printed with the tutorial's rounding (`verdict demo`): online Elo as listed and
//! shuffled, the MM iteration of Bradley–Terry step by step, Newton's fit, and the
//! converged leaderboard with bootstrap intervals.

use std::fmt::Write;

use verdict::io::{read_battles, ReadOptions, Source};
use verdict::rank::{rank, RankSettings};
use verdict::ratings::{
    mm_iterates, shuffled_order, BradleyTerry, Elo, PairCounts, Solver, TieModel,
};
use verdict::report::render_table;
use verdict::report::RankReport;
use verdict::VerdictError;

pub(crate) const TUTORIAL_LOG: &[u8] = include_bytes!("../../../examples/data/tutorial-arena.csv");
const SHUFFLE_SEED: u64 = 42;

fn ratings_line(names: &[String], values: &[f64], signed: bool) -> String {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| {
            if signed {
                format!("{n}={v:+.1}")
            } else {
                format!("{n}={v:.1}")
            }
        })
        .collect::<Vec<_>>()
        .join("  ")
}

fn strengths_line(values: &[f64]) -> String {
    values
        .iter()
        .map(|p| format!("{p:.4}"))
        .collect::<Vec<_>>()
        .join("  ")
}

fn ranking(names: &[String], values: &[f64]) -> String {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    order
        .iter()
        .map(|&m| names[m].as_str())
        .collect::<Vec<_>>()
        .join(" > ")
}

/// The walk-through as text.
///
/// # Errors
/// [`VerdictError`] should the bundled log fail to read or a fit fail (neither does).
pub fn tutorial_walkthrough() -> Result<String, VerdictError> {
    Ok(walkthrough_and_board()?.0)
}

/// The walk-through as text, and the converged board it ends with (Bradley–Terry with
/// 95% bootstrap intervals and the matrices).
///
/// # Errors
/// As [`tutorial_walkthrough`].
pub fn walkthrough_and_board() -> Result<(String, RankReport), VerdictError> {
    let source = Source::Bytes {
        label: "tutorial-arena.csv".into(),
        data: TUTORIAL_LOG.to_vec(),
    };
    let log = read_battles(&source, &ReadOptions::default())?.log;
    let names = log.models().names();
    let counts = PairCounts::from_log(&log);
    let mut out = String::new();
    writeln!(
        out,
        "The arena tutorial: {} bots, {} battles (bundled examples/data/tutorial-arena.csv)\n",
        names.len(),
        log.len()
    )?;

    let elo = Elo::default();
    let (a, b, _) = log.battle(0);
    let first = elo.replay(&log, [0]);
    writeln!(out, "Elo (K = 32, start 1000, base 10, scale 400)")?;
    writeln!(
        out,
        "  first battle, {} beats {}: E = {:.2}, {} 1000 -> {:.1}, {} 1000 -> {:.1}",
        names[a.index()],
        names[b.index()],
        elo.expected(1000.0, 1000.0),
        names[a.index()],
        first[a.index()],
        names[b.index()],
        first[b.index()]
    )?;
    let listed = elo.run(&log)?;
    let shuffled = elo.replay(&log, shuffled_order(log.len(), SHUFFLE_SEED));
    let difference: Vec<f64> = shuffled.iter().zip(&listed).map(|(s, l)| s - l).collect();
    writeln!(
        out,
        "  as-listed order:   {}",
        ratings_line(names, &listed, false)
    )?;
    writeln!(
        out,
        "  shuffled (seed {SHUFFLE_SEED}): {}",
        ratings_line(names, &shuffled, false)
    )?;
    writeln!(
        out,
        "  difference:        {}",
        ratings_line(names, &difference, true)
    )?;
    writeln!(
        out,
        "  total rating: {:.1} as listed, {:.1} shuffled (Elo only moves points between players)",
        listed.iter().sum::<f64>(),
        shuffled.iter().sum::<f64>()
    )?;
    writeln!(out, "  ranking (as-listed): {}", ranking(names, &listed))?;
    writeln!(out, "  ranking (shuffled):  {}", ranking(names, &shuffled))?;
    writeln!(
        out,
        "  The tutorial prints A=1083.7 B=1034.8 C=962.2 D=919.2 as listed but not the order of its\n  battles; the bundled order (pair by pair, upsets last) is one of many with the same win matrix.\n"
    )?;

    let iterates = mm_iterates(&counts, TieModel::Half, 20);
    writeln!(
        out,
        "Bradley–Terry, MM (Zermelo) iteration p_i <- W_i / sum_j n_ij/(p_i+p_j), renormalised"
    )?;
    let header: Vec<String> = names.iter().map(|n| format!("{n:>6}")).collect();
    writeln!(out, "  {:>6}  {}", "", header.join("  "))?;
    writeln!(
        out,
        "  {:>6}  {}",
        "start",
        strengths_line(&vec![1.0 / names.len() as f64; names.len()])
    )?;
    for iteration in [1, 2, 3, 20] {
        let label = format!("it {iteration}");
        writeln!(
            out,
            "  {label:>6}  {}",
            strengths_line(&iterates[iteration - 1])
        )?;
    }
    let p20 = &iterates[19];
    let index = |name: &str| log.models().get(name).map(|id| id.index());
    if let (Some(ia), Some(ib), Some(ic), Some(id)) =
        (index("A"), index("B"), index("C"), index("D"))
    {
        writeln!(
            out,
            "  iterate 20 (the tutorial's \"converged\" row): P(A beats D) = {:.3}, P(B beats C) = {:.3}",
            p20[ia] / (p20[ia] + p20[id]),
            p20[ib] / (p20[ib] + p20[ic])
        )?;
        let newton = BradleyTerry::default().fit(&counts)?;
        let mm = BradleyTerry {
            solver: Solver::Mm,
            ..BradleyTerry::default()
        }
        .fit(&counts)?;
        let p = newton.strengths();
        writeln!(
            out,
            "  maximum-likelihood fixed point: {}  (Newton: {} iterations, |grad| = {:.1e}; MM: {} iterations)",
            strengths_line(&p),
            newton.iterations,
            newton.gradient_norm,
            mm.iterations
        )?;
        writeln!(
            out,
            "  at the MLE: P(A beats D) = {:.3}, P(B beats C) = {:.3}. Iterate 20 is close but not yet the fixed point.",
            newton.win_probability(ia, id),
            newton.win_probability(ib, ic)
        )?;
        let reordered = log.reordered(&shuffled_order(log.len(), SHUFFLE_SEED));
        let refit = BradleyTerry::default().fit(&PairCounts::from_log(&reordered))?;
        let identical = names.iter().all(|name| {
            let (x, y) = (log.models().get(name), reordered.models().get(name));
            matches!((x, y), (Some(x), Some(y)) if newton.beta[x.index()].to_bits() == refit.beta[y.index()].to_bits())
        });
        writeln!(
            out,
            "  shuffled battles: Bradley–Terry strengths {}\n",
            if identical {
                "bit-identical"
            } else {
                "DIFFERENT (a bug)"
            }
        )?;
    }

    let settings = RankSettings {
        matrices: true,
        ..RankSettings::default()
    };
    let report = rank(&log, "tutorial-arena.csv", &settings, &|| {})?;
    writeln!(
        out,
        "verdict rank tutorial-arena.csv --matrix  (the converged fit, 95% bootstrap intervals)\n"
    )?;
    out.push_str(&render_table(&report));
    Ok((out, report))
}
