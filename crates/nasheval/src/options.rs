//! What a fit is told: the surface variant, the policy, the regularizer and budget,
//! the learners and the network ([`FitOptions`]), checked once against the log into
//! [`CheckedOptions`], the only form the fitting stages accept.

use serde::{Deserialize, Serialize};
use verdict_feedback::ContextualLog;
use verdict_game::SoftBudgetPrices;
use verdict_ratings::{MarginFill, SkewLowRank, UnobservedPairs};
use verdict_settings::Setting;

use crate::backbone::{Backbone, BackboneKind, GbdtParams};
use crate::error::FitError;
use crate::groups::context_groups;
use crate::network::NetworkOptions;
use crate::pairs::AggregatorKind;
use crate::settings::{NuisanceDesign, PayoffRegression, PolicyRule, RankCriterion};
use crate::structured::StructuredOptions;

/// Which payoff surface the policy is trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum Variant {
    /// Pseudo-outcomes of Eq. 42 from cross-fitted nuisances (NashEval-debiased).
    Debiased,
    /// The fold-averaged outcome models through the aggregators (Eq. 8).
    Plugin,
    /// Pseudo-outcomes from the true nuisances (Eq. 73; simulator only).
    #[strum(message = "Pseudo-outcomes from the simulator's true nuisances (needs --truth)")]
    Oracle,
    /// Plug-in, or debiased with a shared or per-pair payoff regression, whichever
    /// has the lowest cross-validated doubly-robust risk ([`crate::selection`]).
    #[strum(
        message = "Plug-in or debiased, whichever has the lower cross-validated doubly-robust risk"
    )]
    Auto,
}

/// How a context's distribution over agents is produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum PolicyKind {
    /// The gap-loss MLP of Appendix I.2.
    Network,
    /// The regularized equilibrium of `Â(x)` solved per context (Appendix B.6).
    Solver,
}

/// What `verdict fit --method` fits: NashEval, or one of the paper's per-context
/// baselines on the surface it uses (NashEval Appendix I.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum FitMethod {
    /// NashEval: the regularized equilibrium of the chosen surface.
    Nasheval,
    /// BT argmax of the plug-in surface (Eq. 75).
    BtPlugin,
    /// BT argmax of the debiased surface (Eq. 75).
    BtDebiased,
    /// The largest average row margin of the debiased surface.
    Borda,
    /// The regularized equilibrium of the plug-in BT scores' `tanh` game (Eq. 76).
    BtReg,
    /// The budgeted best reply to the uniform opponent under the plug-in BT scores
    /// (Eq. 77; needs costs and a budget).
    BtCost,
    /// One maximal lottery of the pooled training margins everywhere (Eq. 78).
    Lottery,
    /// One robust maximal lottery over groups of contexts everywhere (Eq. 79–81;
    /// needs `groups_by`).
    RobustLottery,
    /// The uniform lottery over the pluralistic leaderboard's top three (Eq. 82–84).
    Pluralistic,
}

impl FitMethod {
    /// `options` set for this method: the surface variant and the policy rule (and
    /// the per-context solver for the baselines, which train no network).
    ///
    /// # Errors
    /// [`FitError::Setting`] when a baseline is asked for with a variant or policy
    /// other than the defaults (`auto`, `network`): the baseline sets both itself.
    pub fn apply(self, options: FitOptions) -> Result<FitOptions, FitError> {
        if self != Self::Nasheval
            && (options.variant != Variant::Auto || options.policy != PolicyKind::Network)
        {
            return Err(FitError::setting(
                "method",
                format!(
                    "the {} baseline sets the surface and the policy itself; leave the variant and the policy at their defaults",
                    self.name()
                ),
            ));
        }
        let (variant, rule) = match self {
            Self::Nasheval => return Ok(options),
            Self::BtPlugin => (Variant::Plugin, PolicyRule::BtArgmax),
            Self::BtDebiased => (Variant::Debiased, PolicyRule::BtArgmax),
            Self::Borda => (Variant::Debiased, PolicyRule::Borda),
            Self::BtReg => (Variant::Plugin, PolicyRule::BtReg),
            Self::BtCost => (Variant::Plugin, PolicyRule::BtCost),
            // The global methods read the log's verdicts; the model keeps the plug-in
            // surface for `predict --payoffs` and the report.
            Self::Lottery => (Variant::Plugin, PolicyRule::Lottery),
            Self::RobustLottery => (Variant::Plugin, PolicyRule::RobustLottery),
            Self::Pluralistic => (Variant::Plugin, PolicyRule::Pluralistic),
        };
        Ok(FitOptions {
            variant,
            rule,
            policy: PolicyKind::Solver,
            ..options
        })
    }

