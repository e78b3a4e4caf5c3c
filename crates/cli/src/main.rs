//! `verdict`: evaluate LLMs and other agents from relative feedback.
//!
//! A thin layer: each subcommand turns its flags into library settings, makes one
//! library call, and renders the result. Errors print their cause chain, with the
//! library's settings spelled as flags, and exit 2.

mod args;
#[cfg(feature = "nasheval")]
mod args_contextual;
mod bench;
#[cfg(feature = "nasheval")]
mod embed;
#[cfg(feature = "nasheval")]
mod fit;
mod flags;
mod game;
mod judges;
#[cfg(feature = "nasheval")]
mod log;
#[cfg(feature = "nasheval")]
mod ope;
mod output;
#[cfg(feature = "nasheval")]
mod predict;
mod progress;
mod rank;
mod report;
#[cfg(feature = "serve")]
mod serve;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    // Messages name settings as this face spells them: flags. A server's answers go
    // to HTTP clients, whose requests carry the library's names (`text_column`, not
    // `--text-col`): it keeps the library's spelling.
    #[cfg(feature = "serve")]
    let spells_flags = !matches!(cli.command, Command::Serve(_));
    #[cfg(not(feature = "serve"))]
    let spells_flags = true;
    if spells_flags {
        verdict::settings::spell_settings(flags::flag);
    }
    output::set_force(cli.force);
    let shell = verdict_lab::commands::Shell {
        quiet: cli.quiet,
        outputs: output::outputs(),
    };
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))?;
    }
    match cli.command {
        Command::Rank(args) => rank::run(args, cli.quiet)?,
        Command::Game(args) => game::run(&args)?,
        Command::Report(args) => report::run(&args)?,
        Command::Judge(args) => judges::run(&args, cli.quiet)?,
        #[cfg(feature = "nasheval")]
        Command::Log(args) => log::run(&args)?,
        #[cfg(feature = "nasheval")]
        Command::Fit(args) => fit::run(&args, cli.quiet)?,
        #[cfg(feature = "nasheval")]
        Command::Predict(args) => predict::run(&args)?,
        #[cfg(feature = "nasheval")]
        Command::Embed(args) => embed::run(&args)?,
        #[cfg(feature = "nasheval")]
        Command::Ope(args) => ope::run(&args)?,
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(&args)?,
        Command::Bench(args) => bench::run(args, shell)?,
        Command::Lab(command) => verdict_lab::commands::run(command, shell)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The error and its causes joined by ": ", leaving out a cause whose text the message
/// already carries (an I/O error's own text is often part of its context).
fn message(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if text.is_empty() {
            text = part;
        } else if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

/// Keeps the default panic report, except for the parquet crate's assertions on
/// damaged files: the reader catches those and reports the damaged file itself.
fn quiet_parquet_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_parquet = info
            .location()
            .is_some_and(|l| l.file().contains("/parquet-"));
        if !in_parquet {
            report(info);
        }
    }));
}

fn main() -> ExitCode {
    quiet_parquet_panics();
    match run() {
        Ok(code) => code,
        Err(error) => {
            let broken_pipe = error.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", message(&error));
            ExitCode::from(2)
        }
    }
}
