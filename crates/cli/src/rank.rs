//! `verdict rank`: flags → settings → [`verdict::rank::rank`] → rendered output.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use verdict::equilibrium::EquilibriumSettings;
use verdict::io::{
    dataset_files, read_battles, read_costs, read_pair_counts, read_rankings, BattleSchema,
    IoError, LoadedBattles, LoadedCounts, ReadOptions, Source,
};
use verdict::plackett_luce::rank_rankings;
use verdict::rank::{
    rank_counts, rank_each_group, rank_with_groups, BattleGroups, EloOrder, Intervals, Method,
    RankSettings,
};
use verdict::ratings::{Bootstrap, BradleyTerry, CovariateBradleyTerry, Elo};
use verdict::report::{plot_leaderboard, rank_html, render_csv, render_table, RankReport};
use verdict::style::{rank_with_covariates, read_covariate_log, CovariateRequest};

use crate::args::{CovariateArgs, EquilibriumArgs, LogArgs, OutputFormat, RankArgs};
use crate::output::emit;
use crate::progress;

/// The input the flags name ("-" is standard input, read whole).
fn input_source(input: &LogArgs) -> anyhow::Result<Source> {
    Ok(if input.log == Path::new("-") {
        let format = input
            .input_format
            .context("reading standard input needs --input-format csv|jsonl|json|parquet")?;
        let mut data = Vec::new();
        std::io::stdin()
            .read_to_end(&mut data)
            .context("cannot read standard input")?;
        let label = match format {
            verdict::io::Format::Csv => "<stdin>.csv",
            verdict::io::Format::JsonLines => "<stdin>.jsonl",
            verdict::io::Format::Json => "<stdin>.json",
            verdict::io::Format::Parquet => "<stdin>.parquet",
        };
        Source::Bytes {
            label: label.into(),
            data,
        }
    } else {
        Source::File(input.log.clone())
    })
}

/// The reader's options from the flags.
fn read_options(input: &LogArgs) -> ReadOptions {
    ReadOptions {
        format: input.input_format,
        schema: BattleSchema::named(
            input.model_a_col.clone(),
            input.model_b_col.clone(),
            input.winner_col.clone(),
        ),
        filters: input.filters.clone(),
        order_by: input.order_by.clone(),
        keep: input.group_by.iter().cloned().collect(),
        skip_self_battles: input.skip_self_battles,
    }
}

fn note_self_battles(skipped: usize) {
    if skipped > 0 {
        eprintln!("note: skipped {skipped} rows where a model battles itself");
    }
}

/// Reads the battle log the flags name ("-" is standard input).
pub fn load(input: &LogArgs) -> anyhow::Result<LoadedBattles> {
    let loaded = read_battles(&input_source(input)?, &read_options(input))?;
    note_self_battles(loaded.self_battles_skipped);
    Ok(loaded)
}

/// The covariates the flags ask for.
fn covariate_request(args: &CovariateArgs) -> CovariateRequest {
    CovariateRequest {
        columns: args.covariates.clone(),
        style_control: args.style_control,
    }
}

