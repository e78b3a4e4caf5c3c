//! The accuracy experiment of NashEval Section 5 on the Appendix G simulator, behind
//! `verdict bench nasheval`: for each seed and voter count, one simulation; on it the
//! oracle, debiased, plug-in and data-driven (`auto`) surfaces, with a shared or
//! per-pair payoff regression, each scored under the solver and the network policy
//! against the exact truth (Eq. 69–71).
//!
//! With `baselines`, the paper's baselines too (Appendix I.3): BT argmax and BT-Reg
//! of the plug-in surface, BT argmax and Borda of the debiased one, and the global
//! baselines: the maximal lottery of the pooled training margins (Eq. 78) and the
//! pluralistic leaderboard's top three (Eq. 82–84); and each feedback form
//! of `feedbacks` (pairwise, ranking, winner-of-three) gets its own simulations.
//!
//! The nuisances are cross-fitted once per simulation and shared by every
//! configuration (as separate fits with the same seed would compute them). Each
//! finished cell is one [`AccuracyCell`] with a stable key ([`CellKey`]), so a run
//! that stops can resume by skipping the keys already recorded.

use std::time::Instant;

use crate::worlds::nasheval::FeedbackKind;
use serde::Serialize;
use serde_json::Value;
use verdict::io::{read_contexts, read_contextual_log, ContextualOptions, Source};
use verdict::nasheval::global::fit_global;
use verdict::nasheval::selection::CandidateRisk;
use verdict::nasheval::{
    fit_prepared, prepare, BackboneKind, FitOptions, NashEvalModel, NetworkInit, PayoffRegression,
    PolicyKind, PolicyRule, Prepared, TrainingReport, Variant, LINEAR_PENALTY,
};

use crate::simulation::{
    head_to_head, score, write_appendix_g, AppendixGSimulation, PolicyScore, Split, Truth,
};
use verdict::VerdictError;

/// The configurations of one simulation: variant and payoff regression. `auto`
/// chooses its own regression and is listed once.
/// `auto` comes first: its solver policy is the default every later cell is played
/// against head to head.
const CONFIGURATIONS: [(Variant, PayoffRegression); 6] = [
    (Variant::Auto, PayoffRegression::Shared),
    (Variant::Oracle, PayoffRegression::Shared),
    (Variant::Debiased, PayoffRegression::Shared),
    (Variant::Plugin, PayoffRegression::Shared),
    (Variant::Oracle, PayoffRegression::PerPair),
    (Variant::Debiased, PayoffRegression::PerPair),
];

/// What the experiment is run on. The simulator's other settings are
/// [`AppendixGSimulation`]'s defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct AccuracySettings {
    /// Replication seeds (the simulation's and the fit's).
    pub seeds: Vec<u64>,
    /// Voter counts `N_v`.
    pub voters: Vec<usize>,
    /// Training contexts.
    pub contexts: usize,
    /// Test contexts, scored against the truth.
    pub test_contexts: usize,
    /// `rho` of the policies and of the true equilibria (Eq. 74).
    pub rho: f64,
    /// Learner family of the outcome models.
    pub outcome_backbone: BackboneKind,
    /// Learner family of the propensity models.
    pub propensity_backbone: BackboneKind,
    /// Learner family of the payoff regression.
    pub payoff_backbone: BackboneKind,
    /// Policies scored.
    pub policies: Vec<PolicyKind>,
    /// Surfaces fitted (default: all four; the baselines read the plug-in and
    /// debiased ones).
    pub variants: Vec<Variant>,
    /// Where the network's training starts.
    pub network_init: NetworkInit,
    /// `(e_min, e_max)` of Eq. 63.
    pub propensity_range: (f64, f64),
    /// `eta` of Eq. 63.
    pub selection_slope: f64,
    /// Feedback forms simulated (Appendix G: pairwise, ranking, winner-of-three).
    pub feedbacks: Vec<FeedbackKind>,
    /// Whether the paper's baselines are scored beside NashEval.
    pub baselines: bool,
}

