//! What a fit measured along the way ([`FitSummary`]) and its stages ([`Stage`]).

use serde::{Deserialize, Serialize};

use crate::histogram::PropensityHistogram;
use crate::network::TrainingReport;
use crate::options::Variant;
use crate::selection::CandidateRisk;
use crate::settings::{NuisanceDesign, PayoffRegression};
use crate::structured::StructuredReport;
use crate::tune::{Tuned, TunedNetwork};

/// What the fit measured along the way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FitSummary {
    /// Training contexts.
    pub contexts: usize,
    /// Contexts per cross-fitting fold (empty for the oracle).
    pub fold_sizes: Vec<usize>,
    /// Out-of-fold propensities of selected menus raised to the floor.
    pub clipped_propensities: usize,
    /// Feedback records, each weighting its correction term by one propensity (0 in
    /// files written before this was recorded).
    #[serde(default)]
    pub feedback_records: usize,
    /// Out-of-fold mean squared error of the outcome models on observed verdicts.
    pub outcome_loss: Option<f64>,
    /// Out-of-fold log loss of the propensity models (`None` when the propensities
    /// were logged).
    pub propensity_loss: Option<f64>,
    /// Whether the propensities came from the log (a router's decision log records
    /// them exactly) rather than from propensity models.
    #[serde(default)]
    pub logged_propensities: bool,
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
    /// The LightGBM searches over Table 14 ([`crate::FitOptions::tune_learners`]):
    /// the nuisance models', then the payoff regression's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learner_tuning: Vec<Tuned>,
    /// The network search over Table 14, when asked for.
    #[serde(default)]
    pub network_tuning: Option<TunedNetwork>,
    /// Mean gap `G_Omega(pi(X_i); Â(X_i))` of the policy on the training contexts
    /// (for the plug-in surface, `Â(X_i)` from the cross-fitted outcome predictions,
    /// which is also what the policy is trained on).
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
    /// The out-of-fold propensities of the selected menus, before the floor, counted
    /// per menu (`None` for the oracle and in files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propensities: Option<PropensityHistogram>,
    /// What each fold's structured outcome model measured: the rank it kept and
    /// every candidate rank's held-out log loss (structured design only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outcome_structure: Vec<StructuredReport>,
    /// How the structured outcome models' rank was chosen by its policies'
    /// held-out exploitability ([`crate::rank_choice`]), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_choice: Option<crate::rank_choice::RankChoice>,
    /// What the structured payoff regression measured (its rank and candidates'
    /// held-out squared error), when the surface is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoff_structure: Option<StructuredReport>,
    /// How far the policy strays, over the training contexts, from the equilibrium of
    /// the mean game ([`crate::context_dependence`]): a policy that never strays
    /// ignores the context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_dependence: Option<crate::ContextDependence>,
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
