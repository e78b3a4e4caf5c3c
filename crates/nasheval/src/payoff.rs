//! Payoff surfaces `Â(x)` (NashEval Algorithm 1, lines 9–17): the out-of-fold
//! pseudo-outcomes `Γ_i,jk` of Eq. 42 regressed on the context — one shared regressor
//! on `(x, j, k)` or one regressor per pair (Section 5.2) — or the plug-in of Eq. 8
//! from the fold-averaged outcome models. Every surface is clipped to `[-1, 1]`,
//! antisymmetric with a zero diagonal. Pseudo-outcomes are read cell by cell
//! ([`PairTargets`]): a large catalogue's regressions and risks read a weighted
//! sample of cells, so no table of all `contexts × pairs` is made.

use serde::{Deserialize, Serialize};
use verdict_feedback::ContextualLog;

use crate::backbone::{Backbone, Model};
use crate::crossfit::{Nuisances, Observed, Outcomes};
use crate::learner::LearnerError;
use crate::pairs::PairMap;
use crate::pooled::{sampled_cells, PooledOutcome, PREDICTION_CHUNK};
use crate::pseudo::{plugin_payoff, pseudo_outcome, MenuObservation};
use crate::settings::PayoffRegression;
use crate::structured::{
    Objective, PairTarget, StructuredOptions, StructuredReport, StructuredSurface,
};

/// The menus of pair `p` at context `i`, as Eq. 42 sees them.
fn observations(
    log: &ContextualLog,
    observed: &Observed,
    pairs: &PairMap,
    nuisances: &Nuisances,
    i: usize,
    p: usize,
) -> Vec<MenuObservation> {
    pairs.holders[p]
        .iter()
        .map(|h| {
            let record = observed.record(i, h.menu);
            MenuObservation {
                outcome: nuisances.outcome.value(pairs, i, p, h.column),
                // Read only where a verdict was observed.
                propensity: record.map_or(1.0, |f| nuisances.propensity[f]),
                verdict: observed.verdict(log, i, h.menu, h.first, h.second),
            }
        })
        .collect()
}

/// Per-(context, pair) regression targets, read cell by cell.
pub trait PairTargets: Sync {
    /// Contexts.
    fn contexts(&self) -> usize;
    /// The target of pair `p` at context `i`.
    fn value(&self, i: usize, p: usize) -> f64;
}

/// A `contexts × pairs` row-major table of targets.
#[derive(Debug, Clone, Copy)]
pub struct TargetTable<'a> {
    /// The values.
    pub values: &'a [f64],
    /// Pairs per context.
    pub pairs: usize,
}

impl PairTargets for TargetTable<'_> {
    fn contexts(&self) -> usize {
        self.values.len() / self.pairs.max(1)
    }
    fn value(&self, i: usize, p: usize) -> f64 {
        self.values[i * self.pairs + p]
    }
}

/// The rows `rows` of `targets` (a fold's training contexts), renumbered from 0.
pub struct TargetRows<'a> {
    /// The targets of every context.
    pub targets: &'a dyn PairTargets,
    /// The contexts kept, in order.
    pub rows: &'a [usize],
}

impl PairTargets for TargetRows<'_> {
    fn contexts(&self) -> usize {
        self.rows.len()
    }
    fn value(&self, i: usize, p: usize) -> f64 {
        self.targets.value(self.rows[i], p)
    }
}

/// The pseudo-outcomes `Γ_i,jk` (Eq. 42) of a log, computed at each cell asked
/// for from nuisances at its contexts (out-of-fold for the debiased variant, the
/// truth for the oracle of Eq. 73): a fit reads them at the cells it trains and
/// scores on, and never holds all `contexts × pairs` of them.
pub struct PseudoOutcomes<'a> {
    /// The log.
    pub log: &'a ContextualLog,
    /// Its index of observed menus.
    pub observed: &'a Observed,
    /// Its pairs.
    pub pairs: &'a PairMap,
    /// Nuisances at its contexts.
    pub nuisances: &'a Nuisances,
}

