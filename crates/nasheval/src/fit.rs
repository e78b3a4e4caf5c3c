//! The fit in the order data flows (Algorithm 1): checked options → pairs and
//! cross-fitted nuisances → pseudo-outcomes (Eq. 42) ([`prepare`]) → the payoff
//! surface, chosen by held-out risk for `auto` → the policy ([`fit_prepared`]).

use std::borrow::Cow;

use verdict_feedback::ContextualLog;
use verdict_game::Equilibrium;
use verdict_settings::Setting;

use crate::crossfit::{
    cross_fit, menu_floors, CrossFit, CrossFitOptions, Nuisances, Observed, Outcomes,
};
use crate::error::FitError;
use crate::fitted::{NashEvalModel, FORMAT, VERSION};
use crate::gap::{payoff_matrices, GameSet, Games};
use crate::learner::context_folds;
use crate::options::{CheckedOptions, FitOptions, PolicyKind, Variant};
use crate::pairs::PairMap;
use crate::payoff::{
    has_pair_columns, matrices_from_pairs, plugin_pairs, plugin_value, PairTargets, PayoffLearners,
    PayoffSurface, PseudoOutcomes, SharedRows, SAMPLED_PAIRS_PER_CONTEXT,
};
use crate::rank_choice::{choose_rank, RankChoice};
use crate::selection::{
    held_out_risk, out_of_fold_regression, paired_difference, risk_per_context, RiskCells,
};
use crate::settings::{PayoffRegression, PolicyRule, RankCriterion};
use crate::structured::{HeadTable, StructuredOptions};
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
    /// The oracle's start: the simulator's true nuisances `truth` at the training
    /// contexts of `log`, propensities floored as a cross-fit's are. Only a simulation
    /// knows them, so only the lab makes this and hands it to [`fit_prepared`]; the
    /// product's [`fit`] never sees the truth.
    ///
    /// # Errors
    /// A catalogue whose pairs cannot be aggregated.
    pub fn oracle(
        log: &ContextualLog,
        options: &CheckedOptions,
        truth: &Nuisances,
    ) -> Result<Self, FitError> {
        options.check_log(log)?;
        let pairs = PairMap::new(log.agents.len(), &log.menus, options.aggregator)
            .map_err(FitError::Log)?;
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
        Ok(Self::Oracle { pairs, truth })
    }

    /// Pairs and aggregators of the log's catalogue.
    pub fn pairs(&self) -> &PairMap {
        match self {
            Self::Oracle { pairs, .. } => pairs,
            Self::CrossFitted(prepared) => &prepared.pairs,
        }
    }
}

/// Nuisances cross-fitted from a log, from which its pseudo-outcomes follow.
#[derive(Debug)]
pub struct CrossFitted {
    /// Pairs and aggregators of the log's catalogue.
    pub pairs: PairMap,
    /// Cross-fitted nuisances (all fold outcome models kept unless the variant is
    /// the debiased one).
    pub crossfit: CrossFit,
    /// The log's index of observed menus.
    pub observed: Observed,
    /// How the structured outcome models' rank was chosen by the policies'
    /// exploitability ([`crate::rank_choice`]), and the seconds it took (the measure
    /// and, when it chose another rank than the log loss, the folds refitted at it).
    pub rank_choice: Option<(RankChoice, f64)>,
}

impl CrossFitted {
    /// The out-of-fold pseudo-outcomes `Γ_i,jk` of `log` (the log prepared),
    /// computed where read.
    pub fn pseudo_outcomes<'a>(&'a self, log: &'a ContextualLog) -> PseudoOutcomes<'a> {
        PseudoOutcomes {
            log,
            observed: &self.observed,
            pairs: &self.pairs,
            nuisances: &self.crossfit.nuisances,
        }
    }

    /// Numbers held over all training contexts beyond the log itself: the nuisances
    /// and the index of observed menus (what must not grow as the pairs do).
    pub fn values_held(&self) -> usize {
        self.crossfit.nuisances.outcome.values_held()
            + self.crossfit.nuisances.propensity.len()
            + self.observed.values_held()
    }
}

