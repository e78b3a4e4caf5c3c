//! Flags of the contextual commands — `simulate`, `log`, `fit`, `predict`, `evaluate`
//! and the NashEval benchmarks — built with the `nasheval` feature.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use verdict::io::CategoricalEncoding;
use verdict::nasheval::{
    AggregatorKind, BackboneKind, FitMethod, NetworkInit, NuisanceDesign, PayoffRegression,
    PolicyKind, Variant, LINEAR_PENALTY,
};
use verdict_lab::real_benchmark::PANELS;
use verdict_lab::worlds::nasheval::FeedbackKind;

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
    /// An LMArena battle log read as pairwise feedback; contexts from --context-cols.
    #[arg(long, value_name = "FILE", requires = "context_cols")]
    pub battles: Option<PathBuf>,
    /// Metadata columns of the battle log that make up a battle's context.
    #[arg(long, value_delimiter = ',')]
    pub context_cols: Option<Vec<String>>,
    /// A free-text column of the contexts table, turned into hashed n-gram features.
    #[arg(long)]
    pub text_col: Option<String>,
    /// Dimensions of the hashed text features.
    #[arg(long, default_value_t = 64)]
    pub text_dim: usize,
    /// Encoding of categorical context columns.
    #[arg(long, value_enum, default_value = "onehot")]
    pub categorical: CategoricalEncoding,
    /// The menu catalogue Q as JSON (a list of lists of agent names); feedback on any
    /// other menu is refused. Default: inferred from the log.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct ContextLogArgs {
    #[command(flatten)]
    pub source: LogSourceArgs,
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
    #[arg(long, value_enum, default_value = "nasheval")]
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
    /// Payoff surface: auto chooses between debiased and plug-in with held-out data.
    #[arg(long, value_enum, default_value = "auto")]
    pub variant: Variant,
    /// A `verdict simulate` directory: the true nuisances for --variant oracle.
    #[arg(long, value_name = "DIR")]
    pub truth: Option<PathBuf>,
    /// Policy: a gap-loss network or a per-context equilibrium solver.
    #[arg(long, value_enum, default_value = "network")]
    pub policy: PolicyKind,
    /// Regularizer strength rho of rho/2·‖π − 1/K‖² (Eq. 74).
    #[arg(long, default_value_t = 0.001)]
    pub rho: f64,
    /// Costs, as a price, a hard budget (--policy solver) or a soft budget.
    #[command(flatten)]
    pub costs: CostArgs,
    /// Cross-fitting folds (all records of a context stay in one fold).
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Backbone of every nuisance and of the payoff regression.
    #[arg(long, value_enum, default_value = "gbdt")]
    pub backbone: BackboneKind,
    /// L2 penalty lambda of the linear backbone (ridge / logistic regression on
    /// standardized features; the intercept is not penalized).
    #[arg(long, default_value_t = LINEAR_PENALTY, value_name = "LAMBDA")]
    pub linear_penalty: f64,
    /// Backbone of the outcome models (overrides --backbone).
    #[arg(long, value_enum)]
    pub outcome_backbone: Option<BackboneKind>,
    /// Backbone of the propensity models (overrides --backbone).
    #[arg(long, value_enum)]
    pub propensity_backbone: Option<BackboneKind>,
    /// Backbone of the payoff regression (overrides --backbone).
    #[arg(long, value_enum)]
    pub payoff_backbone: Option<BackboneKind>,
    /// One shared payoff regressor on (x, j, k), or one per pair.
    #[arg(long, value_enum, default_value = "shared")]
    pub payoff_regression: PayoffRegression,
    /// Outcome models per (menu, pair), or pooled over menus with the agents as
    /// inputs (for many or rare menus).
    #[arg(long, value_enum, default_value = "auto")]
    pub nuisance_design: NuisanceDesign,
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
    #[arg(long, default_value_t = 0.01)]
    pub propensity_floor: f64,
    /// The floor relative to a menu's selection rate (0, the default:
    /// --propensity-floor alone).
    #[arg(long, default_value_t = 0.0)]
    pub propensity_floor_share: f64,
    /// Choose the boosted trees' hyperparameters by three-fold grid search over the
    /// paper's Tables 12–13 (trees by early stopping), and the policy network's over
    /// Table 14 by held-out gap (overriding the network flags); slow: minutes per
    /// model kind.
    #[arg(long)]
    pub tune: bool,
    /// Where the network's training starts: the solver's equilibria (distilled by
    /// cross-entropy, then the gap loss) or random weights.
    #[arg(long, value_enum, default_value = "solver")]
    pub network_init: NetworkInit,
    /// Width of the network's two hidden layers.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// Adam learning rate of the network.
    #[arg(long, default_value_t = 1e-3)]
    pub learning_rate: f64,
    /// L2 weight decay of the network.
    #[arg(long, default_value_t = 1e-5)]
    pub weight_decay: f64,
    /// Contexts per mini-batch.
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    /// Maximum training epochs (early stopping usually ends sooner).
    #[arg(long, default_value_t = 500)]
    pub max_epochs: usize,
    /// Epochs without improvement on held-out contexts before stopping.
    #[arg(long, default_value_t = 30)]
    pub patience: usize,
    /// Seed of folds, learners and network.
    #[arg(long, default_value_t = 0)]
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
    /// Write here instead of standard output (required for parquet).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct EvaluateArgs {
    /// A model written by `verdict fit`, or a `verdict rank --method lottery --format
    /// json` board (scored as the same lottery at every context).
    pub model: PathBuf,
    /// A `verdict simulate` directory; the model is scored on its test contexts.
    #[arg(long, value_name = "DIR")]
    pub truth: PathBuf,
    /// Output format: table or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write the model's page with its scores against the truth (a model file only),
    /// beside the uniform policy's and the per-context Bradley–Terry argmax's.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// With --report: who wins where on the test contexts, by this categorical column,
    /// under the model and under the truth (NashEval Figure 4).
    #[arg(long, value_name = "COLUMN", requires = "report")]
    pub winners_by: Option<String>,
}

