//! The plain choices a fit is told — how nuisances are modelled
//! ([`NuisanceDesign`]), how pseudo-outcomes are regressed ([`PayoffRegression`]) and
//! how a surface's games become policies ([`PolicyRule`]) — in a leaf of their own:
//! the options name them, and the stages that carry them out import them from here
//! rather than from each other.

use serde::{Deserialize, Serialize};

/// How the nuisances `e^m` and `μ^m_jk` are modelled.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    Default,
    strum::IntoStaticStr,
    strum::VariantArray,
    strum::EnumString,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum NuisanceDesign {
    /// One propensity model per menu and one outcome model per (menu, pair) on the
    /// contexts that selected the menu (Algorithm 1 as written): right for a few
    /// well-observed menus.
    PerMenu,
    /// Per fold, one propensity model over `(x, menu)` and one outcome model over
    /// `(x, j, k)` ([`crate::pooled`]): for many or rare menus.
    #[strum(
        message = "One propensity model over (x, menu) and one outcome model over (x, j, k) per fold: rare menus borrow strength"
    )]
    Pooled,
    /// Per fold, one structured propensity model — each agent's selection score and
    /// an offset from the context, every menu's `logit ê^m(x)` their sum over its
    /// agents ([`crate::structured_propensity`]) — and one structured outcome model:
    /// each agent's score and `r` cyclic coordinates from the context, every pair's
    /// `μ_jk(x) = tanh(d_jk(x)/2)` from them ([`crate::structured`]), trained on
    /// every verdict by likelihood. Outputs grow with K, not with the pairs.
    #[strum(
        message = "One propensity model and one outcome model of each agent's scores (and cyclic coordinates) per fold (grows with K, not K²)"
    )]
    Structured,
    /// Per menu when the catalogue is small (at most [`crate::crossfit::PER_MENU_LIMIT`] menus) and
    /// every menu has feedback in every fold's training contexts; structured
    /// otherwise. On the arena worlds of EXPERIMENTS.md ("Structured payoff
    /// surfaces") the structured outcome model has the lower out-of-fold error than
    /// the pooled one on every world and seed measured, and its plug-in surface the
    /// lower error against `A(x)`.
    #[default]
    #[strum(
        message = "Per menu for at most 20 menus each seen in every fold; structured otherwise"
    )]
    Auto,
}

impl NuisanceDesign {
    /// Model files written before the option modelled outcomes per menu.
    pub fn default_for_old_files() -> Self {
        Self::PerMenu
    }
}

/// How pseudo-outcomes are regressed on the context.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
    strum::EnumString,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum PayoffRegression {
    /// One regressor on `(x, j, k)` with `j`, `k` (and the pair) one-hot (Algorithm 1).
    Shared,
    /// One regressor per pair on `x` (Section 5.2).
    PerPair,
    /// One structured model of the context whose pair values are
    /// `tanh(d_jk(x)/2)` ([`crate::structured`]), fitted by squared error to the
    /// pseudo-outcomes: skew-symmetric by construction, with `K (1 + 2r)` outputs.
    Structured,
}

/// How a fit without a given cyclic rank chooses the rank of its structured outcome
/// models (and of the payoff regression, which takes theirs).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
    strum::EnumString,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub enum RankCriterion {
    /// Each candidate rank's policy's exploitability, estimated on held-out contexts
    /// against the doubly-robust pseudo-outcomes, the simplest rank within one
    /// standard error of the lowest ([`crate::rank_choice`]).
    #[default]
    #[strum(
        message = "Each rank's policy's held-out exploitability against the doubly-robust pseudo-outcomes; the simplest within one standard error of the lowest"
    )]
    Exploitability,
    /// The held-out log loss of the verdicts on the first fold's validation contexts.
    #[strum(
        message = "The verdicts' held-out log loss (blind to cycles that are a small part of the likelihood)"
    )]
    LogLoss,
}

impl RankCriterion {
    /// Model files written before the setting chose the rank by log loss.
    pub fn log_loss_for_old_files() -> Self {
        Self::LogLoss
    }
}

/// How a fitted surface's games become policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyRule {
    /// NashEval: the regularized equilibrium of `Â(x)` (network or solver).
    #[default]
    Equilibrium,
    /// All mass on the largest per-context Bradley–Terry score (Eq. 75).
    BtArgmax,
    /// All mass on the largest average row margin.
    Borda,
    /// The regularized equilibrium of `tanh((s_j − s_k)/2)` (Eq. 76).
    BtReg,
    /// The budgeted best reply to the uniform opponent under `σ(s_j − s_k)` (Eq. 77).
    BtCost,
    /// One maximal lottery of the pooled training margins for every context (Eq. 78;
    /// [`crate::global`]).
    Lottery,
    /// One robust maximal lottery over groups of contexts for every context (Eq. 79–81).
    RobustLottery,
    /// The uniform lottery over the pluralistic leaderboard's top three (Eq. 82–84;
    /// [`crate::pluralistic`]).
    Pluralistic,
}

impl PolicyRule {
    /// Whether the rule plays one lottery everywhere, computed from the training log
    /// rather than from the surface ([`crate::global`]).
    pub fn is_global(self) -> bool {
        matches!(
            self,
            Self::Lottery | Self::RobustLottery | Self::Pluralistic
        )
    }
}
