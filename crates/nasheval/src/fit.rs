//! The fit in the order data flows (Algorithm 1): checked options → pairs and
//! cross-fitted nuisances → pseudo-outcomes (Eq. 42) ([`prepare`]) → the payoff
//! surface, chosen by held-out risk for `auto` → the policy ([`fit_prepared`]).

use verdict_feedback::ContextualLog;
use verdict_settings::Setting;

use crate::crossfit::{cross_fit, menu_floors, CrossFit, CrossFitOptions, Nuisances, Observed};
use crate::error::FitError;
use crate::fitted::{NashEvalModel, FORMAT, VERSION};
use crate::gap::payoff_matrices;
use crate::learner::context_folds;
use crate::options::{CheckedOptions, FitOptions, PolicyKind, Variant};
use crate::pairs::PairMap;
use crate::payoff::{
    has_pair_columns, matrices_from_pairs, plugin_pairs, pseudo_outcomes, PayoffLearners,
    PayoffSurface, SharedRows, SAMPLED_PAIRS_PER_CONTEXT,
};
use crate::selection::{
    held_out_risk, out_of_fold_regression, paired_difference, risk_per_context, RiskCells,
};
use crate::settings::{PayoffRegression, PolicyRule};
use crate::structured::StructuredOptions;
use crate::summary::{FitSummary, Stage};
use crate::tune::{tune_nuisances, tune_payoff};

/// What a fit starts from, made once per log and shared by every variant and policy
/// fitted on it: the simulator's true nuisances (the oracle), or nuisances
/// cross-fitted from the log.
#[derive(Debug)]
pub enum Prepared {
    /// The true nuisances at the training contexts, propensities floored as a
    /// cross-fit's are: the oracle variant's surface is regressed on them.
    Oracle {
        /// Pairs and aggregators of the log's catalogue.
        pairs: PairMap,
        /// The true nuisances, floored.
        truth: Nuisances,
    },
    /// Cross-fitted nuisances and their pseudo-outcomes: every estimated surface.
    CrossFitted(Box<CrossFitted>),
}

impl Prepared {
    /// Pairs and aggregators of the log's catalogue.
    pub fn pairs(&self) -> &PairMap {
        match self {
            Self::Oracle { pairs, .. } => pairs,
            Self::CrossFitted(prepared) => &prepared.pairs,
        }
    }
}

/// Nuisances cross-fitted from a log and the pseudo-outcomes built from them.
#[derive(Debug)]
pub struct CrossFitted {
    /// Pairs and aggregators of the log's catalogue.
    pub pairs: PairMap,
    /// Cross-fitted nuisances (all fold outcome models kept unless the variant is
    /// the debiased one).
    pub crossfit: CrossFit,
    /// Out-of-fold pseudo-outcomes `Γ_i,jk`, `contexts × pairs`.
    pub gamma: Vec<f64>,
}

/// What a fit of `log` with `options` starts from: for the oracle variant the true
/// nuisances `truth` (required by it, and only by it), floored; for every other one
/// the nuisances cross-fitted from the log (Algorithm 1, lines 3–14) and their
/// pseudo-outcomes.
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn prepare(
    log: &ContextualLog,
    options: &CheckedOptions,
    truth: Option<&Nuisances>,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<Prepared, FitError> {
    options.check_log(log)?;
    let pairs =
        PairMap::new(log.agents.len(), &log.menus, options.aggregator).map_err(FitError::Log)?;
    if options.variant == Variant::Oracle {
        let truth = truth.ok_or_else(|| {
            FitError::setting(
                "variant",
                format!(
                    "the oracle variant needs the simulator's truth ({truth} DIR)",
                    truth = Setting("truth")
                ),
            )
        })?;
        let mut truth = truth.clone();
        let floors = menu_floors(
            log,
            options.propensity_floor,
            options.propensity_floor_share,
        );
        truth
            .propensity
            .iter_mut()
            .zip(&log.feedback)
            .for_each(|(e, record)| *e = e.max(floors[record.menu]));
        return Ok(Prepared::Oracle { pairs, truth });
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
            structured: options.structured.seeded(options.seed ^ 0x5EED_0C0E),
        },
        &|done, total| progress(Stage::Nuisances, done, total),
    )?;
    let gamma = pseudo_outcomes(log, &pairs, &crossfit.nuisances);
    Ok(Prepared::CrossFitted(Box::new(CrossFitted {
        pairs,
        crossfit,
        gamma,
    })))
}

