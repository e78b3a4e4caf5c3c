//! A router benchmark on real prompts (`verdict bench router`): AlpacaEval 2's weighted
//! GPT-4-turbo judge scored 60 models on all 805 prompts against one reference; the
//! 56 of them with an output length on AlpacaEval 2's leaderboard are the catalogue.
//!
//! - **Truth.** `s_m(x) ∈ [0, 1]`: the judge's probability that model `m`'s answer to
//!   prompt `x` beats the reference's. A router sending `x` to `m` scores `s_m(x)`;
//!   its quality is the mean over held-out prompts (AlpacaEval's win rate of the
//!   routed system). Cost: the model's mean output length in characters (the
//!   leaderboard's `avg_length`; the data has no per-token prices).
//! - **Training log.** On each training prompt the logger observes each model
//!   independently with a known probability `q_m(x)` (models in the first half weigh
//!   three times more on `koala` and `oasst` prompts; `observed` models per prompt on
//!   average) and sees a thumbs-up `y ~ Bernoulli(s_m(x))`.
//! - **verdict's router** learns from the same log, as duels: every pair of models
//!   observed on one prompt is a verdict (the one with the thumbs-up wins; a tie is
//!   a coin flip, so `P(j wins) = (1 + s_j − s_l)/2`) logged with its exact
//!   propensity `q_j q_l`; the default fit (auto surface, network policy), routed by
//!   sampling its policy (`sample`) or by its argmax; its cost curve the priced
//!   equilibria of its surface (what `/v1/route`'s `surcharge` solves, Eq. 20).
//! - **Baselines.** kNN on the same features (cosine on standardized columns, the
//!   `neighbours` nearest training prompts, each model's thumbs-up rate among them
//!   shrunk toward its global rate); the best single model and the cheapest within
//!   one point of it (both chosen by their inverse-propensity-weighted training rate);
//!   the per-prompt oracle (the true best model of each prompt, cheapest on ties).
//! - **Scores.** Quality and cost at the router's default; AIQ, APGR and CPT(50, 80,
//!   95%) of its cost curve against the single models ([`crate::route_metrics`]);
//!   RouterArena's score `S = (1 + β) A C / (β A + C)`, `β = 0.1`, with `A` the
//!   quality and `C = (log₂ c_max − log₂ c) / (log₂ c_max − log₂ c_min)` the log-cost
//!   score over `[c_min, c_max]` = half the cheapest and twice the dearest model's
//!   cost (RouterArena's bounds are dollars per thousand queries, which the data
//!   does not have).

use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use verdict::game::{regularized_equilibrium, PayoffMatrix, Regularizer};
use verdict::io::{
    read_contexts, read_contextual_log, write_parquet_table, ColumnData, ContextTable,
    ContextualOptions, Source,
};
use verdict::model_file::Featurizer;
use verdict::nasheval::{prepare, FitOptions, PolicyKind, Variant};
use verdict::VerdictError;

use crate::cost_curve::{cost_range, price_weights, scaled_costs, PRICE_RHO};
use crate::experiment::fit_on;
use crate::real_benchmark::{output_lengths_where_known, AlpacaEval, JudgePanel};
use crate::route_metrics::{score_router, Point};

/// AlpacaEval 2's weighted GPT-4-turbo judge alone, against `gpt4_1106_preview`:
/// every model it scored on all 805 prompts.
pub const WEIGHTED_PANEL: JudgePanel = JudgePanel {
    name: "weighted",
    reference: "gpt4_1106_preview",
    judges: &["weighted_alpaca_eval_gpt4_turbo"],
    min_coverage: 1.0,
    leaderboard: "leaderboard_AlpacaEval2_weighted_gpt4_turbo.csv",
};

/// The data sets whose prompts favour the first half of the models.
const SKEWED: [&str; 2] = ["koala", "oasst"];

/// RouterArena's weight of cost against accuracy.
pub const ARENA_BETA: f64 = 0.1;

/// The catalogue: models with a score on every prompt and a known cost.
#[derive(Debug, Clone)]
pub struct RouterData {
    /// The prompts and the judge's scores.
    pub data: AlpacaEval,
    /// Each model's cost (mean output length), in `data.models` order.
    pub costs: Vec<f64>,
    /// Models left out for want of a length on the leaderboard.
    pub dropped: Vec<String>,
}

