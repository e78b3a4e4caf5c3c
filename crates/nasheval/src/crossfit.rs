//! Cross-fitted nuisances of NashEval Algorithm 1 (lines 3–8): contexts are dealt into
//! folds (all records of a context in one fold); for every fold and menu a propensity
//! model `ê^m` is fitted to `S^m` on the other folds' contexts (binary log loss) and an
//! outcome model `μ̂^m_jk` for every pair of the menu on the other folds' contexts
//! with `S^m = 1` (squared error). Predictions on the held-out fold are the
//! out-of-fold nuisances the pseudo-outcomes of Eq. 42 are built from. Large or
//! sparse catalogues use one model per fold for every menu instead
//! ([`NuisanceDesign`]): pooled LightGBM models over `(x, menu)` and `(x, j, k)`, or
//! the structured propensity and outcome models, whose outputs are per agent.

use verdict_feedback::ContextualLog;
#[cfg(doc)]
use verdict_feedback::MenuFeedback;

use crate::backbone::{Backbone, Model};
use crate::histogram::PropensityHistogram;
use crate::learner::{context_folds, LearnerError};
use crate::pairs::PairMap;
use crate::pooled::{
    sampled_cells, PairVerdict, PooledOutcome, PooledPropensity, SAMPLED_MENUS_PER_CONTEXT,
};
use crate::settings::NuisanceDesign;
use crate::structured::{
    HeadTable, Objective, PairTarget, StructuredCandidates, StructuredOptions, StructuredReport,
    StructuredSurface,
};
use crate::structured_propensity::StructuredPropensity;

/// The largest catalogue `Auto` models menu by menu.
pub const PER_MENU_LIMIT: usize = 20;

/// Nuisance values at a log's contexts: `propensity` has one value per feedback
/// record (the propensity of the selected menu at its context: the only ones Eq. 42
/// divides by), `outcome` the outcome means at every context.
#[derive(Debug, Clone, PartialEq)]
pub struct Nuisances {
    /// `e^m(X_i)` of each record `(i, m)` of `log.feedback`, in its order, raised to
    /// the menu's floor.
    pub propensity: Vec<f64>,
    /// `μ^m_jk(X_i)` for `j < k` (the other orientation is its negative).
    pub outcome: Outcomes,
}

/// The outcome means `μ^m_jk(X_i)` at a log's contexts.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcomes {
    /// `contexts × columns`, one column per (menu, pair) (see
    /// [`crate::pairs::PairHolder::column`]): per-menu and pooled models, and the
    /// simulator's truth.
    Columns(Vec<f64>),
    /// One structured surface row per context ([`HeadTable`]): every menu holding a
    /// pair gets the pair's value, and the table is linear in the agents.
    Heads(HeadTable),
}

impl Outcomes {
    /// `μ` of pair `pair` at context `i` in the menu column `column` holding it.
    pub fn value(&self, pairs: &PairMap, i: usize, pair: usize, column: usize) -> f64 {
        match self {
            Self::Columns(values) => values[i * pairs.columns + column],
            Self::Heads(table) => {
                let (j, k) = pairs.pairs[pair];
                table.pair_value(i, j, k)
            }
        }
    }

    /// Every value as `contexts × columns` (quadratic in the agents for a catalogue
    /// of pairs: for inspection and small catalogues).
    pub fn columns(&self, pairs: &PairMap, contexts: usize) -> Vec<f64> {
        match self {
            Self::Columns(values) => values.clone(),
            Self::Heads(_) => {
                let mut out = vec![0.0; contexts * pairs.columns];
                for (i, row) in out.chunks_mut(pairs.columns.max(1)).enumerate() {
                    for (p, holders) in pairs.holders.iter().enumerate() {
                        for h in holders {
                            row[h.column] = self.value(pairs, i, p, h.column);
                        }
                    }
                }
                out
            }
        }
    }

    /// Numbers held.
    pub fn values_held(&self) -> usize {
        match self {
            Self::Columns(values) => values.len(),
            Self::Heads(table) => table.values_held(),
        }
    }
}