/// Fits NashEval on `log` (Algorithm 1), after searching the learners' settings
/// when [`FitOptions::tune_learners`] asks. `truth` holds the true nuisances at the
/// training contexts and is required by (only) the oracle variant ([`prepare`]).
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
    // Checked once; a tuning step's choices are checked again, once, as they replace
    // the settings it searched.
    let mut checked = options.check(log)?;
    let tuning = |done, total| progress(Stage::Tuning, done, total);
    let mut searches = Vec::new();
    if checked.tune_learners {
        let mut tuned = checked.into_inner();
        searches = tune_nuisances(log, &mut tuned, &tuning)?;
        checked = tuned.check(log)?;
    }
    let prepared = prepare(log, &checked, truth, progress)?;
    if let (true, Prepared::CrossFitted(cross_fitted)) = (checked.tune_learners, &prepared) {
        let mut tuned = checked.into_inner();
        searches.extend(tune_payoff(
            log,
            &mut tuned,
            &cross_fitted.pairs,
            &cross_fitted.gamma,
            &tuning,
        )?);
        checked = tuned.check(log)?;
    }
    let mut model = fit_prepared(log, &checked, &prepared, featurizer, progress)?;
    model.summary.learner_tuning = searches;
    Ok(model)
}

/// Folds of the selection's cross-validation (three, by context, seeded apart from
/// the cross-fitting folds).
const SELECTION_FOLDS: usize = 3;

