//! Command-line flags: raw values as clap parses them. `rank.rs` and `bench.rs` turn
//! them into validated library settings.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};
use verdict::equilibrium::SoftBudgetPrices;
use verdict::io::{Filter, Format};
use verdict::judge_request::JudgeParams;
use verdict::rank::Method;
use verdict::rank_params::Confidence;
use verdict::rank_params::RankParams;
use verdict::ratings::{BothBad, Solver, TieModel, UnobservedPairs};
use verdict_settings::{choice, Choice};

/// `verdict rank`'s defaults: its settings document's (the one place they live).
pub fn rank_defaults() -> RankParams {
    RankParams::default()
}

/// `verdict judge`'s defaults: its settings document's.
pub fn judge_defaults() -> JudgeParams {
    JudgeParams::default()
}

#[cfg(feature = "nasheval")]
pub use crate::args_contextual::*;

/// Evaluate LLMs and other agents from relative feedback.
#[derive(Debug, Parser)]
#[command(name = "verdict", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Hide progress bars.
    #[arg(long, global = true)]
    pub quiet: bool,
    /// Worker threads (default: one per core; 1 to 1024). Results do not depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Let outputs (--out, --plot, --report, model files) replace an existing file
    /// verdict did not write, and write through a symbolic link to the file it names.
    /// Without it such a file is refused and left as it was.
    #[arg(long, global = true)]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Leaderboard from a battle log: Bradley–Terry (default), Elo or the maximal lottery.
    Rank(Box<RankArgs>),
    /// Draw saved results as one self-contained HTML page: the JSON of rank, game or
    /// bench judges (--format json), a judge run's spend ledger, a NashEval model file,
    /// the JSON of evaluate or a bench nasheval results file. One result gets its
    /// command's page; several, a part each.
    Report(ReportArgs),
    /// Maximal lottery of a payoff matrix given as CSV (agent names in the header row
    /// and the first column).
    Game(GameArgs),
    /// Score items with several judges under a budget (Est-IVWE by default), every
    /// call recorded in a ledger so an interrupted run resumes without paying twice.
    Judge(JudgeArgs),
    #[cfg(feature = "nasheval")]
    /// Read and check a contextual feedback log (contexts + feedback, or a battle log
    /// with --context-cols) and summarise it: agents, menus, coverage, features.
    Log(ContextLogArgs),
    #[cfg(feature = "nasheval")]
    /// Learn each context's equilibrium over agents from a contextual log (NashEval):
    /// cross-fitted nuisances, a debiased payoff surface and a gap-loss policy.
    Fit(Box<FitArgs>),
    #[cfg(feature = "nasheval")]
    /// Equilibria and winner sets of a fitted model at new contexts.
    Predict(PredictArgs),
    #[cfg(feature = "nasheval")]
    /// Judge candidate routers on a decision log before they ship: IPS, self-normalised
    /// IPS and doubly robust values with 95% intervals, overlap diagnostics, and each
    /// candidate's paired difference from the first.
    Ope(OpeArgs),
    #[cfg(feature = "nasheval")]
    /// Embed a table's text column with a text encoder (the features a model fitted
    /// with `--encoder` reads): an id and one list of floats per row.
    Embed(EmbedArgs),
    #[cfg(feature = "serve")]
    /// Serve a fitted model over HTTP: predictions, routing under a budget, an
    /// OpenAI-compatible router with fallback, and a decision log for the next fit.
    Serve(ServeArgs),
    /// Benchmarks and benchmark data.
    #[command(subcommand)]
    Bench(BenchCommand),
    #[command(flatten)]
    Lab(verdict_lab::commands::LabCommand),
}

/// `--method` of `verdict judge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JudgeMethod {
    /// Est-IVWE with bounded scores (optimistic variances).
    EstIvwe,
    /// Est-IVWE with the sample variances as they are.
    EstIvweGaussian,
    /// Equal calls for every item and judge.
    Uniform,
    /// Judges chosen per item by successive elimination, then the oracle rule in stages.
    Adaptive,
    /// For judges that share their mistakes: Phase I, the shared errors estimated (with
    /// the judges' families), the rest allocated knowing a second call of a judge is
    /// worth less than a first call of another.
    EstIvweShared,
}

