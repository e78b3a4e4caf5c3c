//! Flags of the contextual commands — `simulate`, `log`, `fit`, `predict`, `evaluate`
//! and the NashEval benchmarks — built with the `nasheval` feature.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use verdict::fit_params::FitParams;
use verdict::io::CategoricalEncoding;
use verdict::nasheval::{
    AggregatorKind, BackboneKind, FitMethod, NetworkInit, NuisanceDesign, PayoffRegression,
    PolicyKind, RankCriterion, Variant,
};
use verdict::ratings::UnobservedPairs;
use verdict_settings::{choice, Choice};

/// `verdict fit`'s defaults (and the contextual reading's of `verdict log`): its
/// settings document's, the one place they live.
pub fn fit_defaults() -> FitParams {
    FitParams::default()
}

use crate::args::{CostArgs, OutputFormat};

/// Where a contextual log comes from and how contexts become features (shared by
/// `verdict log` and `verdict fit`).
#[derive(Debug, Clone, Args)]
pub struct LogSourceArgs {
    /// Contexts table: context_id and feature columns (CSV, JSON Lines, JSON, Parquet).
    #[arg(
        long,
        value_name = "FILE",
        requires = "feedback",
        conflicts_with = "battles"
    )]
    pub contexts: Option<PathBuf>,
    /// Feedback table: context_id, menu, modality, response.
    #[arg(long, value_name = "FILE", requires = "contexts")]
    pub feedback: Option<PathBuf>,
    /// An LMArena battle log read as pairwise feedback; a battle's context is its
    /// --context-cols values and its --text-col prompt.
    #[arg(long, value_name = "FILE")]
    pub battles: Option<PathBuf>,
    /// Metadata columns of the battle log that make up a battle's context.
    #[arg(long, value_delimiter = ',')]
    pub context_cols: Option<Vec<String>>,
    /// A free-text column (of the contexts table, or the battle log's prompt):
    /// embedded by --encoder, else hashed into --text-dim n-gram features.
    #[arg(long)]
    pub text_col: Option<String>,
    /// Dimensions of the hashed text features (without --encoder).
    #[arg(long, default_value_t = fit_defaults().text_dim)]
    pub text_dim: usize,
    #[command(flatten)]
    pub encoder: EncoderArgs,
    /// Encoding of categorical context columns.
    #[arg(long, value_parser = choice::<CategoricalEncoding>(), default_value = fit_defaults().categorical.name())]
    pub categorical: CategoricalEncoding,
    /// The menu catalogue Q as JSON (a list of lists of agent names); feedback on any
    /// other menu is refused. Default: inferred from the log.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    /// A feedback column holding the probability with which each row's menu was
    /// offered (the `propensity` of a `verdict serve` decision log): the fit divides
    /// by these instead of learning the propensities.
    #[arg(long, value_name = "COLUMN", conflicts_with = "battles")]
    pub propensity_col: Option<String>,
}