/// Settings of [`cross_fit`].
#[derive(Debug, Clone, PartialEq)]
pub struct CrossFitOptions {
    /// Number of folds `K_CF` (default 5).
    pub folds: usize,
    /// Seed of the fold assignment and of the learners.
    pub seed: u64,
    /// Propensities below the menu's floor are raised to it (the count is reported):
    /// the floor is `min(propensity_floor, propensity_floor_share × r_m)` with `r_m`
    /// the menu's selection rate in the log ([`menu_floors`]).
    pub propensity_floor: f64,
    /// The floor's share of a menu's selection rate (0: the absolute floor alone).
    pub propensity_floor_share: f64,
    /// Backbone of the outcome models.
    pub outcome: Backbone,
    /// Backbone of the propensity models.
    pub propensity: Backbone,
    /// Keep every fold's outcome models (needed to predict the plug-in payoff at new
    /// contexts).
    pub keep_outcome_models: bool,
    /// Per-menu, pooled or structured outcome models.
    pub nuisance_design: NuisanceDesign,
    /// Settings of the structured outcome models (their rank is chosen on the first
    /// fold when not given, and kept for the others).
    pub structured: StructuredOptions,
}

/// What cross-fitting produced.
#[derive(Debug)]
pub struct CrossFit {
    /// Fold of each context.
    pub folds: Vec<usize>,
    /// Contexts per fold.
    pub fold_sizes: Vec<usize>,
    /// Out-of-fold nuisances at every training context.
    pub nuisances: Nuisances,
    /// Out-of-fold propensities of selected menus (one per feedback record) that were
    /// raised to the floor.
    pub clipped: usize,
    /// The selected menus' out-of-fold propensities before the floor, per menu.
    pub histogram: PropensityHistogram,
    /// Out-of-fold mean squared error of the outcome models on observed verdicts.
    pub outcome_loss: f64,
    /// Out-of-fold binary log loss of the propensity models per (context, menu),
    /// estimated from the selected cells and a weighted sample of the others
    /// (exact when `|Q| ≤ SAMPLED_MENUS_PER_CONTEXT`).
    pub propensity_loss: f64,
    /// Whether the propensities are the log's own ([`MenuFeedback::logged_propensity`]
    /// of every record) rather than learned; no propensity model was fitted, nothing
    /// was floored and `propensity_loss` is 0.
    pub logged_propensities: bool,
    /// `[fold][outcome]` outcome models when kept and modelled per menu, else empty.
    pub outcome_models: Vec<Vec<Model>>,
    /// One pooled outcome model per fold when kept and pooled, else empty.
    pub pooled_models: Vec<PooledOutcome>,
    /// One structured outcome model per fold when kept and structured, else empty.
    pub structured_models: Vec<StructuredSurface>,
    /// What each fold's structured outcome model measured (structured design only).
    pub structured_reports: Vec<StructuredReport>,
    /// Fold 0's structured outcome model at every candidate rank, when fold 0 chose
    /// the rank (no rank given): what [`crate::rank_choice`] measures on fold 0's
    /// contexts.
    pub rank_candidates: Vec<StructuredSurface>,
    /// The design used (`PerMenu`, `Pooled` or `Structured`).
    pub nuisance_design: NuisanceDesign,
    /// Menus that some fold's training contexts never selected, with the number of
    /// contexts that did select each (modelled by the pooled design).
    pub sparse_menus: Vec<(usize, usize)>,
    /// Wall-clock seconds the cross-fitting took.
    pub seconds: f64,
}

/// Where each (context, menu) verdict sits in a log: for each context, its
/// records' menus and positions in `log.feedback`, sorted by menu. Sixteen bytes per
/// record, whatever the catalogue (a table over every (context, menu) would grow
/// with the square of the agents on a catalogue of pairs).
#[derive(Debug, Clone)]
pub struct Observed {
    /// Where each context's entries start in `entries` (one more than contexts).
    starts: Vec<usize>,
    /// `(menu, record)` of every record, context by context, sorted by menu.
    entries: Vec<(usize, usize)>,
}