#[derive(Debug, Clone, Args)]
pub struct JudgeArgs {
    /// Items: JSON Lines, one object per item with an "id"; the whole object is what a
    /// command judge receives on stdin.
    #[arg(long, value_name = "FILE")]
    pub items: PathBuf,
    /// Judges: TOML with `range` and [[judge]] tables (name, cost, and one of command, [judge.http], replay, simulate).
    #[arg(long, value_name = "FILE")]
    pub judges: PathBuf,
    /// Total budget B, in the units of the judges' costs.
    #[arg(long)]
    pub budget: f64,
    /// Error norm to optimise: a number >= 1 or inf.
    #[arg(long, default_value = "2")]
    pub p: String,
    /// Spend ledger (JSON Lines); reuse it to resume an interrupted run.
    #[arg(long, value_name = "FILE")]
    pub ledger: PathBuf,
    /// Estimated scores with their intervals: CSV (id, score, std_error, low, high) or,
    /// with `--format json`, the whole result (the mean, the target, the gold report).
    /// With `--plan`, the plan.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// What `--out` holds: csv or json.
    #[arg(long, value_enum, default_value_t = JudgeFormat::Csv)]
    pub format: JudgeFormat,
    /// Confidence level of the intervals (each item's and the mean's).
    #[arg(long, default_value_t = judge_defaults().level)]
    pub level: f64,
    /// Stop once the estimated l_p error of the scores (`||se||_p`) is at most E;
    /// `--budget` is then a cap. With `--plan`, the error to plan for.
    #[arg(long, value_name = "E")]
    pub target_error: Option<f64>,
    /// Only plan: spend a pilot of `--n0` calls of every (item, judge) pair (default:
    /// as many as `--budget` buys) and print the budget `--target-error` needs.
    #[arg(long, requires = "target_error")]
    pub plan: bool,
    /// Gold labels for some items (CSV with columns id, score): a prediction-powered
    /// correction of the mean (PPI++), each judge's bias against them, and the judges'
    /// agreement (Krippendorff's alpha).
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// Write the run as one self-contained HTML page, read from its ledger: spend
    /// against the budget, per judge and per item, and the allocation.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Strategy.
    #[arg(long, value_enum, default_value_t = JudgeMethod::EstIvwe)]
    pub method: JudgeMethod,
    /// Phase-I calls per (item, judge) pair (default: from the budget).
    #[arg(long)]
    pub n0: Option<u64>,
    /// Optimistic bias of Est-IVWE (default: from N0 and delta).
    #[arg(long)]
    pub tau: Option<f64>,
    /// Confidence parameter delta.
    #[arg(long, default_value_t = judge_defaults().delta)]
    pub delta: f64,
    /// Seed for replayed judges.
    #[arg(long, default_value_t = judge_defaults().seed)]
    pub seed: u64,
}

/// What `verdict judge --out` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JudgeFormat {
    /// One row per item: id, score, std_error, low, high.
    Csv,
    /// The whole result as one JSON document.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned text for people.
    Table,
    /// JSON (schema in the verdict-report crate docs).
    Json,
    /// CSV, one row per model.
    Csv,
}

/// `--anchor MODEL=RATING`.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorArg {
    pub model: String,
    pub rating: f64,
}

impl FromStr for AnchorArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (model, rating) = text.rsplit_once('=').ok_or_else(|| {
            format!("{text:?} is not MODEL=RATING (e.g. mixtral-8x7b-instruct-v0.1=1114)")
        })?;
        let rating: f64 = rating
            .trim()
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite())
            .ok_or_else(|| format!("anchor rating {rating:?} is not a finite number"))?;
        if model.is_empty() {
            return Err("the anchor names no model (MODEL=RATING)".into());
        }
        Ok(Self {
            model: model.to_owned(),
            rating,
        })
    }
}

