//! One NashEval fit request — where the log is, how to read and featurize it, the
//! settings — made in one call ([`fit_request`]), so that `verdict fit` and Python's
//! `NashEval.fit` each convert their arguments, call it and render the model.
//!
//! In order: the log is read ([`read_log`]); pairs no menu holds are refused or, with
//! `allow_unobserved`, given menus of their own ([`complete_pairs`], its warning handed
//! to `warn`); costs given by agent name are put in the log's agent order
//! ([`costs_by_agent`]); the backbones and the method are applied to the options; the
//! oracle's nuisances, for the oracle variant, are computed from the log; and
//! [`verdict_nasheval::fit`] fits, with the featurizer recorded in the model.

use verdict_feedback::ContextualLog;
use verdict_io::ContextualOptions;
use verdict_nasheval::{
    BackboneKind, FitMethod, FitOptions, NashEvalModel, Nuisances, Stage, Variant, LINEAR_PENALTY,
};
use verdict_settings::Setting;

use crate::contextual::{complete_pairs, read_log, LogSource};
use crate::equilibrium::costs_by_agent;
use crate::model_file::Featurizer;
use crate::settings::SettingError;
use crate::VerdictError;

/// The learner family of each nuisance and of the payoff regression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backbones {
    /// The outcome model's family.
    pub outcome: BackboneKind,
    /// The propensity model's family.
    pub propensity: BackboneKind,
    /// The payoff regression's family.
    pub payoff: BackboneKind,
    /// The linear learners' L2 penalty (finite, ≥ 0).
    pub linear_penalty: f64,
}

impl Backbones {
    /// One family for all three models, the default linear penalty.
    pub fn all(kind: BackboneKind) -> Self {
        Self {
            outcome: kind,
            propensity: kind,
            payoff: kind,
            linear_penalty: LINEAR_PENALTY,
        }
    }
}

impl Default for Backbones {
    /// LightGBM for every model (`gbdt`), as `verdict fit` by default.
    fn default() -> Self {
        Self::all(BackboneKind::Gbdt)
    }
}

/// The true nuisances of a log's contexts, for the oracle variant (a simulation's
/// truth, which the lab computes).
pub type OracleNuisances = Box<dyn Fn(&ContextualLog) -> Result<Nuisances, VerdictError> + Send>;

/// A NashEval fit to make.
pub struct FitRequest {
    /// Where the log is.
    pub source: LogSource,
    /// How contexts are featurized (text, categorical columns, a menu catalogue).
    pub reading: ContextualOptions,
    /// Give pairs no menu holds menus of their own instead of refusing the log.
    pub allow_unobserved: bool,
    /// Each agent's cost by name (`costs`); they replace `options.costs`.
    pub costs: Option<Vec<(String, f64)>>,
    /// The fit's settings (its backbones are set from `backbones`).
    pub options: FitOptions,
    /// The learner families.
    pub backbones: Backbones,
    /// NashEval or one of the paper's baselines.
    pub method: FitMethod,
    /// The oracle's nuisances, required by (only) the oracle variant.
    pub oracle: Option<OracleNuisances>,
}

impl FitRequest {
    /// A request with default settings for the log at `source`.
    pub fn new(source: LogSource) -> Self {
        Self {
            source,
            reading: ContextualOptions::default(),
            allow_unobserved: false,
            costs: None,
            options: FitOptions::default(),
            backbones: Backbones::default(),
            method: FitMethod::Nasheval,
            oracle: None,
        }
    }
}

/// Makes `request`: reads the log, readies it and fits (module docs). `warn` receives
/// what the log's readying warns of (the unobserved pairs given menus), before the
/// fit starts; `progress` each stage's progress.
///
/// # Errors
/// The reader's errors naming file, row and column; [`VerdictError::Settings`] for
/// unheld pairs without `allow_unobserved`, costs that do not name every agent, a
/// negative linear penalty, or the oracle variant without its nuisances; the fit's.
pub fn fit_request(
    request: &FitRequest,
    warn: &dyn Fn(&str),
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, VerdictError> {
    let Backbones {
        outcome,
        propensity,
        payoff,
        linear_penalty,
    } = request.backbones;
    if !(linear_penalty.is_finite() && linear_penalty >= 0.0) {
        let problem = format!("{linear_penalty} must be a finite number >= 0");
        return Err(SettingError::new("linear_penalty", problem).into());
    }
    let options = request
        .method
        .apply(request.options.clone().with_backbones(
            outcome,
            propensity,
            payoff,
            linear_penalty,
        ))?;
    if options.variant == Variant::Oracle && request.oracle.is_none() {
        return Err(VerdictError::Settings(format!(
            "{variant} oracle needs {truth}, a directory written by verdict simulate",
            variant = Setting("variant"),
            truth = Setting("truth")
        )));
    }
    let mut log = read_log(&request.source, &request.reading)?;
    if let Some(warning) =
        complete_pairs(&mut log, request.allow_unobserved, options.nuisance_design)?
    {
        warn(&warning);
    }
    let options = FitOptions {
        costs: match &request.costs {
            Some(given) => costs_by_agent(&log.agents, given)?,
            None => options.costs,
        },
        ..options
    };
    let truth = match (&request.oracle, options.variant) {
        (Some(oracle), Variant::Oracle) => Some(oracle(&log)?),
        _ => None,
    };
    let featurizer = Featurizer::from_options(&request.reading).to_value();
    Ok(verdict_nasheval::fit(
        &log,
        &options,
        truth.as_ref(),
        featurizer,
        progress,
    )?)
}