/// The text encoder a fit embeds its text column with.
#[derive(Debug, Clone, Args)]
pub struct EncoderArgs {
    /// A text encoder directory: one *.safetensors token-embedding table and its
    /// tokenizer JSON (`bash scripts/setup.sh` makes encoders/wordllama-l2-supercat).
    #[arg(long, value_name = "DIR", requires = "text_col")]
    pub encoder: Option<PathBuf>,
    /// Scale each embedding to unit length.
    #[arg(long, requires = "encoder")]
    pub normalize_embeddings: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ContextLogArgs {
    #[command(flatten)]
    pub source: LogSourceArgs,
    /// Also say whether the verdicts can tell cycles apart: structured outcome models
    /// at cyclic ranks 0, 1, 2 and 4, each rank's equilibrium's held-out
    /// exploitability, battle log loss and cyclic share, and a test of transitivity on
    /// held-out battles (fits models: seconds to minutes).
    #[arg(long)]
    pub cycles: bool,
    /// Seed of the folds and models of --cycles.
    #[arg(long, default_value_t = 0, requires = "cycles")]
    pub seed: u64,
    /// Output format: table or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

/// `--format` of `verdict predict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PredictFormat {
    /// One JSON object per context, in a JSON array.
    Json,
    /// One row per context: id, one probability column per agent, winners.
    Csv,
    /// As CSV, in a Parquet file (needs --out).
    Parquet,
}

#[derive(Debug, Clone, Args)]
pub struct FitArgs {
    #[command(flatten)]
    pub source: LogSourceArgs,
    /// Where to write the model (JSON, self-describing).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// What to fit: NashEval, one of the paper's per-context baselines on the
    /// surface it uses (bt-plugin, bt-debiased, borda, bt-reg; bt-cost needs --costs
    /// and --budget), or a global one from the training verdicts (lottery,
    /// robust-lottery with --groups-by, pluralistic). A baseline sets the surface and
    /// the policy itself.
    #[arg(long, value_parser = choice::<FitMethod>(), default_value = fit_defaults().method.name())]
    pub method: FitMethod,
    /// For --method robust-lottery: the categorical column of the contexts table whose
    /// values are the groups the lottery must hold up across.
    #[arg(long, value_name = "COLUMN")]
    pub groups_by: Option<String>,
    /// For --method robust-lottery: the radius tau in [0, 1] of the ambiguity set
    /// (total variation from the groups' shares; default: Eq. 80's from the number of
    /// groups and training prompts).
    #[arg(long, value_name = "TAU", requires = "groups_by")]
    pub robust_radius: Option<f64>,
    /// For --method lottery: how the pooled margins fill pairs of agents never
    /// compared (`refuse`, `ties`, `bradley-terry`, `low-rank` or `core`, as for `verdict
    /// rank`); pairs can be missing only with --allow-unobserved.
    #[arg(long, value_parser = choice::<UnobservedPairs>(), default_value = fit_defaults().unobserved.name(), value_name = "OPTION")]
    pub unobserved: UnobservedPairs,
    /// Cyclic components of `--unobserved low-rank`, 0 to 16.
    #[arg(long, default_value_t = fit_defaults().completion_rank, value_name = "N")]
    pub completion_rank: usize,
    /// Payoff surface: auto chooses between debiased and plug-in with held-out data.
    #[arg(long, value_parser = choice::<Variant>(), default_value = fit_defaults().variant.name())]
    pub variant: Variant,
    /// A `verdict simulate` directory: the true nuisances for --variant oracle.
    #[arg(long, value_name = "DIR")]
    pub truth: Option<PathBuf>,
    /// Policy: a gap-loss network or a per-context equilibrium solver.
    #[arg(long, value_parser = choice::<PolicyKind>(), default_value = fit_defaults().policy.name())]
    pub policy: PolicyKind,
    /// Regularizer strength rho of rho/2·‖π − 1/K‖² (Eq. 74).
    #[arg(long, default_value_t = fit_defaults().rho)]
    pub rho: f64,
    /// Costs, as a price, a hard budget (--policy solver) or a soft budget.
    #[command(flatten)]
    pub costs: CostArgs,
    /// Cross-fitting folds (all records of a context stay in one fold).
    #[arg(long, default_value_t = fit_defaults().folds)]
    pub folds: usize,
    /// Backbone of every nuisance and of the payoff regression.
    #[arg(long, value_parser = choice::<BackboneKind>(), default_value = fit_defaults().backbone.name())]
    pub backbone: BackboneKind,
    /// L2 penalty lambda of the linear backbone (ridge / logistic regression on
    /// standardized features; the intercept is not penalized).
    #[arg(long, default_value_t = fit_defaults().linear_penalty, value_name = "LAMBDA")]
    pub linear_penalty: f64,
    /// Backbone of the outcome models (overrides --backbone).
    #[arg(long, value_parser = choice::<BackboneKind>())]
    pub outcome_backbone: Option<BackboneKind>,
    /// Backbone of the propensity models (overrides --backbone).
    #[arg(long, value_parser = choice::<BackboneKind>())]
    pub propensity_backbone: Option<BackboneKind>,
    /// Backbone of the payoff regression (overrides --backbone).
    #[arg(long, value_parser = choice::<BackboneKind>())]
    pub payoff_backbone: Option<BackboneKind>,
    /// One shared payoff regressor on (x, j, k), or one per pair.
    #[arg(long, value_parser = choice::<PayoffRegression>(), default_value = fit_defaults().payoff_regression.name())]
    pub payoff_regression: PayoffRegression,
    /// Outcome models per (menu, pair), pooled over menus with the agents as
    /// inputs (for many or rare menus), or structured: each agent's score and cyclic
    /// coordinates from the context.
    #[arg(long, value_parser = choice::<NuisanceDesign>(), default_value = fit_defaults().nuisance_design.name())]
    pub nuisance_design: NuisanceDesign,
    /// Cyclic rank r of the structured surfaces (0: a contextual Bradley–Terry
    /// model); when not given, the structured outcome models choose among 0, 1, 2
    /// and 4 by --rank-criterion and the structured payoff regression takes their
    /// choice.
    #[arg(long, value_name = "R")]
    pub surface_rank: Option<usize>,
    /// How the rank is chosen when --surface-rank is not given: each rank's policy's
    /// held-out exploitability against the doubly-robust pseudo-outcomes (the
    /// simplest within one standard error of the lowest), or the verdicts' log loss.
    #[arg(long, value_parser = choice::<RankCriterion>(), default_value = fit_defaults().rank_criterion.name())]
    pub rank_criterion: RankCriterion,
    /// Fit even when some pair of agents never met in any menu: its payoff is
    /// extrapolated by the pooled outcome model, with a warning naming the pairs.
    #[arg(long)]
    pub allow_unobserved: bool,
    /// Aggregator of pairs in several menus: mean, or cubic:ALPHA (Eq. 50–51).
    #[arg(long, default_value = "mean", value_name = "mean|cubic:ALPHA")]
    pub aggregator: AggregatorKind,
    /// Propensities below a menu's floor are raised to it (the count is reported): the
    /// floor is the smaller of this and --propensity-floor-share times the menu's
    /// selection rate.
    #[arg(long, default_value_t = fit_defaults().propensity_floor)]
    pub propensity_floor: f64,
    /// The floor relative to a menu's selection rate (0, the default:
    /// --propensity-floor alone).
    #[arg(long, default_value_t = fit_defaults().propensity_floor_share)]
    pub propensity_floor_share: f64,
    /// Choose the boosted trees' hyperparameters by three-fold grid search over the
    /// paper's Tables 12–13 (trees by early stopping), and the policy network's over
    /// Table 14 by held-out gap (overriding the network flags); slow: minutes per
    /// model kind.
    #[arg(long)]
    pub tune: bool,
    /// Where the network's training starts: the solver's equilibria (distilled by
    /// cross-entropy, then the gap loss) or random weights.
    #[arg(long, value_parser = choice::<NetworkInit>(), default_value = fit_defaults().network_init.name())]
    pub network_init: NetworkInit,
    /// Width of the network's two hidden layers.
    #[arg(long, default_value_t = fit_defaults().hidden)]
    pub hidden: usize,
    /// Adam learning rate of the network.
    #[arg(long, default_value_t = fit_defaults().learning_rate)]
    pub learning_rate: f64,
    /// L2 weight decay of the network.
    #[arg(long, default_value_t = fit_defaults().weight_decay)]
    pub weight_decay: f64,
    /// Contexts per mini-batch.
    #[arg(long, default_value_t = fit_defaults().batch_size)]
    pub batch_size: usize,
    /// Maximum training epochs (early stopping usually ends sooner).
    #[arg(long, default_value_t = fit_defaults().max_epochs)]
    pub max_epochs: usize,
    /// Epochs without improvement on held-out contexts before stopping.
    #[arg(long, default_value_t = fit_defaults().patience)]
    pub patience: usize,
    /// Seed of folds, learners and network.
    #[arg(long, default_value_t = fit_defaults().seed)]
    pub seed: u64,
    /// Summary format: table or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write the fit as one self-contained HTML page (the summary, time per stage, the
    /// held-out choice of surface, propensities per menu, the training curve, notes).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// With --report: who wins where, by this categorical column of the contexts
    /// table (the share of each value's contexts whose winner is each agent).
    #[arg(long, value_name = "COLUMN", requires = "report")]
    pub winners_by: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct PredictArgs {
    /// A model written by `verdict fit`.
    pub model: PathBuf,
    /// Contexts table with the feature columns the model was fitted on.
    #[arg(long, value_name = "FILE")]
    pub contexts: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: PredictFormat,
    /// Include the payoff matrix Â(x) of each context.
    #[arg(long)]
    pub payoff: bool,
    /// The encoder directory the model was fitted with, for a model that embeds its
    /// text column.
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
    /// Write here instead of standard output (required for parquet).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct OpeArgs {
    /// Decisions: the JSON Lines `verdict serve --decisions` writes, or a table (CSV,
    /// JSON Lines, Parquet) with the request id, `chosen` (or `menu` as `a|b` for a
    /// duel), `propensity`, optional `routed:<agent>` columns and the context columns.
    #[arg(long, value_name = "FILE")]
    pub decisions: PathBuf,
    /// Outcomes of the routed answers: a table with the request id and a number
    /// (a judge's score, a thumbs-up as 0/1, resolved or not); for a duel, the winner's
    /// name, `tie`, or the first's score in [0, 1].
    #[arg(long, value_name = "FILE")]
    pub outcomes: PathBuf,
    /// The request id column (of the outcomes, and of a decision table).
    #[arg(long, default_value = "request_id")]
    pub request_col: String,
    /// The outcomes' value column.
    #[arg(long, default_value = "outcome")]
    pub outcome_col: String,
    /// The outcomes' observed cost of each routed answer: each candidate's expected
    /// cost is estimated beside its value.
    #[arg(long, value_name = "COLUMN", conflicts_with = "costs")]
    pub cost_col: Option<String>,
    /// Each agent's price (CSV with model and cost): each candidate's expected cost per
    /// request beside its value.
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// A candidate: a model file, `agent:NAME`, `lottery:FILE` (a `rank --method
    /// lottery --format json` result) or `logged`; repeat for several (differences are
    /// against the first).
    #[arg(long = "policy", value_name = "SPEC", required = true)]
    pub policies: Vec<String>,
    /// The duels' opponent, a SPEC as for --policy (default: the logging policy).
    #[arg(long, value_name = "SPEC")]
    pub against: Option<String>,
    /// The encoder directory of a model candidate fitted with one.
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
    /// The logger's probability below which an agent counts as not offered: a
    /// candidate's mass there is flagged.
    #[arg(long, default_value_t = 0.01)]
    pub floor: f64,
    /// Folds of the cross-fitted outcome model.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Output format: table or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write the output to FILE instead of standard output (atomically).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write a self-contained HTML page: the candidates with their intervals and, with
    /// costs, on the cost–quality plane.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct EmbedArgs {
    /// A table with a text column (CSV, JSON Lines, JSON, Parquet).
    pub file: PathBuf,
    /// The column of texts.
    #[arg(long)]
    pub text_col: String,
    /// The column naming each row in the output; rows are numbered from 0 when the
    /// table has no such column.
    #[arg(long, default_value = "context_id")]
    pub id_col: String,
    /// The text encoder directory.
    #[arg(long, value_name = "DIR")]
    pub encoder: PathBuf,
    /// Scale each embedding to unit length.
    #[arg(long)]
    pub normalize_embeddings: bool,
    /// Where to write: Parquet, JSON Lines, JSON or CSV, by extension.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[cfg(feature = "serve")]
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// A model written by `verdict fit`; SIGHUP or `POST /admin/reload` reads it again.
    pub model: PathBuf,
    /// Address to listen on. Loopback unless told otherwise; port 0 takes a free port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8750")]
    pub listen: std::net::SocketAddr,
    /// TOML naming each model's upstream: `[upstream.NAME]` with `base_url`,
    /// `api_key_env`, `cost` and optionally `model` (the name the upstream knows).
    #[arg(long, value_name = "FILE")]
    pub upstreams: Option<PathBuf>,
    /// Directory that receives a new JSON Lines file of routing decisions per run.
    #[arg(long, value_name = "DIR")]
    pub decisions: Option<PathBuf>,
    /// The encoder directory the model was fitted with, for a model that embeds its
    /// text column (the request's text, a chat's user turns, is embedded with it).
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
    /// Environment variable holding a bearer token every endpoint but /health asks for.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// Largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 8 << 20)]
    pub max_body_bytes: usize,
    /// Most contexts in one /v1/predict request.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_contexts: usize,
    /// Seconds a client has to send a request's headers, and then its body.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub read_timeout: f64,
    /// Seconds one write to a client may take before the connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub write_timeout: f64,
    /// Seconds an upstream has to answer before the next model is tried.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub upstream_timeout: f64,
    /// Connections served at once; further clients wait to be accepted.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,
    /// Chat exchanges with upstreams at once; more are answered 503 (Retry-After) and
    /// /health says "saturated", while predictions and routing keep their threads.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_upstream_calls: usize,
    /// Seeds the routing draws, for a run that can be replayed; without it the server
    /// draws a secret of its own. No draw ever depends on what a client sends.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Exploration: the share of routed requests whose menu is drawn uniformly (one of
    /// the K agents, or one of the K(K-1)/2 pairs of a duel), so that a decision log
    /// offers every agent with probability at least EPS/K and every pair at least
    /// EPS/(K(K-1)/2); the logged propensities include it.
    #[arg(long, value_name = "EPS", default_value_t = 0.0)]
    pub explore: f64,
    /// One JSON line per request on standard error: time, endpoint, status, latency,
    /// and for routed requests the request id, rule, routed agent and upstream status
    /// (never a body, a prompt or a key).
    #[arg(long)]
    pub request_log: bool,
}

#[derive(Debug, Clone, Args)]
pub struct BenchPredictArgs {
    /// A model written by `verdict fit`.
    pub model: PathBuf,
    /// Contexts to predict at.
    #[arg(long, value_name = "FILE")]
    pub contexts: PathBuf,
    /// Timed repetitions.
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
}

#[derive(Debug, Clone, Args)]
pub struct BenchServeArgs {
    /// A model written by `verdict fit`.
    pub model: PathBuf,
    /// Contexts to send (a contexts table, e.g. `verdict simulate`'s
    /// test_contexts.parquet).
    #[arg(long, value_name = "FILE")]
    pub contexts: PathBuf,
    /// Concurrent clients, one measurement per value.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64")]
    pub concurrency: Vec<usize>,
    /// Requests per single-context scenario and concurrency.
    #[arg(long, default_value_t = 5000)]
    pub requests: usize,
    /// Contexts per batched /v1/predict request.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Batched requests per concurrency.
    #[arg(long, default_value_t = 400)]
    pub batch_requests: usize,
    /// Longest one scenario runs at one concurrency, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub max_seconds: f64,
    /// The encoder directory of a model fitted with one (its text is embedded on every
    /// routed request).
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
}