impl PairTargets for PseudoOutcomes<'_> {
    fn contexts(&self) -> usize {
        self.log.contexts.len()
    }
    fn value(&self, i: usize, p: usize) -> f64 {
        pseudo_outcome(
            &self.pairs.aggregators[p],
            &observations(self.log, self.observed, self.pairs, self.nuisances, i, p),
        )
    }
}

/// `Γ_i,jk` (Eq. 42) for every training context and pair `j < k`, `contexts × pairs`
/// row-major ([`PseudoOutcomes`] as a table: for small catalogues and inspection).
pub fn pseudo_outcomes(log: &ContextualLog, pairs: &PairMap, nuisances: &Nuisances) -> Vec<f64> {
    let observed = Observed::new(log);
    let gamma = PseudoOutcomes {
        log,
        observed: &observed,
        pairs,
        nuisances,
    };
    all_values(&gamma, pairs.pairs.len())
}

/// Every value of `targets`, `contexts × pairs` row-major.
pub fn all_values(targets: &dyn PairTargets, npairs: usize) -> Vec<f64> {
    (0..targets.contexts())
        .flat_map(|i| (0..npairs).map(move |p| targets.value(i, p)))
        .collect()
}

/// The plug-in payoff `f_jk((μ^m_jk(x_i))_m)` (Eq. 8) of pair `p` at context `i`.
pub fn plugin_value(pairs: &PairMap, outcome: &Outcomes, i: usize, p: usize) -> f64 {
    let menus: Vec<MenuObservation> = pairs.holders[p]
        .iter()
        .map(|h| MenuObservation {
            outcome: outcome.value(pairs, i, p, h.column),
            propensity: 1.0,
            verdict: None,
        })
        .collect();
    plugin_payoff(&pairs.aggregators[p], &menus)
}

/// The plug-in payoffs (Eq. 8) of every pair at every context, `contexts × pairs`,
/// from outcome means at `contexts` contexts.
pub fn plugin_pairs(pairs: &PairMap, outcome: &Outcomes, contexts: usize) -> Vec<f64> {
    (0..contexts)
        .flat_map(|i| (0..pairs.pairs.len()).map(move |p| plugin_value(pairs, outcome, i, p)))
        .collect()
}

fn always() -> bool {
    true
}

/// A learned payoff surface.
#[derive(Debug, Serialize, Deserialize)]
pub enum PayoffSurface {
    /// Pseudo-outcomes regressed on the context (debiased and oracle variants).
    Regressed {
        /// Shared or per pair.
        regression: PayoffRegression,
        /// One model (shared) or one per pair.
        models: Vec<Model>,
        /// Whether the shared design has one-hot pair columns (files written before
        /// large catalogues dropped them always had them).
        #[serde(default = "always")]
        pair_columns: bool,
    },
    /// The plug-in of Eq. 8 from every fold's outcome models (`[fold][outcome]`),
    /// averaged over folds.
    PlugIn {
        /// `[fold][outcome]` outcome models.
        models: Vec<Vec<Model>>,
    },
    /// The plug-in from every fold's pooled outcome model, averaged over folds: the
    /// pooled model's pair value is every holding menu's mean, so the aggregator of
    /// equal values returns it.
    PooledPlugIn {
        /// One pooled outcome model per fold.
        models: Vec<PooledOutcome>,
    },
    /// Pseudo-outcomes regressed by one structured model ([`crate::structured`]).
    Structured {
        /// The model.
        model: StructuredSurface,
        /// The rank it kept and every candidate's held-out squared error.
        report: StructuredReport,
    },
    /// The plug-in from every fold's structured outcome model, averaged over folds
    /// (as [`PayoffSurface::PooledPlugIn`]).
    StructuredPlugIn {
        /// One structured outcome model per fold.
        models: Vec<StructuredSurface>,
    },
}

