//! NashEval end to end (Algorithm 1): cross-fitted nuisances, pseudo-outcomes, a
//! payoff surface `Â(x)` and a policy `pi(x)`, as one saved, self-describing model.

use serde::{Deserialize, Serialize};
use verdict_feedback::ContextualLog;
use verdict_game::{
    budgeted_regularized_equilibrium, soft_budget_equilibrium, solve_batch, solve_each, HardBudget,
    PayoffMatrix, Regularizer, SoftBudget, SoftBudgetPrices, SoftRegularizer,
};

use crate::backbone::{Backbone, GbdtParams};
use crate::crossfit::{
    cross_fit, menu_floors, CrossFit, CrossFitOptions, NuisanceDesign, Nuisances, Observed,
};
use crate::gap::{payoff_matrices, GapLoss};
use crate::learner::{context_folds, LearnerError};
use crate::network::{Network, NetworkOptions, TrainingReport};
use crate::pairs::{AggregatorKind, PairMap};
use crate::payoff::{
    has_pair_columns, plugin_pairs, pseudo_outcomes, PayoffRegression, PayoffSurface, SharedRows,
};
use crate::selection::{
    held_out_risk, out_of_fold_regression, paired_difference, risk_per_context, CandidateRisk,
};
use crate::tune::{network_grid, tune_network, TunedNetwork};

/// The model file's format name.
pub const FORMAT: &str = "verdict-nasheval";
/// The model file's version; files of other versions are refused.
pub const VERSION: u32 = 1;

/// Which payoff surface the policy is trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Pseudo-outcomes of Eq. 42 from cross-fitted nuisances (NashEval-debiased).
    Debiased,
    /// The fold-averaged outcome models through the aggregators (Eq. 8).
    Plugin,
    /// Pseudo-outcomes from the true nuisances (Eq. 73; simulator only).
    Oracle,
    /// Plug-in, or debiased with a shared or per-pair payoff regression, whichever
    /// has the lowest cross-validated doubly-robust risk ([`crate::selection`]).
    Auto,
}

/// How a context's distribution over agents is produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyKind {
    /// The gap-loss MLP of Appendix I.2.
    Network,
    /// The regularized equilibrium of `Â(x)` solved per context (Appendix B.6).
    Solver,
}

/// Where the policy network's training starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkInit {
    /// He-initialized weights, as Appendix I.2 trains (a collapse onto a constant
    /// policy is retrained from the solver, see [`NashEvalModel::train_network`]).
    Random,
    /// Weights first fitted to the solver's equilibria of the training contexts'
    /// games by cross-entropy, then trained on the gap loss
    /// ([`Network::train_from`]); the default: on the Appendix G simulator it
    /// avoids the collapse a random start can fall into and lowers the held-out gap
    /// most where the equilibria are vertices (N_v = 1; EXPERIMENTS.md).
    Solver,
}

impl NetworkInit {
    /// Model files written before the option trained from a random start.
    fn before_the_option() -> Self {
        Self::Random
    }
}

/// Everything a fit is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Payoff surface variant.
    pub variant: Variant,
    /// Policy.
    pub policy: PolicyKind,
    /// `rho` of Eq. 74 (default 0.001).
    pub rho: f64,
    /// Per-agent costs of Eq. 20 (empty: none).
    pub costs: Vec<f64>,
    /// A hard budget `c^T pi <= limit` (solver policy only).
    pub budget: Option<f64>,
    /// A soft budget (Eq. 52–53): the costs priced by `phi(c^T pi)` instead of
    /// linearly; needs costs and `rho > 0`, not with a hard budget.
    #[serde(default)]
    pub soft_budget: Option<SoftBudgetPrices>,
    /// Cross-fitting folds `K_CF`.
    pub folds: usize,
    /// Seed of folds, learners and network.
    pub seed: u64,
    /// Propensity floor (default 0.01).
    pub propensity_floor: f64,
    /// The floor relative to a menu's selection rate: a menu's floor is
    /// `min(propensity_floor, propensity_floor_share × rate)`
    /// ([`crate::crossfit::menu_floors`]; default 0: the absolute floor alone, which
    /// the arena experiment of EXPERIMENTS.md favours).
    #[serde(default)]
    pub propensity_floor_share: f64,
    /// Backbone of the outcome models.
    pub outcome_backbone: Backbone,
    /// Backbone of the propensity models.
    pub propensity_backbone: Backbone,
    /// Backbone of the payoff regression.
    pub payoff_backbone: Backbone,
    /// Shared or per-pair payoff regression.
    pub regression: PayoffRegression,
    /// Aggregator of pairs held by several menus.
    pub aggregator: AggregatorKind,
    /// Network training settings.
    pub network: NetworkOptions,
    /// Choose the network's settings over Table 14's grid by held-out gap before
    /// training it ([`crate::tune::tune_network`]).
    #[serde(default)]
    pub tune_network: bool,
    /// Where the network's training starts.
    #[serde(default = "NetworkInit::before_the_option")]
    pub network_init: NetworkInit,
    /// Per-menu or pooled outcome models ([`NuisanceDesign`]; default `Auto`).
    #[serde(default = "NuisanceDesign::before_the_option")]
    pub nuisance_design: NuisanceDesign,
}