/// What a fit of `log` with `options` starts from: the nuisances cross-fitted from
/// the log (Algorithm 1, lines 3–14) and their pseudo-outcomes. The oracle variant
/// starts from the simulator's truth instead, which only the lab holds
/// ([`Prepared::oracle`]).
///
/// # Errors
/// [`FitError`] naming the setting or data at fault; the oracle variant, whose
/// truth this log does not carry.
pub fn prepare(
    log: &ContextualLog,
    options: &CheckedOptions,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<Prepared, FitError> {
    options.check_log(log)?;
    let pairs =
        PairMap::new(log.agents.len(), &log.menus, options.aggregator).map_err(FitError::Log)?;
    if options.variant == Variant::Oracle {
        return Err(FitError::setting(
            "variant",
            format!(
                "oracle needs {truth}, the directory of a simulation: it regresses on the simulator's true nuisances, which a log does not carry",
                truth = Setting("truth")
            ),
        ));
    }
    let mut crossfit_options = CrossFitOptions {
        folds: options.folds,
        seed: options.seed,
        propensity_floor: options.propensity_floor,
        propensity_floor_share: options.propensity_floor_share,
        outcome: options.outcome_backbone.clone(),
        propensity: options.propensity_backbone.clone(),
        keep_outcome_models: options.variant != Variant::Debiased,
        nuisance_design: options.nuisance_design,
        structured: options.structured.seeded(options.seed ^ 0x5EED_0C0E),
    };
    let nuisances = |crossfit_options: &CrossFitOptions| {
        cross_fit(log, &pairs, crossfit_options, &|done, total| {
            progress(Stage::Nuisances, done, total);
        })
    };
    let mut crossfit = nuisances(&crossfit_options)?;
    let observed = Observed::new(log);
    let mut rank_choice = None;
    if options.rank_criterion == RankCriterion::Exploitability
        && !crossfit.rank_candidates.is_empty()
    {
        let started = std::time::Instant::now();
        let held: Vec<usize> = (0..log.contexts.len())
            .filter(|&i| crossfit.folds[i] == 0)
            .collect();
        let by_log_loss = crossfit.structured_reports.first().map_or(0, |r| r.rank);
        let choice = choose_rank(
            log,
            &pairs,
            &crossfit.nuisances,
            &observed,
            &held,
            &crossfit.rank_candidates,
            &Equilibrium::new(
                options.rho,
                options.costs.clone(),
                options.budget,
                options.soft_budget,
            ),
            by_log_loss,
            options.rank_criterion,
        )?;
        if choice.chosen != by_log_loss {
            // Every fold again at the chosen rank: fold 0's model is its candidate at
            // that rank (each rank trains from a stream of its own), the other folds'
            // are trained at it, and the propensities are drawn the same.
            crossfit_options.structured.rank = Some(choice.chosen);
            crossfit = nuisances(&crossfit_options)?;
        }
        rank_choice = Some((choice, started.elapsed().as_secs_f64()));
    }
    Ok(Prepared::CrossFitted(Box::new(CrossFitted {
        pairs,
        crossfit,
        observed,
        rank_choice,
    })))
}

/// What a log's verdicts say about cycles, before anything is fitted on it: the
/// structured outcome models' rank choice ([`crate::rank_choice`]) with the default
/// settings and `seed` — every candidate rank's estimated exploitability, battle log
/// loss and cyclic share on fold 0's contexts, and the transitivity test.
///
/// # Errors
/// [`FitError`] when the log cannot be fitted (naming the setting or data at fault).
pub fn cycle_evidence(
    log: &ContextualLog,
    seed: u64,
    progress: &dyn Fn(Stage, usize, usize),
) -> Result<RankChoice, FitError> {
    let options = FitOptions {
        nuisance_design: crate::settings::NuisanceDesign::Structured,
        variant: Variant::Plugin,
        seed,
        ..FitOptions::default()
    };
    let checked = options.check(log)?;
    match prepare(log, &checked, progress)? {
        Prepared::CrossFitted(prepared) => prepared.rank_choice.map(|(choice, _)| choice),
        Prepared::Oracle { .. } => None,
    }
    .ok_or_else(|| FitError::Log("the log's outcome models chose no rank".into()))
}

/// Fits NashEval on `log` (Algorithm 1), after searching the learners' settings
/// when [`FitOptions::tune_learners`] asks. `progress(stage, done, total)` reports
/// work as it goes. (The oracle variant is the lab's: [`Prepared::oracle`] and
/// [`fit_prepared`].)
///
/// # Errors
/// [`FitError`] naming the setting or data at fault.
pub fn fit(
    log: &ContextualLog,
    options: &FitOptions,
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
    let prepared = prepare(log, &checked, progress)?;
    if let (true, Prepared::CrossFitted(cross_fitted)) = (checked.tune_learners, &prepared) {
        let mut tuned = checked.into_inner();
        let carries = carries_correction(&cross_fitted.observed, &cross_fitted.pairs);
        let seed = tuned.seed;
        searches.extend(tune_payoff(
            log,
            &mut tuned,
            &cross_fitted.pairs,
            &cross_fitted.pseudo_outcomes(log),
            &SharedRows {
                carries: &carries,
                seed,
            },
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

/// What `auto` resolves to: among the plug-in surface and the debiased surfaces —
/// with a shared, a per-pair or a structured payoff regression for at most
/// [`crate::payoff::PAIR_COLUMNS_LIMIT`] pairs, with the structured one for more —
/// the one with the lowest held-out doubly-robust risk ([`crate::selection`]); ties
/// go to the plug-in, then to the earlier candidate.
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
    let gamma = prepared.pseudo_outcomes(log);
    let gamma_at_cells = cells.read(&gamma);
    let outcome = &prepared.crossfit.nuisances.outcome;
    let plugin: Vec<f64> = cells
        .at
        .iter()
        .map(|&(i, p)| plugin_value(pairs, outcome, i, p))
        .collect();
    summary.candidates = vec![held_out_risk("plugin", &gamma_at_cells, &plugin, &cells)];
    let plugin_risks = risk_per_context(&gamma_at_cells, &plugin, &cells);
    let mut best = (
        summary.candidates[0].risk,
        Variant::Plugin,
        options.regression,
    );
    // One regressor per pair is a candidate for small catalogues only: at K = 16 it
    // is 120 regressions per selection fold, for a surface the shared regression can
    // represent too. A large catalogue's candidate is the structured regression
    // alone: the shared LightGBM regression over (context, pair) rows was a
    // quarter of a K = 16 fit's time (43 of 164 s at 135,000 contexts), its design
    // the largest thing a K = 128 fit holds, and its held-out risk the highest of
    // the three surfaces on every seed of the arena world (EXPERIMENTS.md);
    // `--payoff-regression shared` still fits it.
    let candidates: &[(&str, PayoffRegression)] = if has_pair_columns(pairs) {
        &[
            ("debiased-shared", PayoffRegression::Shared),
            ("debiased-per-pair", PayoffRegression::PerPair),
            ("debiased-structured", PayoffRegression::Structured),
        ]
    } else {
        &[("debiased-structured", PayoffRegression::Structured)]
    };
    for &(name, regression) in candidates {
        let predicted = out_of_fold_regression(
            &log.features,
            log.feature_names.len(),
            pairs,
            &gamma,
            &folds,
            &cells,
            regression,
            PayoffLearners {
                backbone: &options.payoff_backbone,
                structured,
            },
            rows,
        )?;
        let mut risk = held_out_risk(name, &gamma_at_cells, &predicted, &cells);
        risk.difference = Some(paired_difference(
            &risk_per_context(&gamma_at_cells, &predicted, &cells),
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

/// The structured payoff regression's settings: the fit's, seeded for the stage,
/// and — when no rank is given and the outcome models are structured — at the rank
/// the outcome models chose by held-out likelihood on the same contexts: both model
/// the same surface `A`, and a search of its own trains four ranks in each of the
/// selection's folds (at K = 16 and 135,000 contexts, 102 of the selection's 143
/// seconds).
fn payoff_structure(options: &FitOptions, prepared: &Prepared) -> StructuredOptions {
    let mut structured = options.structured.seeded(options.seed ^ 0x5EED_9A0F);
    if let (None, Prepared::CrossFitted(cross_fitted)) = (structured.rank, prepared) {
        structured.rank = cross_fitted
            .crossfit
            .structured_reports
            .first()
            .map(|report| report.rank);
    }
    structured
}

/// Games held as matrices when all of them come to at most this many numbers (512
/// MiB): reading a matrix is faster than building it from head rows, which the
/// policy's training does every epoch. Larger sets stay head rows, so what a fit
/// holds is bounded by this and otherwise linear in the agents.
pub const HELD_GAMES_LIMIT: usize = 64 << 20;

/// The games of the training contexts the policy is trained and scored on: the
/// out-of-fold plug-in (`out_of_fold`, the cross-fitted outcome means) when the
/// plug-in was chosen, else the model's surface. A structured surface's games are
/// its head rows, built into matrices as read, unless all its matrices together
/// hold at most `held_limit` numbers ([`HELD_GAMES_LIMIT`]).
fn training_games<'a>(
    model: &NashEvalModel,
    features: &[f64],
    out_of_fold: Option<&'a Outcomes>,
    held_limit: usize,
) -> Games<'a> {
    let (pairs, k) = (&model.pairs, model.agents.len());
    let n = features.len() / model.feature_names.len().max(1);
    let heads = |table: Cow<'a, HeadTable>| {
        if n.saturating_mul(k * k) <= held_limit {
            Games::Matrices(table.games(0..n))
        } else {
            Games::Heads(table)
        }
    };
    match (out_of_fold, &model.payoff) {
        (Some(Outcomes::Heads(table)), _) => heads(Cow::Borrowed(table)),
        (Some(outcome), _) => {
            let values = plugin_pairs(pairs, outcome, n);
            Games::Matrices(payoff_matrices(&matrices_from_pairs(&values, pairs), k))
        }
        (None, PayoffSurface::Structured { model: surface, .. }) => {
            heads(Cow::Owned(surface.heads(features)))
        }
        (None, _) => Games::Matrices(payoff_matrices(&model.payoffs(features), k)),
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
    let observed = match prepared {
        Prepared::CrossFitted(cross_fitted) => Cow::Borrowed(&cross_fitted.observed),
        Prepared::Oracle { .. } => Cow::Owned(Observed::new(log)),
    };
    let carries = carries_correction(&observed, pairs);
    let payoff_seconds = std::cell::Cell::new(None);
    let structured = payoff_structure(options, prepared);
    let regress = |gamma: &dyn PairTargets, regression: PayoffRegression| {
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
            let gamma = PseudoOutcomes {
                log,
                observed: &observed,
                pairs,
                nuisances: truth,
            };
            regress(&gamma, options.regression)?
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
            summary.logged_propensities = crossfit.logged_propensities;
            summary.propensity_loss =
                (!crossfit.logged_propensities).then_some(crossfit.propensity_loss);
            summary.nuisance_design = Some(crossfit.nuisance_design);
            summary.sparse_menus = crossfit.sparse_menus.clone();
            summary.outcome_structure = crossfit.structured_reports.clone();
            if let Some((choice, seconds)) = &cross_fitted.rank_choice {
                summary.rank_choice = Some(choice.clone());
                summary.stage_seconds.push(("rank choice".into(), *seconds));
            }
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
                out_of_fold = Some(&crossfit.nuisances.outcome);
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
                regress(&cross_fitted.pseudo_outcomes(log), regression)?
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
    let games = training_games(&model, features, out_of_fold, HELD_GAMES_LIMIT);
    if options.policy == PolicyKind::Network {
        model = model.with_trained_network(features, &games, progress)?;
    }
    let (policies, certificates) = if options.rule == PolicyRule::Equilibrium {
        model.policies_for_games(features, &games)?
    } else {
        // A baseline's gap on the surface: how far from the equilibrium it plays.
        (model.rule_policies(options.rule, &games)?, None)
    };
    model.summary.final_gap = match certificates {
        // The solver's own certificate (the budgeted gap when a budget applies).
        Some(gaps) => gaps.iter().sum::<f64>() / gaps.len().max(1) as f64,
        None => model.loss().mean(&games, &policies),
    };
    model.summary.context_dependence = crate::context_dependence::measure(&model, features)?;
    model.summary.stage_seconds.push((
        Stage::Policy.label().into(),
        started.elapsed().as_secs_f64(),
    ));
    Ok(model)
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use verdict_feedback::{ContextualLogBuilder, Response};

    use super::*;

    const CONTEXTS: usize = 600;

    /// One battle per context over a random pair of `agents` agents (every pair a
    /// menu), won with Bradley–Terry probability `σ(s_j − s_k)` at scores
    /// `s_j = (j / K − 1/2) x`, `x` the context's one feature in `[-2, 2]`.
    fn pair_log(agents: usize) -> ContextualLog {
        pair_log_seeded(agents, CONTEXTS, agents as u64)
    }

    /// [`pair_log`] over `contexts` contexts, drawn from the stream of `seed`.
    fn pair_log_seeded(agents: usize, contexts: usize, seed: u64) -> ContextualLog {
        let name = |j: usize| format!("agent_{j:03}");
        let menus: Vec<Vec<String>> = (0..agents)
            .flat_map(|j| (j + 1..agents).map(move |k| vec![name(j), name(k)]))
            .collect();
        let mut builder = ContextualLogBuilder::with_catalogue(&menus).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut features = Vec::new();
        for i in 0..contexts {
            let x: f64 = rng.random_range(-2.0..2.0);
            features.push(x);
            let j = rng.random_range(0..agents);
            let k = (j + rng.random_range(1..agents)) % agents;
            let score = |a: usize| (a as f64 / agents as f64 - 0.5) * x;
            let first_wins = rng.random::<f64>() < 1.0 / (1.0 + (score(k) - score(j)).exp());
            let winner = if first_wins { j } else { k };
            let menu = menus
                .iter()
                .position(|m| m.contains(&name(j)) && m.contains(&name(k)))
                .unwrap();
            builder
                .add_to_menu(i, menu, &Response::Duel(Some(name(winner))))
                .unwrap();
        }
        builder.finish(
            (0..contexts).map(|i| format!("c{i}")).collect(),
            vec!["x".into()],
            features,
        )
    }

    /// Numbers a default fit of the pair log of `agents` agents holds per training
    /// context, besides the log: the nuisances, the index of observed menus and the
    /// games its policy is trained and scored on.
    fn held_per_context(agents: usize) -> f64 {
        let log = pair_log(agents);
        let options = FitOptions {
            folds: 2,
            policy: PolicyKind::Solver,
            structured: StructuredOptions {
                rank: Some(1),
                hidden: 8,
                max_epochs: 3,
                ..StructuredOptions::default()
            },
            ..FitOptions::default()
        };
        let checked = options.check(&log).unwrap();
        let prepared = prepare(&log, &checked, &|_, _, _| {}).unwrap();
        let model = fit_prepared(
            &log,
            &checked,
            &prepared,
            serde_json::Value::Null,
            &|_, _, _| {},
        )
        .unwrap();
        let Prepared::CrossFitted(cross_fitted) = &prepared else {
            panic!("an estimated fit is cross-fitted")
        };
        assert_eq!(
            cross_fitted.crossfit.nuisance_design,
            crate::settings::NuisanceDesign::Structured
        );
        let out_of_fold = &cross_fitted.crossfit.nuisances.outcome;
        // No games held as matrices: the count is of the large-catalogue path.
        let games = training_games(&model, &log.features, Some(out_of_fold), 0);
        assert!(matches!(games, Games::Heads(_)));
        assert_eq!(games.len(), CONTEXTS);
        (cross_fitted.values_held() + games.values_held()) as f64 / CONTEXTS as f64
    }

    /// A fit of a transitive world's log (pair log of 6 agents over 2,000 contexts:
    /// a contextual Bradley–Terry model) with structured outcome models and its rank
    /// chosen.
    fn transitive_rank_choice(seed: u64) -> crate::rank_choice::RankChoice {
        let log = pair_log_seeded(6, 2000, seed);
        let options = FitOptions {
            folds: 2,
            seed,
            nuisance_design: crate::settings::NuisanceDesign::Structured,
            structured: StructuredOptions {
                hidden: 16,
                ..StructuredOptions::default()
            },
            ..FitOptions::default()
        };
        let checked = options.check(&log).unwrap();
        let Prepared::CrossFitted(prepared) = prepare(&log, &checked, &|_, _, _| {}).unwrap()
        else {
            panic!("an estimated fit is cross-fitted")
        };
        prepared.rank_choice.expect("the rank is chosen").0
    }

    /// Planted transitive worlds (Bradley–Terry scores that move with the context),
    /// 20 seeds: the transitivity test's false alarms at level 0.05 are at most 3 (the
    /// 0.95 quantile of a binomial(20, 0.05)), and the exploitability criterion keeps
    /// rank 0 on at least 17 (a false alarm takes rank 0 out of the candidates; the
    /// one-SE rule keeps it otherwise). When written: 0 false alarms on seeds
    /// 100–119, rank 0 kept on every one.
    #[test]
    fn planted_transitive_worlds_keep_rank_zero_and_rarely_reject_transitivity() {
        let choices: Vec<_> = (100..120).map(transitive_rank_choice).collect();
        assert_eq!(
            choices[0]
                .candidates
                .iter()
                .map(|c| c.rank)
                .collect::<Vec<_>>(),
            [0, 1, 2, 4]
        );
        let rejections = choices.iter().filter(|c| c.transitivity.rejects).count();
        assert!(rejections <= 3, "{rejections} of 20 rejected");
        let kept = choices.iter().filter(|c| c.chosen == 0).count();
        assert!(kept >= 17, "rank 0 kept on {kept} of 20: {choices:?}");
    }

    /// Memory linear in K: from 8 to 32 agents the pairs grow 17.7-fold (28 to 496)
    /// and the numbers held per context at most 4-fold — the outcome means are one
    /// head row of `K (1 + 2r)` values (`r ≤ 1` here) that the plug-in's games
    /// borrow, the propensities and the index of observed menus one and three per
    /// record. Before, the outcome means, the pseudo-outcomes and the games were each
    /// one value per pair and context (the games two), the index one per menu.
    #[test]
    fn the_values_a_fit_holds_grow_linearly_with_the_agents() {
        let (small, large) = (held_per_context(8), held_per_context(32));
        assert!(small <= 3.0 * 8.0 + 5.0, "{small}");
        assert!(large <= 3.0 * 32.0 + 5.0, "{large}");
        assert!(large / small < 4.1, "{small} → {large}");
    }
}
