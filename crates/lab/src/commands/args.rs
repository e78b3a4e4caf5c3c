//! Flags of the lab's commands as clap parses them: the product's command line mounts
//! [`LabCommand`] and [`LabBench`] beside its own.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
#[cfg(feature = "nasheval")]
use verdict::nasheval::{BackboneKind, NetworkInit, PolicyKind, Variant};
#[cfg(feature = "nasheval")]
use verdict_settings::choice;

#[cfg(feature = "nasheval")]
use crate::real_benchmark::PANELS;
#[cfg(feature = "nasheval")]
use crate::worlds::nasheval::FeedbackKind;

/// The lab's top-level commands.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// A tour of all three parts on bundled and generated data (arena leaderboards, a
    /// maximal lottery, NashEval, judges under a budget), printed and written as one
    /// HTML page.
    Demo(DemoArgs),
    #[cfg(feature = "nasheval")]
    /// A simulated contextual data set with exact ground truth: NashEval Appendix G, or an arena-shaped world (--world arena).
    Simulate(SimulateArgs),
    #[cfg(feature = "nasheval")]
    /// Score a fitted model on a simulation's test contexts against the truth.
    Evaluate(EvaluateArgs),
}

/// The lab's benchmarks (`verdict bench ...`).
#[derive(Debug, Subcommand)]
pub enum LabBench {
    /// Write a synthetic LMArena-like battle log (Parquet or CSV by extension).
    Arena(ArenaArgs),
    #[cfg(feature = "nasheval")]
    /// Routers on AlpacaEval's real prompts: verdict's against kNN, the best single
    /// model, the cheapest within one point of it and the per-prompt oracle (quality,
    /// cost, AIQ, APGR, CPT, RouterArena's score; mean ± sd over splits).
    Router(BenchRouterArgs),
    /// Write a router's decision log with known truth, as `verdict serve --decisions`
    /// writes it, with outcomes and each agent's exact value (for `verdict ope`).
    DecisionLog(DecisionLogArgs),
    /// Budgeted multi-judge estimation on synthetic instances: error per method,
    /// budget and norm (the judge paper's Figures 1(a), 2 and 4).
    Judges(BenchJudgesArgs),
    #[cfg(feature = "nasheval")]
    /// NashEval accuracy on the Appendix G simulator: exploitability and support F1 of
    /// oracle, debiased, plug-in and auto surfaces under the solver and network
    /// policies (NashEval Section 5), seed by seed; resumable.
    Nasheval(BenchNashEvalArgs),
    #[cfg(feature = "nasheval")]
    /// Summarize a `bench nasheval` results file as NashEval's Figure 3: mean ± sd over
    /// seeds of exploitability and support F1 per feedback form, voters and method.
    Summary(BenchSummaryArgs),
    #[cfg(feature = "nasheval")]
    /// The cost analysis on the Appendix G simulator with agent costs: mean expected
    /// cost against exploitability and strict win rate (Eq. 72) for NashEval under
    /// price weights (Eq. 20–21), the priced global lottery and BT-cost (Eq. 77).
    Cost(BenchCostArgs),
    #[cfg(feature = "nasheval")]
    /// The cost analysis's curves scored as routers: AIQ (RouterBench), APGR and
    /// CPT(50%, 80%) (RouteLLM) of each method's strict win rate against its mean
    /// cost, the single agents as the reference — on the Appendix G simulator, or
    /// with --data on AlpacaEval's real prompts (costs: each model's mean output length).
    Route(BenchRouteArgs),
    #[cfg(feature = "nasheval")]
    /// NashEval and the baselines on real prompts: AlpacaEval's per-prompt judgments
    /// turned into selectively observed pairwise feedback, scored on held-out prompts
    /// against the judges' complete payoff matrices (mean ± sd over splits).
    Real(BenchRealArgs),
    #[cfg(feature = "nasheval")]
    /// Baselines on an arena simulation's test contexts: the global maximal lottery of
    /// the training battles, one lottery per value of a context column (--by), and
    /// the per-context Bradley–Terry argmax of fitted surfaces (--model, Eq. 75).
    Baselines(BenchBaselinesArgs),
    #[cfg(feature = "nasheval")]
    /// Time one full-batch forward and backward pass of the policy network (5-64-64-5
    /// by default) on the gap loss, as the choice of a hand-written network against
    /// candle was made.
    Network(BenchNetworkArgs),
}