/// The learners a payoff regression draws on: the backbone of the shared and
/// per-pair designs and the structured model's settings.
#[derive(Debug, Clone, Copy)]
pub struct PayoffLearners<'a> {
    /// Backbone of the shared and per-pair regressions.
    pub backbone: &'a Backbone,
    /// Settings of the structured regression.
    pub structured: &'a StructuredOptions,
}

/// The largest catalogue of pairs whose shared design has one one-hot column per
/// pair, and whose shared regression trains on every (context, pair) row. Larger
/// catalogues use the agents' one-hot columns alone (a tree isolates a pair in two
/// splits) and a weighted sample of the rows ([`SharedRows`]).
pub const PAIR_COLUMNS_LIMIT: usize = 20;

/// Rows per context a large catalogue's shared regression keeps, besides the pairs
/// the context observed.
pub const SAMPLED_PAIRS_PER_CONTEXT: usize = 8;

/// How a large catalogue's shared regression samples its (context, pair) rows:
/// every row whose pseudo-outcome carries a correction (`carries(context, pair)`: a
/// menu holding the pair was observed there) is kept with weight 1; each other row,
/// whose pseudo-outcome is the plug-in alone, is kept with probability
/// `r = min(1, SAMPLED_PAIRS_PER_CONTEXT / pairs)` and weight `1/r`. The weighted
/// squared error is then an unbiased (Horvitz–Thompson) estimate of the squared
/// error over all rows, so the regression targets the same surface with
/// `pairs / SAMPLED_PAIRS_PER_CONTEXT` times fewer rows.
pub struct SharedRows<'a> {
    /// Whether the pair's pseudo-outcome at the context has a correction term.
    pub carries: &'a (dyn Fn(usize, usize) -> bool + Sync),
    /// Seed of the sample.
    pub seed: u64,
}

impl SharedRows<'_> {
    /// The (context, pair) cells of `contexts × npairs` kept, with their weights.
    fn cells(&self, contexts: usize, npairs: usize) -> (Vec<(usize, usize)>, Vec<f64>) {
        sampled_cells(
            0..contexts,
            npairs,
            self.carries,
            SAMPLED_PAIRS_PER_CONTEXT,
            self.seed ^ 0x5A3D_1E05,
        )
    }
}

/// The mean over fold models of their `contexts × pairs` values.
fn fold_mean<M>(models: &[M], values: impl Fn(&M) -> Vec<f64>) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for model in models {
        let fold = values(model);
        out.resize(fold.len(), 0.0);
        for (o, v) in out.iter_mut().zip(fold) {
            *o += v / models.len() as f64;
        }
    }
    out
}

/// Checks one outcome model per fold (`what` names the surface).
fn check_folds<M>(
    models: &[M],
    what: &str,
    check: impl Fn(&M) -> Result<(), String>,
) -> Result<(), String> {
    if models.is_empty() {
        return Err(format!("the {what} plug-in surface has no outcome model"));
    }
    models.iter().try_for_each(check)
}

/// The shared regressor's design row of `(x, j, k)`: `x`, one-hot `j` (K columns),
/// one-hot `k` (K columns) and, for small catalogues, one-hot pair. One-hot columns
/// stand in for LightGBM's categorical features, which its Rust binding cannot
/// declare.
fn push_shared_row(out: &mut Vec<f64>, x: &[f64], pairs: &PairMap, p: usize, pair_columns: bool) {
    let (a, b) = pairs.pairs[p];
    let k = pairs.agents;
    out.extend_from_slice(x);
    out.extend((0..k).map(|j| f64::from(u8::from(j == a))));
    out.extend((0..k).map(|j| f64::from(u8::from(j == b))));
    if pair_columns {
        out.extend((0..pairs.pairs.len()).map(|q| f64::from(u8::from(q == p))));
    }
}