impl FitOptions {
    /// The options with every LightGBM backbone's seed set to [`FitOptions::seed`]:
    /// one seed drives the folds, every learner and the network.
    pub fn seeded(&self) -> Self {
        let seed = |backbone: &Backbone| match backbone {
            Backbone::Gbdt(params) => Backbone::Gbdt(GbdtParams {
                seed: self.seed,
                ..params.clone()
            }),
            linear => linear.clone(),
        };
        Self {
            outcome_backbone: seed(&self.outcome_backbone),
            propensity_backbone: seed(&self.propensity_backbone),
            payoff_backbone: seed(&self.payoff_backbone),
            ..self.clone()
        }
    }
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            variant: Variant::Auto,
            policy: PolicyKind::Network,
            rho: 1e-3,
            costs: Vec::new(),
            budget: None,
            soft_budget: None,
            folds: 5,
            seed: 0,
            propensity_floor: 0.01,
            propensity_floor_share: 0.0,
            outcome_backbone: Backbone::Gbdt(GbdtParams::nuisance()),
            propensity_backbone: Backbone::Gbdt(GbdtParams::nuisance()),
            payoff_backbone: Backbone::Gbdt(GbdtParams::payoff()),
            regression: PayoffRegression::Shared,
            aggregator: AggregatorKind::Mean,
            network: NetworkOptions::default(),
            tune_network: false,
            network_init: NetworkInit::Solver,
            nuisance_design: NuisanceDesign::Auto,
        }
    }
}

/// What the fit measured along the way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FitSummary {
    /// Training contexts.
    pub contexts: usize,
    /// Contexts per cross-fitting fold (empty for the oracle).
    pub fold_sizes: Vec<usize>,
    /// Out-of-fold propensities raised to the floor.
    pub clipped_propensities: usize,
    /// Out-of-fold mean squared error of the outcome models on observed verdicts.
    pub outcome_loss: Option<f64>,
    /// Out-of-fold log loss of the propensity models.
    pub propensity_loss: Option<f64>,
    /// The variant the surface was built with (the choice, for `auto`).
    pub chosen: Option<Variant>,
    /// The payoff regression of the surface (the choice, for `auto`).
    pub chosen_regression: Option<PayoffRegression>,
    /// Held-out doubly-robust risks of the candidates (`auto`).
    pub candidates: Vec<CandidateRisk>,
    /// Network training, when the policy is a network (or fell back to the solver).
    pub training: Option<TrainingReport>,
    /// The randomly initialized training, when it collapsed onto a constant policy
    /// and the network was trained again from the solver's equilibria.
    #[serde(default)]
    pub collapsed_training: Option<TrainingReport>,
    /// Whether the retrained network collapsed too, so the policy is the solver.
    #[serde(default)]
    pub solver_fallback: bool,
    /// The network search over Table 14, when asked for.
    #[serde(default)]
    pub network_tuning: Option<TunedNetwork>,
    /// Mean gap `G_Omega(pi(X_i); Â(X_i))` of the policy on the training contexts.
    pub final_gap: f64,
    /// The outcome design used (the choice, for `Auto`).
    #[serde(default)]
    pub nuisance_design: Option<NuisanceDesign>,
    /// Menus (catalogue index) that some fold's training contexts never selected, with
    /// the number of contexts that selected each: modelled by the pooled design.
    #[serde(default)]
    pub sparse_menus: Vec<(usize, usize)>,
    /// Wall-clock seconds of each stage, in order (`nuisances`, `selection`,
    /// `payoff`, `policy`). Not saved: a model file depends on the data and the
    /// options only, so equal fits give byte-identical files.
    #[serde(skip)]
    pub stage_seconds: Vec<(String, f64)>,
}