impl RouterData {
    /// Reads the weighted judge's scores and the leaderboard's lengths from `dir`.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming a missing or malformed file.
    pub fn read(dir: &Path) -> Result<Self, VerdictError> {
        let mut data = AlpacaEval::read(dir, &WEIGHTED_PANEL)?;
        let lengths = output_lengths_where_known(dir, &WEIGHTED_PANEL, &data)?;
        let keep: Vec<usize> = (0..data.models.len())
            .filter(|&m| lengths[m].is_some())
            .collect();
        let dropped = (0..data.models.len())
            .filter(|&m| lengths[m].is_none())
            .map(|m| data.models[m].clone())
            .collect();
        data.scores = data
            .scores
            .iter()
            .map(|judge| keep.iter().map(|&m| judge[m].clone()).collect())
            .collect();
        data.models = keep.iter().map(|&m| data.models[m].clone()).collect();
        let costs = keep.iter().map(|&m| lengths[m].unwrap_or(0.0)).collect();
        Ok(Self {
            data,
            costs,
            dropped,
        })
    }

    /// `s_m(x)` of model `m` at prompt `p`.
    fn score(&self, m: usize, p: usize) -> f64 {
        self.data.scores[0][m][p]
    }
}

/// What the benchmark runs with (nothing here was tuned on its results).
#[derive(Debug, Clone)]
pub struct RouterSettings {
    /// Share of prompts held out.
    pub test_share: f64,
    /// Models observed per training prompt, on average.
    pub observed: f64,
    /// kNN's neighbours.
    pub neighbours: usize,
    /// kNN's prior weight on a model's global rate, in observations.
    pub shrinkage: f64,
    /// `ρ` of the fit.
    pub rho: f64,
    /// Dimensions of the hashed text features (without an encoder).
    pub text_dim: usize,
    /// The encoder that embeds the prompt, when given.
    pub encoder: Option<verdict::io::TextEncoder>,
}

impl Default for RouterSettings {
    fn default() -> Self {
        Self {
            test_share: 0.25,
            observed: 10.0,
            neighbours: 25,
            shrinkage: 2.0,
            rho: 0.001,
            text_dim: 64,
            encoder: None,
        }
    }
}

/// One router's scores on one split.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RouterRow {
    /// The split's seed.
    pub split: u64,
    /// The router.
    pub router: String,
    /// The model a single-model router chose on this split.
    pub choice: Option<String>,
    /// Mean `s` over held-out prompts at the router's default.
    pub quality: f64,
    /// Mean cost there.
    pub cost: f64,
    /// AIQ of its curve.
    pub aiq: f64,
    /// APGR of its curve.
    pub apgr: f64,
    /// CPT(50%), CPT(80%), CPT(95%) (`None`: never).
    pub cpt: [Option<f64>; 3],
    /// RouterArena's score at the default.
    pub arena: f64,
    /// Distinct models its default sends held-out prompts to (the policy's largest
    /// probability at each prompt): 1 for a router that ignores the prompt.
    pub models_used: usize,
}

/// The log-cost score `C` and RouterArena's `S` of a router at `(cost, quality)`.
pub fn arena_score(cost: f64, quality: f64, bounds: (f64, f64)) -> f64 {
    let (low, high) = bounds;
    let c = ((high.log2() - cost.log2()) / (high.log2() - low.log2())).clamp(0.0, 1.0);
    let denominator = ARENA_BETA * quality + c;
    if denominator > 0.0 {
        (1.0 + ARENA_BETA) * quality * c / denominator
    } else {
        0.0
    }
}