/// Width of the shared design.
pub fn shared_width(columns: usize, pairs: &PairMap, pair_columns: bool) -> usize {
    columns + 2 * pairs.agents + if pair_columns { pairs.pairs.len() } else { 0 }
}

/// Whether the shared design of `pairs` has pair columns.
pub fn has_pair_columns(pairs: &PairMap) -> bool {
    pairs.pairs.len() <= PAIR_COLUMNS_LIMIT
}

/// The shared regressor's design for every (context, pair), one row per pair of each
/// context in turn.
pub fn shared_design(features: &[f64], columns: usize, pairs: &PairMap) -> (Vec<f64>, usize) {
    let pair_columns = has_pair_columns(pairs);
    let width = shared_width(columns, pairs, pair_columns);
    let mut out = Vec::with_capacity(features.len() / columns.max(1) * pairs.pairs.len() * width);
    for x in features.chunks(columns) {
        for p in 0..pairs.pairs.len() {
            push_shared_row(&mut out, x, pairs, p, pair_columns);
        }
    }
    (out, width)
}

/// The rows (with weights) a large catalogue's shared regression trains on, drawn
/// as [`SharedRows`] says, with their targets read at those cells only.
pub(crate) fn sampled_design(
    features: &[f64],
    columns: usize,
    pairs: &PairMap,
    targets: &dyn PairTargets,
    rows: &SharedRows<'_>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let npairs = pairs.pairs.len();
    let (cells, weights) = rows.cells(targets.contexts(), npairs);
    let mut design = Vec::new();
    for &(i, p) in &cells {
        push_shared_row(
            &mut design,
            &features[i * columns..(i + 1) * columns],
            pairs,
            p,
            false,
        );
    }
    let kept = cells.iter().map(|&(i, p)| targets.value(i, p)).collect();
    (design, kept, weights)
}

/// The structured regression's targets: every (context, pair) cell of `targets`
/// for small catalogues, else the cells [`SharedRows`] samples, with their weights.
fn structured_targets(
    pairs: &PairMap,
    targets: &dyn PairTargets,
    rows: &SharedRows<'_>,
    all_cells: bool,
) -> Vec<PairTarget> {
    let npairs = pairs.pairs.len().max(1);
    let contexts = targets.contexts();
    let (cells, weights) = if all_cells {
        let cells: Vec<(usize, usize)> = (0..contexts)
            .flat_map(|i| (0..npairs).map(move |p| (i, p)))
            .collect();
        let weights = vec![1.0; cells.len()];
        (cells, weights)
    } else {
        rows.cells(contexts, npairs)
    };
    cells
        .into_iter()
        .zip(weights)
        .map(|((row, p), weight)| PairTarget {
            row,
            first: pairs.pairs[p].0,
            second: pairs.pairs[p].1,
            target: targets.value(row, p),
            weight,
        })
        .collect()
}

impl PayoffSurface {
    /// Regresses `targets` (e.g. [`PseudoOutcomes`]) on `features` (`contexts ×
    /// columns`), reading them only at the cells the design trains on.
    ///
    /// # Errors
    /// [`LearnerError`] from the backbone, naming the pair for per-pair models.
    pub fn regress(
        features: &[f64],
        columns: usize,
        pairs: &PairMap,
        targets: &dyn PairTargets,
        regression: PayoffRegression,
        learners: PayoffLearners<'_>,
        rows: &SharedRows<'_>,
    ) -> Result<Self, LearnerError> {
        let npairs = pairs.pairs.len();
        let pair_columns = has_pair_columns(pairs);
        let backbone = learners.backbone;
        let models = match regression {
            PayoffRegression::Structured => {
                let (model, report) = StructuredSurface::fit(
                    features,
                    columns,
                    pairs.agents,
                    &structured_targets(pairs, targets, rows, pair_columns),
                    Objective::Squared,
                    learners.structured,
                )?;
                return Ok(Self::Structured { model, report });
            }
            PayoffRegression::Shared if pair_columns => {
                let (design, width) = shared_design(features, columns, pairs);
                let targets = all_values(targets, npairs);
                vec![backbone.fit_regressor(&design, width, &targets, None)?]
            }
            PayoffRegression::Shared => {
                let (design, kept, weights) =
                    sampled_design(features, columns, pairs, targets, rows);
                let width = shared_width(columns, pairs, false);
                vec![backbone.fit_regressor(&design, width, &kept, Some(&weights))?]
            }
            PayoffRegression::PerPair => (0..npairs)
                .map(|p| {
                    let column: Vec<f64> = (0..targets.contexts())
                        .map(|i| targets.value(i, p))
                        .collect();
                    backbone
                        .fit_regressor(features, columns, &column, None)
                        .map_err(|e| {
                            let (a, b) = pairs.pairs[p];
                            LearnerError(format!("payoff of agents {a} and {b}: {e}"))
                        })
                })
                .collect::<Result<_, LearnerError>>()?,
        };
        Ok(Self::Regressed {
            regression,
            models,
            pair_columns,
        })
    }