/// `--covariates` / `--style-control`: Bradley–Terry with covariates.
fn rank_covariate_log(
    args: &RankArgs,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> anyhow::Result<RankReport> {
    if args.input.group_by.is_some() || args.robust {
        anyhow::bail!("--covariates and --style-control fit one Bradley–Terry board; drop --group-by/--robust");
    }
    let path = &args.input.log;
    if !path.is_file() && path != Path::new("-") {
        anyhow::bail!(
            "{}: --covariates and --style-control read one file (every battle with its covariates); a directory or glob is read as pair counts, which keep none",
            path.display()
        );
    }
    let log = read_covariate_log(
        &input_source(&args.input)?,
        &read_options(&args.input),
        &covariate_request(&args.covariates),
    )?;
    note_self_battles(log.loaded.self_battles_skipped);
    let model = CovariateBradleyTerry {
        reg: args.covariates.covariate_penalty,
        pair_weights: args.covariates.pair_weights,
        ..CovariateBradleyTerry::default()
    };
    Ok(rank_with_covariates(
        &log.loaded.log,
        &log.names,
        &log.columns,
        &model,
        source,
        settings,
        on_round,
    )?)
}

/// Whether the log is read as pair counts: always for a directory or a glob (a
/// dataset), and for Bradley–Terry and the plain lottery on any file, which read
/// nothing else — Parquet files are then streamed, and counts tables accepted. Elo,
/// `--method all`, the robust lottery and an order need the battles themselves.
fn reads_counts(args: &RankArgs) -> bool {
    let path = &args.input.log;
    let dataset = !path.is_file() && path != Path::new("-");
    let counts_suffice = matches!(args.method, Method::BradleyTerry | Method::Lottery)
        && !args.robust
        && args.input.order_by.is_none()
        && args.input.group_by.is_none();
    dataset || (counts_suffice && path != Path::new("-"))
}

/// Reads the log (file, directory or glob) the flags name as pair counts.
fn load_counts(input: &LogArgs) -> anyhow::Result<LoadedCounts> {
    let files = dataset_files(&input.log)?;
    // Counts keep no order and no columns beside the battles.
    let options = ReadOptions {
        order_by: None,
        keep: Vec::new(),
        ..read_options(input)
    };
    let loaded = read_pair_counts(&files, &options)?;
    note_self_battles(loaded.self_battles_skipped);
    Ok(loaded)
}

/// Equilibrium settings from the flags, reading the cost file if one is named.
pub fn equilibrium_settings(args: &EquilibriumArgs) -> anyhow::Result<EquilibriumSettings> {
    let costs = match &args.costs.costs {
        Some(path) => Some(read_costs(&Source::File(path.clone()), None)?),
        None => None,
    };
    Ok(EquilibriumSettings {
        rho: args.rho,
        costs,
        budget: args.costs.budget,
        max_entropy: args.max_entropy,
        soft_budget: args.costs.soft_budget_prices(),
    })
}

/// Library settings from the flags.
pub fn settings(args: &RankArgs) -> anyhow::Result<RankSettings> {
    Ok(RankSettings {
        method: args.method,
        bradley_terry: BradleyTerry {
            ties: args.ties,
            solver: args.solver,
            tol: args.tol,
            max_iter: args.max_iter,
            l2: args.l2,
        },
        elo: Elo {
            initial: args.initial,
            k: args.k,
            ..Elo::default()
        },
        elo_order: match (args.shuffle_seed, &args.input.order_by) {
            (Some(seed), _) => EloOrder::Shuffled(seed),
            (None, Some(column)) => EloOrder::SortedBy(column.clone()),
            (None, None) => EloOrder::Log,
        },
        mean_rating: args.mean,
        anchor: args.anchor.as_ref().map(|a| (a.model.clone(), a.rating)),
        intervals: if args.ci.sandwich {
            Intervals::Sandwich
        } else if args.bootstrap == Some(0) {
            Intervals::None
        } else {
            Intervals::Bootstrap(Bootstrap {
                rounds: args.bootstrap.unwrap_or(Bootstrap::default().rounds),
                seed: args.seed,
            })
        },
        lottery_bootstrap: args.bootstrap.is_some_and(|rounds| rounds > 0),
        confidence: args.ci.level,
        matrices: args.matrix,
        allow_unobserved: args.allow_unobserved,
        equilibrium: equilibrium_settings(&args.equilibrium)?,
        robust: args.robust.then_some(args.radius),
    })
}

/// `--method plackett-luce`: the rankings of a feedback table (menu, modality,
/// response). The battle-log flags do not apply and are refused by name.
fn rank_feedback_table(
    input: &LogArgs,
    source: &str,
    settings: &RankSettings,
    on_round: &(dyn Fn() + Sync),
) -> anyhow::Result<RankReport> {
    let battle_flags = [
        ("--filter", !input.filters.is_empty()),
        ("--order-by", input.order_by.is_some()),
        ("--group-by", input.group_by.is_some()),
        ("--model-a-col", input.model_a_col.is_some()),
        ("--model-b-col", input.model_b_col.is_some()),
        ("--winner-col", input.winner_col.is_some()),
        ("--skip-self-battles", input.skip_self_battles),
    ];
    if let Some((flag, _)) = battle_flags.iter().find(|(_, given)| *given) {
        anyhow::bail!(
            "{flag} applies to battle logs; --method plackett-luce reads a feedback table (menu, modality, response)"
        );
    }
    let loaded = read_rankings(&input_source(input)?, input.input_format)?;
    Ok(rank_rankings(
        &loaded.models,
        loaded.rankings,
        source,
        settings,
        on_round,
    )?)
}

/// Each battle's group from the --group-by column; a battle without a value is an
/// error at its row.
fn battle_groups(loaded: &LoadedBattles, column: &str) -> anyhow::Result<BattleGroups> {
    let values = loaded
        .metadata
        .column(column)
        .with_context(|| format!("column {column:?} was not read"))?;
    let mut of_battle = Vec::with_capacity(values.len());
    for row in 0..values.len() {
        let code = values.code(row).ok_or_else(|| {
            IoError::invalid(
                loaded.metadata.location(row, Some(column)),
                "missing group; every battle needs one for --group-by",
            )
        })?;
        of_battle.push(code);
    }
    Ok(BattleGroups {
        names: values.dictionary().to_vec(),
        of_battle,
    })
}

/// Renders a report in the requested format.
pub fn render(report: &RankReport, format: OutputFormat) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Table => render_table(report),
        OutputFormat::Json => {
            let mut text = serde_json::to_string_pretty(report)?;
            text.push('\n');
            text
        }
        OutputFormat::Csv => render_csv(report)?,
    })
}

