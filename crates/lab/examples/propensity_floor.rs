//! How the propensity floor trades bias for variance in NashEval's pseudo-outcomes
//! (Eq. 42) on the arena world, with the *true* nuisances so that nothing but the
//! floor differs: for each floor, the bias of `Γ_jk` against the true payoff `A_jk`
//! (averaged over contexts, then the root mean square over pairs) and its variance.
//!
//! ```sh
//! cargo run --release -p verdict --example propensity_floor -- [CONTEXTS] [SEED]
//! ```

use verdict::io::{read_contextual_log, ContextualOptions, Source};
use verdict::nasheval::payoff::pseudo_outcomes;
use verdict::nasheval::{menu_floors, AggregatorKind, Nuisances, PairMap};
use verdict_lab::simulation::{write_arena, ArenaSimulation, Split, Truth};
use verdict_lab::worlds::arena_world::ArenaWorldSettings;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let contexts: usize = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(70), |a| a.parse())?;
    let dir = tempfile::tempdir()?;
    let sim = dir.path().join("arena");
    write_arena(
        &ArenaSimulation {
            world: ArenaWorldSettings {
                seed,
                ..ArenaWorldSettings::default()
            },
            contexts,
            test_contexts: 1,
            rho: 0.0,
            training_truth: true,
        },
        &sim,
    )?;
    let mut log = read_contextual_log(
        &Source::File(sim.join("contexts.parquet")),
        &Source::File(sim.join("feedback.parquet")),
        &ContextualOptions {
            text_column: Some("prompt".into()),
            ..ContextualOptions::default()
        },
    )?;
    log.hold_every_pair();
    let truth = Truth::open(&sim, Split::Training)?;
    let nuisances = truth.nuisances_for(&log)?;
    let pairs = PairMap::new(log.agents.len(), &log.menus, AggregatorKind::Mean)?;
    // The true payoff of every (context, pair) in the pair map's order.
    let k = truth.agents().len();
    let index: Vec<usize> = log
        .agents
        .iter()
        .map(|a| {
            truth
                .agents()
                .iter()
                .position(|t| t == a)
                .expect("same agents")
        })
        .collect();
    let row_of: std::collections::HashMap<&str, usize> = truth
        .ids
        .iter()
        .enumerate()
        .map(|(r, id)| (id.as_str(), r))
        .collect();
    let target: Vec<f64> = log
        .contexts
        .iter()
        .flat_map(|id| {
            let r = row_of[id.as_str()];
            let index = &index;
            let payoff = &truth.payoff;
            pairs
                .pairs
                .iter()
                .map(move |&(a, b)| payoff[r * k * k + index[a] * k + index[b]])
        })
        .collect();
    let menus = log.menus.len();
    let npairs = pairs.pairs.len();
    println!(
        "{} contexts, {} menus, seed {seed}",
        log.contexts.len(),
        menus
    );
    println!(
        "floor\tclipped share\tbias (rms over pairs)\tnoise of that rms\tvariance (mean over pairs)\tmse"
    );
    for (name, absolute, share) in [
        ("none", 1e-12, 0.0),
        ("0.01", 0.01, 0.0),
        ("min(0.01, 0.1 rate)", 0.01, 0.1),
        ("min(0.01, 0.5 rate)", 0.01, 0.5),
    ] {
        let floors = menu_floors(&log, absolute, share);
        let mut clipped = 0usize;
        let propensity: Vec<f64> = nuisances
            .propensity
            .iter()
            .zip(&log.feedback)
            .map(|(&e, record)| {
                let f = floors[record.menu];
                clipped += usize::from(e < f);
                e.max(f)
            })
            .collect();
        let gamma = pseudo_outcomes(
            &log,
            &pairs,
            &Nuisances {
                propensity,
                outcome: nuisances.outcome.clone(),
            },
        );
        let n = log.contexts.len() as f64;
        let (mut bias2, mut variance) = (0.0, 0.0);
        for p in 0..npairs {
            let errors: Vec<f64> = (0..log.contexts.len())
                .map(|i| gamma[i * npairs + p] - target[i * npairs + p])
                .collect();
            let mean = errors.iter().sum::<f64>() / n;
            bias2 += mean * mean / npairs as f64;
            variance += errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / n / npairs as f64;
        }
        // An unbiased Γ still shows an rms of means near sqrt(variance / n).
        println!(
            "{name}\t{:.3}\t{:.4}\t{:.4}\t{:.3}\t{:.3}",
            clipped as f64 / nuisances.propensity.len() as f64,
            bias2.sqrt(),
            (variance / n).sqrt(),
            variance,
            bias2 + variance
        );
    }
    Ok(())
}