/// `--world` of `verdict simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimulatedWorld {
    /// NashEval Appendix G: five agents, every menu selected independently.
    AppendixG,
    /// An arena: K agents, every pair a menu, one pair per prompt skewed by popularity.
    Arena,
}

#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// The world: the paper's Appendix G, or an arena-shaped world.
    #[arg(long, value_enum, default_value = "appendix-g")]
    pub world: SimulatedWorld,
    /// Feedback modality [appendix-g; default pairwise]. The arena gives pairwise duels.
    #[arg(long, value_enum)]
    pub feedback: Option<FeedbackKind>,
    /// Voters in the population, the first of a pool of five [appendix-g; default 3]:
    /// 1 gives transitive preferences, 3 and 5 majority cycles.
    #[arg(long)]
    pub voters: Option<usize>,
    /// Agents K [arena; default 16].
    #[arg(long)]
    pub agents: Option<usize>,
    /// Training contexts (prompts with feedback).
    #[arg(long, default_value_t = 20_000)]
    pub contexts: usize,
    /// Test contexts (ground truth only, no feedback).
    #[arg(long, default_value_t = 4096)]
    pub test_contexts: usize,
    /// Seed of the world and of its draws.
    #[arg(long, default_value_t = 70)]
    pub seed: u64,
    /// Regularization rho of the ground-truth equilibria (0: the maximal lottery).
    #[arg(long, default_value_t = 0.0)]
    pub rho: f64,
    /// Bounds of the menu inclusion probability `e_min,e_max` (Eq. 63) [appendix-g;
    /// default 0.25,0.75].
    #[arg(long, value_name = "LO,HI", value_delimiter = ',')]
    pub propensity_range: Option<Vec<f64>>,
    /// How much the context moves selection: `eta` of Eq. 63 [appendix-g; default 2],
    /// or the tilt toward agents strong at the prompt's task [arena; default 1].
    #[arg(long)]
    pub selection_slope: Option<f64>,
    /// How unevenly agents are shown: the most shown pair over the rarest is about
    /// (K(K-1)/2)^EXPONENT [arena; default 1].
    #[arg(long)]
    pub popularity_exponent: Option<f64>,
    /// Tie probability of two equally good answers [arena; default 0.3].
    #[arg(long)]
    pub tie_rate: Option<f64>,
    /// How decided voters are: the scale of their utilities [arena; default 1.5].
    #[arg(long)]
    pub preference_scale: Option<f64>,
    /// Output directory (created, or updated if it holds an earlier simulation; files
    /// verdict did not write are never touched).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct BenchNetworkArgs {
    /// Contexts in the batch.
    #[arg(long, default_value_t = 20_000)]
    pub contexts: usize,
    /// Hidden width.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// Timed steps.
    #[arg(long, default_value_t = 50)]
    pub steps: usize,
}

