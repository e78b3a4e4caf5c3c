//! `verdict bench`: per-stage timings of `verdict rank`, `game` and `predict`; the
//! research benchmarks are the lab's ([`verdict_lab::commands::LabBench`]).

use std::time::Instant;

use verdict::ratings::{bootstrap, Bootstrap, BradleyTerry, EloScale, PairCounts};
use verdict_lab::commands::{median_seconds, Shell};

use crate::args::{BenchCommand, BenchLotteryArgs, BenchRankArgs, OutputFormat};
use crate::progress;
use crate::rank::load;

pub fn run(command: BenchCommand, shell: Shell) -> anyhow::Result<()> {
    match command {
        BenchCommand::Rank(args) => stages(&args, shell.quiet),
        BenchCommand::Lottery(args) => lottery(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Predict(args) => predict(&args),
        #[cfg(feature = "nasheval")]
        BenchCommand::Encoder(args) => encoder(&args),
        #[cfg(feature = "serve")]
        BenchCommand::Serve(args) => crate::serve::bench(&args),
        BenchCommand::Lab(command) => verdict_lab::commands::run_bench(command, shell),
    }
}

fn seconds(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

fn stages(args: &BenchRankArgs, quiet: bool) -> anyhow::Result<()> {
    anyhow::ensure!(args.repeat > 0, "--repeat must be at least 1");
    anyhow::ensure!(
        args.input.weight_col.is_none(),
        "bench rank times the unweighted fit; drop --weight-col"
    );
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
    let rounds = Bootstrap {
        rounds: args.bootstrap,
        seed: 0,
    };
    if args.bootstrap > 0 {
        let scale = EloScale::default();
        bootstrap(&settings, &counts, &fit, &scale, &rounds, &|| bar.inc(1))?;
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

#[cfg(feature = "nasheval")]
/// `verdict bench encoder`: loading, a batch on every core, and one text at a time on
/// this thread, timed separately; one JSON line.
fn encoder(args: &crate::args::BenchEncoderArgs) -> anyhow::Result<()> {
    use verdict::io::{read_table, Source, TextEncoder};
    let table = read_table(&Source::File(args.texts.clone()), None, None)?;
    let column = table.required(&args.text_col, "name the column of texts with --text-col")?;
    let texts: Vec<&str> = (0..table.rows())
        .map(|row| column.value(row).unwrap_or(""))
        .collect();
    let (load, encoder) =
        median_seconds(args.runs, || Ok(TextEncoder::load(&args.encoder, false)?))?;
    let (batch, _) = median_seconds(args.runs, || {
        encoder
            .0
            .embed_all(&texts)
            .map_err(|(row, e)| anyhow::anyhow!("text {row}: {e}"))
    })?;
    let mut single = Vec::with_capacity(texts.len());
    for text in &texts {
        let started = std::time::Instant::now();
        let vector = encoder.0.embed(text).map_err(|e| anyhow::anyhow!(e))?;
        single.push(started.elapsed().as_secs_f64());
        std::hint::black_box(vector);
    }
    single.sort_by(f64::total_cmp);
    let quantile = |q: f64| single[((single.len() - 1) as f64 * q).round() as usize];
    let value = serde_json::json!({
        "texts": texts.len(),
        "dim": encoder.0.dim(),
        "threads": rayon::current_num_threads(),
        "load_seconds": load,
        "batch_seconds": batch,
        "texts_per_second": texts.len() as f64 / batch,
        "single_p50_ms": quantile(0.5) * 1e3,
        "single_p99_ms": quantile(0.99) * 1e3,
        "runs": args.runs.max(1),
    });
    println!("{value}");
    Ok(())
}

#[cfg(feature = "nasheval")]
/// `verdict bench predict`: load, read and predict, timed separately.
fn predict(args: &crate::args::BenchPredictArgs) -> anyhow::Result<()> {
    let (load, model) = median_seconds(args.runs, || {
        Ok(verdict::model_file::load_model(&args.model)?)
    })?;
    let (read, (table, features)) = median_seconds(args.runs, || {
        crate::predict::model_features(&model, &args.contexts)
    })?;
    let (policy, policies) = median_seconds(args.runs, || Ok(model.policy(&features)?))?;
    println!(
        "{} contexts, {:?} policy: load {:.1} ms, read contexts {:.1} ms, predict {:.1} ms (median of {} runs; {} probabilities)",
        table.ids.len(),
        model.options.policy,
        load * 1e3,
        read * 1e3,
        policy * 1e3,
        args.runs.max(1),
        policies.len()
    );
    Ok(())
}
