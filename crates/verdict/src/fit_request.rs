//! One NashEval fit request — where the log is, how to read and featurize it, the
//! settings — made in one call ([`fit_request`]), so that `verdict fit` and Python's
//! `NashEval.fit` each convert their arguments, call it and render the model.
//!
//! In order: the log is read ([`read_log`]); pairs no menu holds are refused or, with
//! `allow_unobserved`, given menus of their own ([`complete_pairs`], its warning handed
//! to `warn`); costs given by agent name are put in the log's agent order
//! ([`costs_by_agent`]); the backbones and the method are applied to the options
//! ([`fit_inputs`] stops here); and [`verdict_nasheval::fit`] fits, with the
//! featurizer recorded in the model. The oracle variant, which regresses on a
//! simulation's true nuisances, is the lab's: it takes the same inputs and fits from
//! the truth ([`verdict_nasheval::Prepared::oracle`]).

use verdict_feedback::ContextualLog;
use verdict_io::ContextualOptions;
use verdict_nasheval::{
    BackboneKind, FitMethod, FitOptions, NashEvalModel, Stage, Variant, LINEAR_PENALTY,
};

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
        }
    }
}

/// What a fit starts from: the log read and readied, the settings with the method
/// and backbones applied and the costs in the log's agent order, and the featurizer
/// the model records.
#[derive(Debug)]
pub struct FitInputs {
    /// The log, its unheld pairs refused or given menus.
    pub log: ContextualLog,
    /// The settings the fit takes.
    pub options: FitOptions,
    /// The featurizer, as the model file records it.
    pub featurizer: serde_json::Value,
}

/// Makes `request`: reads the log, readies it and fits (module docs). `warn` receives
/// what the log's readying warns of (the unobserved pairs given menus), before the
/// fit starts; `progress` each stage's progress.
///
/// # Errors
/// As [`fit_inputs`]; the oracle variant, which is the lab's (it needs a simulation's
/// truth), before anything is read; the fit's.
pub fn fit_request(
    request: &FitRequest,
    warn: &dyn Fn(&str),
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, VerdictError> {
    if request.options.variant == Variant::Oracle {
        return Err(SettingError::new(
            "variant",
            format!(
                "oracle needs {}, the directory of a simulation: it regresses on the simulator's true nuisances, which a log does not carry",
                verdict_settings::Setting("truth")
            ),
        )
        .into());
    }
    let inputs = fit_inputs(request, warn)?;
    Ok(verdict_nasheval::fit(
        &inputs.log,
        &inputs.options,
        inputs.featurizer,
        progress,
    )?)
}

/// Reads and readies `request`'s log and settings, up to the fit (module docs).
///
/// # Errors
/// The reader's errors naming file, row and column; [`VerdictError::Settings`] for
/// unheld pairs without `allow_unobserved`, costs that do not name every agent, or a
/// negative linear penalty.
pub fn fit_inputs(request: &FitRequest, warn: &dyn Fn(&str)) -> Result<FitInputs, VerdictError> {
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
    Ok(FitInputs {
        log,
        options,
        featurizer: Featurizer::from_options(&request.reading).to_value(),
    })
}