impl Default for AccuracySettings {
    fn default() -> Self {
        let simulation = AppendixGSimulation::default();
        Self {
            seeds: vec![70, 71, 72, 73, 74],
            voters: vec![1, 3, 5],
            contexts: simulation.contexts,
            test_contexts: simulation.test_contexts,
            rho: 0.001,
            outcome_backbone: BackboneKind::Gbdt,
            propensity_backbone: BackboneKind::Gbdt,
            payoff_backbone: BackboneKind::Gbdt,
            policies: vec![PolicyKind::Solver, PolicyKind::Network],
            variants: vec![
                Variant::Auto,
                Variant::Oracle,
                Variant::Debiased,
                Variant::Plugin,
            ],
            network_init: NetworkInit::Solver,
            propensity_range: simulation.propensity_range,
            selection_slope: simulation.selection_slope,
            feedbacks: vec![FeedbackKind::Pairwise],
            baselines: false,
        }
    }
}

/// The baselines of a surface (NashEval Appendix I.3): BT argmax (BT-plug-in) and
/// BT-Reg on the plug-in surface, BT argmax (BT-debiased) and Borda on the debiased
/// one, with their names.
fn surface_baselines(variant: Variant) -> &'static [(PolicyRule, &'static str)] {
    match variant {
        Variant::Plugin => &[
            (PolicyRule::BtArgmax, "bt-plugin"),
            (PolicyRule::BtReg, "bt-reg"),
        ],
        Variant::Debiased => &[
            (PolicyRule::BtArgmax, "bt-debiased"),
            (PolicyRule::Borda, "borda"),
        ],
        Variant::Oracle | Variant::Auto => &[],
    }
}

/// The global baselines (one lottery for every context, from the training verdicts)
/// with their names in keys and cells: the maximal lottery of the pooled margins
/// (Eq. 78) and the pluralistic leaderboard's top three (Eq. 82–84). The robust
/// lottery is not among them: the simulator's contexts have no categorical column to
/// group by.
const GLOBAL_BASELINES: [(PolicyRule, &str); 2] = [
    (PolicyRule::Lottery, "lottery"),
    (PolicyRule::Pluralistic, "pluralistic"),
];

/// The stable name of a variant, regression, policy, start or learner family in
/// keys: its serialized name in kebab case (`PerPair` → `per-pair`).
fn name<T: Serialize>(value: T) -> String {
    let text = serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut kebab = String::with_capacity(text.len() + 2);
    for (i, c) in text.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            kebab.push('-');
        }
        kebab.extend(c.to_lowercase());
    }
    kebab
}

/// What identifies one cell of the experiment: the settings it depends on, then seed,
/// voters, variant, regression (`selected` for `auto`), policy and the network's
/// start. Written as a `/`-separated string of `name=value` fields, independent of
/// how the types print themselves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellKey {
    /// `contexts`, `test_contexts`, `rho`, the three learner families, the
    /// propensity range and the selection slope, as `name=value` fields.
    pub setting: String,
    /// Replication seed.
    pub seed: u64,
    /// Voters.
    pub voters: usize,
    /// Surface variant.
    pub variant: String,
    /// Payoff regression, or `selected` for `auto`.
    pub regression: String,
    /// Policy.
    pub policy: String,
    /// The network's start (`-` for the solver policy).
    pub network_init: String,
}

impl std::fmt::Display for CellKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/seed={}/voters={}/variant={}/regression={}/policy={}/init={}",
            self.setting,
            self.seed,
            self.voters,
            self.variant,
            self.regression,
            self.policy,
            self.network_init
        )
    }
}

/// Wall-clock seconds of a cell's stages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSeconds {
    /// Cross-fitting the nuisances (shared by the simulation's cells).
    pub nuisances: f64,
    /// Selection and payoff regression.
    pub surface: f64,
    /// Training or solving the policy and scoring it.
    pub policy: f64,
}