/// How a lab command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shown {
    /// Aligned text for people.
    Table,
    /// JSON.
    Json,
}

/// `--costs` of `verdict bench judges`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JudgeCosts {
    /// Appendix H.1: random variances and costs U[0.5, 1.5].
    Random,
    /// Appendix H.3: noisy judges cost more.
    BadIsExpensive,
    /// Appendix H.3: noisy judges are cheap.
    BadIsCheap,
    /// Appendix H.3 variances with equal costs.
    Uniform,
}

/// Flags of `verdict bench judges`.
#[derive(Debug, Clone, Args)]
pub struct BenchJudgesArgs {
    /// Items K.
    #[arg(long, default_value_t = 1000)]
    pub items: usize,
    /// Judges J.
    #[arg(long, default_value_t = 10)]
    pub judges: usize,
    /// Budgets, comma-separated (scientific notation allowed).
    #[arg(long, default_value = "2e4,5e4,1e5,2e5,5e5,1e6", value_delimiter = ',')]
    pub budgets: Vec<f64>,
    /// Random instances per cell.
    #[arg(long, default_value_t = 20)]
    pub reps: usize,
    /// Error norms, comma-separated: numbers >= 1 or inf.
    #[arg(long, default_value = "2", value_delimiter = ',')]
    pub p: Vec<String>,
    /// Instance family.
    #[arg(long, value_enum, default_value_t = JudgeCosts::Random)]
    pub costs: JudgeCosts,
    /// Methods, comma-separated (default: the budget paper's five); also oracle-shared and
    /// est-ivwe-shared, the allocations for judges that share their mistakes.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "uniform,oracle,est-ivwe,est-ivwe-gaussian,adaptive"
    )]
    pub methods: Vec<String>,
    /// Seed of the instances and the draws.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Run every strategy toward this estimated l_p error (`verdict judge
    /// --target-error`), each budget a cap: the table adds the mean spend and the share
    /// of runs that reached it.
    #[arg(long, value_name = "E")]
    pub target_error: Option<f64>,
    /// Judges that share their mistakes: each (judge, item) gets a bias of this
    /// standard deviation (score units) that no repeated call averages away; the
    /// table adds the bias-aware scores' error, coverage and effective judges.
    #[arg(long, value_name = "B")]
    pub bias_sd: Option<f64>,
    /// With --bias-sd: judges dealt round-robin into this many families (default: each
    /// judge its own).
    #[arg(long, value_name = "F", requires = "bias_sd")]
    pub families: Option<usize>,
    /// With --bias-sd: the correlation of item biases between judges of one family.
    #[arg(long, value_name = "R", default_value_t = 0.0, requires = "bias_sd")]
    pub family_correlation: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Shown::Table)]
    pub format: Shown,
    /// Draw the error curves (log–log, one panel per norm) to this .svg or .png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Write the curves and the table as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// Flags of `verdict demo`.
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Where the page goes; a file there that verdict did not write is left alone.
    #[arg(long, value_name = "FILE", default_value = "demo-report.html")]
    pub out: PathBuf,
}