/// A stage of [`fit`], for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Hyperparameter search of the boosted trees (`--tune`).
    Tuning,
    /// Hyperparameter search of the policy network (`--tune`).
    NetworkTuning,
    /// Propensity and outcome models, fold by fold.
    Nuisances,
    /// Cross-validating the candidate surfaces (`auto`).
    Selection,
    /// The payoff regression.
    Payoff,
    /// Policy training (epochs) or solving (contexts).
    Policy,
}

impl Stage {
    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Tuning => "tuning",
            Self::NetworkTuning => "network tuning",
            Self::Nuisances => "nuisances",
            Self::Selection => "selection",
            Self::Payoff => "payoff",
            Self::Policy => "policy",
        }
    }
}

/// A fit that cannot be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct FitError(pub String);

impl From<LearnerError> for FitError {
    fn from(e: LearnerError) -> Self {
        Self(e.0)
    }
}

/// A fitted NashEval model: the schema it expects, how it was fitted, the payoff
/// surface and the policy.
#[derive(Debug, Serialize, Deserialize)]
pub struct NashEvalModel {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written.
    pub version: u32,
    /// Agent names, in the order of every output.
    pub agents: Vec<String>,
    /// Feature names the model expects, in order.
    pub feature_names: Vec<String>,
    /// How the caller turned context tables into features (opaque here; the
    /// command line records its text featurizer and categorical settings).
    pub featurizer: serde_json::Value,
    /// Menu catalogue, as agent indices.
    pub menus: Vec<Vec<usize>>,
    /// The settings of the fit.
    pub options: FitOptions,
    /// Pairs, menus holding them and their aggregators.
    pub pairs: PairMap,
    /// `Â(x)`.
    pub payoff: PayoffSurface,
    /// The policy network (network policy).
    pub network: Option<Network>,
    /// What the fit measured.
    pub summary: FitSummary,
}

fn check_options(log: &ContextualLog, options: &FitOptions) -> Result<(), FitError> {
    let k = log.agents.len();
    if k < 2 {
        return Err(FitError(format!(
            "the log has {k} agent; a game needs at least two"
        )));
    }
    if !(options.rho.is_finite() && options.rho >= 0.0) {
        return Err(FitError(format!(
            "rho = {} must be a finite number >= 0",
            options.rho
        )));
    }
    if options.policy == PolicyKind::Network && options.rho <= 0.0 {
        return Err(FitError(
            "the network policy needs rho > 0 (a strongly convex regularizer); use `policy` solver for rho = 0".into(),
        ));
    }
    if !options.costs.is_empty() && options.costs.len() != k {
        return Err(FitError(format!(
            "{} costs for {k} agents; give one cost per agent",
            options.costs.len()
        )));
    }
    if options.costs.iter().any(|c| !c.is_finite()) {
        return Err(FitError("costs must be finite numbers".into()));
    }
    if options.budget.is_some() && options.policy == PolicyKind::Network {
        return Err(FitError(
            "a hard budget is solved per context; use `policy` solver with `budget`".into(),
        ));
    }
    if options.budget.is_some() && options.costs.is_empty() {
        return Err(FitError("a budget needs agent costs".into()));
    }
    if let Some(prices) = &options.soft_budget {
        if options.costs.is_empty() || options.budget.is_some() || options.rho <= 0.0 {
            return Err(FitError(
                "a soft budget needs agent costs and rho > 0, and does not combine with a hard budget".into(),
            ));
        }
        prices
            .validate()
            .map_err(|e| FitError(format!("soft budget: {e}")))?;
    }
    if !(options.propensity_floor_share.is_finite() && options.propensity_floor_share >= 0.0) {
        return Err(FitError(format!(
            "propensity floor share {} must be a finite number >= 0",
            options.propensity_floor_share
        )));
    }
    if !(options.propensity_floor > 0.0 && options.propensity_floor < 1.0) {
        return Err(FitError(format!(
            "propensity floor {} must be in (0, 1)",
            options.propensity_floor
        )));
    }
    if log.contexts.len() < 2 * options.folds.max(2) {
        return Err(FitError(format!(
            "{} contexts for {} folds; need at least two contexts per fold",
            log.contexts.len(),
            options.folds
        )));
    }
    Ok(())
}