/// One scored cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyCell {
    /// The cell's key ([`CellKey`]'s string, or [`AccuracySettings::baseline_key`]).
    pub key: String,
    /// What was scored: `nasheval`, or a baseline (`bt-plugin`, `bt-debiased`,
    /// `borda`, `bt-reg`, `lottery`, `pluralistic`).
    pub method: String,
    /// Feedback form: `pairwise`, `ranking` or `winner`.
    pub feedback: String,
    /// Replication seed.
    pub seed: u64,
    /// Voters.
    pub voters: usize,
    /// Surface variant (the surface a baseline reads; `None` for the global
    /// baselines, which read the training verdicts).
    pub variant: Option<Variant>,
    /// Payoff regression asked for (`None` for `auto`, which selects its own).
    pub regression: Option<PayoffRegression>,
    /// Policy.
    pub policy: PolicyKind,
    /// The surface `auto` chose.
    pub chosen: Option<Variant>,
    /// The regression `auto` chose.
    pub chosen_regression: Option<PayoffRegression>,
    /// The candidates' held-out risks (`auto`).
    pub candidates: Vec<CandidateRisk>,
    /// Mean exploitability against the true payoffs (Eq. 69).
    pub exploitability: f64,
    /// Mean support F1 against the true winner sets (Eq. 70).
    pub support_f1: f64,
    /// Mean game value against the true equilibria (Eq. 71).
    pub game_value: f64,
    /// The head-to-head game value (Eq. 71) of the default — the `auto` surface with
    /// the solver — against this cell's policy in the true games, when the default was
    /// computed in the same run (positive: the default wins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_vs_this: Option<f64>,
    /// The network's training (network policy).
    pub training: Option<TrainingReport>,
    /// Where the network's training started.
    pub network_init: NetworkInit,
    /// A collapsed random start's training, when retrained.
    pub collapsed_training: Option<TrainingReport>,
    /// Whether the network fell back to the solver.
    pub solver_fallback: bool,
    /// Seconds by stage.
    pub seconds: CellSeconds,
    /// Learner family of the outcome models.
    pub outcome_backbone: BackboneKind,
}

impl AccuracySettings {
    /// The `name=value` fields of the settings a cell depends on (the feedback form
    /// named when not pairwise, so that pairwise keys stay as they were).
    fn setting_key(&self, feedback: FeedbackKind) -> String {
        let form = match feedback {
            FeedbackKind::Pairwise => String::new(),
            other => format!("/feedback={}", other.name()),
        };
        format!(
            "contexts={}/test={}/rho={}/outcome={}/propensity={}/payoff={}/range={},{}/slope={}",
            self.contexts,
            self.test_contexts,
            self.rho,
            name(self.outcome_backbone),
            name(self.propensity_backbone),
            name(self.payoff_backbone),
            self.propensity_range.0,
            self.propensity_range.1,
            self.selection_slope
        ) + &form
    }

    /// The key of one cell of pairwise feedback.
    pub fn key(
        &self,
        seed: u64,
        voters: usize,
        variant: Variant,
        regression: PayoffRegression,
        policy: PolicyKind,
    ) -> CellKey {
        self.key_for(
            FeedbackKind::Pairwise,
            seed,
            voters,
            variant,
            regression,
            policy,
        )
    }

    /// The key of a baseline's cell: `method=NAME` after the seed and voters.
    pub fn baseline_key(
        &self,
        feedback: FeedbackKind,
        seed: u64,
        voters: usize,
        method: &str,
    ) -> String {
        format!(
            "{}/seed={seed}/voters={voters}/method={method}",
            self.setting_key(feedback)
        )
    }