/// Where the battles are.
#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// Battle log: .csv, .jsonl, .json (array) or .parquet; "-" reads standard input; a
    /// directory or quoted glob of Parquet files (Hive key=value directories become
    /// columns) reads as one log. A counts table (model_a, model_b, wins_a, wins_b[,
    /// ties], or winner with count) is read as counts: Bradley–Terry and the lottery
    /// only. With --method plackett-luce: a feedback table of rankings (menu, modality,
    /// response), as NashEval reads.
    pub log: PathBuf,
    /// Input format, overriding the extension (required for standard input).
    #[arg(long, value_name = "csv|jsonl|json|parquet|arrow")]
    pub input_format: Option<Format>,
    /// Keep only rows where COLUMN=VALUE (also COLUMN!=VALUE, COLUMN~TEXT); repeatable.
    #[arg(long = "filter", value_name = "COLUMN=VALUE")]
    pub filters: Vec<Filter>,
    /// Sort battles by this column (e.g. tstamp) before Elo replays them.
    #[arg(long, value_name = "COLUMN")]
    pub order_by: Option<String>,
    /// Column of the first model (default model_a, or left).
    #[arg(long, value_name = "COLUMN")]
    pub model_a_col: Option<String>,
    /// Column of the second model (default model_b, or right).
    #[arg(long, value_name = "COLUMN")]
    pub model_b_col: Option<String>,
    /// Column of the outcome labels (default winner, or one-hot winner_model_a/_b/_tie).
    #[arg(long, value_name = "COLUMN")]
    pub winner_col: Option<String>,
    /// Drop rows where a model battles itself (real dumps have a few) instead of failing.
    #[arg(long)]
    pub skip_self_battles: bool,
    /// Group battles by this column (e.g. category, language) for --robust.
    #[arg(long, value_name = "COLUMN")]
    pub group_by: Option<String>,
    /// Weigh each battle by this column (finite, non-negative; e.g. inverse-propensity
    /// weights for unequal sampling): Bradley–Terry and the lottery maximise the
    /// weighted likelihood, the sandwich uses sum w^2 s s^T, the bootstrap resamples
    /// battles. Elo and the robust lottery take no weights.
    #[arg(long, value_name = "COLUMN")]
    pub weight_col: Option<String>,
}

/// How the maximal lottery's game is solved.
#[derive(Debug, Clone, Args)]
pub struct EquilibriumArgs {
    /// Regularizer strength rho of rho/2·‖π − 1/K‖² (0: the plain maximal lottery).
    #[arg(long, default_value_t = 0.0)]
    pub rho: f64,
    #[command(flatten)]
    pub costs: CostArgs,
    /// When several maximal lotteries exist, return the one of maximum entropy instead
    /// of minimum norm.
    #[arg(long)]
    pub max_entropy: bool,
}

/// Per-agent costs and how they enter the game: a linear price, a hard budget or a
/// soft budget (NashEval Eq. 20, 52–55).
#[derive(Debug, Clone, Args)]
pub struct CostArgs {
    /// Per-agent costs: CSV with columns model (or agent) and cost. A linear price in
    /// the regularizer (Eq. 20), or the costs of --budget or --soft-budget.
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Hard budget C: expected cost at most C for both players (needs --costs).
    #[arg(long, value_name = "C", conflicts_with = "soft_budget")]
    pub budget: Option<f64>,
    /// Soft budget B (NashEval Eq. 53): the marginal price rises from --price to
    /// --price + --surcharge as expected cost crosses B (needs --costs and --rho).
    #[arg(long, value_name = "B")]
    pub soft_budget: Option<f64>,
    /// Base marginal price lambda_0 of --soft-budget.
    #[arg(long, default_value_t = SoftBudgetPrices::DEFAULT_BASE_PRICE, requires = "soft_budget")]
    pub price: f64,
    /// Extra marginal price lambda_bar above the soft budget.
    #[arg(long, default_value_t = SoftBudgetPrices::DEFAULT_SURCHARGE, requires = "soft_budget")]
    pub surcharge: f64,
    /// Transition width gamma of the soft budget.
    #[arg(long, default_value_t = SoftBudgetPrices::DEFAULT_WIDTH, requires = "soft_budget")]
    pub width: f64,
}