/// What `auto` resolves to: among the plug-in surface and the debiased surface with
/// a shared or (for at most [`crate::payoff::PAIR_COLUMNS_LIMIT`] pairs) a per-pair
/// payoff regression, the one with the lowest held-out
/// doubly-robust risk ([`crate::selection`]); ties go to the plug-in, then to the
/// shared regression.
fn select_surface(
    log: &ContextualLog,
    options: &FitOptions,
    prepared: &CrossFitted,
    rows: &SharedRows<'_>,
    structured: &StructuredOptions,
    summary: &mut FitSummary,
) -> Result<(Variant, PayoffRegression), FitError> {
    let pairs = &prepared.pairs;
    let npairs = pairs.pairs.len();
    let folds = context_folds(
        log.contexts.len(),
        SELECTION_FOLDS,
        options.seed ^ 0x5E1E_C7ED,
    )?;
    let cells = if has_pair_columns(pairs) {
        RiskCells::all(log.contexts.len(), npairs)
    } else {
        RiskCells::sampled(
            log.contexts.len(),
            npairs,
            rows.carries,
            SAMPLED_PAIRS_PER_CONTEXT,
            options.seed ^ 0x0005_E1EC,
        )
    };
    let plugin = cells.pick(&plugin_pairs(pairs, &prepared.crossfit.nuisances.outcome));
    summary.candidates = vec![held_out_risk("plugin", &prepared.gamma, &plugin, &cells)];
    let plugin_risks = risk_per_context(&prepared.gamma, &plugin, &cells);
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
            ("debiased-structured", PayoffRegression::Structured),
        ]
    } else {
        &[
            ("debiased-shared", PayoffRegression::Shared),
            ("debiased-structured", PayoffRegression::Structured),
        ]
    };
    for &(name, regression) in candidates {
        let predicted = out_of_fold_regression(
            &log.features,
            log.feature_names.len(),
            pairs,
            &prepared.gamma,
            &folds,
            &cells,
            regression,
            PayoffLearners {
                backbone: &options.payoff_backbone,
                structured,
            },
            rows,
        )?;
        let mut risk = held_out_risk(name, &prepared.gamma, &predicted, &cells);
        risk.difference = Some(paired_difference(
            &risk_per_context(&prepared.gamma, &predicted, &cells),
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

/// [`fit`] from what a log was [`prepare`]d to: the payoff surface and the policy
/// (lines 15–19). The preparation decides between the oracle and the estimated
/// surfaces; among the estimated ones `options.variant` picks (auto, plug-in,
/// debiased).
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn fit_prepared(
    log: &ContextualLog,
    options: &CheckedOptions,
    prepared: &Prepared,
    featurizer: serde_json::Value,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<NashEvalModel, FitError> {
    options.check_log(log)?;
    let pairs = prepared.pairs();
    let (features, columns) = (&log.features, log.feature_names.len());
    let mut summary = FitSummary {
        contexts: log.contexts.len(),
        ..FitSummary::default()
    };
    let observed = Observed::new(log);
    let carries = carries_correction(&observed, pairs);
    let payoff_seconds = std::cell::Cell::new(None);
    let structured = options.structured.seeded(options.seed ^ 0x5EED_9A0F);
    let regress = |gamma: &[f64], regression: PayoffRegression| {
        progress(Stage::Payoff, 0, 1);
        let started = std::time::Instant::now();
        let surface = PayoffSurface::regress(
            features,
            columns,
            pairs,
            gamma,
            regression,
            PayoffLearners {
                backbone: &options.payoff_backbone,
                structured: &structured,
            },
            &SharedRows {
                carries: &carries,
                seed: options.seed,
            },
        );
        payoff_seconds.set(Some(started.elapsed().as_secs_f64()));
        progress(Stage::Payoff, 1, 1);
        surface
    };
    let mut out_of_fold = None;
    let payoff = match (prepared, options.variant) {
        (Prepared::Oracle { truth, .. }, _) => {
            summary.chosen = Some(Variant::Oracle);
            summary.chosen_regression = Some(options.regression);
            regress(&pseudo_outcomes(log, pairs, truth), options.regression)?
        }
        (Prepared::CrossFitted(_), Variant::Oracle) => {
            return Err(FitError::setting(
                "variant",
                "the oracle surface is regressed on the true nuisances: prepare the log with them",
            ))
        }
        (Prepared::CrossFitted(cross_fitted), variant) => {
            let crossfit = &cross_fitted.crossfit;
            summary.fold_sizes = crossfit.fold_sizes.clone();
            summary.clipped_propensities = crossfit.clipped;
            summary.propensities = Some(crossfit.histogram.clone());
            summary.feedback_records = log.feedback.len();
            summary.outcome_loss = Some(crossfit.outcome_loss);
            summary.propensity_loss = Some(crossfit.propensity_loss);
            summary.nuisance_design = Some(crossfit.nuisance_design);
            summary.sparse_menus = crossfit.sparse_menus.clone();
            summary.outcome_structure = crossfit.structured_reports.clone();
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
                let chosen =
                    select_surface(log, options, cross_fitted, &rows, &structured, &mut summary)?;
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
            if chosen == Variant::Plugin {
                // The plug-in at the training contexts: the cross-fitted outcome
                // predictions the fit already holds (each from the fold that did not
                // train on the context), instead of every fold's model predicting
                // every pair at every training context again (at 135,000 contexts,
                // five pooled models × 16 million pairs).
                out_of_fold = Some(plugin_pairs(pairs, &crossfit.nuisances.outcome));
            }
            if chosen == Variant::Plugin && !crossfit.structured_models.is_empty() {
                PayoffSurface::StructuredPlugIn {
                    models: crossfit.structured_models.clone(),
                }
            } else if chosen == Variant::Plugin && !crossfit.pooled_models.is_empty() {
                PayoffSurface::PooledPlugIn {
                    models: crossfit.pooled_models.clone(),
                }
            } else if chosen == Variant::Plugin {
                if crossfit.outcome_models.is_empty() {
                    return Err(FitError::Log(
                        "the plug-in needs the fold outcome models; prepare with a variant other than debiased".into(),
                    ));
                }
                PayoffSurface::PlugIn {
                    models: crossfit.outcome_models.clone(),
                }
            } else {
                regress(&cross_fitted.gamma, regression)?
            }
        }
    };
    if let PayoffSurface::Structured { report, .. } = &payoff {
        summary.payoff_structure = Some(report.clone());
    }
    let mut model = NashEvalModel {
        format: FORMAT.into(),
        version: VERSION,
        agents: log.agents.clone(),
        feature_names: log.feature_names.clone(),
        featurizer,
        menus: log.menus.clone(),
        options: FitOptions {
            // The preparation decided the surface; the model says which it is.
            variant: match prepared {
                Prepared::Oracle { .. } => Variant::Oracle,
                Prepared::CrossFitted(_) => options.variant,
            },
            ..FitOptions::clone(options)
        },
        pairs: pairs.clone(),
        payoff,
        network: None,
        summary,
        global: None,
    };
    if let Some(seconds) = payoff_seconds.get() {
        model
            .summary
            .stage_seconds
            .push((Stage::Payoff.label().into(), seconds));
    }
    let started = std::time::Instant::now();
    if options.rule.is_global() {
        model.global = Some(crate::global::fit_global(log, options)?);
    }
    let surfaces = match out_of_fold {
        Some(values) => matrices_from_pairs(&values, pairs),
        None => model.payoffs(features),
    };
    let games = payoff_matrices(&surfaces, model.agents.len());
    if options.policy == PolicyKind::Network {
        model = model.with_trained_network(features, &games, progress)?;
    }
    let (policies, certificates) = if options.rule == PolicyRule::Equilibrium {
        model.policies_for_games(features, &games)?
    } else {
        // A baseline's gap on the surface: how far from the equilibrium it plays.
        (model.rule_policies(options.rule, &surfaces)?, None)
    };
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