    /// The key of one cell.
    pub fn key_for(
        &self,
        feedback: FeedbackKind,
        seed: u64,
        voters: usize,
        variant: Variant,
        regression: PayoffRegression,
        policy: PolicyKind,
    ) -> CellKey {
        CellKey {
            setting: self.setting_key(feedback),
            seed,
            voters,
            variant: name(variant),
            regression: if variant == Variant::Auto {
                "selected".into()
            } else {
                name(regression)
            },
            policy: name(policy),
            network_init: match policy {
                PolicyKind::Network => name(self.network_init),
                PolicyKind::Solver => "-".into(),
            },
        }
    }
}

/// Whether a policy is scored on a surface: per-pair surfaces only with the solver,
/// as the paper's Section 5.2 comparison is.
fn scored(policy: PolicyKind, regression: PayoffRegression) -> bool {
    policy == PolicyKind::Solver || regression == PayoffRegression::Shared
}

/// Runs every cell of `settings` whose key `done` does not hold, handing each
/// finished cell to `record` at once (which may write it down, so that an interrupted
/// run resumes).
///
/// # Errors
/// [`VerdictError`] from the simulation, a fit or `record`.
pub fn run_accuracy(
    settings: &AccuracySettings,
    done: &dyn Fn(&str) -> bool,
    record: &mut dyn FnMut(&AccuracyCell) -> Result<(), VerdictError>,
) -> Result<(), VerdictError> {
    for &feedback in &settings.feedbacks {
        for &seed in &settings.seeds {
            for &voters in &settings.voters {
                let run = Replication {
                    settings,
                    feedback,
                    seed,
                    voters,
                    done,
                };
                run.run(record)?;
            }
        }
    }
    Ok(())
}

/// One simulation of the experiment: a feedback form, seed and voter count.
struct Replication<'a> {
    settings: &'a AccuracySettings,
    feedback: FeedbackKind,
    seed: u64,
    voters: usize,
    done: &'a dyn Fn(&str) -> bool,
}