    /// Checks a loaded surface for `columns` features and `pairs`: as many models as
    /// its kind needs (one shared, one per pair, one per fold and outcome), each of
    /// the right width.
    ///
    /// # Errors
    /// What disagrees.
    pub fn check(&self, columns: usize, pairs: &PairMap) -> Result<(), String> {
        let npairs = pairs.pairs.len();
        let (models, expected, width): (Vec<&Model>, usize, usize) = match self {
            Self::Regressed {
                regression: PayoffRegression::Shared,
                models,
                pair_columns,
            } => (
                models.iter().collect(),
                1,
                shared_width(columns, pairs, *pair_columns),
            ),
            Self::Regressed { models, .. } => (models.iter().collect(), npairs, columns),
            Self::PlugIn { models } => {
                if models.is_empty() || models.iter().any(|fold| fold.len() != pairs.columns) {
                    return Err(format!(
                        "the plug-in surface needs {} outcome models per fold",
                        pairs.columns
                    ));
                }
                let all: Vec<&Model> = models.iter().flatten().collect();
                let count = all.len();
                (all, count, columns)
            }
            Self::PooledPlugIn { models } => {
                return check_folds(models, "pooled", |m| m.check(pairs.agents, columns));
            }
            Self::Structured { model, .. } => return model.check(pairs.agents, columns),
            Self::StructuredPlugIn { models } => {
                return check_folds(models, "structured", |m| m.check(pairs.agents, columns));
            }
        };
        if models.len() != expected {
            return Err(format!(
                "{} payoff models where {expected} are needed",
                models.len()
            ));
        }
        models.iter().try_for_each(|m| m.check(width))
    }

    /// Unclipped pair values `contexts × pairs` at `features`.
    pub fn pair_values(&self, features: &[f64], columns: usize, pairs: &PairMap) -> Vec<f64> {
        let n = features.len() / columns;
        let npairs = pairs.pairs.len();
        match self {
            Self::Regressed {
                regression: PayoffRegression::Shared,
                models,
                pair_columns,
            } => {
                let mut out = Vec::with_capacity(n * npairs);
                let mut design = Vec::new();
                for chunk in features.chunks(PREDICTION_CHUNK * columns.max(1)) {
                    design.clear();
                    for x in chunk.chunks(columns.max(1)) {
                        for p in 0..npairs {
                            push_shared_row(&mut design, x, pairs, p, *pair_columns);
                        }
                    }
                    out.extend(models[0].predict(&design));
                }
                out
            }
            Self::Regressed { models, .. } => {
                let mut out = vec![0.0; n * npairs];
                for (p, model) in models.iter().enumerate() {
                    for (i, v) in model.predict(features).into_iter().enumerate() {
                        out[i * npairs + p] = v;
                    }
                }
                out
            }
            Self::PlugIn { models } => {
                let mut outcome = vec![0.0; n * pairs.columns];
                for fold in models {
                    for (o, model) in fold.iter().enumerate() {
                        for (i, v) in model.predict(features).into_iter().enumerate() {
                            outcome[i * pairs.columns + o] += v / models.len() as f64;
                        }
                    }
                }
                plugin_pairs(pairs, &Outcomes::Columns(outcome), n)
            }
            Self::PooledPlugIn { models } => {
                fold_mean(models, |m| m.predict(features, &pairs.pairs))
            }
            Self::Structured { model, .. } => model.pair_values(features, &pairs.pairs),
            Self::StructuredPlugIn { models } => {
                fold_mean(models, |m| m.pair_values(features, &pairs.pairs))
            }
        }
    }