#[derive(Debug, Clone, Args)]
pub struct BenchBaselinesArgs {
    /// A simulation directory of the arena world (written by `verdict simulate --world arena`).
    #[arg(long, value_name = "DIR")]
    pub truth: PathBuf,
    /// Also one maximal lottery per value of this context column (e.g. language).
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,
    /// Also the per-context Bradley–Terry argmax (Eq. 75) of this fitted model's surface.
    #[arg(long, value_name = "FILE")]
    pub model: Vec<PathBuf>,
    /// Regularization of the lotteries (default: the true equilibria's, from the
    /// simulation's manifest).
    #[arg(long)]
    pub rho: Option<f64>,
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
pub struct BenchNashEvalArgs {
    /// Replication seeds.
    #[arg(long, value_delimiter = ',', default_values_t = [70, 71, 72, 73, 74])]
    pub seeds: Vec<u64>,
    /// Voter counts N_v.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 3, 5])]
    pub voters: Vec<usize>,
    /// Training contexts.
    #[arg(long, default_value_t = 20_000)]
    pub contexts: usize,
    /// Test contexts.
    #[arg(long, default_value_t = 4096)]
    pub test_contexts: usize,
    /// Regularizer rho of the policies and the true equilibria (Eq. 74).
    #[arg(long, default_value_t = 0.001)]
    pub rho: f64,
    /// Backbone of the outcome models.
    #[arg(long, value_enum, default_value = "gbdt")]
    pub outcome_backbone: BackboneKind,
    /// Backbone of the propensity models.
    #[arg(long, value_enum, default_value = "gbdt")]
    pub propensity_backbone: BackboneKind,
    /// Backbone of the payoff regression.
    #[arg(long, value_enum, default_value = "gbdt")]
    pub payoff_backbone: BackboneKind,
    /// Policies to score.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [PolicyKind::Solver, PolicyKind::Network])]
    pub policies: Vec<PolicyKind>,
    /// Where the network policy's training starts (cells of a random start are keyed
    /// `Network`, of a solver start `Network-solver`).
    #[arg(long, value_enum, default_value = "solver")]
    pub network_init: NetworkInit,
    /// Bounds of the menu inclusion probability (Eq. 63).
    #[arg(long, value_name = "LO,HI", value_delimiter = ',', default_values_t = [0.25, 0.75])]
    pub propensity_range: Vec<f64>,
    /// Slope of the selection logit (Eq. 63).
    #[arg(long, default_value_t = 2.0)]
    pub selection_slope: f64,
    /// Feedback forms, comma-separated: pairwise, ranking (the menus of Eq. 62),
    /// winner (winner-of-three, Eq. 65).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "pairwise")]
    pub feedbacks: Vec<FeedbackKind>,
    /// Score the paper's baselines too (Appendix I.3): BT-plug-in, BT-debiased, Borda,
    /// BT-Reg on the fitted surfaces, and the global maximal lottery and pluralistic
    /// leaderboard from the training verdicts.
    #[arg(long)]
    pub baselines: bool,
    /// Surfaces to fit, comma-separated (the surface baselines read the plug-in and
    /// debiased ones); e.g. `--variants auto --policies network` adds the default's
    /// network cells to an earlier run.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Variant::Auto, Variant::Oracle, Variant::Debiased, Variant::Plugin])]
    pub variants: Vec<Variant>,
    /// Results as JSON lines, appended cell by cell; cells already there are skipped.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct BenchCostArgs {
    /// Replication seeds.
    #[arg(long, value_delimiter = ',', default_values_t = [70, 71, 72])]
    pub seeds: Vec<u64>,
    /// Voters N_v of the Appendix G simulator.
    #[arg(long, default_value_t = 3)]
    pub voters: usize,
    /// Per-agent costs, comma-separated, in the simulator's agent order (five agents).
    #[arg(long, value_delimiter = ',', default_values_t = [0.5, 1.0, 2.0, 4.0, 8.0])]
    pub costs: Vec<f64>,
    /// Training contexts.
    #[arg(long, default_value_t = 20_000)]
    pub contexts: usize,
    /// Test contexts.
    #[arg(long, default_value_t = 2_048)]
    pub test_contexts: usize,
    /// Draw cost against exploitability and against strict win rate (SVG or PNG).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct BenchRealArgs {
    /// The folder of AlpacaEval's judgments (instructions.csv and
    /// alpacaeval_judgments.csv.gz).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// One split per seed: its held-out prompts and its training feedback.
    #[arg(long, value_delimiter = ',', default_values_t = [0, 1, 2])]
    pub splits: Vec<u64>,
    /// Pairs judged per training prompt.
    #[arg(long, default_value_t = 3)]
    pub pairs_per_prompt: usize,
    /// The judges: turbo (AlpacaEval 2's two GPT-4-turbo judges against
    /// gpt4_1106_preview, five models) or v1 (AlpacaEval 1's GPT-4 and Claude judges
    /// against text_davinci_003, six models).
    #[arg(long, default_value = "turbo", value_parser = clap::builder::PossibleValuesParser::new(PANELS.map(|p| p.name)))]
    pub panel: String,
}

#[derive(Debug, Clone, Args)]
pub struct BenchSummaryArgs {
    /// A results file of `verdict bench nasheval`.
    pub results: PathBuf,
    /// Draw exploitability and support F1 against voters, one panel per feedback form
    /// and measure (SVG or PNG by extension).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}