impl Replication<'_> {
    /// The policies of a configuration still to score.
    fn todo(&self, variant: Variant, regression: PayoffRegression) -> Vec<PolicyKind> {
        let s = self.settings;
        if !s.variants.contains(&variant) {
            return Vec::new();
        }
        s.policies
            .iter()
            .copied()
            .filter(|&p| scored(p, regression))
            .filter(|&p| {
                let key = s.key_for(
                    self.feedback,
                    self.seed,
                    self.voters,
                    variant,
                    regression,
                    p,
                );
                !(self.done)(&key.to_string())
            })
            .collect()
    }

    /// The baselines (name, rule) of a configuration still to score.
    fn baselines_todo(
        &self,
        variant: Variant,
        regression: PayoffRegression,
    ) -> Vec<(PolicyRule, &'static str)> {
        if !self.settings.baselines
            || regression != PayoffRegression::Shared
            || !self.settings.variants.contains(&variant)
        {
            return Vec::new();
        }
        surface_baselines(variant)
            .iter()
            .copied()
            .filter(|(_, name)| !(self.done)(&self.baseline_key(name)))
            .collect()
    }

    fn baseline_key(&self, method: &str) -> String {
        self.settings
            .baseline_key(self.feedback, self.seed, self.voters, method)
    }

    /// A scored cell with the fields every cell shares.
    fn cell(&self, key: String, method: &str, scores: PolicyScore) -> AccuracyCell {
        AccuracyCell {
            key,
            method: method.into(),
            feedback: self.feedback.name().into(),
            seed: self.seed,
            voters: self.voters,
            variant: None,
            regression: None,
            policy: PolicyKind::Solver,
            chosen: None,
            chosen_regression: None,
            candidates: Vec::new(),
            exploitability: scores.exploitability,
            support_f1: scores.support_f1,
            game_value: scores.game_value,
            default_vs_this: None,
            training: None,
            network_init: self.settings.network_init,
            collapsed_training: None,
            solver_fallback: false,
            seconds: CellSeconds {
                nuisances: 0.0,
                surface: 0.0,
                policy: 0.0,
            },
            outcome_backbone: self.settings.outcome_backbone,
        }
    }

    fn run(
        &self,
        record: &mut dyn FnMut(&AccuracyCell) -> Result<(), VerdictError>,
    ) -> Result<(), VerdictError> {
        let settings = self.settings;
        let globals_todo: Vec<(PolicyRule, &str)> = GLOBAL_BASELINES
            .into_iter()
            .filter(|(_, name)| settings.baselines && !(self.done)(&self.baseline_key(name)))
            .collect();
        let pending = |&(v, r): &(Variant, PayoffRegression)| {
            !self.todo(v, r).is_empty() || !self.baselines_todo(v, r).is_empty()
        };
        if globals_todo.is_empty() && !CONFIGURATIONS.iter().any(pending) {
            return Ok(());
        }
        let (seed, voters) = (self.seed, self.voters);
        let dir = tempfile::tempdir()
            .map_err(|e| VerdictError::Data(format!("cannot make a temporary directory: {e}")))?;
        let sim = dir.path().join("sim");
        write_appendix_g(
            &AppendixGSimulation {
                feedback: self.feedback,
                voters,
                contexts: settings.contexts,
                test_contexts: settings.test_contexts,
                seed,
                rho: settings.rho,
                propensity_range: settings.propensity_range,
                selection_slope: settings.selection_slope,
            },
            &sim,
        )?;
        let table = ContextualOptions::default();
        let log = read_contextual_log(
            &Source::File(sim.join("contexts.parquet")),
            &Source::File(sim.join("feedback.parquet")),
            &table,
        )?;
        let test_truth = Truth::open(&sim, Split::Test)?;
        // The global cells are recorded last, played against the default when the run
        // computed it.
        let mut globals = Vec::with_capacity(globals_todo.len());
        for (rule, method) in globals_todo {
            let started = Instant::now();
            // The paper's baselines (Appendix I.3) pool pairs never compared to margin 0.
            let options = FitOptions {
                rule,
                rho: settings.rho,
                seed,
                unobserved: verdict::ratings::UnobservedPairs::Ties,
                ..FitOptions::default()
            };
            let pi = fit_global(&log, &options)?.probabilities;
            let policies = pi.repeat(test_truth.ids.len());
            let mut cell = self.cell(
                self.baseline_key(method),
                method,
                score(&log.agents, &policies, &test_truth)?,
            );
            cell.seconds.policy = started.elapsed().as_secs_f64();
            globals.push((cell, policies));
        }
        let mut default: Option<Vec<f64>> = None;
        if CONFIGURATIONS.iter().any(pending) {
            self.fit_and_score(&log, &sim, &test_truth, &mut default, record)?;
        }
        for (mut cell, policies) in globals {
            cell.default_vs_this = versus(&default, &log.agents, &policies, &test_truth)?;
            record(&cell)?;
        }
        Ok(())
    }

    /// Cross-fits the nuisances once, fits each pending configuration's surface and
    /// scores its policies and baselines; `default` receives the `auto` surface's
    /// solver policy at the test contexts as soon as it is computed.
    fn fit_and_score(
        &self,
        log: &verdict::feedback::ContextualLog,
        sim: &std::path::Path,
        test_truth: &Truth,
        default: &mut Option<Vec<f64>>,
        record: &mut dyn FnMut(&AccuracyCell) -> Result<(), VerdictError>,
    ) -> Result<(), VerdictError> {
        let settings = self.settings;
        let (seed, voters) = (self.seed, self.voters);
        let table = ContextualOptions::default();
        let truth = Truth::open(sim, Split::Training)?.nuisances_for(log)?;
        let test = read_contexts(&Source::File(sim.join("test_contexts.parquet")), &table)?;
        let base = FitOptions {
            variant: Variant::Auto,
            policy: PolicyKind::Solver,
            network_init: settings.network_init,
            rho: settings.rho,
            seed,
            ..FitOptions::default()
        }
        .with_backbones(
            settings.outcome_backbone,
            settings.propensity_backbone,
            settings.payoff_backbone,
            LINEAR_PENALTY,
        );
        let started = Instant::now();
        let prepared = prepare(log, &base.check(log)?, &|_, _, _| {})?;
        let nuisances = started.elapsed().as_secs_f64();
        // The oracle's surface starts from the truth, not from the cross-fit.
        let oracle_options = FitOptions {
            variant: Variant::Oracle,
            ..base.clone()
        };
        let oracle = Prepared::oracle(log, &oracle_options.check(log)?, &truth)?;
        for &(variant, regression) in &CONFIGURATIONS {
            let policies = self.todo(variant, regression);
            let baselines = self.baselines_todo(variant, regression);
            if policies.is_empty() && baselines.is_empty() {
                continue;
            }
            let started = Instant::now();
            let options = FitOptions {
                variant,
                regression,
                ..base.clone()
            };
            let from = if variant == Variant::Oracle {
                &oracle
            } else {
                &prepared
            };
            let mut model = fit_on(log, options, from, Value::Null)?;
            let surface = started.elapsed().as_secs_f64();
            if variant == Variant::Auto && default.is_none() {
                // Fitted with the solver policy: this is the default's solver policy.
                *default = Some(model.policy(&test.features)?);
            }
            for (rule, name) in baselines {
                let started = Instant::now();
                let played = model.baseline_policies(rule, &test.features)?;
                let scores = score(&model.agents, &played, test_truth)?;
                let mut cell = self.cell(self.baseline_key(name), name, scores);
                cell.default_vs_this = versus(default, &log.agents, &played, test_truth)?;
                cell.variant = Some(variant);
                cell.regression = Some(regression);
                cell.seconds = CellSeconds {
                    nuisances,
                    surface,
                    policy: started.elapsed().as_secs_f64(),
                };
                record(&cell)?;
            }
            for policy in policies {
                let started = Instant::now();
                model = model.with_policy(policy, &log.features, &|_, _, _| {})?;
                let policies = model.policy(&test.features)?;
                let scores = score(&model.agents, &policies, test_truth)?;
                let default_vs_this = versus(default, &log.agents, &policies, test_truth)?;
                let summary = &model.summary;
                let key =
                    settings.key_for(self.feedback, seed, voters, variant, regression, policy);
                record(&AccuracyCell {
                    variant: Some(variant),
                    regression: (variant != Variant::Auto).then_some(regression),
                    policy,
                    chosen: summary.chosen,
                    chosen_regression: summary.chosen_regression,
                    candidates: summary.candidates.clone(),
                    training: summary.training.clone(),
                    collapsed_training: summary.collapsed_training.clone(),
                    solver_fallback: summary.solver_fallback,
                    default_vs_this,
                    seconds: CellSeconds {
                        nuisances,
                        surface,
                        policy: started.elapsed().as_secs_f64(),
                    },
                    ..self.cell(key.to_string(), "nasheval", scores)
                })?;
            }
        }
        Ok(())
    }
}