impl Observed {
    /// Indexes `log`.
    pub fn new(log: &ContextualLog) -> Self {
        let mut starts = vec![0usize; log.contexts.len() + 1];
        for feedback in &log.feedback {
            starts[feedback.context + 1] += 1;
        }
        for i in 0..log.contexts.len() {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut entries = vec![(0, 0); log.feedback.len()];
        for (f, feedback) in log.feedback.iter().enumerate() {
            entries[next[feedback.context]] = (feedback.menu, f);
            next[feedback.context] += 1;
        }
        for i in 0..log.contexts.len() {
            entries[starts[i]..starts[i + 1]].sort_unstable();
        }
        Self { starts, entries }
    }

    /// The `(menu, record)` entries of context `context`, sorted by menu.
    pub fn records(&self, context: usize) -> &[(usize, usize)] {
        &self.entries[self.starts[context]..self.starts[context + 1]]
    }

    /// `S^m_i`.
    pub fn selected(&self, context: usize, menu: usize) -> bool {
        self.record(context, menu).is_some()
    }

    /// The position in `log.feedback` of context `context`'s feedback on `menu`, if
    /// observed.
    pub fn record(&self, context: usize, menu: usize) -> Option<usize> {
        let entries = self.records(context);
        entries
            .binary_search_by_key(&menu, |&(m, _)| m)
            .ok()
            .map(|at| entries[at].1)
    }

    /// The mean verdict `Z^m_jk` of context `context` at positions `(first, second)`
    /// of menu `menu`, when observed.
    pub fn verdict(
        &self,
        log: &ContextualLog,
        context: usize,
        menu: usize,
        first: usize,
        second: usize,
    ) -> Option<f64> {
        self.record(context, menu).map(|f| {
            let size = log.menus[menu].len();
            log.feedback[f].verdicts[first * size + second]
        })
    }

    /// Numbers held: two per record and one per context.
    pub fn values_held(&self) -> usize {
        2 * self.entries.len() + self.starts.len()
    }
}

/// The rows of `features` (`columns` wide) listed in `rows`, row-major.
pub(crate) fn gather(features: &[f64], columns: usize, rows: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows.len() * columns);
    for &r in rows {
        out.extend_from_slice(&features[r * columns..(r + 1) * columns]);
    }
    out
}