    /// The method's name as the command line and Python spell it.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Where the policy network's training starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum NetworkInit {
    /// He-initialized weights, as Appendix I.2 trains (a collapse onto a constant
    /// policy is retrained from the solver, see [`crate::FitSummary::collapsed_training`]).
    #[strum(
        message = "Random (He) weights, as the paper trains; a collapse onto one agent is retrained from the solver"
    )]
    Random,
    /// Weights first fitted to the solver's equilibria of the training contexts'
    /// games by cross-entropy, then trained on the gap loss
    /// ([`Network::train_from`]); the default: on the Appendix G simulator it
    /// avoids the collapse a random start can fall into and lowers the held-out gap
    /// most where the equilibria are vertices (N_v = 1; EXPERIMENTS.md).
    #[strum(
        message = "Fitted first to the solver's equilibria of the training contexts, then trained on the gap loss"
    )]
    Solver,
}

impl NetworkInit {
    /// Model files written before this option existed trained from a random start.
    fn default_for_old_files() -> Self {
        Self::Random
    }
}

/// Everything a fit is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// How the surface's games become policies: NashEval's equilibrium, or one of the
    /// paper's baselines ([`FitMethod`] sets it with the surface it uses).
    #[serde(default)]
    pub rule: PolicyRule,
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
    /// Choose the LightGBM settings of the nuisance models and of the payoff
    /// regression over Table 14's grids by 3-fold loss before fitting them
    /// ([`crate::tune::tune_nuisances`], [`crate::tune::tune_payoff`]; [`crate::fit`]
    /// runs the searches and records them in [`crate::FitSummary::learner_tuning`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tune_learners: bool,
    /// Choose the network's settings over Table 14's grid by held-out gap before
    /// training it ([`crate::tune::tune_network`]).
    #[serde(default)]
    pub tune_network: bool,
    /// Where the network's training starts.
    #[serde(default = "NetworkInit::default_for_old_files")]
    pub network_init: NetworkInit,
    /// Per-menu or pooled outcome models ([`NuisanceDesign`]; default `Auto`).
    #[serde(default = "NuisanceDesign::default_for_old_files")]
    pub nuisance_design: NuisanceDesign,
    /// The categorical context column whose values are the robust lottery's groups
    /// ([`PolicyRule::RobustLottery`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups_by: Option<String>,
    /// The robust lottery's radius `τ` in `[0, 1]` (default: Eq. 80's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robust_radius: Option<f64>,
    /// How the global lottery's pooled margins fill pairs of agents never compared
    /// ([`UnobservedPairs`]; refused by default; files written before the setting
    /// counted them as ties).
    #[serde(default = "ties_for_old_files")]
    pub unobserved: UnobservedPairs,
    /// Cyclic components of the `low-rank` completion.
    #[serde(default = "default_completion_rank")]
    pub completion_rank: usize,
    /// Settings of the structured outcome model and payoff regression
    /// ([`crate::structured`]); their seed is derived from [`FitOptions::seed`].
    #[serde(default, skip_serializing_if = "StructuredOptions::is_default")]
    pub structured: StructuredOptions,
    /// How the structured outcome models' rank is chosen when not given
    /// ([`RankCriterion`]).
    #[serde(default = "RankCriterion::log_loss_for_old_files")]
    pub rank_criterion: RankCriterion,
}

/// The linear learners' default penalty (ridge and L2 logistic `lambda`).
pub const LINEAR_PENALTY: f64 = 1.0;