/// A fit of `log` with `options` from a preparation made once (`prepared`: the
/// cross-fit, or the truth for the oracle): the options checked against the log,
/// then [`fit_prepared`] without progress reports.
///
/// # Errors
/// [`VerdictError`] from the check or the fit.
pub(crate) fn fit_on(
    log: &verdict::feedback::ContextualLog,
    options: FitOptions,
    prepared: &Prepared,
    featurizer: Value,
) -> Result<NashEvalModel, VerdictError> {
    let options = options.check(log)?;
    Ok(fit_prepared(
        log,
        &options,
        prepared,
        featurizer,
        &|_, _, _| {},
    )?)
}

/// The head-to-head game value of the `default` policies against `policies` in the
/// true games, when the default is known.
fn versus(
    default: &Option<Vec<f64>>,
    agents: &[String],
    policies: &[f64],
    truth: &Truth,
) -> Result<Option<f64>, VerdictError> {
    default
        .as_ref()
        .map(|d| head_to_head(agents, d, policies, truth))
        .transpose()
}

/// Seconds per full-batch training step of the policy network (one forward and
/// backward pass over every context with the Danskin gap gradient and an Adam update,
/// then the monitoring forward pass) on `contexts` random 5-agent games with 5
/// uniform features, hidden width `hidden`, averaged over `steps` steps: the
/// measurement behind `verdict bench network`.
pub fn network_step_seconds(contexts: usize, hidden: usize, steps: usize) -> f64 {
    use rand::{Rng, SeedableRng};
    use verdict::nasheval::{payoff_matrices, GapLoss, Network, NetworkOptions};
    const AGENTS: usize = 5;
    const FEATURES: usize = 5;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let features: Vec<f64> = (0..contexts * FEATURES)
        .map(|_| rng.random_range(0.0..1.0))
        .collect();
    let mut payoffs = vec![0.0; contexts * AGENTS * AGENTS];
    for game in payoffs.chunks_mut(AGENTS * AGENTS) {
        for j in 0..AGENTS {
            for k in j + 1..AGENTS {
                let v: f64 = rng.random_range(-1.0..1.0);
                game[j * AGENTS + k] = v;
                game[k * AGENTS + j] = -v;
            }
        }
    }
    let games = payoff_matrices(&payoffs, AGENTS);
    let loss = GapLoss::Priced(verdict::game::Regularizer {
        rho: 1e-3,
        costs: Vec::new(),
    });
    let options = NetworkOptions {
        hidden,
        batch_size: contexts,
        max_epochs: steps.max(1),
        patience: usize::MAX,
        validation_fraction: 0.0,
        ..NetworkOptions::default()
    };
    let started = Instant::now();
    Network::train(&features, FEATURES, &games, &loss, &options, &|_, _| {});
    started.elapsed().as_secs_f64() / options.max_epochs as f64
}

