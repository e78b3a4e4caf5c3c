//! The lab's commands — `verdict demo`, `simulate`, `evaluate` and the research
//! benchmarks of `verdict bench` — with their flags ([`LabCommand`], [`LabBench`]),
//! which the product's command line mounts beside its own (feature `commands`). Each
//! turns its flags into the lab's settings, makes its call, and prints the result.

mod args;
#[cfg(feature = "nasheval")]
mod evaluate;
#[cfg(feature = "nasheval")]
mod experiments;
#[cfg(feature = "nasheval")]
mod simulate;
mod synthetic;

use std::time::Instant;

pub use args::*;
use verdict::outputs::Outputs;

/// What a lab command runs with: the face's quietness and the run's outputs.
#[derive(Debug, Clone, Copy)]
pub struct Shell {
    /// Print no progress.
    pub quiet: bool,
    /// The outputs' policy (`--force`).
    pub outputs: Outputs,
}

/// Runs one of the lab's top-level commands.
///
/// # Errors
/// The command's failure, with its cause.
pub fn run(command: LabCommand, shell: Shell) -> anyhow::Result<()> {
    match command {
        LabCommand::Demo(args) => demo(&args, shell),
        #[cfg(feature = "nasheval")]
        LabCommand::Simulate(args) => simulate::run(&args),
        #[cfg(feature = "nasheval")]
        LabCommand::Evaluate(args) => evaluate::run(&args, shell),
    }
}

/// Runs one of the lab's benchmarks.
///
/// # Errors
/// The benchmark's failure, with its cause.
pub fn run_bench(command: LabBench, shell: Shell) -> anyhow::Result<()> {
    match command {
        LabBench::Arena(args) => synthetic::arena(&args, shell),
        LabBench::DecisionLog(args) => synthetic::decision_log(&args),
        LabBench::Judges(args) => synthetic::judges(&args, shell),
        #[cfg(feature = "nasheval")]
        LabBench::Nasheval(args) => experiments::run(&args),
        #[cfg(feature = "nasheval")]
        LabBench::Summary(args) => experiments::summary(&args, shell),
        #[cfg(feature = "nasheval")]
        LabBench::Cost(args) => experiments::cost(&args, shell),
        #[cfg(feature = "nasheval")]
        LabBench::Route(args) => experiments::route(&args, shell),
        #[cfg(feature = "nasheval")]
        LabBench::Real(args) => experiments::real(&args),
        #[cfg(feature = "nasheval")]
        LabBench::Router(args) => experiments::router(&args),
        #[cfg(feature = "nasheval")]
        LabBench::Baselines(args) => experiments::baselines(&args),
        #[cfg(feature = "nasheval")]
        LabBench::Network(args) => experiments::network(&args),
    }
}

/// `verdict demo`: the tour of all three parts ([`crate::tour`]), printed, and its
/// page written to `--out` (by default `demo-report.html`).
fn demo(args: &DemoArgs, shell: Shell) -> anyhow::Result<()> {
    let progress = |part: &str| {
        if !shell.quiet {
            eprintln!("verdict demo: {part}");
        }
    };
    let page = shell.outputs.page(&args.out, "--out");
    page.check()?;
    let tour = crate::tour::tour(&progress)?;
    verdict::page::write_page(&page, &tour.page)?;
    print!("{}", tour.text);
    println!(
        "\nThe report of all of it: {} (one self-contained page; open it in a browser)",
        args.out.display()
    );
    Ok(())
}

/// Median seconds of `runs` calls of `f` (at least one), with the last result.
///
/// # Errors
/// The first failing call's.
pub fn median_seconds<T>(
    runs: usize,
    mut f: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        last = Some(f()?);
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], last.expect("at least one run")))
}