/// The part of a fit shared by every variant and policy on one log: the pairs and,
/// unless the variant is the oracle, the cross-fitted nuisances and the
/// pseudo-outcomes built from them.
#[derive(Debug)]
pub struct Prepared {
    /// Pairs and aggregators of the log's catalogue.
    pub pairs: PairMap,
    /// Cross-fitted nuisances (all fold outcome models kept).
    pub crossfit: Option<CrossFit>,
    /// Out-of-fold pseudo-outcomes `Γ_i,jk`, `contexts × pairs`.
    pub gamma: Vec<f64>,
}

/// Checks `options` and cross-fits the nuisances (Algorithm 1, lines 3–14).
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn prepare(
    log: &ContextualLog,
    options: &FitOptions,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<Prepared, FitError> {
    check_options(log, options)?;
    let options = &options.seeded();
    let pairs = PairMap::new(log.agents.len(), &log.menus, options.aggregator).map_err(FitError)?;
    if options.variant == Variant::Oracle {
        return Ok(Prepared {
            pairs,
            crossfit: None,
            gamma: Vec::new(),
        });
    }
    let crossfit = cross_fit(
        log,
        &pairs,
        &CrossFitOptions {
            folds: options.folds,
            seed: options.seed,
            propensity_floor: options.propensity_floor,
            propensity_floor_share: options.propensity_floor_share,
            outcome: options.outcome_backbone.clone(),
            propensity: options.propensity_backbone.clone(),
            keep_outcome_models: options.variant != Variant::Debiased,
            nuisance_design: options.nuisance_design,
        },
        &|done, total| progress(Stage::Nuisances, done, total),
    )?;
    let gamma = pseudo_outcomes(log, &pairs, &crossfit.nuisances);
    Ok(Prepared {
        pairs,
        crossfit: Some(crossfit),
        gamma,
    })
}

/// Fits NashEval on `log` (Algorithm 1). `truth` holds the true nuisances at the
/// training contexts and is required by (only) the oracle variant.
/// `progress(stage, done, total)` reports work as it goes.
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn fit(
    log: &ContextualLog,
    options: &FitOptions,
    truth: Option<&Nuisances>,
    featurizer: serde_json::Value,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, FitError> {
    let prepared = prepare(log, options, progress)?;
    fit_prepared(log, options, &prepared, truth, featurizer, progress)
}

/// Folds of the selection's cross-validation (three, by context, seeded apart from
/// the cross-fitting folds).
const SELECTION_FOLDS: usize = 3;

/// What `auto` resolves to: among the plug-in surface and the debiased surface with
/// a shared or (for at most [`crate::payoff::PAIR_COLUMNS_LIMIT`] pairs) a per-pair
/// payoff regression, the one with the lowest held-out
/// doubly-robust risk ([`crate::selection`]); ties go to the plug-in, then to the
/// shared regression.
fn choose(
    log: &ContextualLog,
    options: &FitOptions,
    prepared: &Prepared,
    crossfit: &CrossFit,
    rows: &SharedRows<'_>,
    summary: &mut FitSummary,
) -> Result<(Variant, PayoffRegression), FitError> {
    let pairs = &prepared.pairs;
    let npairs = pairs.pairs.len();
    let folds = context_folds(
        log.contexts.len(),
        SELECTION_FOLDS,
        options.seed ^ 0x5E1E_C7ED,
    )?;
    let plugin = plugin_pairs(pairs, &crossfit.nuisances.outcome);
    summary.candidates = vec![held_out_risk("plugin", &prepared.gamma, &plugin, npairs)];
    let plugin_risks = risk_per_context(&prepared.gamma, &plugin, npairs);
    let mut best = (
        summary.candidates[0].risk,
        Variant::Plugin,
        options.regression,
    );
    // One regressor per pair is a candidate for small catalogues only: at K = 16 it
    // is 120 regressions per selection fold, for a surface the shared regression can
    // represent too.
    let candidates: &[(&str, PayoffRegression)] = if has_pair_columns(pairs) {
        &[
            ("debiased-shared", PayoffRegression::Shared),
            ("debiased-per-pair", PayoffRegression::PerPair),
        ]
    } else {
        &[("debiased-shared", PayoffRegression::Shared)]
    };
    for &(name, regression) in candidates {
        let predicted = out_of_fold_regression(
            &log.features,
            log.feature_names.len(),
            pairs,
            &prepared.gamma,
            &folds,
            regression,
            &options.payoff_backbone,
            rows,
        )?;
        let mut risk = held_out_risk(name, &prepared.gamma, &predicted, npairs);
        risk.difference = Some(paired_difference(
            &risk_per_context(&prepared.gamma, &predicted, npairs),
            &plugin_risks,
        ));
        if risk.risk < best.0 {
            best = (risk.risk, Variant::Debiased, regression);
        }
        summary.candidates.push(risk);
    }
    Ok((best.1, best.2))
}

/// Whether pair `p`'s pseudo-outcome at context `i` has a correction term: some menu
/// holding the pair was observed there.
fn carries_correction<'a>(
    observed: &'a Observed,
    pairs: &'a PairMap,
) -> impl Fn(usize, usize) -> bool + Sync + 'a {
    move |i, p| {
        pairs.holders[p]
            .iter()
            .any(|h| observed.selected(i, h.menu))
    }
}