impl CostArgs {
    /// The `--costs` table read (model, cost), when it is given.
    pub fn costs_table(&self) -> anyhow::Result<Option<Vec<(String, f64)>>> {
        Ok(match &self.costs {
            Some(path) => Some(verdict::io::read_costs(
                &verdict::io::Source::File(path.clone()),
                None,
            )?),
            None => None,
        })
    }

    /// The soft budget's prices, when --soft-budget is given.
    pub fn soft_budget_prices(&self) -> Option<SoftBudgetPrices> {
        SoftBudgetPrices::given(self.soft_budget, self.price, self.surcharge, self.width)
    }
}

/// `verdict rank`.
#[derive(Debug, Clone, Args)]
pub struct RankArgs {
    #[command(flatten)]
    pub input: LogArgs,
    /// Rating method.
    #[arg(long, value_parser = choice::<Method>(), default_value = rank_defaults().method.name())]
    pub method: Method,
    /// Elo K-factor.
    #[arg(long, default_value_t = rank_defaults().k)]
    pub k: f64,
    /// Elo starting rating.
    #[arg(long, default_value_t = rank_defaults().initial)]
    pub initial: f64,
    /// Replay Elo in a permutation of the log seeded with S.
    #[arg(long, value_name = "S")]
    pub shuffle_seed: Option<u64>,
    /// How Bradley–Terry treats ties.
    #[arg(long, value_parser = choice::<TieModel>(), default_value = rank_defaults().ties.name())]
    pub ties: TieModel,
    /// Bradley–Terry solver.
    #[arg(long, value_parser = choice::<Solver>(), default_value = rank_defaults().solver.name())]
    pub solver: Solver,
    /// Ridge penalty l2/2·Σ(rating/400)²; GenAI-Arena's recipe is 0.5.
    #[arg(long)]
    pub l2: Option<f64>,
    /// Stop when ‖gradient‖∞ ≤ tol·battles.
    #[arg(long, default_value_t = rank_defaults().tol)]
    pub tol: f64,
    /// Iteration cap (default 100 for Newton, 100000 for MM).
    #[arg(long)]
    pub max_iter: Option<usize>,
    /// Pin one model's rating, e.g. mixtral-8x7b-instruct-v0.1=1114.
    #[arg(long, value_name = "MODEL=RATING")]
    pub anchor: Option<AnchorArg>,
    /// Mean Bradley–Terry rating when no anchor is given.
    #[arg(long, default_value_t = rank_defaults().mean)]
    pub mean: f64,
    /// Bootstrap rounds (Bradley–Terry and Elo: 1000 unless given); 0 turns intervals
    /// off. The lottery is bootstrapped only when this is given: each replicate solves
    /// a game.
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Interval level (0.95), or "sandwich[:LEVEL]" for robust sandwich intervals.
    #[arg(long, default_value = "0.95")]
    pub ci: Confidence,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = rank_defaults().seed)]
    pub seed: u64,
    /// Also print the win matrix and the predicted win-probability matrix.
    #[arg(long)]
    pub matrix: bool,
    /// Maximal lottery and the social-choice methods: count pairs that never met as
    /// ties (margin 0); the same as `--unobserved ties`.
    #[arg(long, conflicts_with = "unobserved")]
    pub allow_unobserved: bool,
    /// Maximal lottery and the social-choice methods: how pairs that never met enter
    /// the margins. `refuse` stops and names the others; `bradley-terry` predicts their
    /// margins from Bradley–Terry fitted to every battle; `low-rank` from Bradley–Terry
    /// plus a low-rank cyclic part; `core` keeps only a core of models whose pairs all
    /// met (lottery only); `ties` counts them as ties.
    #[arg(long, value_parser = choice::<UnobservedPairs>(), default_value = rank_defaults().unobserved.name(), value_name = "OPTION")]
    pub unobserved: UnobservedPairs,
    /// Cyclic components of `--unobserved low-rank` (each a rank-two skew-symmetric
    /// part of the log-odds), 0 to 16.
    #[arg(long, default_value_t = rank_defaults().completion_rank, value_name = "N")]
    pub completion_rank: usize,
    /// Bradley–Terry: add a `flip` column, the fewest battles found whose removal puts
    /// the next model level with or above each one (influence-function proposal, exact
    /// refit), and the same for the top model's most fragile challenger.
    #[arg(long)]
    pub fragility: bool,
    /// "Both bad" verdicts (tie (bothbad)): a tie (LMArena's boards), dropped, or
    /// (Bradley–Terry) an outcome of their own in the grounded Rao–Kupper model of
    /// Prompt-to-Leaderboard, which adds each model's absolute `usable` level.
    #[arg(long, value_parser = choice::<BothBad>(), default_value = rank_defaults().both_bad.name())]
    pub both_bad: BothBad,
    /// α-Rank: selection intensity α (OpenSpiel's default).
    #[arg(long, default_value_t = rank_defaults().alpha)]
    pub alpha: f64,
    /// α-Rank: population size m (OpenSpiel's default).
    #[arg(long, default_value_t = rank_defaults().population)]
    pub population: usize,
    /// Maximal lottery robust to the mix of --group-by groups (NashEval Eq. 79–81).
    #[arg(long, requires = "group_by")]
    pub robust: bool,
    /// Total-variation radius of --robust (default: Eq. 80's, from groups and battles).
    #[arg(long, value_name = "TAU", requires = "robust")]
    pub radius: Option<f64>,
    #[command(flatten)]
    pub equilibrium: EquilibriumArgs,
    #[command(flatten)]
    pub covariates: CovariateArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write the output to FILE instead of standard output (atomically).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the result as one self-contained HTML page (inline SVG figures: scores
    /// with intervals, and with --matrix the win-probability and win heatmaps).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Draw the leaderboard with its intervals (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Add a saved counts state (a counts table, e.g. from --save-counts) to the log:
    /// a log that only grows is refitted from yesterday's counts and today's battles,
    /// with the numbers of the whole log (Bradley–Terry, the lottery, the social-choice
    /// orders).
    #[arg(long, value_name = "STATE")]
    pub warm: Option<PathBuf>,
    #[command(flatten)]
    pub hygiene: HygieneArgs,
    /// Write the pair counts ranked (the warm state included) as a counts table, the
    /// state for the next --warm.
    #[arg(long, value_name = "FILE")]
    pub save_counts: Option<PathBuf>,
}