/// The inclusion probability of each model at a prompt of data set `set`.
fn inclusion(k: usize, set: &str, observed: f64) -> Vec<f64> {
    let weights: Vec<f64> = (0..k)
        .map(|m| {
            if SKEWED.contains(&set) && m < k / 2 {
                3.0
            } else {
                1.0
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|w| (observed * w / total).min(1.0))
        .collect()
}

/// The held-out prompts of the split of `seed` (indices into `data.data.prompts`).
pub fn held_out_prompts(data: &RouterData, settings: &RouterSettings, seed: u64) -> Vec<usize> {
    split(data, settings, seed).0
}

/// One training prompt's observations: `(model, thumbs-up, inclusion probability)`.
type Observed = Vec<(usize, f64, f64)>;

/// The split of `seed`: held-out prompts, and each training prompt with what the
/// logger observed.
fn split(
    data: &RouterData,
    settings: &RouterSettings,
    seed: u64,
) -> (Vec<usize>, Vec<(usize, Observed)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let prompts = &data.data.prompts;
    let mut order: Vec<usize> = (0..prompts.len()).collect();
    order.shuffle(&mut rng);
    let held = ((prompts.len() as f64) * settings.test_share).round() as usize;
    let (test, train) = order.split_at(held);
    let k = data.data.models.len();
    let logged = train
        .iter()
        .map(|&p| {
            let q = inclusion(k, &prompts[p].2, settings.observed);
            let seen = (0..k)
                .filter_map(|m| {
                    let included = rng.random::<f64>() < q[m];
                    let y = f64::from(u8::from(rng.random::<f64>() < data.score(m, p)));
                    included.then_some((m, y, q[m]))
                })
                .collect();
            (p, seen)
        })
        .collect();
    (test.to_vec(), logged)
}

/// Writes the training log as duels with their propensities, and both context tables.
fn write_log(
    data: &RouterData,
    test: &[usize],
    logged: &[(usize, Observed)],
    dir: &Path,
    rng: &mut ChaCha8Rng,
) -> Result<(), VerdictError> {
    let models = &data.data.models;
    let train: Vec<usize> = logged.iter().map(|(p, _)| *p).collect();
    write_parquet_table(
        &dir.join("contexts.parquet"),
        &data.data.contexts_table(&train),
    )?;
    write_parquet_table(
        &dir.join("test_contexts.parquet"),
        &data.data.contexts_table(test),
    )?;
    let (mut ids, mut menus, mut responses, mut propensities) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (p, seen) in logged {
        for (i, &(j, yj, qj)) in seen.iter().enumerate() {
            for &(l, yl, ql) in &seen[i + 1..] {
                let j_wins = if yj == yl {
                    rng.random::<bool>()
                } else {
                    yj > yl
                };
                ids.push(format!("p{}", data.data.prompts[*p].0));
                menus.push(vec![models[j].clone(), models[l].clone()]);
                responses.push(models[if j_wins { j } else { l }].clone());
                propensities.push(qj * ql);
            }
        }
    }
    let n = ids.len();
    write_parquet_table(
        &dir.join("feedback.parquet"),
        &[
            ("context_id", ColumnData::Text(ids)),
            ("menu", ColumnData::TextList(menus)),
            ("modality", ColumnData::Text(vec!["pairwise".into(); n])),
            ("response", ColumnData::Text(responses)),
            ("propensity", ColumnData::Float(propensities)),
        ],
    )?;
    Ok(())
}

/// Columns standardized by the training rows' mean and sd, then each row scaled to
/// unit length: cosine similarity is then a dot product.
fn standardized(train: &ContextTable, other: &ContextTable) -> (Vec<f64>, Vec<f64>, usize) {
    let d = train.feature_names.len();
    let n = train.ids.len().max(1) as f64;
    let mean: Vec<f64> = (0..d)
        .map(|j| train.features.chunks(d).map(|r| r[j]).sum::<f64>() / n)
        .collect();
    let sd: Vec<f64> = (0..d)
        .map(|j| {
            let v = train
                .features
                .chunks(d)
                .map(|r| (r[j] - mean[j]).powi(2))
                .sum::<f64>()
                / n;
            if v > 0.0 {
                v.sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let scale = |table: &ContextTable| -> Vec<f64> {
        let columns: Vec<usize> = table
            .feature_names
            .iter()
            .map(|name| {
                train
                    .feature_names
                    .iter()
                    .position(|t| t == name)
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let mut out = Vec::with_capacity(table.ids.len() * d);
        for row in table.features.chunks(table.feature_names.len()) {
            let mut z = vec![0.0; d];
            for (value, &j) in row.iter().zip(&columns) {
                if j < d {
                    z[j] = (value - mean[j]) / sd[j];
                }
            }
            let norm = z.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
            out.extend(z.iter().map(|v| v / norm));
        }
        out
    };
    (scale(train), scale(other), d)
}

/// Each model's inverse-propensity-weighted thumbs-up rate over the training log.
fn global_rates(logged: &[(usize, Observed)], k: usize) -> Vec<f64> {
    let mut rates = vec![0.0; k];
    for (_, seen) in logged {
        for &(m, y, q) in seen {
            rates[m] += y / q;
        }
    }
    let n = logged.len().max(1) as f64;
    rates.iter().map(|r| r / n).collect()
}

/// kNN's estimate of every model at each held-out prompt (`test × models`).
fn knn_estimates(
    train_x: &[f64],
    test_x: &[f64],
    d: usize,
    logged: &[(usize, Observed)],
    rates: &[f64],
    settings: &RouterSettings,
) -> Vec<f64> {
    let k = rates.len();
    let mut out = Vec::new();
    for row in test_x.chunks(d) {
        let mut similarity: Vec<(f64, usize)> = train_x
            .chunks(d)
            .enumerate()
            .map(|(i, t)| (t.iter().zip(row).map(|(a, b)| a * b).sum(), i))
            .collect();
        similarity.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let (mut sums, mut counts) = (vec![0.0; k], vec![0.0; k]);
        for &(_, i) in similarity.iter().take(settings.neighbours) {
            for &(m, y, _) in &logged[i].1 {
                sums[m] += y;
                counts[m] += 1.0;
            }
        }
        out.extend(
            (0..k).map(|m| {
                (sums[m] + settings.shrinkage * rates[m]) / (counts[m] + settings.shrinkage)
            }),
        );
    }
    out
}

/// The argmax of `values` (first on ties).
fn argmax(values: &[f64]) -> usize {
    best_of(values, &vec![0.0; values.len()], 0.0)
}

/// The argmax of `values − β c` (first on ties).
fn best_of(values: &[f64], scaled: &[f64], beta: f64) -> usize {
    (0..values.len())
        .max_by(|&a, &b| {
            (values[a] - beta * scaled[a])
                .total_cmp(&(values[b] - beta * scaled[b]))
                .then(b.cmp(&a))
        })
        .unwrap_or(0)
}

/// A router's curve on the held-out prompts: `(cost, quality)` of each policy in
/// `policies` (each `test × models`).
fn curve_of(data: &RouterData, test: &[usize], policies: &[Vec<f64>]) -> Vec<Point> {
    let k = data.costs.len();
    policies
        .iter()
        .map(|policy| {
            let n = test.len() as f64;
            let (mut cost, mut quality) = (0.0, 0.0);
            for (pi, &p) in policy.chunks(k).zip(test) {
                for (m, w) in pi.iter().enumerate() {
                    cost += w * data.costs[m];
                    quality += w * data.score(m, p);
                }
            }
            (cost / n, quality / n)
        })
        .collect()
}

/// One-hot rows of `choices`.
fn one_hot(choices: &[usize], k: usize) -> Vec<f64> {
    choices
        .iter()
        .flat_map(|&c| (0..k).map(move |m| f64::from(u8::from(m == c))))
        .collect()
}

/// Every router's scores on the split of `seed`.
///
/// # Errors
/// [`VerdictError`] from writing the split, the fit or a solver.
pub fn router_split(
    data: &RouterData,
    settings: &RouterSettings,
    seed: u64,
) -> Result<Vec<RouterRow>, VerdictError> {
    let k = data.costs.len();
    let (test, logged) = split(data, settings, seed);
    let dir = tempfile::tempdir()
        .map_err(|e| VerdictError::Data(format!("cannot make a temporary directory: {e}")))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    write_log(data, &test, &logged, dir.path(), &mut rng)?;
    let reading = ContextualOptions {
        text_column: Some("prompt".into()),
        text_dim: settings.text_dim,
        text_encoder: settings.encoder.clone(),
        propensity_column: Some("propensity".into()),
        ..ContextualOptions::default()
    };
    let log = read_contextual_log(
        &Source::File(dir.path().join("contexts.parquet")),
        &Source::File(dir.path().join("feedback.parquet")),
        &reading,
    )?;
    let train_contexts =
        read_contexts(&Source::File(dir.path().join("contexts.parquet")), &reading)?;
    let test_contexts = read_contexts(
        &Source::File(dir.path().join("test_contexts.parquet")),
        &reading,
    )?;
    // The log lists agents as met; `position[j]` is its agent j's index in the data.
    let position = data.data.positions(&log.agents).ok_or_else(|| {
        VerdictError::Data(format!(
            "the split's duels name {} models of {k}: every model must be observed with another on some prompt",
            log.agents.len()
        ))
    })?;
    let options = FitOptions {
        rho: settings.rho,
        seed,
        variant: Variant::Auto,
        policy: PolicyKind::Network,
        ..FitOptions::default()
    };
    let prepared = prepare(&log, &options.check(&log)?, &|_, _, _| {})?;
    let model = fit_on(
        &log,
        options,
        &prepared,
        Featurizer::from_options(&reading).to_value(),
    )?;
    let features = model
        .align_features(&test_contexts.feature_names, &test_contexts.features)
        .map_err(|e| VerdictError::Data(e.to_string()))?
        .features;
    // Policies in the data's model order.
    let reorder = |rows: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; rows.len()];
        for (r, chunk) in rows.chunks(k).enumerate() {
            for (j, p) in chunk.iter().enumerate() {
                out[r * k + position[j]] = *p;
            }
        }
        out
    };
    let policy = reorder(&model.policy(&features)?);
    let (low, high) = cost_range(&data.costs);
    let scaled = scaled_costs(&data.costs);
    let payoffs = model.payoffs(&features);
    let mut priced: Vec<Vec<f64>> = Vec::new();
    for beta in price_weights() {
        let regularizer = Regularizer {
            rho: PRICE_RHO,
            costs: position.iter().map(|&m| beta * scaled[m]).collect(),
        };
        let mut rows = Vec::with_capacity(test.len() * k);
        for game in payoffs.chunks(k * k) {
            let matrix = PayoffMatrix::from_row_major(game, k)?;
            rows.extend(regularized_equilibrium(&matrix, &regularizer)?.probabilities);
        }
        priced.push(reorder(&rows));
    }
    let argmax_rows = |rows: &[f64]| -> Vec<f64> {
        let choices: Vec<usize> = rows.chunks(k).map(argmax).collect();
        one_hot(&choices, k)
    };
    // kNN, and the single models chosen on the training log.
    let rates = global_rates(&logged, k);
    let (train_x, test_x, d) = standardized(&train_contexts, &test_contexts);
    let estimates = knn_estimates(&train_x, &test_x, d, &logged, &rates, settings);
    let knn: Vec<Vec<f64>> = price_weights()
        .iter()
        .map(|&beta| {
            let choices: Vec<usize> = estimates
                .chunks(k)
                .map(|e| best_of(e, &scaled, beta))
                .collect();
            one_hot(&choices, k)
        })
        .collect();
    let best = argmax(&rates);
    let cheapest_close = (0..k)
        .filter(|&m| rates[m] >= rates[best] - 0.01)
        .min_by(|&a, &b| data.costs[a].total_cmp(&data.costs[b]).then(a.cmp(&b)))
        .unwrap_or(best);
    let oracle: Vec<Vec<f64>> = price_weights()
        .iter()
        .map(|&beta| {
            // Ties go to the cheaper model.
            let tiebreak: Vec<f64> = scaled.iter().map(|s| beta * s + 1e-12 * s).collect();
            let choices: Vec<usize> = test
                .iter()
                .map(|&p| {
                    let truth: Vec<f64> = (0..k).map(|m| data.score(m, p)).collect();
                    best_of(&truth, &tiebreak, 1.0)
                })
                .collect();
            one_hot(&choices, k)
        })
        .collect();
    let alone = |m: usize| one_hot(&vec![m; test.len()], k);
    let singles: Vec<Point> = curve_of(data, &test, &(0..k).map(alone).collect::<Vec<_>>());
    let bounds = (low / 2.0, high * 2.0);
    let mut rows = Vec::new();
    let mut add = |router: &str, choice: Option<usize>, default: Vec<f64>, curve: Vec<Vec<f64>>| {
        let point = curve_of(data, &test, std::slice::from_ref(&default))[0];
        let mut points = curve_of(data, &test, &curve);
        points.push(point);
        let scores = score_router(&points, &singles);
        rows.push(RouterRow {
            split: seed,
            router: router.to_owned(),
            choice: choice.map(|m| data.data.models[m].clone()),
            quality: point.1,
            cost: point.0,
            aiq: scores.aiq,
            apgr: scores.apgr,
            cpt: [scores.cpt50, scores.cpt80, scores.cpt95],
            arena: arena_score(point.0, point.1, bounds),
            models_used: {
                let mut used: Vec<usize> = default.chunks(k).map(argmax).collect();
                used.sort_unstable();
                used.dedup();
                used.len()
            },
        });
    };
    add(
        "verdict (NashEval default, sample)",
        None,
        policy.clone(),
        priced.clone(),
    );
    add(
        "verdict (NashEval default, argmax)",
        None,
        argmax_rows(&policy),
        priced.iter().map(|p| argmax_rows(p)).collect(),
    );
    let knn_name = format!("kNN (k = {})", settings.neighbours);
    add(&knn_name, None, knn[0].clone(), knn.clone());
    add(
        "best single (training rate)",
        Some(best),
        alone(best),
        vec![alone(best)],
    );
    add(
        "cheapest within 1 point of it",
        Some(cheapest_close),
        alone(cheapest_close),
        vec![alone(cheapest_close)],
    );
    add(
        "oracle (per prompt)",
        None,
        oracle[0].clone(),
        oracle.clone(),
    );
    Ok(rows)
}

/// A router's scores over splits: mean and sample sd of each, CPTs as the mean over
/// the splits where they were reached (with how many).
#[derive(Debug, Clone, PartialEq)]
pub struct RouterSummary {
    /// The router.
    pub router: String,
    /// The models a single-model router chose, split by split.
    pub choices: Vec<String>,
    /// Splits.
    pub splits: usize,
    /// Quality, cost, AIQ, APGR, arena score: `(mean, sd)`.
    pub quality: (f64, f64),
    /// See `quality`.
    pub cost: (f64, f64),
    /// See `quality`.
    pub aiq: (f64, f64),
    /// See `quality`.
    pub apgr: (f64, f64),
    /// See `quality`.
    pub arena: (f64, f64),
    /// CPT(50, 80, 95%): the mean over the splits that reached it, and their number.
    pub cpt: [(f64, usize); 3],
    /// Distinct models used, split by split.
    pub models_used: Vec<usize>,
}

/// The rows of each router (in first-met order, a single model's rows by their place
/// among the routers) summarized over splits.
pub fn summarize_routers(rows: &[RouterRow]) -> Vec<RouterSummary> {
    let mut splits: Vec<u64> = rows.iter().map(|r| r.split).collect();
    splits.dedup();
    let per_split = rows.len() / splits.len().max(1);
    (0..per_split)
        .map(|slot| {
            let mine: Vec<&RouterRow> = rows.iter().skip(slot).step_by(per_split).collect();
            let of = |f: fn(&RouterRow) -> f64| {
                crate::experiment_summary::mean_sd(&mine.iter().map(|r| f(r)).collect::<Vec<_>>())
            };
            let cpt = [0, 1, 2].map(|i| {
                let reached: Vec<f64> = mine.iter().filter_map(|r| r.cpt[i]).collect();
                (
                    reached.iter().sum::<f64>() / reached.len().max(1) as f64,
                    reached.len(),
                )
            });
            RouterSummary {
                router: mine[0].router.clone(),
                choices: mine.iter().filter_map(|r| r.choice.clone()).collect(),
                splits: mine.len(),
                quality: of(|r| r.quality),
                cost: of(|r| r.cost),
                aiq: of(|r| r.aiq),
                apgr: of(|r| r.apgr),
                arena: of(|r| r.arena),
                cpt,
                models_used: mine.iter().map(|r| r.models_used).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RouterArena's score by hand: with `C = 1/2` and `A = 0.6`, `S = 1.1 · 0.3 /
    /// (0.06 + 0.5)`; at the dearest bound `C = 0` and `S = 0`; at the cheapest `C =
    /// 1` and `S = 1.1 A / (0.1 A + 1)`.
    #[test]
    fn the_arena_score_is_routerarenas_formula() {
        let bounds = (1.0, 16.0);
        assert!((arena_score(4.0, 0.6, bounds) - 1.1 * 0.3 / 0.56).abs() < 1e-12);
        assert_eq!(arena_score(16.0, 0.6, bounds), 0.0);
        assert!((arena_score(1.0, 0.6, bounds) - 1.1 * 0.6 / 1.06).abs() < 1e-12);
    }

    /// Inclusion probabilities average `observed` models per prompt, three times
    /// higher for the first half on the skewed data sets.
    #[test]
    fn inclusion_observes_the_asked_number_on_average() {
        let q = inclusion(10, "koala", 4.0);
        assert!((q.iter().sum::<f64>() - 4.0).abs() < 1e-12);
        assert!((q[0] / q[9] - 3.0).abs() < 1e-12);
        let flat = inclusion(10, "vicuna", 4.0);
        assert!(flat.iter().all(|&p| (p - 0.4).abs() < 1e-12));
    }
}
