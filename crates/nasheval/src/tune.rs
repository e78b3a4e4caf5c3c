//! Hyperparameter search (NashEval Appendix I.2). For the boosted trees: a grid over
//! the search spaces of Tables 12 (nuisances) and 13 (payoff regressor), each point
//! scored by three-fold cross-validation, the number of trees chosen by early
//! stopping with at most 1,000 trees. These tuning folds are distinct from the
//! cross-fitting folds. For the policy network: Table 14's grid, each point scored by
//! its held-out gap ([`tune_network`]).
//!
//! The grids have 432 and 486 points, so each search fits about 1,300 boosters; it
//! runs on a seeded subsample of at most [`TUNING_ROWS`] rows and tunes one
//! representative problem per nuisance kind (the first menu's propensity and its
//! first pair's outcome), whose winner every model of that kind then uses.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use verdict_game::PayoffMatrix;

use crate::backbone::{Backbone, GbdtParams};
use crate::crossfit::{gather, Observed};
use crate::gap::{GameSet, GapLoss};
use crate::learner::LearnerError;
use crate::network::{Network, NetworkOptions};
use crate::options::{FitOptions, Variant};
use crate::pairs::PairMap;
use crate::payoff::{
    all_values, has_pair_columns, sampled_design, shared_design, shared_width, PairTargets,
    SharedRows,
};
use crate::settings::PayoffRegression;

/// Rows a search uses at most.
pub const TUNING_ROWS: usize = 4000;

/// Which loss a search minimizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Objective {
    /// Squared error (outcome and payoff regressions).
    SquaredError,
    /// Binary log loss (propensities).
    LogLoss,
}

/// The outcome of one search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tuned {
    /// The best grid point (with `num_trees` the cap of 1,000).
    pub params: GbdtParams,
    /// Its mean held-out loss over the three folds.
    pub loss: f64,
    /// Grid points tried.
    pub points: usize,
}