/// Vote hygiene on `verdict rank`: what arena leaderboards filter before they fit.
#[derive(Debug, Clone, Args)]
pub struct HygieneArgs {
    /// Column naming each battle's judge (voter), for the hygiene steps.
    #[arg(long, value_name = "COLUMN")]
    pub judge_col: Option<String>,
    /// Column of each battle's time: seconds since 1970 (LMArena's tstamp) or a
    /// YYYY-MM-DD date; orders the steps and defines the days of the cap.
    #[arg(long, value_name = "COLUMN")]
    pub time_col: Option<String>,
    /// Column of each battle's prompt (text or hash), for --collapse-duplicates.
    #[arg(long, value_name = "COLUMN")]
    pub prompt_col: Option<String>,
    /// Keep only the first battle of each judge, prompt and pair of models.
    #[arg(long)]
    pub collapse_duplicates: bool,
    /// Keep at most N battles per judge and UTC day (the first N in time order).
    #[arg(long, value_name = "N")]
    pub max_votes_per_judge_day: Option<usize>,
    /// Drop every battle of judges whose votes are implausible against the other
    /// judges' on the same pairs (per-vote p-values as e-values, flagged when their
    /// running product reaches judges/ALPHA).
    #[arg(long, value_name = "ALPHA")]
    pub outlier_alpha: Option<f64>,
    /// Write the rows the hygiene steps dropped, with the reason, as CSV.
    #[arg(long, value_name = "FILE")]
    pub dropped: Option<PathBuf>,
}