/// Flags of `verdict bench decision-log`.
#[derive(Debug, Clone, Args)]
pub struct DecisionLogArgs {
    /// Logged decisions.
    #[arg(long, default_value_t = 1_000_000)]
    pub rows: usize,
    /// Agents.
    #[arg(long, default_value_t = 16)]
    pub agents: usize,
    /// Context features.
    #[arg(long, default_value_t = 5)]
    pub features: usize,
    /// The logger's share of uniform routing.
    #[arg(long, default_value_t = 0.1)]
    pub explore: f64,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The new directory: decisions.jsonl, outcomes.csv, truth.json.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Flags of `verdict bench arena`.
#[derive(Debug, Clone, Args)]
pub struct ArenaArgs {
    /// Number of models.
    #[arg(long, default_value_t = 200)]
    pub models: usize,
    /// Number of battles.
    #[arg(long, default_value_t = 5_000_000)]
    pub battles: usize,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file (.parquet or .csv), or with --files a directory.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Split the log into this many Parquet files (part-00000.parquet, ...) in the
    /// directory --out, with a manifest: a dataset `verdict rank DIR` streams.
    #[arg(long, default_value_t = 1)]
    pub files: usize,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict evaluate`.
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
    pub format: Shown,
    /// Write the model's page with its scores against the truth (a model file only),
    /// beside the uniform policy's and the per-context Bradley–Terry argmax's.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// With --report: who wins where on the test contexts, by this categorical column,
    /// under the model and under the truth (NashEval Figure 4).
    #[arg(long, value_name = "COLUMN", requires = "report")]
    pub winners_by: Option<String>,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict simulate`.
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// The world: the paper's Appendix G, or an arena-shaped world.
    #[arg(long, value_parser = choice::<crate::simulation::WorldKind>(), default_value = "appendix-g")]
    pub world: crate::simulation::WorldKind,
    /// Feedback modality [appendix-g; default pairwise]. The arena gives pairwise duels.
    #[arg(long, value_parser = choice::<FeedbackKind>())]
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
    /// Strength of a cyclic preference every voter shares among three styles of
    /// agents, strongest on code and non-English prompts [arena; default 0: none].
    #[arg(long)]
    pub cycle_strength: Option<f64>,
    /// Utility step between three styles of agents in each voter group's own order,
    /// the orders rotated between the groups (Condorcet's paradox): every group is
    /// transitive and the prompt sets their mix, so cycles come only from mixing
    /// [arena; default 0: none].
    #[arg(long)]
    pub group_rotation: Option<f64>,
    /// How even the voter groups' mix is, from 0 (each prompt's own mix) to 1 (three
    /// equal groups everywhere): their shares' logits times 1 − this [arena; default 0].
    #[arg(long)]
    pub group_balance: Option<f64>,
    /// Leave out the training prompts' truth (`truth.parquet`: K² payoffs per
    /// prompt, read only by `fit --variant oracle`) for simulations too large to
    /// hold it; the test prompts' truth is written as always [arena].
    #[arg(long)]
    pub no_training_truth: bool,
    /// Output directory (created, or updated if it holds an earlier simulation; files
    /// verdict did not write are never touched).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench network`.
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

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench baselines`.
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

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench nasheval`.
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
    #[arg(long, value_parser = choice::<BackboneKind>(), default_value = "gbdt")]
    pub outcome_backbone: BackboneKind,
    /// Backbone of the propensity models.
    #[arg(long, value_parser = choice::<BackboneKind>(), default_value = "gbdt")]
    pub propensity_backbone: BackboneKind,
    /// Backbone of the payoff regression.
    #[arg(long, value_parser = choice::<BackboneKind>(), default_value = "gbdt")]
    pub payoff_backbone: BackboneKind,
    /// Policies to score.
    #[arg(long, value_parser = choice::<PolicyKind>(), value_delimiter = ',', default_values = ["solver", "network"])]
    pub policies: Vec<PolicyKind>,
    /// Where the network policy's training starts (cells of a random start are keyed
    /// `Network`, of a solver start `Network-solver`).
    #[arg(long, value_parser = choice::<NetworkInit>(), default_value = "solver")]
    pub network_init: NetworkInit,
    /// Bounds of the menu inclusion probability (Eq. 63).
    #[arg(long, value_name = "LO,HI", value_delimiter = ',', default_values_t = [0.25, 0.75])]
    pub propensity_range: Vec<f64>,
    /// Slope of the selection logit (Eq. 63).
    #[arg(long, default_value_t = 2.0)]
    pub selection_slope: f64,
    /// Feedback forms, comma-separated: pairwise, ranking (the menus of Eq. 62),
    /// winner (winner-of-three, Eq. 65).
    #[arg(long, value_parser = choice::<FeedbackKind>(), value_delimiter = ',', default_value = "pairwise")]
    pub feedbacks: Vec<FeedbackKind>,
    /// Score the paper's baselines too (Appendix I.3): BT-plug-in, BT-debiased, Borda,
    /// BT-Reg on the fitted surfaces, and the global maximal lottery and pluralistic
    /// leaderboard from the training verdicts.
    #[arg(long)]
    pub baselines: bool,
    /// Surfaces to fit, comma-separated (the surface baselines read the plug-in and
    /// debiased ones); e.g. `--variants auto --policies network` adds the default's
    /// network cells to an earlier run.
    #[arg(long, value_parser = choice::<Variant>(), value_delimiter = ',', default_values = ["auto", "oracle", "debiased", "plugin"])]
    pub variants: Vec<Variant>,
    /// Results as JSON lines, appended cell by cell; cells already there are skipped.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench cost`.
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

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench route`.
#[derive(Debug, Clone, Args)]
pub struct BenchRouteArgs {
    /// The simulator's settings, as for `bench cost` (used without --data).
    #[command(flatten)]
    pub simulator: BenchCostArgs,
    /// AlpacaEval's judgments (as for `bench real`): score the routers on real
    /// prompts instead, each model's cost its mean output length on the panel's
    /// leaderboard.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The judges, with --data: v1 (its six models all have a length on AlpacaEval 1's
    /// leaderboard) or turbo (two of its five have none on AlpacaEval 2's: refused).
    #[arg(long, default_value = "v1", value_parser = clap::builder::PossibleValuesParser::new(PANELS.map(|p| p.name)))]
    pub panel: String,
    /// The splits, with --data.
    #[arg(long, value_delimiter = ',', default_values_t = [0, 1, 2])]
    pub splits: Vec<u64>,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench real`.
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
    /// A text encoder directory: the prompt is embedded by it instead of hashed.
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
    /// The judges: turbo (AlpacaEval 2's two GPT-4-turbo judges against
    /// gpt4_1106_preview, five models) or v1 (AlpacaEval 1's GPT-4 and Claude judges
    /// against text_davinci_003, six models).
    #[arg(long, default_value = "turbo", value_parser = clap::builder::PossibleValuesParser::new(PANELS.map(|p| p.name)))]
    pub panel: String,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench router`.
#[derive(Debug, Clone, Args)]
pub struct BenchRouterArgs {
    /// The folder of AlpacaEval's judgments (instructions.csv,
    /// alpacaeval_judgments.csv.gz and AlpacaEval 2's leaderboard).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// One split per seed: its held-out prompts and its training log.
    #[arg(long, value_delimiter = ',', default_values_t = [0, 1, 2])]
    pub splits: Vec<u64>,
    /// Models the logger observes per training prompt, on average (every pair of
    /// models must be observed together on some prompt).
    #[arg(long, default_value_t = 10.0)]
    pub observed: f64,
    /// kNN's neighbours.
    #[arg(long, default_value_t = 25)]
    pub neighbours: usize,
    /// A text encoder directory: the prompt is embedded by it instead of hashed.
    #[arg(long, value_name = "DIR")]
    pub encoder: Option<PathBuf>,
}

#[cfg(feature = "nasheval")]
/// Flags of `verdict bench summary`.
#[derive(Debug, Clone, Args)]
pub struct BenchSummaryArgs {
    /// A results file of `verdict bench nasheval`.
    pub results: PathBuf,
    /// Draw exploitability and support F1 against voters, one panel per feedback form
    /// and measure (SVG or PNG by extension).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}