    /// Unclipped values at the `(row, pair)` cells `at` of `features` (`contexts ×
    /// columns`), `at` sorted by row (as [`crate::selection::RiskCells`] are): a shared
    /// regression predicts the cells alone, built `PREDICTION_CHUNK × pairs` rows at a
    /// time; a structured surface the head rows of the cells' contexts; other
    /// surfaces every pair of the cells' contexts.
    pub fn values_at(
        &self,
        features: &[f64],
        columns: usize,
        pairs: &PairMap,
        at: &[(usize, usize)],
    ) -> Vec<f64> {
        let npairs = pairs.pairs.len();
        if let Self::Regressed {
            regression: PayoffRegression::Shared,
            models,
            pair_columns,
        } = self
        {
            let mut out = Vec::with_capacity(at.len());
            let mut design = Vec::new();
            for chunk in at.chunks(PREDICTION_CHUNK * npairs.max(1)) {
                design.clear();
                for &(row, p) in chunk {
                    let x = &features[row * columns..(row + 1) * columns];
                    push_shared_row(&mut design, x, pairs, p, *pair_columns);
                }
                out.extend(models[0].predict(&design));
            }
            return out;
        }
        let mut contexts: Vec<usize> = at.iter().map(|&(row, _)| row).collect();
        contexts.dedup();
        // Each cell's context as a row of `contexts`, and its pair.
        let mut slot = 0;
        let slots: Vec<(usize, usize)> = at
            .iter()
            .map(|&(row, p)| {
                while contexts[slot] != row {
                    slot += 1;
                }
                (slot, p)
            })
            .collect();
        let structured = match self {
            Self::Structured { model, .. } => std::slice::from_ref(model),
            Self::StructuredPlugIn { models } => models.as_slice(),
            _ => &[],
        };
        if !structured.is_empty() {
            let x = crate::crossfit::gather(features, columns, &contexts);
            return fold_mean(structured, |model| {
                let heads = model.heads(&x);
                slots
                    .iter()
                    .map(|&(slot, p)| {
                        let (j, k) = pairs.pairs[p];
                        heads.pair_value(slot, j, k)
                    })
                    .collect()
            });
        }
        let values = self.pair_values(
            &crate::crossfit::gather(features, columns, &contexts),
            columns,
            pairs,
        );
        slots
            .iter()
            .map(|&(slot, p)| values[slot * npairs + p])
            .collect()
    }

    /// `Â(x)` at every row of `features`: `contexts × K × K`, clipped, antisymmetric,
    /// zero diagonal.
    pub fn matrices(&self, features: &[f64], columns: usize, pairs: &PairMap) -> Vec<f64> {
        matrices_from_pairs(&self.pair_values(features, columns, pairs), pairs)
    }
}

/// `contexts × K × K` payoff matrices from `contexts × pairs` values.
pub fn matrices_from_pairs(values: &[f64], pairs: &PairMap) -> Vec<f64> {
    let k = pairs.agents;
    let mut out = vec![0.0; values.len() / pairs.pairs.len().max(1) * k * k];
    for (row, matrix) in values.chunks(pairs.pairs.len()).zip(out.chunks_mut(k * k)) {
        pairs.matrix_into(row, matrix);
    }
    out
}