impl FitOptions {
    /// These options with learner families for the outcome, propensity and payoff
    /// models, each with its defaults: LightGBM with [`GbdtParams::nuisance`] (outcome,
    /// propensity) or [`GbdtParams::payoff`], or the linear learners with penalty
    /// `linear_penalty`.
    pub fn with_backbones(
        self,
        outcome: BackboneKind,
        propensity: BackboneKind,
        payoff: BackboneKind,
        linear_penalty: f64,
    ) -> Self {
        Self {
            outcome_backbone: outcome.with(GbdtParams::nuisance(), linear_penalty),
            propensity_backbone: propensity.with(GbdtParams::nuisance(), linear_penalty),
            payoff_backbone: payoff.with(GbdtParams::payoff(), linear_penalty),
            ..self
        }
    }

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
            rule: PolicyRule::Equilibrium,
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
            tune_learners: false,
            tune_network: false,
            network_init: NetworkInit::Solver,
            nuisance_design: NuisanceDesign::Auto,
            groups_by: None,
            robust_radius: None,
            unobserved: UnobservedPairs::Refuse,
            completion_rank: default_completion_rank(),
            structured: StructuredOptions::default(),
            rank_criterion: RankCriterion::default(),
        }
    }
}

/// What a model file written before `unobserved` existed did: ties.
fn ties_for_old_files() -> UnobservedPairs {
    UnobservedPairs::Ties
}

fn default_completion_rank() -> usize {
    SkewLowRank::default().rank
}

impl FitOptions {
    /// How the global lottery fills pairs never compared.
    pub fn margin_fill(&self) -> MarginFill {
        MarginFill {
            unobserved: self.unobserved,
            completion_rank: self.completion_rank,
            ..MarginFill::default()
        }
    }
}

impl FitOptions {
    /// Checks the options against `log` once, before any work: every setting in its
    /// range and the settings consistent with each other and with the log (linfa's
    /// `ParamGuard` pattern). The fitting stages accept only the result.
    ///
    /// # Errors
    /// [`FitError`] naming the setting at fault and what it must be.
    pub fn check(&self, log: &ContextualLog) -> Result<CheckedOptions, FitError> {
        let options = self;
        let k = log.agents.len();
        if k < 2 {
            return Err(FitError::Log(format!(
                "the log has {k} agent; a game needs at least two"
            )));
        }
        if !(options.rho.is_finite() && options.rho >= 0.0) {
            return Err(FitError::setting(
                "rho",
                format!("rho = {} must be a finite number >= 0", options.rho),
            ));
        }
        if options.policy == PolicyKind::Network && options.rho <= 0.0 {
            return Err(FitError::setting(
                "rho",
                format!("the network policy needs rho > 0 (a strongly convex regularizer); use {policy} solver for rho = 0", policy = Setting("policy")),
            ));
        }
        if !options.costs.is_empty() && options.costs.len() != k {
            return Err(FitError::setting(
                "costs",
                format!(
                    "{} costs for {k} agents; give one cost per agent",
                    options.costs.len()
                ),
            ));
        }
        if options.costs.iter().any(|c| !c.is_finite()) {
            return Err(FitError::setting("costs", "costs must be finite numbers"));
        }
        #[cfg(not(feature = "lightgbm"))]
        if [
            &options.outcome_backbone,
            &options.propensity_backbone,
            &options.payoff_backbone,
        ]
        .iter()
        .any(|b| matches!(b, Backbone::Gbdt(_)))
        {
            return Err(FitError::setting("backbone", crate::booster::absent()));
        }
        if options.rule != PolicyRule::Equilibrium && options.policy == PolicyKind::Network {
            return Err(FitError::setting(
                "rule",
                format!("a baseline rule is its own policy, computed per context from the surface: use {policy} solver (FitMethod sets both)", policy = Setting("policy")),
            ));
        }
        if options.rule == PolicyRule::RobustLottery {
            context_groups(log, groups_column(options)?)?;
        }
        checked_radius(options.robust_radius)?;
        options
            .margin_fill()
            .validate()
            .map_err(|e| FitError::setting("completion_rank", e.to_string()))?;
        if options.rule == PolicyRule::RobustLottery && options.unobserved == UnobservedPairs::Core
        {
            return Err(FitError::setting(
                "unobserved",
                "the robust lottery weighs every group's own pooled margins, and a core of all the verdicts is not one of each group's; use bradley-terry, low-rank or ties",
            ));
        }
        if options.rule == PolicyRule::BtCost
            && (options.costs.is_empty() || options.budget.is_none())
        {
            return Err(FitError::setting(
                "budget",
                "BT-cost needs agent costs and a budget (the best lottery within it against the uniform opponent)",
            ));
        }
        if options.budget.is_some() && options.policy == PolicyKind::Network {
            return Err(FitError::setting(
                "budget",
                format!(
                    "a hard budget is solved per context; use {policy} solver with {budget}",
                    policy = Setting("policy"),
                    budget = Setting("budget")
                ),
            ));
        }
        if options.budget.is_some() && options.costs.is_empty() {
            return Err(FitError::setting("budget", "a budget needs agent costs"));
        }
        if let Some(prices) = &options.soft_budget {
            if options.costs.is_empty() || options.budget.is_some() || options.rho <= 0.0 {
                return Err(FitError::setting(
                    "soft_budget",
                    "a soft budget needs agent costs and rho > 0, and does not combine with a hard budget",
                ));
            }
            prices
                .validate()
                .map_err(|e| FitError::setting("soft_budget", format!("soft budget: {e}")))?;
        }
        if !(options.propensity_floor_share.is_finite() && options.propensity_floor_share >= 0.0) {
            return Err(FitError::setting(
                "propensity_floor_share",
                format!(
                    "propensity floor share {} must be a finite number >= 0",
                    options.propensity_floor_share
                ),
            ));
        }
        if !(options.propensity_floor > 0.0 && options.propensity_floor < 1.0) {
            return Err(FitError::setting(
                "propensity_floor",
                format!(
                    "propensity floor {} must be in (0, 1)",
                    options.propensity_floor
                ),
            ));
        }
        if log.contexts.len() < 2 * options.folds.max(2) {
            return Err(FitError::setting(
                "folds",
                format!(
                    "{contexts} distinct context(s) for {count} folds: cross-fitting needs at \
                     least two contexts per fold. Give more contexts (a battle log's \
                     contexts are the distinct values of its {context_columns}) or fewer \
                     {folds}, at least 2; for one leaderboard over all the battles, rank \
                     them without contexts (Bradley–Terry or the maximal lottery)",
                    contexts = log.contexts.len(),
                    count = options.folds,
                    context_columns = Setting("context_columns"),
                    folds = Setting("folds"),
                ),
            ));
        }
        Ok(CheckedOptions {
            options: self.seeded(),
            agents: k,
            contexts: log.contexts.len(),
        })
    }
}