fn grid(
    learning_rates: &[f64],
    leaves: &[u32],
    depths: &[i32],
    min_leaf: &[u32],
    seed: u64,
) -> Vec<GbdtParams> {
    let mut out = Vec::new();
    for &learning_rate in learning_rates {
        for &num_leaves in leaves {
            for &max_depth in depths {
                for &min_data_in_leaf in min_leaf {
                    for lambda_l2 in [0.0, 0.1, 1.0] {
                        for feature_fraction in [0.6, 0.8, 1.0] {
                            out.push(GbdtParams {
                                learning_rate,
                                num_leaves,
                                max_depth,
                                min_data_in_leaf,
                                lambda_l2,
                                feature_fraction,
                                num_trees: 1000,
                                early_stopping_rounds: 20,
                                validation_fraction: 0.1,
                                seed,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Table 12: the nuisance models' search space (432 points).
pub fn nuisance_grid(seed: u64) -> Vec<GbdtParams> {
    grid(
        &[0.01, 0.1],
        &[7, 15, 31],
        &[7, 10],
        &[30, 50, 100, 200],
        seed,
    )
}

/// Table 13: the payoff regressor's search space (486 points).
pub fn payoff_grid(seed: u64) -> Vec<GbdtParams> {
    grid(
        &[0.02, 0.05, 0.1],
        &[15, 31, 62],
        &[10, 15],
        &[50, 100, 200],
        seed,
    )
}

fn loss(objective: Objective, predicted: &[f64], targets: &[f64]) -> f64 {
    let total: f64 = predicted
        .iter()
        .zip(targets)
        .map(|(&p, &y)| match objective {
            Objective::SquaredError => (p - y).powi(2),
            Objective::LogLoss => {
                let p = p.clamp(1e-12, 1.0 - 1e-12);
                -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
            }
        })
        .sum();
    total / targets.len().max(1) as f64
}

/// Three-fold cross-validated grid search on `features` (`rows × columns`) and
/// `targets`; `progress(done, total)` after each grid point.
///
/// # Errors
/// [`LearnerError`] for an empty grid, fewer than 30 rows, or a booster failure.
pub fn grid_search(
    features: &[f64],
    columns: usize,
    targets: &[f64],
    objective: Objective,
    grid: &[GbdtParams],
    seed: u64,
    progress: &dyn Fn(usize, usize),
) -> Result<Tuned, LearnerError> {
    let rows = targets.len();
    if grid.is_empty() || rows < 30 {
        return Err(LearnerError(format!(
            "a grid search needs grid points and at least 30 rows; got {} points, {rows} rows",
            grid.len()
        )));
    }
    let mut order: Vec<usize> = (0..rows).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ 0x7E7E));
    order.truncate(TUNING_ROWS);
    // Tuning fold of the row at rank r of the shuffled order: r mod 3.
    let folds: Vec<(Vec<usize>, Vec<usize>)> = (0..3)
        .map(|f| {
            let in_fold = |rank: &usize| rank % 3 == f;
            let held = (0..order.len()).filter(in_fold).map(|r| order[r]).collect();
            let train = (0..order.len())
                .filter(|r| !in_fold(r))
                .map(|r| order[r])
                .collect();
            (held, train)
        })
        .collect();
    let mut best: Option<(f64, &GbdtParams)> = None;
    for (point, params) in grid.iter().enumerate() {
        let mut total = 0.0;
        for (held, train) in &folds {
            let backbone = Backbone::Gbdt(params.clone());
            let train_targets: Vec<f64> = train.iter().map(|&r| targets[r]).collect();
            let train_x = gather(features, columns, train);
            let model = match objective {
                Objective::SquaredError => {
                    backbone.fit_regressor(&train_x, columns, &train_targets, None)?
                }
                Objective::LogLoss => {
                    backbone.fit_classifier(&train_x, columns, &train_targets, None)?
                }
            };
            let held_targets: Vec<f64> = held.iter().map(|&r| targets[r]).collect();
            total += loss(
                objective,
                &model.predict(&gather(features, columns, held)),
                &held_targets,
            ) / 3.0;
        }
        if best.is_none_or(|(b, _)| total < b) {
            best = Some((total, params));
        }
        progress(point + 1, grid.len());
    }
    let (loss, params) = best.expect("a non-empty grid");
    Ok(Tuned {
        params: params.clone(),
        loss,
        points: grid.len(),
    })
}

/// Tunes the LightGBM propensity and outcome backbones of `options` in place on
/// `log` (the first menu's propensity and its first pair's outcome on the contexts
/// that observed it); linear backbones, and the oracle (which uses the true
/// nuisances), are left alone. Returns the searches run.
///
/// # Errors
/// [`LearnerError`] from the search.
pub fn tune_nuisances(
    log: &verdict_feedback::ContextualLog,
    options: &mut FitOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<Vec<Tuned>, LearnerError> {
    let mut searches = Vec::new();
    if options.variant == Variant::Oracle {
        return Ok(searches);
    }
    let observed = Observed::new(log);
    let columns = log.feature_names.len();
    let n = log.contexts.len();
    if matches!(options.propensity_backbone, Backbone::Gbdt(_)) {
        let labels: Vec<f64> = (0..n)
            .map(|i| f64::from(u8::from(observed.selected(i, 0))))
            .collect();
        let tuned = grid_search(
            &log.features,
            columns,
            &labels,
            Objective::LogLoss,
            &nuisance_grid(options.seed),
            options.seed,
            progress,
        )?;
        options.propensity_backbone = Backbone::Gbdt(tuned.params.clone());
        searches.push(tuned);
    }
    if matches!(options.outcome_backbone, Backbone::Gbdt(_)) {
        let chosen: Vec<usize> = (0..n).filter(|&i| observed.selected(i, 0)).collect();
        let targets: Vec<f64> = chosen
            .iter()
            .map(|&i| observed.verdict(log, i, 0, 0, 1).unwrap_or(0.0))
            .collect();
        let tuned = grid_search(
            &gather(&log.features, columns, &chosen),
            columns,
            &targets,
            Objective::SquaredError,
            &nuisance_grid(options.seed),
            options.seed,
            progress,
        )?;
        options.outcome_backbone = Backbone::Gbdt(tuned.params.clone());
        searches.push(tuned);
    }
    Ok(searches)
}

/// Tunes a LightGBM payoff backbone in place on the prepared pseudo-outcomes (the
/// shared design — for a large catalogue the rows its regression samples, weights
/// aside, as [`crate::payoff::SharedRows`] draws them — or the first pair for
/// per-pair regression). Nothing to tune for the oracle (no cross-fitted
/// pseudo-outcomes) or a linear backbone.
///
/// # Errors
/// [`LearnerError`] from the search.
pub fn tune_payoff(
    log: &verdict_feedback::ContextualLog,
    options: &mut FitOptions,
    pairs: &PairMap,
    gamma: &dyn PairTargets,
    rows: &SharedRows<'_>,
    progress: &dyn Fn(usize, usize),
) -> Result<Option<Tuned>, LearnerError> {
    if gamma.contexts() == 0 || !matches!(options.payoff_backbone, Backbone::Gbdt(_)) {
        return Ok(None);
    }
    let columns = log.feature_names.len();
    let npairs = pairs.pairs.len();
    let (features, width, targets) = match options.regression {
        // The structured regression trains its own perceptron: no LightGBM to tune.
        PayoffRegression::Structured => return Ok(None),
        PayoffRegression::Shared if has_pair_columns(pairs) => {
            let (design, width) = shared_design(&log.features, columns, pairs);
            (design, width, all_values(gamma, npairs))
        }
        PayoffRegression::Shared => {
            let (design, targets, _) = sampled_design(&log.features, columns, pairs, gamma, rows);
            (design, shared_width(columns, pairs, false), targets)
        }
        PayoffRegression::PerPair => (
            log.features.clone(),
            columns,
            (0..gamma.contexts()).map(|i| gamma.value(i, 0)).collect(),
        ),
    };
    let tuned = grid_search(
        &features,
        width,
        &targets,
        Objective::SquaredError,
        &payoff_grid(options.seed),
        options.seed,
        progress,
    )?;
    options.payoff_backbone = Backbone::Gbdt(tuned.params.clone());
    Ok(Some(tuned))
}

/// Table 14: the policy network's search space (54 points) — hidden widths 64, 128 and
/// 256, learning rates 1e-4, 3e-4 and 1e-3, weight decay 0, 1e-5 and 1e-4, batches of
/// 128 and 256; the rest (at most 500 epochs, patience 30, the held-out share, the
/// seed) from `base`.
pub fn network_grid(base: &NetworkOptions) -> Vec<NetworkOptions> {
    let mut out = Vec::new();
    for hidden in [64, 128, 256] {
        for learning_rate in [1e-4, 3e-4, 1e-3] {
            for weight_decay in [0.0, 1e-5, 1e-4] {
                for batch_size in [128, 256] {
                    out.push(NetworkOptions {
                        hidden,
                        learning_rate,
                        weight_decay,
                        batch_size,
                        ..base.clone()
                    });
                }
            }
        }
    }
    out
}

/// The outcome of the policy network's search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedNetwork {
    /// The best grid point.
    pub options: NetworkOptions,
    /// Its mean gap on the held-out contexts of the subsample.
    pub validation_gap: f64,
    /// Grid points tried.
    pub points: usize,
    /// Contexts the search trained on (a seeded subsample).
    pub contexts: usize,
}

/// Trains the network at every point of `grid` on a seeded subsample of at most
/// [`TUNING_ROWS`] contexts and keeps the point with the smallest held-out gap (Eq. 17
/// on the contexts each training holds out — the same ones for every point, as they
/// follow from the seed). The paper tunes its predictor over Table 14 this way; the
/// held-out gap is a training-side criterion, computed from the fitted payoff surface.
/// With `start` (one policy per context, as [`Network::train_from`] takes) every
/// point trains from it; without, from random weights.
///
/// # Panics
/// When `grid` is empty or `games`, `features` and `start` disagree (the caller
/// checks).
pub fn tune_network<G: GameSet + ?Sized>(
    features: &[f64],
    columns: usize,
    games: &G,
    loss: &GapLoss,
    grid: &[NetworkOptions],
    start: Option<&[f64]>,
    progress: &dyn Fn(usize, usize),
) -> TunedNetwork {
    assert!(!grid.is_empty(), "an empty network grid");
    let mut rows: Vec<usize> = (0..games.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(grid[0].seed);
    rows.shuffle(&mut rng);
    rows.truncate(TUNING_ROWS);
    // In their original order: with all contexts, the search trains exactly as a fit.
    rows.sort_unstable();
    let sample = gather(features, columns, &rows);
    let sample_games: Vec<PayoffMatrix> =
        rows.iter().map(|&i| games.game(i).into_owned()).collect();
    let agents = games.agents();
    let sample_start = start.map(|start| gather(start, agents, &rows));
    let mut best: Option<(f64, &NetworkOptions)> = None;
    for (done, options) in grid.iter().enumerate() {
        let (_, report) = Network::train_from(
            &sample,
            columns,
            &sample_games,
            loss,
            options,
            sample_start.as_deref(),
            &|_, _| {},
        );
        if best.is_none_or(|(gap, _)| report.validation_gap < gap) {
            best = Some((report.validation_gap, options));
        }
        progress(done + 1, grid.len());
    }
    let (validation_gap, options) = best.expect("a non-empty grid");
    TunedNetwork {
        options: options.clone(),
        validation_gap,
        points: grid.len(),
        contexts: rows.len(),
    }
}