/// Cross-fits the propensity and outcome models of `log` (Algorithm 1, lines 3–8).
/// `progress(done, total)` is called after each fitted model.
///
/// # Errors
/// [`LearnerError`] for bad folds, a menu that no training fold observes, or a
/// learner failure (naming fold and menu).
pub fn cross_fit(
    log: &ContextualLog,
    pairs: &PairMap,
    options: &CrossFitOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<CrossFit, LearnerError> {
    let started = std::time::Instant::now();
    let n = log.contexts.len();
    let columns = log.feature_names.len();
    let menus = log.menus.len();
    let observed = Observed::new(log);
    let folds = context_folds(n, options.folds, options.seed)?;
    let mut fold_sizes = vec![0; options.folds];
    folds.iter().for_each(|&f| fold_sizes[f] += 1);
    // A log that records each offer's probability (a router's decision log) needs no
    // propensity model: Eq. 42 divides by the logged value, floored at
    // `min(floor, LOGGED_FLOOR_SHARE / menus)` — far below any value a router that
    // explores logs, far above a typo or an underflow (one record at 1e-7 in 10,096
    // made every held-out risk ~1e9 and flipped the surface choice).
    let logged: Option<Vec<f64>> = log.feedback.iter().map(|f| f.logged_propensity).collect();
    let logged_propensities = logged.is_some();
    let mut propensity = logged.unwrap_or_else(|| vec![0.0; log.feedback.len()]);
    let floors = menu_floors(
        log,
        options.propensity_floor,
        options.propensity_floor_share,
    );
    let (mut clipped, mut log_loss) = (0, 0.0);
    let mut histogram = PropensityHistogram::new(menus);
    if logged_propensities {
        let logged_floor = LOGGED_FLOOR_SHARE / menus.max(1) as f64;
        for (record, e) in log.feedback.iter().zip(propensity.iter_mut()) {
            histogram.add(record.menu, *e);
            let floor = floors[record.menu].min(logged_floor);
            clipped += usize::from(*e < floor);
            *e = e.max(floor);
        }
    }
    let mut outcome_models = Vec::new();
    let sparse_menus = sparse_menus(&observed, &folds, options.folds, menus, n);
    let design = match options.nuisance_design {
        NuisanceDesign::Auto if menus <= PER_MENU_LIMIT && sparse_menus.is_empty() => {
            NuisanceDesign::PerMenu
        }
        NuisanceDesign::Auto => NuisanceDesign::Structured,
        NuisanceDesign::PerMenu if !sparse_menus.is_empty() => {
            let (m, count) = sparse_menus[0];
            return Err(LearnerError(format!(
                "menu {} has feedback in {count} contexts and none in some fold's training contexts, so it cannot be modelled on its own; use the pooled outcome design",
                menu_label(log, m)
            )));
        }
        other => other,
    };
    // Structured outcome models fill a head table (made once the first fold has
    // chosen the rank); the others one value per (context, menu, pair).
    let mut heads: Option<HeadTable> = None;
    let mut column_values = match design {
        NuisanceDesign::Structured => Vec::new(),
        _ => vec![0.0; n * pairs.columns],
    };
    let propensity_models = match (logged_propensities, design) {
        (true, _) => 0,
        (false, NuisanceDesign::PerMenu) => menus,
        (false, _) => 1,
    };
    let outcome_models_per_fold = match design {
        NuisanceDesign::PerMenu => pairs.columns,
        _ => 1,
    };
    let total = options.folds * (propensity_models + outcome_models_per_fold);
    let mut done = 0;
    let mut pooled_models = Vec::new();
    let (mut structured_models, mut structured_reports) = (Vec::new(), Vec::new());
    let mut rank_candidates = Vec::new();
    let mut structured = options.structured.clone();
    for fold in 0..options.folds {
        let (held, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| folds[i] == fold);
        let held_x = gather(&log.features, columns, &held);
        let train_x = gather(&log.features, columns, &train);
        let (mut structured_propensity, mut structured_outcome) =
            if design == NuisanceDesign::Structured {
                let (propensity, outcome) = fit_structured_fold(
                    log,
                    &observed,
                    pairs,
                    &train,
                    (!logged_propensities).then(|| {
                        options
                            .structured
                            .seeded(options.structured.seed ^ fold as u64 ^ 0x0E5E_1EC7)
                    }),
                    &structured,
                )
                .map_err(|e| LearnerError(format!("fold {fold}, {e}")))?;
                (propensity, Some(outcome))
            } else {
                (None, None)
            };
        // A fold's propensity model is evaluated at every selected (context, menu),
        // whose propensity weights a correction term of Eq. 42, and at a weighted
        // sample of the others for an unbiased out-of-fold log loss: about
        // `1 + SAMPLED_MENUS_PER_CONTEXT` cells per context instead of `|Q|` (9
        // instead of 120 at K = 16).
        if !logged_propensities {
            let (cells, weights) = sampled_cells(
                held.iter().copied(),
                menus,
                |i, m| observed.selected(i, m),
                SAMPLED_MENUS_PER_CONTEXT,
                options.seed ^ (fold as u64) ^ 0x0E7A_1055,
            );
            let predicted = if let Some(model) = structured_propensity.take() {
                done += 1;
                progress(done, total);
                model.predict_at(&log.features, &cells, &log.menus)
            } else if design != NuisanceDesign::PerMenu {
                let model = PooledPropensity::fit(
                    &log.features,
                    columns,
                    log.agents.len(),
                    &log.menus,
                    &train,
                    &|i, m| observed.selected(i, m),
                    &options.propensity,
                    options.seed ^ fold as u64,
                )
                .map_err(|e| LearnerError(format!("fold {fold}, pooled propensity model: {e}")))?;
                done += 1;
                progress(done, total);
                model.predict_at(&log.features, &cells, &log.menus)
            } else {
                let mut predicted = vec![0.0; cells.len()];
                for m in 0..menus {
                    let at = |e: LearnerError| {
                        LearnerError(format!("fold {fold}, menu {}: {e}", menu_label(log, m)))
                    };
                    let labels: Vec<f64> = train
                        .iter()
                        .map(|&i| f64::from(u8::from(observed.selected(i, m))))
                        .collect();
                    let model = fit_propensity(&options.propensity, &train_x, columns, &labels)
                        .map_err(at)?;
                    let slots: Vec<usize> = (0..cells.len()).filter(|&c| cells[c].1 == m).collect();
                    let contexts: Vec<usize> = slots.iter().map(|&c| cells[c].0).collect();
                    if !contexts.is_empty() {
                        let x = gather(&log.features, columns, &contexts);
                        for (&c, e) in slots.iter().zip(model.predict_at(&x, columns)) {
                            predicted[c] = e;
                        }
                    }
                    done += 1;
                    progress(done, total);
                }
                predicted
            };
            for ((&(context, menu), weight), e) in cells.iter().zip(&weights).zip(predicted) {
                let record = observed.record(context, menu);
                let p = e.clamp(1e-12, 1.0 - 1e-12);
                log_loss -= weight
                    * if record.is_some() {
                        p.ln()
                    } else {
                        (1.0 - p).ln()
                    };
                if let Some(record) = record {
                    let floor = floors[menu];
                    clipped += usize::from(e < floor);
                    histogram.add(menu, e);
                    propensity[record] = e.max(floor);
                }
            }
        }
        if design != NuisanceDesign::PerMenu {
            // One outcome model over every menu: one value per pair, on the held-out
            // contexts.
            if let Some(fitted) = structured_outcome.take() {
                let StructuredCandidates {
                    kept: model,
                    report,
                    candidates,
                } = fitted;
                if structured.rank.is_none() {
                    rank_candidates = candidates;
                }
                // The first fold's choice of rank holds for the others.
                structured.rank = Some(report.rank);
                let table =
                    heads.get_or_insert_with(|| HeadTable::new(n, log.agents.len(), report.rank));
                model.write_heads(&held_x, &held, table);
                structured_reports.push(report);
                if options.keep_outcome_models {
                    structured_models.push(model);
                }
            } else {
                let targets = verdict_targets(log, &observed, pairs, &train);
                let model = fit_pooled(log, &targets, &options.outcome)
                    .map_err(|e| LearnerError(format!("fold {fold}, pooled outcome model: {e}")))?;
                let predicted = model.predict(&held_x, &pairs.pairs);
                fill_outcome_columns(&mut column_values, pairs, &held, &predicted);
                if options.keep_outcome_models {
                    pooled_models.push(model);
                }
            }
            done += 1;
            progress(done, total);
            continue;
        }
        let mut fold_models = Vec::new();
        for (m, menu_pairs) in pairs.menu_pairs.iter().enumerate() {
            let at = |e: LearnerError| {
                LearnerError(format!("fold {fold}, menu {}: {e}", menu_label(log, m)))
            };
            let chosen: Vec<usize> = train
                .iter()
                .copied()
                .filter(|&i| observed.selected(i, m))
                .collect();
            let chosen_x = gather(&log.features, columns, &chosen);
            for &(_, holder) in menu_pairs {
                let targets: Vec<f64> = chosen
                    .iter()
                    .map(|&i| {
                        observed
                            .verdict(log, i, m, holder.first, holder.second)
                            .unwrap_or(0.0)
                    })
                    .collect();
                let model = options
                    .outcome
                    .fit_regressor(&chosen_x, columns, &targets, None)
                    .map_err(at)?;
                for (&i, mu) in held.iter().zip(model.predict(&held_x)) {
                    column_values[i * pairs.columns + holder.column] = mu;
                }
                if options.keep_outcome_models {
                    fold_models.push(model);
                }
                done += 1;
                progress(done, total);
            }
        }
        if options.keep_outcome_models {
            // Models were pushed menu by menu in slot order, which is outcome order.
            outcome_models.push(fold_models);
        }
    }
    let outcome = match heads {
        Some(table) => Outcomes::Heads(table),
        None => Outcomes::Columns(column_values),
    };
    let (mut squared, mut count) = (0.0, 0usize);
    for record in &log.feedback {
        let size = log.menus[record.menu].len();
        for &(p, h) in &pairs.menu_pairs[record.menu] {
            let z = record.verdicts[h.first * size + h.second];
            squared += (z - outcome.value(pairs, record.context, p, h.column)).powi(2);
            count += 1;
        }
    }
    Ok(CrossFit {
        folds,
        fold_sizes,
        nuisances: Nuisances {
            propensity,
            outcome,
        },
        clipped,
        histogram,
        outcome_loss: squared / count.max(1) as f64,
        propensity_loss: log_loss / (n * menus).max(1) as f64,
        logged_propensities,
        outcome_models,
        pooled_models,
        structured_models,
        structured_reports,
        rank_candidates,
        nuisance_design: design,
        sparse_menus,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A logged propensity below this share of a uniform menu's (`1 / menus`) is raised
/// to it, and counted with the floored learned ones: a hundredth keeps every weight
/// below 100 × menus while a router's own small propensities (a sampled duel of a
/// less likely pair) are rarely touched.
pub const LOGGED_FLOOR_SHARE: f64 = 0.01;

/// The propensity floor of each menu: `min(absolute, share × r_m)`, `r_m` the share of
/// contexts that selected menu `m` (a menu never selected keeps `absolute`: no
/// correction term ever divides by its propensity).
///
/// With the true outcome means a floor biases nothing — the correction term
/// `S/e (Z − μ0)` has mean zero whatever weight it gets — and only cuts variance; its
/// bias is the share of the outcome model's error it leaves uncorrected. Measured on
/// the arena world (120 pair menus, true propensities near 1/120: EXPERIMENTS.md), the
/// absolute floor 0.01 raises 80% of them yet gives pseudo-outcomes of a twentieth of
/// the variance of a floor at a tenth of each menu's rate, with no measurable bias; so
/// the default share is 0 and the relative floor an option.
pub fn menu_floors(log: &ContextualLog, absolute: f64, share: f64) -> Vec<f64> {
    let mut selected = vec![0usize; log.menus.len()];
    log.feedback.iter().for_each(|f| selected[f.menu] += 1);
    let n = log.contexts.len().max(1) as f64;
    selected
        .into_iter()
        .map(|count| {
            if count == 0 || share <= 0.0 {
                absolute
            } else {
                absolute.min(share * count as f64 / n)
            }
        })
        .collect()
}

/// Menus that some fold's training contexts never selected, with how many contexts
/// selected each.
fn sparse_menus(
    observed: &Observed,
    folds: &[usize],
    fold_count: usize,
    menus: usize,
    n: usize,
) -> Vec<(usize, usize)> {
    (0..menus)
        .filter_map(|m| {
            let mut per_fold = vec![0usize; fold_count];
            for i in (0..n).filter(|&i| observed.selected(i, m)) {
                per_fold[folds[i]] += 1;
            }
            let total: usize = per_fold.iter().sum();
            // Fold f trains on the others: it lacks data when all selections are in f.
            per_fold
                .iter()
                .any(|&c| total - c == 0)
                .then_some((m, total))
        })
        .collect()
}

/// Every holder column of every pair of the `held` contexts set to the pair's
/// value in `predicted` (`held × pairs`): a model of one mean verdict per pair
/// gives each holding menu that mean.
fn fill_outcome_columns(outcome: &mut [f64], pairs: &PairMap, held: &[usize], predicted: &[f64]) {
    let npairs = pairs.pairs.len();
    for (r, &i) in held.iter().enumerate() {
        for menu_pairs in &pairs.menu_pairs {
            for &(p, holder) in menu_pairs {
                outcome[i * pairs.columns + holder.column] = predicted[r * npairs + p];
            }
        }
    }
}

/// Every observed verdict of the `train` contexts as a pair target, each weighted
/// by the responses its mean averages (the structured model's weight, so a constant
/// context's `r = 0` fit is Bradley–Terry on the battles themselves; the pooled
/// model ignores it).
pub(crate) fn verdict_targets(
    log: &ContextualLog,
    observed: &Observed,
    pairs: &PairMap,
    train: &[usize],
) -> Vec<PairTarget> {
    let mut targets = Vec::new();
    for &i in train {
        for (m, menu_pairs) in pairs.menu_pairs.iter().enumerate() {
            let Some(record) = observed.record(i, m) else {
                continue;
            };
            let weight = log.feedback[record].responses as f64;
            for &(_, h) in menu_pairs {
                if let Some(target) = observed.verdict(log, i, m, h.first, h.second) {
                    targets.push(PairTarget {
                        row: i,
                        first: log.menus[m][h.first],
                        second: log.menus[m][h.second],
                        target,
                        weight,
                    });
                }
            }
        }
    }
    targets
}

/// The structured outcome model on the verdict `targets` ([`verdict_targets`]), with
/// every candidate rank's model when the rank is chosen.
fn fit_structured(
    log: &ContextualLog,
    targets: &[PairTarget],
    options: &StructuredOptions,
) -> Result<StructuredCandidates, LearnerError> {
    StructuredSurface::fit_candidates(
        &log.features,
        log.feature_names.len(),
        log.agents.len(),
        targets,
        Objective::Verdict,
        options,
    )
}

/// A structured fold's propensity model (if any) and outcome model with its report.
type StructuredFold = (Option<StructuredPropensity>, StructuredCandidates);

/// A structured fold's models on the contexts `train`: the structured propensity
/// model (when `propensity` gives its settings; a log with its own propensities needs
/// none) and the structured outcome model, trained at once, as each network trains on
/// one thread. An error names the model.
fn fit_structured_fold(
    log: &ContextualLog,
    observed: &Observed,
    pairs: &PairMap,
    train: &[usize],
    propensity: Option<StructuredOptions>,
    outcome: &StructuredOptions,
) -> Result<StructuredFold, LearnerError> {
    let targets = verdict_targets(log, observed, pairs, train);
    let (propensity, outcome) = rayon::join(
        || {
            propensity.map(|settings| {
                StructuredPropensity::fit(
                    &log.features,
                    log.feature_names.len(),
                    log.agents.len(),
                    &log.menus,
                    train,
                    &|i, m| observed.selected(i, m),
                    &settings,
                )
            })
        },
        || fit_structured(log, &targets, outcome),
    );
    let propensity = propensity
        .transpose()
        .map_err(|e| LearnerError(format!("structured propensity model: {e}")))?;
    let outcome = outcome.map_err(|e| LearnerError(format!("structured outcome model: {e}")))?;
    Ok((propensity, outcome))
}

/// The pooled outcome model on the verdict `targets` ([`verdict_targets`]).
fn fit_pooled(
    log: &ContextualLog,
    targets: &[PairTarget],
    backbone: &Backbone,
) -> Result<PooledOutcome, LearnerError> {
    let verdicts: Vec<PairVerdict> = targets
        .iter()
        .map(|t| PairVerdict {
            row: t.row,
            first: t.first,
            second: t.second,
            verdict: t.target,
        })
        .collect();
    PooledOutcome::fit(
        &log.features,
        log.feature_names.len(),
        log.agents.len(),
        &verdicts,
        backbone,
    )
}

/// A fitted propensity model, or the constant share when a fold's labels are all
/// equal (a menu every context, or no context, selects: nothing to learn).
enum Propensity {
    Model(Model),
    Constant(f64),
}

impl Propensity {
    fn predict_at(&self, features: &[f64], columns: usize) -> Vec<f64> {
        match self {
            Self::Model(m) => m.predict(features),
            Self::Constant(c) => vec![*c; features.len() / columns],
        }
    }
}

fn fit_propensity(
    backbone: &Backbone,
    features: &[f64],
    columns: usize,
    labels: &[f64],
) -> Result<Propensity, LearnerError> {
    let share = labels.iter().sum::<f64>() / labels.len().max(1) as f64;
    if share == 0.0 || share == 1.0 {
        return Ok(Propensity::Constant(share));
    }
    let model = backbone.fit_classifier(features, columns, labels, None)?;
    Ok(Propensity::Model(model))
}

fn menu_label(log: &ContextualLog, menu: usize) -> String {
    let names: Vec<&str> = log.menus[menu]
        .iter()
        .map(|&a| log.agents[a].as_str())
        .collect();
    format!("[{}]", names.join(", "))
}