/// A JSON Lines file of experiment cells, each with a `key`: the keys already there
/// (so a rerun skips them), and new cells appended one line at a time.
#[derive(Debug)]
pub struct ResultsFile {
    path: std::path::PathBuf,
    keys: std::collections::HashSet<String>,
    file: std::fs::File,
}

impl ResultsFile {
    /// Opens `path` for appending, reading the keys it holds (none when it does not
    /// exist yet).
    ///
    /// # Errors
    /// [`VerdictError::Data`] when the file cannot be read or opened, or a line is not
    /// a cell with a key: such a file is not a results file and is left untouched.
    pub fn open(path: &std::path::Path) -> Result<Self, VerdictError> {
        let fail = |m: String| VerdictError::Data(format!("{}: {m}", path.display()));
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(fail(format!("cannot read: {e}"))),
        };
        let keys = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(n, line)| {
                serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v["key"].as_str().map(str::to_string))
                    .ok_or_else(|| {
                        fail(format!(
                            "line {}: not a cell of an experiment's results; name a new file",
                            n + 1
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| fail(format!("cannot append: {e}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            keys,
            file,
        })
    }

    /// The keys of the cells recorded.
    pub fn keys(&self) -> &std::collections::HashSet<String> {
        &self.keys
    }

    /// Appends `cell` as one line and flushes it.
    ///
    /// # Errors
    /// [`VerdictError::Data`] when the line cannot be written.
    pub fn append(&mut self, key: &str, cell: &impl Serialize) -> Result<(), VerdictError> {
        use std::io::Write as _;
        let line = serde_json::to_string(cell).map_err(std::io::Error::other);
        line.and_then(|line| writeln!(self.file, "{line}"))
            .and_then(|()| self.file.flush())
            .map_err(|e| {
                VerdictError::Data(format!("cannot append to {}: {e}", self.path.display()))
            })?;
        self.keys.insert(key.to_string());
        Ok(())
    }
}