/// [`fit`] from a [`prepare`]d log: the payoff surface of `options.variant` and the
/// policy (lines 15–19).
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn fit_prepared(
    log: &ContextualLog,
    options: &FitOptions,
    prepared: &Prepared,
    truth: Option<&Nuisances>,
    featurizer: serde_json::Value,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, FitError> {
    check_options(log, options)?;
    let options = &options.seeded();
    let pairs = &prepared.pairs;
    let (features, columns) = (&log.features, log.feature_names.len());
    let mut summary = FitSummary {
        contexts: log.contexts.len(),
        ..FitSummary::default()
    };
    let observed = Observed::new(log);
    let carries = carries_correction(&observed, pairs);
    let payoff_seconds = std::cell::Cell::new(None);
    let regress = |gamma: &[f64], regression: PayoffRegression| {
        progress(Stage::Payoff, 0, 1);
        let started = std::time::Instant::now();
        let surface = PayoffSurface::regress(
            features,
            columns,
            pairs,
            gamma,
            regression,
            &options.payoff_backbone,
            &SharedRows {
                carries: &carries,
                seed: options.seed,
            },
        );
        payoff_seconds.set(Some(started.elapsed().as_secs_f64()));
        progress(Stage::Payoff, 1, 1);
        surface
    };
    let payoff = match (&prepared.crossfit, options.variant) {
        (_, Variant::Oracle) => {
            let truth = truth.ok_or_else(|| {
                FitError("the oracle variant needs the simulator's truth (`truth` DIR)".into())
            })?;
            let mut truth = truth.clone();
            let floors = menu_floors(
                log,
                options.propensity_floor,
                options.propensity_floor_share,
            );
            let menus = log.menus.len();
            truth
                .propensity
                .iter_mut()
                .enumerate()
                .for_each(|(c, e)| *e = e.max(floors[c % menus]));
            summary.chosen = Some(Variant::Oracle);
            summary.chosen_regression = Some(options.regression);
            regress(&pseudo_outcomes(log, pairs, &truth), options.regression)?
        }
        (None, _) => {
            return Err(FitError(
                "the log was prepared for the oracle; prepare it again for this variant".into(),
            ))
        }
        (Some(crossfit), variant) => {
            summary.fold_sizes = crossfit.fold_sizes.clone();
            summary.clipped_propensities = crossfit.clipped;
            summary.outcome_loss = Some(crossfit.outcome_loss);
            summary.propensity_loss = Some(crossfit.propensity_loss);
            summary.nuisance_design = Some(crossfit.nuisance_design);
            summary.sparse_menus = crossfit.sparse_menus.clone();
            summary
                .stage_seconds
                .push((Stage::Nuisances.label().into(), crossfit.seconds));
            let (chosen, regression) = if variant == Variant::Auto {
                progress(Stage::Selection, 0, 1);
                let started = std::time::Instant::now();
                let rows = SharedRows {
                    carries: &carries,
                    seed: options.seed,
                };
                let chosen = choose(log, options, prepared, crossfit, &rows, &mut summary)?;
                summary.stage_seconds.push((
                    Stage::Selection.label().into(),
                    started.elapsed().as_secs_f64(),
                ));
                progress(Stage::Selection, 1, 1);
                chosen
            } else {
                (variant, options.regression)
            };
            summary.chosen = Some(chosen);
            summary.chosen_regression = Some(regression);
            if chosen == Variant::Plugin && !crossfit.pooled_models.is_empty() {
                PayoffSurface::PooledPlugIn {
                    models: crossfit.pooled_models.clone(),
                }
            } else if chosen == Variant::Plugin {
                if crossfit.outcome_models.is_empty() {
                    return Err(FitError(
                        "the plug-in needs the fold outcome models; prepare with a variant other than debiased".into(),
                    ));
                }
                PayoffSurface::PlugIn {
                    models: crossfit.outcome_models.clone(),
                }
            } else {
                regress(&prepared.gamma, regression)?
            }
        }
    };
    let mut model = NashEvalModel {
        format: FORMAT.into(),
        version: VERSION,
        agents: log.agents.clone(),
        feature_names: log.feature_names.clone(),
        featurizer,
        menus: log.menus.clone(),
        options: options.clone(),
        pairs: pairs.clone(),
        payoff,
        network: None,
        summary,
    };
    if let Some(seconds) = payoff_seconds.get() {
        model
            .summary
            .stage_seconds
            .push((Stage::Payoff.label().into(), seconds));
    }
    let started = std::time::Instant::now();
    let games = payoff_matrices(&model.payoffs(features), model.agents.len());
    if options.policy == PolicyKind::Network {
        model.train_network(features, &games, progress)?;
    }
    let (policies, certificates) = model.policy_from(features, &games)?;
    model.summary.final_gap = match certificates {
        // The solver's own certificate (the budgeted gap when a budget applies).
        Some(gaps) => gaps.iter().sum::<f64>() / gaps.len().max(1) as f64,
        None => model.loss().mean(&games, &policies),
    };
    model.summary.stage_seconds.push((
        Stage::Policy.label().into(),
        started.elapsed().as_secs_f64(),
    ));
    Ok(model)
}

impl NashEvalModel {
    /// Trains the policy network on the surface's games at the training contexts
    /// `features` (one game each), after searching Table 14 when
    /// [`FitOptions::tune_network`] asks, and makes it the model's policy.
    ///
    /// Training starts where [`FitOptions::network_init`] says. When a randomly
    /// initialized network collapses ([`TrainingReport::collapsed`]: no better than
    /// a constant policy), it is trained again from the solver's equilibria of the
    /// same games ([`Network::train_from`]), and the first report is kept in
    /// [`FitSummary::collapsed_training`]. Should a network started from the solver
    /// collapse too, the model falls back to the solver policy
    /// ([`FitSummary::solver_fallback`]).
    ///
    /// # Errors
    /// [`FitError`] when the solver fails on a context while computing the start or
    /// rescuing a collapse.
    pub fn train_network(
        &mut self,
        features: &[f64],
        games: &[PayoffMatrix],
        progress: &dyn Fn(Stage, usize, usize),
    ) -> Result<(), FitError> {
        let columns = self.feature_names.len();
        let loss = self.loss();
        // The solver's equilibria: where a solver start begins.
        let start = match self.options.network_init {
            NetworkInit::Solver => Some(self.solve(games)?.0),
            NetworkInit::Random => None,
        };
        if self.options.tune_network {
            let base = NetworkOptions {
                seed: self.options.seed,
                ..self.options.network.clone()
            };
            let tuned = tune_network(
                features,
                columns,
                games,
                &loss,
                &network_grid(&base),
                start.as_deref(),
                &|done, total| progress(Stage::NetworkTuning, done, total),
            );
            self.options.network = tuned.options.clone();
            self.summary.network_tuning = Some(tuned);
        }
        let options = NetworkOptions {
            seed: self.options.seed,
            ..self.options.network.clone()
        };
        let report_epochs = |done, total| progress(Stage::Policy, done, total);
        let train = |start: Option<&[f64]>| {
            Network::train_from(
                features,
                columns,
                games,
                &loss,
                &options,
                start,
                &report_epochs,
            )
        };
        let (mut network, mut report) = train(start.as_deref());
        self.summary.collapsed_training = None;
        if start.is_none() && report.collapsed() {
            let targets = self.solve(games)?.0;
            self.summary.collapsed_training = Some(report);
            (network, report) = train(Some(&targets));
        }
        self.summary.solver_fallback = report.collapsed();
        self.summary.training = Some(report);
        if self.summary.solver_fallback {
            self.network = None;
            self.options.policy = PolicyKind::Solver;
        } else {
            self.network = Some(network);
            self.options.policy = PolicyKind::Network;
        }
        Ok(())
    }

    /// The gap loss of the fit's regularizer `Omega`: `rho` and the costs as a
    /// linear price (Eq. 20), or priced by the soft budget (Eq. 52–53); with a hard
    /// budget the costs constrain the simplex instead (Eq. 54–55) and `Omega` is
    /// `rho` alone.
    pub fn loss(&self) -> GapLoss {
        let rho = self.options.rho;
        match self.options.soft_budget {
            Some(prices) => GapLoss::SoftBudget(SoftRegularizer {
                rho,
                budget: SoftBudget {
                    costs: self.options.costs.clone(),
                    prices,
                },
            }),
            None => GapLoss::Priced(Regularizer {
                rho,
                costs: if self.options.budget.is_some() {
                    Vec::new()
                } else {
                    self.options.costs.clone()
                },
            }),
        }
    }

    /// `Â(x)` for every row of `features` (`contexts × K × K`).
    pub fn payoffs(&self, features: &[f64]) -> Vec<f64> {
        self.payoff
            .matrices(features, self.feature_names.len(), &self.pairs)
    }

    /// `pi(x)` for every row of `features` (`contexts × K`).
    ///
    /// # Errors
    /// [`FitError`] when the solver fails on a context (naming it), and for a
    /// probability that is not a finite number (a damaged model): no NaN is returned.
    pub fn policy(&self, features: &[f64]) -> Result<Vec<f64>, FitError> {
        let policies = match &self.network {
            // The network needs no payoff surface at inference.
            Some(network) => network.predict(features),
            None => {
                let games = payoff_matrices(&self.payoffs(features), self.agents.len());
                self.policy_from(features, &games)?.0
            }
        };
        let k = self.agents.len();
        if let Some(bad) = policies.iter().position(|p| !p.is_finite()) {
            return Err(FitError(format!(
                "the model gives context {} a probability that is not a number (agent {:?}); the model is damaged: refit it",
                bad / k + 1,
                self.agents[bad % k]
            )));
        }
        Ok(policies)
    }

    /// Policies at `features` given their payoff games; for the solver also each
    /// equilibrium's certified gap.
    fn policy_from(
        &self,
        features: &[f64],
        games: &[PayoffMatrix],
    ) -> Result<(Vec<f64>, Option<Vec<f64>>), FitError> {
        if let Some(network) = &self.network {
            return Ok((network.predict(features), None));
        }
        let (policies, gaps) = self.solve(games)?;
        Ok((policies, Some(gaps)))
    }

    /// The regularized (and budgeted, when asked) equilibrium of every game
    /// (`contexts × K`) and each one's certified gap.
    fn solve(&self, games: &[PayoffMatrix]) -> Result<(Vec<f64>, Vec<f64>), FitError> {
        let rho = self.options.rho;
        let solved = match (self.options.budget, self.loss()) {
            (Some(limit), _) => {
                let budget = HardBudget {
                    costs: self.options.costs.clone(),
                    limit,
                };
                solve_each(games, |g| budgeted_regularized_equilibrium(g, rho, &budget))
            }
            (None, GapLoss::SoftBudget(soft)) => {
                solve_each(games, |g| soft_budget_equilibrium(g, rho, &soft.budget))
            }
            (None, GapLoss::Priced(regularizer)) => solve_batch(games, &regularizer),
        };
        let mut out = Vec::with_capacity(games.len() * self.agents.len());
        let mut gaps = Vec::with_capacity(games.len());
        for (i, lottery) in solved.into_iter().enumerate() {
            let lottery =
                lottery.map_err(|e| FitError(format!("equilibrium of context {i}: {e}")))?;
            out.extend(lottery.probabilities);
            gaps.push(lottery.gap);
        }
        Ok((out, gaps))
    }

    /// Checks a loaded model's format and version.
    ///
    /// # Errors
    /// [`FitError`] saying what the file is and what was expected.
    pub fn check_format(&self) -> Result<(), FitError> {
        if self.format != FORMAT {
            return Err(FitError(format!(
                "not a NashEval model (format {:?}, expected {FORMAT:?})",
                self.format
            )));
        }
        if self.version != VERSION {
            return Err(FitError(format!(
                "model file version {} is not supported (this build reads version {VERSION}); refit the model",
                self.version
            )));
        }
        self.check_dimensions().map_err(|m| {
            FitError(format!(
                "inconsistent model ({m}); the file was edited or damaged: refit the model"
            ))
        })
    }

    /// Every size in the model agrees with the others: agents, menus, pairs, features,
    /// the payoff models and the network.
    fn check_dimensions(&self) -> Result<(), String> {
        let k = self.agents.len();
        if k < 2 {
            return Err(format!("{k} agents"));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = self.agents.iter().find(|a| !seen.insert(*a)) {
            return Err(format!("agent {twice:?} is listed twice"));
        }
        for (m, menu) in self.menus.iter().enumerate() {
            let distinct: std::collections::HashSet<_> = menu.iter().collect();
            if menu.len() < 2 || distinct.len() != menu.len() || menu.iter().any(|&a| a >= k) {
                return Err(format!(
                    "menu {m} {menu:?} is not a set of 2+ of the {k} agents"
                ));
            }
        }
        let pairs = &self.pairs;
        if pairs.agents != k
            || pairs.pairs.iter().any(|&(a, b)| a >= b || b >= k)
            || pairs.holders.len() != pairs.pairs.len()
            || pairs.aggregators.len() != pairs.pairs.len()
            || pairs.menu_outcomes.len() != self.menus.len()
        {
            return Err(format!(
                "the pair map does not fit {k} agents and {} menus",
                self.menus.len()
            ));
        }
        let columns = self.feature_names.len();
        self.payoff.check(columns, pairs)?;
        if let Some(network) = &self.network {
            network.check(columns, k)?;
        }
        Ok(())
    }
}

/// Features of new contexts in a model's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignedFeatures {
    /// `contexts × features`, in the model's feature order.
    pub features: Vec<f64>,
    /// One-hot columns of categories the model never saw (dropped: the model treats
    /// such a context as having none of its known categories).
    pub unseen_categories: Vec<String>,
}

impl NashEvalModel {
    /// Rearranges `features` (named `names`) into the model's feature order. A
    /// one-hot category column (`column=value`) the new table lacks is all zeros; one
    /// the model never saw is dropped and listed.
    ///
    /// # Errors
    /// [`FitError`] when a feature the model needs is missing, or a numeric feature
    /// the model was not fitted with is present: a different feature schema.
    pub fn align_features(
        &self,
        names: &[String],
        features: &[f64],
    ) -> Result<AlignedFeatures, FitError> {
        let category_of = |name: &str| name.split_once('=').map(|(c, _)| c.to_string());
        let known_columns: std::collections::HashSet<String> = self
            .feature_names
            .iter()
            .filter_map(|n| category_of(n))
            .collect();
        let given: std::collections::HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut unseen_categories = Vec::new();
        for name in names {
            if self.feature_names.contains(name) {
                continue;
            }
            match category_of(name) {
                Some(column) if known_columns.contains(&column) => {
                    unseen_categories.push(name.clone())
                }
                _ => {
                    return Err(FitError(format!(
                        "the contexts have feature {name:?}, which the model was not fitted with \
                         (model features: {}); use contexts with the training schema or refit",
                        self.feature_names.join(", ")
                    )))
                }
            }
        }
        let mut sources = Vec::with_capacity(self.feature_names.len());
        for name in &self.feature_names {
            match given.get(name.as_str()) {
                Some(&i) => sources.push(Some(i)),
                None if category_of(name).is_some() => sources.push(None),
                None => {
                    return Err(FitError(format!(
                        "the contexts lack feature {name:?}, which the model was fitted with; \
                         use contexts with the training schema or refit"
                    )))
                }
            }
        }
        let width = names.len().max(1);
        let rows = features.len() / width;
        let mut out = Vec::with_capacity(rows * sources.len());
        for row in features.chunks(width).take(rows) {
            out.extend(sources.iter().map(|s| s.map_or(0.0, |i| row[i])));
        }
        Ok(AlignedFeatures {
            features: out,
            unseen_categories,
        })
    }
}
