//! `verdict rank`: flags → settings → [`verdict::rank::rank`] → rendered output.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use verdict::equilibrium::EquilibriumSettings;
use verdict::io::{
    counts_table_csv, read_battles, BattleSchema, LoadedBattles, ReadOptions, Source,
};
use verdict::rank_params::RankParams;
use verdict::rank_request::{rank_request, RankInput, RankRequest};
use verdict::report::{plot_leaderboard, rank_html, render_csv, render_table, RankReport};

use crate::args::{EquilibriumArgs, LogArgs, OutputFormat, RankArgs};
use crate::output::emit;
use crate::progress;

/// The input the flags name ("-" is standard input, read whole).
fn input_source(input: &LogArgs) -> anyhow::Result<Source> {
    Ok(if input.log == Path::new("-") {
        let format = input
            .input_format
            .context("reading standard input needs --input-format csv|jsonl|json|parquet|arrow")?;
        let mut data = Vec::new();
        std::io::stdin()
            .read_to_end(&mut data)
            .context("cannot read standard input")?;
        let label = match format {
            verdict::io::Format::Csv => "<stdin>.csv",
            verdict::io::Format::JsonLines => "<stdin>.jsonl",
            verdict::io::Format::Json => "<stdin>.json",
            verdict::io::Format::Parquet => "<stdin>.parquet",
            verdict::io::Format::Arrow => "<stdin>.arrow",
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
        keep: Vec::new(),
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

/// Equilibrium settings from the flags, reading the cost file if one is named.
pub fn equilibrium_settings(args: &EquilibriumArgs) -> anyhow::Result<EquilibriumSettings> {
    Ok(EquilibriumSettings {
        rho: args.rho,
        costs: args.costs.costs_table()?,
        budget: args.costs.budget,
        max_entropy: args.max_entropy,
        soft_budget: args.costs.soft_budget_prices(),
    })
}

/// The flags as the ranking's settings document (the cost file read).
pub fn params(args: &RankArgs) -> anyhow::Result<RankParams> {
    let input = &args.input;
    let costs = &args.equilibrium.costs;
    Ok(RankParams {
        method: args.method,
        model_a_col: input.model_a_col.clone(),
        model_b_col: input.model_b_col.clone(),
        winner_col: input.winner_col.clone(),
        input_format: input.input_format,
        filter: input.filters.clone(),
        order_by: input.order_by.clone(),
        skip_self_battles: input.skip_self_battles,
        group_by: input.group_by.clone(),
        weight_col: input.weight_col.clone(),
        k: args.k,
        initial: args.initial,
        shuffle_seed: args.shuffle_seed,
        ties: args.ties,
        solver: args.solver,
        l2: args.l2,
        tol: args.tol,
        max_iter: args.max_iter,
        anchor: args.anchor.as_ref().map(|a| (a.model.clone(), a.rating)),
        mean: args.mean,
        bootstrap: args.bootstrap,
        ci: args.ci,
        seed: args.seed,
        matrix: args.matrix,
        allow_unobserved: args.allow_unobserved,
        unobserved: args.unobserved,
        completion_rank: args.completion_rank,
        fragility: args.fragility,
        both_bad: args.both_bad,
        alpha: args.alpha,
        population: args.population,
        robust: args.robust,
        radius: args.radius,
        rho: args.equilibrium.rho,
        costs: costs.costs_table()?,
        budget: costs.budget,
        soft_budget: costs.soft_budget,
        price: costs.price,
        surcharge: costs.surcharge,
        width: costs.width,
        max_entropy: args.equilibrium.max_entropy,
        warm: args.warm.clone(),
        judge_col: args.hygiene.judge_col.clone(),
        time_col: args.hygiene.time_col.clone(),
        prompt_col: args.hygiene.prompt_col.clone(),
        collapse_duplicates: args.hygiene.collapse_duplicates,
        max_votes_per_judge_day: args.hygiene.max_votes_per_judge_day,
        outlier_alpha: args.hygiene.outlier_alpha,
        covariates: args.covariates.covariates.clone(),
        style_control: args.covariates.style_control,
        covariate_penalty: args.covariates.covariate_penalty,
        pair_weights: args.covariates.pair_weights,
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

/// The request the flags make ("-" is standard input, read whole).
fn request(args: &RankArgs, params: &RankParams) -> anyhow::Result<RankRequest> {
    let input = if args.input.log == Path::new("-") {
        RankInput::Table(input_source(&args.input)?)
    } else {
        RankInput::path(&args.input.log)
    };
    let mut settings = params.settings()?;
    // A page draws the matrices whether or not the printed output shows them.
    settings.matrices |= args.report.is_some();
    Ok(RankRequest {
        input,
        reading: params.reading(),
        settings,
        // A page with --group-by shows each group's own board too.
        group_boards: args.report.is_some(),
    })
}

pub fn run(args: Box<RankArgs>, quiet: bool) -> anyhow::Result<()> {
    let out = crate::output::outputs().optional(args.out.as_deref(), "--out");
    let page = crate::output::outputs().optional_page(args.report.as_deref(), "--report");
    let plot = crate::output::outputs().optional(args.plot.as_deref(), "--plot");
    let state = crate::output::outputs().optional(args.save_counts.as_deref(), "--save-counts");
    let dropped = crate::output::outputs().optional(args.hygiene.dropped.as_deref(), "--dropped");
    let mut inputs = vec![args.input.log.as_path()];
    inputs.extend(args.warm.as_deref());
    verdict::outputs::Outputs::check_with_inputs(
        &[
            out.clone(),
            page.clone(),
            plot.clone(),
            state.clone(),
            dropped.clone(),
        ],
        &inputs,
    )?;
    let request = request(&args, &params(&args)?)?;
    let bar = progress::bar(request.settings.bootstrap_rounds(), "bootstrap", quiet);
    let ranked = rank_request(&request, &|| bar.inc(1))?;
    bar.finish_and_clear();
    note_self_battles(ranked.self_battles_skipped);
    let report = &ranked.report;
    // Matrices computed only for the page are not printed.
    let stripped;
    let printed = if args.matrix || args.report.is_none() {
        report
    } else {
        stripped = report.without_matrices();
        &stripped
    };
    let text = render(printed, args.format)?;
    let source = request.input.shown_name();
    // Every output is made before any is written: a state that cannot be saved
    // leaves no page or board behind.
    let state_bytes = match (&state, &ranked.counts) {
        (None, _) => None,
        (Some(file), Some(counts)) => Some(counts_table_csv(
            counts.models.names(),
            &counts.counts,
            &file.path().display().to_string(),
        )?),
        (Some(_), None) => anyhow::bail!(
            "--save-counts saves pair counts, which this ranking does not read (it reads the battles: Elo, an order, groups, weights, hygiene or covariates)"
        ),
    };
    let dropped_bytes = match (&dropped, &ranked.dropped_rows) {
        (None, _) => None,
        (Some(_), Some(bytes)) => Some(bytes),
        (Some(_), None) => anyhow::bail!(
            "--dropped writes the rows vote hygiene drops; ask for a step (--collapse-duplicates, --max-votes-per-judge-day, --outlier-alpha)"
        ),
    };
    if let Some(page) = &page {
        let title = format!("verdict rank {source}");
        let groups = args
            .input
            .group_by
            .as_deref()
            .filter(|_| !ranked.group_boards.is_empty())
            .map(|column| (column, ranked.group_boards.as_slice()));
        verdict::page::write_page(page, &rank_html(report, &title, groups))?;
    }
    if let Some(plot) = &plot {
        let first = report.outputs()[0];
        let title = format!("{} ({} battles)", first.leaderboard.method, first.battles);
        plot_leaderboard(plot, &first.leaderboard, &title)?;
    }
    if let (Some(file), Some(bytes)) = (&state, &state_bytes) {
        file.write_bytes(bytes)?;
    }
    if let (Some(file), Some(bytes)) = (&dropped, dropped_bytes) {
        file.write_bytes(bytes)?;
    }
    emit(&text, out.as_ref())
}