pub fn run(args: Box<RankArgs>, quiet: bool) -> anyhow::Result<()> {
    let out = crate::output::optional(args.out.as_deref(), "--out");
    let page = crate::output::report(args.report.as_deref());
    let plot = crate::output::optional(args.plot.as_deref(), "--plot");
    crate::output::check_with_inputs(
        &[out.clone(), page.clone(), plot.clone()],
        &[args.input.log.as_path()],
    )?;
    let mut settings = settings(&args)?;
    // A page draws the matrices whether or not the printed output shows them.
    settings.matrices |= args.report.is_some();
    let bar = progress::bar(settings.bootstrap_rounds(), "bootstrap", quiet);
    let source = verdict::page::shown_name(&args.input.log);
    let mut group_boards = Vec::new();
    let report = if args.method == Method::PlackettLuce {
        rank_feedback_table(&args.input, &source, &settings, &|| bar.inc(1))?
    } else if !covariate_request(&args.covariates).is_empty() {
        rank_covariate_log(&args, &source, &settings, &|| bar.inc(1))?
    } else if reads_counts(&args) {
        let loaded = load_counts(&args.input)?;
        rank_counts(&loaded.models, &loaded.counts, &source, &settings, &|| {
            bar.inc(1)
        })?
    } else {
        let loaded = load(&args.input)?;
        let groups = match &args.input.group_by {
            Some(column) => Some(battle_groups(&loaded, column)?),
            None => None,
        };
        let report = rank_with_groups(&loaded.log, groups.as_ref(), &source, &settings, &|| {
            bar.inc(1)
        })?;
        // A page with --group-by shows each group's own board too.
        if let (Some(groups), true) = (&groups, args.report.is_some()) {
            group_boards = rank_each_group(&loaded.log, groups, &source, &settings)?;
        }
        report
    };
    bar.finish_and_clear();
    // Matrices computed only for the page are not printed.
    let stripped;
    let printed = if args.matrix || args.report.is_none() {
        &report
    } else {
        stripped = report.without_matrices();
        &stripped
    };
    let text = crate::flags::in_flags(&render(printed, args.format)?);
    if let Some(page) = &page {
        let title = format!("verdict rank {source}");
        let groups = args
            .input
            .group_by
            .as_deref()
            .filter(|_| !group_boards.is_empty())
            .map(|column| (column, group_boards.as_slice()));
        crate::output::write_page(page, &rank_html(&report, &title, groups))?;
    }
    if let Some(plot) = &plot {
        let first = report.outputs()[0];
        let title = format!("{} ({} battles)", first.leaderboard.method, first.battles);
        plot_leaderboard(plot, &first.leaderboard, &title)?;
    }
    emit(&text, out.as_ref())
}
