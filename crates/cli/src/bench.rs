//! `verdict bench`: synthetic arena logs and per-stage timings of `verdict rank`.

use std::time::Instant;

use verdict::io::{write_battles, StagedDir};
use verdict::ratings::{bootstrap_bradley_terry, Bootstrap, BradleyTerry, EloScale, PairCounts};
use verdict_lab::worlds::ArenaSimulation;

use crate::args::{ArenaArgs, BenchCommand, BenchLotteryArgs, BenchRankArgs, OutputFormat};
use crate::progress;
use crate::rank::load;
use crate::timing::median_seconds;

pub fn run(command: BenchCommand, quiet: bool) -> anyhow::Result<()> {
    match command {
        BenchCommand::Arena(args) => arena(&args),
        BenchCommand::Rank(args) => stages(&args, quiet),
        BenchCommand::Lottery(args) => lottery(&args),
        BenchCommand::Judges(args) => crate::judges::bench(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Nasheval(args) => crate::bench_nasheval::run(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Summary(args) => crate::bench_nasheval::summary(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Cost(args) => crate::bench_nasheval::cost(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Real(args) => crate::bench_nasheval::real(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Baselines(args) => crate::bench_nasheval::baselines(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Predict(args) => crate::bench_nasheval::predict(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Network(args) => crate::bench_nasheval::network(&args),
    }
}

fn arena(args: &ArenaArgs) -> anyhow::Result<()> {
    let simulation = ArenaSimulation {
        models: args.models,
        battles: args.battles,
        seed: args.seed,
        ..ArenaSimulation::default()
    };
    anyhow::ensure!(
        (1..=args.battles.max(1)).contains(&args.files),
        "--files must lie between 1 and the number of battles"
    );
    let single = (args.files == 1).then(|| crate::output::target(&args.out, "--out"));
    crate::output::check(std::slice::from_ref(&single))?;
    let arena = simulation.simulate()?;
    if let Some(out) = &single {
        out.write_through_path(|temporary| write_battles(temporary, &arena.log))?;
    } else {
        let staged = StagedDir::new(&args.out, "manifest.json")?;
        let per_file = args.battles.div_ceil(args.files);
        let all: Vec<usize> = (0..args.battles).collect();
        for (part, battles) in all.chunks(per_file).enumerate() {
            let file = staged.path().join(format!("part-{part:05}.parquet"));
            write_battles(&file, &arena.log.reordered(battles))?;
        }
        let mut manifest = serde_json::Map::new();
        manifest.insert("command".into(), "bench arena".into());
        manifest.insert("battles".into(), args.battles.into());
        manifest.insert("models".into(), args.models.into());
        manifest.insert("seed".into(), args.seed.into());
        staged.publish(manifest)?;
    }
    eprintln!(
        "wrote {} battles over {} models to {}",
        args.battles,
        args.models,
        args.out.display()
    );
    Ok(())
}

fn seconds(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

fn stages(args: &BenchRankArgs, quiet: bool) -> anyhow::Result<()> {
    anyhow::ensure!(args.repeat > 0, "--repeat must be at least 1");
    let start = Instant::now();
    let loaded = load(&args.input)?;
    let read = seconds(start);
    let start = Instant::now();
    let counts = PairCounts::from_log(&loaded.log);
    let count = seconds(start);
    let settings = BradleyTerry::default();
    let (fit_time, fit) = median_seconds(args.repeat, || Ok(settings.fit(&counts)?))?;
    anyhow::ensure!(
        args.bootstrap <= verdict::rank::MAX_BOOTSTRAP_ROUNDS,
        "--bootstrap {} is more than the {} rounds verdict runs",
        args.bootstrap,
        verdict::rank::MAX_BOOTSTRAP_ROUNDS
    );
    let bar = progress::bar(args.bootstrap, "bootstrap", quiet);
    let start = Instant::now();
    let bootstrap = Bootstrap {
        rounds: args.bootstrap,
        seed: 0,
    };
    if args.bootstrap > 0 {
        bootstrap_bradley_terry(
            &counts,
            &settings,
            &fit,
            &EloScale::default(),
            &bootstrap,
            &|| bar.inc(1),
        )?;
    }
    bar.finish_and_clear();
    let boot = seconds(start);
    let threads = rayon::current_num_threads();
    let rows = [
        ("read", read),
        ("count", count),
        ("fit (median)", fit_time),
        ("bootstrap", boot),
    ];
    match args.format {
        OutputFormat::Json => {
            let value = serde_json::json!({
                "battles": loaded.log.len(),
                "models": counts.models(),
                "pairs": counts.pairs().len(),
                "threads": threads,
                "bootstrap_rounds": args.bootstrap,
                "fit_iterations": fit.iterations,
                "seconds": {"read": read, "count": count, "fit": fit_time, "bootstrap": boot},
            });
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
        _ => {
            println!(
                "{} battles, {} models, {} pairs, {} threads, {} bootstrap rounds",
                loaded.log.len(),
                counts.models(),
                counts.pairs().len(),
                threads,
                args.bootstrap
            );
            for (stage, time) in rows {
                println!("{stage:<14} {time:>9.4} s");
            }
        }
    }
    Ok(())
}

fn lottery(args: &BenchLotteryArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.repeat > 0, "--repeat must be at least 1");
    let source = verdict::io::Source::File(args.matrix.clone());
    let (read_seconds, (_, game)) = median_seconds(args.repeat, || {
        Ok(verdict::equilibrium::read_game(&source)?)
    })?;
    let (seconds, lottery) =
        median_seconds(args.repeat, || Ok(verdict::game::maximal_lottery(&game)?))?;
    let value = serde_json::json!({
        "agents": game.agents(),
        "read_seconds": read_seconds,
        "seconds": seconds,
        "gap": lottery.gap,
        "iterations": lottery.iterations,
        "unique": lottery.unique,
        "repeat": args.repeat,
    });
    println!("{value}");
    Ok(())
}