/// Bradley–Terry with covariates ("style control") on `verdict rank`.
#[derive(Debug, Clone, Args)]
pub struct CovariateArgs {
    /// Control for these numeric columns, one value per battle, signed from model_a's
    /// side (e.g. a length difference); standardized before the fit. `outer.field`
    /// reads a field of a nested (JSON object or struct) column.
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub covariates: Vec<String>,
    /// Control for LMArena's style features, built from the per-side counts present,
    /// as columns or fields of conv_metadata: sum_assistant_{a,b}_tokens,
    /// header_count_{a,b}, list_count_{a,b}, bold_count_{a,b} (numbers, or objects of
    /// counts that are summed), each as (a − b)/(a + b + 1).
    #[arg(long)]
    pub style_control: bool,
    /// L2 penalty reg/2·‖θ‖² on the covariates' coefficients over the mean log-loss
    /// (arena-rank's default is 1; 0 is the maximum-likelihood estimate).
    #[arg(long, value_name = "REG", default_value_t = rank_defaults().covariate_penalty)]
    pub covariate_penalty: f64,
    /// Weight each battle by 1/max(battles of its pair, MIN), normalized to mean 1
    /// (arena-rank's reweighting; it uses 50).
    #[arg(long, value_name = "MIN")]
    pub pair_weights: Option<f64>,
}

/// `verdict game`.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// Payoff matrix CSV: skew-symmetric, entries in [-1, 1].
    pub matrix: PathBuf,
    /// Write the equilibrium as one self-contained HTML page (certificate,
    /// probabilities, who beats whom in the winner set, the payoff heatmap).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub equilibrium: EquilibriumArgs,
    /// Output format (table or json).
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Keep the payoff matrix in the JSON output (`payoffs`), so that `verdict report`
    /// can draw it from the saved result.
    #[arg(long)]
    pub payoffs: bool,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time each stage of `verdict rank` on a log: read, count, fit, bootstrap.
    Rank(BenchRankArgs),
    /// Time reading a payoff matrix CSV and solving its maximal lottery (medians of runs).
    Lottery(BenchLotteryArgs),
    #[cfg(feature = "nasheval")]
    /// Time `verdict predict`: loading a model, reading contexts, and the policy at
    /// every context (median of runs).
    Predict(BenchPredictArgs),
    #[cfg(feature = "nasheval")]
    /// Time a text encoder: loading it, embedding a table's texts as one batch on every
    /// core (texts per second), and one text at a time on one thread (p50, p99).
    Encoder(BenchEncoderArgs),
    #[cfg(feature = "serve")]
    /// `verdict serve` under load on loopback: /v1/predict one context and in
    /// batches, /v1/route, and the router's overhead over a fake upstream, at each
    /// concurrency (p50, p99, throughput).
    Serve(BenchServeArgs),
    #[command(flatten)]
    Lab(verdict_lab::commands::LabBench),
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Saved results, told apart by their content: `verdict rank`, `game` (with
    /// --payoffs to draw the matrix) or `bench judges` output with --format json, a
    /// `verdict judge` ledger, a `verdict fit` model file, `verdict evaluate` JSON, a
    /// `verdict bench nasheval` results file.
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// Where the page goes; a file there that verdict did not write is left alone.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The page's title (by default the command's, or "verdict report" for several).
    #[arg(long)]
    pub title: Option<String>,
}

#[cfg(feature = "nasheval")]
#[derive(Debug, Clone, Args)]
pub struct BenchEncoderArgs {
    /// The text encoder directory.
    #[arg(long, value_name = "DIR")]
    pub encoder: PathBuf,
    /// A table of texts (CSV, JSON Lines, JSON, Parquet).
    pub texts: PathBuf,
    /// The column of texts.
    #[arg(long)]
    pub text_col: String,
    /// Repetitions of loading and of the batch (medians are reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

#[derive(Debug, Clone, Args)]
pub struct BenchLotteryArgs {
    /// Payoff matrix CSV (as for `verdict game`).
    pub matrix: PathBuf,
    /// Repetitions (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
}

#[derive(Debug, Clone, Args)]
pub struct BenchRankArgs {
    #[command(flatten)]
    pub input: LogArgs,
    /// Bootstrap rounds.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Repetitions of the single fit (its time is the median).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Output format (table or json).
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_splits_at_the_last_equals_sign() {
        let anchor: AnchorArg = "a=b=1114".parse().unwrap();
        assert_eq!((anchor.model.as_str(), anchor.rating), ("a=b", 1114.0));
        assert!("model".parse::<AnchorArg>().is_err());
        assert!("model=NaN".parse::<AnchorArg>().is_err());
    }

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