/// [`FitOptions`] that passed [`FitOptions::check`] against a log of `agents` agents
/// and `contexts` contexts, with every LightGBM backbone seeded by
/// [`FitOptions::seed`] ([`FitOptions::seeded`]). Read through `Deref`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedOptions {
    options: FitOptions,
    agents: usize,
    contexts: usize,
}

impl std::ops::Deref for CheckedOptions {
    type Target = FitOptions;
    fn deref(&self) -> &FitOptions {
        &self.options
    }
}

impl CheckedOptions {
    /// The options, as checked (and seeded).
    pub fn into_inner(self) -> FitOptions {
        self.options
    }

    /// Refuses a log other than the one the options were checked against.
    ///
    /// # Errors
    /// [`FitError`] when the log's agent or context count differs.
    pub fn check_log(&self, log: &ContextualLog) -> Result<(), FitError> {
        if log.agents.len() != self.agents || log.contexts.len() != self.contexts {
            return Err(FitError::Log(format!(
                "the options were checked against a log of {} agents and {} contexts, not this one ({} agents, {} contexts); check them against it",
                self.agents,
                self.contexts,
                log.agents.len(),
                log.contexts.len()
            )));
        }
        Ok(())
    }
}

/// The categorical column the robust lottery groups by ([`FitOptions::groups_by`]).
///
/// # Errors
/// [`FitError::Setting`] (`groups_by`) when none is named.
pub(crate) fn groups_column(options: &FitOptions) -> Result<&str, FitError> {
    options.groups_by.as_deref().ok_or_else(|| {
        FitError::setting(
            "groups_by",
            "the robust lottery needs groups: name a categorical context column (`groups_by`)",
        )
    })
}

/// A robust lottery's radius, which must lie in `[0, 1]` when given.
///
/// # Errors
/// [`FitError::Setting`] (`robust_radius`) for a radius outside `[0, 1]`.
pub(crate) fn checked_radius(radius: Option<f64>) -> Result<Option<f64>, FitError> {
    match radius {
        Some(tau) if !(0.0..=1.0).contains(&tau) => Err(FitError::setting(
            "robust_radius",
            format!("the radius is a total-variation distance in [0, 1], found {tau}"),
        )),
        _ => Ok(radius),
    }
}
