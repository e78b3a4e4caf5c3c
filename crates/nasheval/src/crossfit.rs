//! Cross-fitted nuisances of NashEval Algorithm 1 (lines 3–8): contexts are dealt into
//! folds (all records of a context in one fold); for every fold and menu a propensity
//! model `ê^m` is fitted to `S^m` on the other folds' contexts (binary log loss) and an
//! outcome model `μ̂^m_jk` for every pair of the menu on the other folds' contexts
//! with `S^m = 1` (squared error). Predictions on the held-out fold are the
//! out-of-fold nuisances the pseudo-outcomes of Eq. 42 are built from.

use verdict_feedback::ContextualLog;

use crate::backbone::{Backbone, Model};
use crate::learner::{context_folds, LearnerError};
use crate::pairs::PairMap;

/// Nuisance values at a set of contexts: `propensity` is `contexts × menus`,
/// `outcome` is `contexts × outcomes` (one column per (menu, pair), see
/// [`crate::pairs::Holder::outcome`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Nuisances {
    /// `e^m(X_i)`, clipped to the floor.
    pub propensity: Vec<f64>,
    /// `μ^m_jk(X_i)` for `j < k` (the other orientation is its negative).
    pub outcome: Vec<f64>,
}

/// Settings of [`cross_fit`].
#[derive(Debug, Clone, PartialEq)]
pub struct CrossFitOptions {
    /// Number of folds `K_CF` (default 5).
    pub folds: usize,
    /// Seed of the fold assignment and of the learners.
    pub seed: u64,
    /// Propensities below this are raised to it (default 0.01); the count is
    /// reported.
    pub propensity_floor: f64,
    /// Backbone of the outcome models.
    pub outcome: Backbone,
    /// Backbone of the propensity models.
    pub propensity: Backbone,
    /// Keep every fold's outcome models (needed to predict the plug-in payoff at new
    /// contexts).
    pub keep_outcome_models: bool,
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
    /// Out-of-fold propensities that were raised to the floor.
    pub clipped: usize,
    /// Out-of-fold mean squared error of the outcome models on observed verdicts.
    pub outcome_loss: f64,
    /// Out-of-fold binary log loss of the propensity models.
    pub propensity_loss: f64,
    /// `[fold][outcome]` outcome models when kept, else empty.
    pub outcome_models: Vec<Vec<Model>>,
}

/// Where each (context, menu) verdict sits in a log: `index[i * menus + m]` is the
/// position in `log.feedback`, if observed.
#[derive(Debug, Clone)]
pub struct Observed {
    menus: usize,
    index: Vec<Option<usize>>,
}

impl Observed {
    /// Indexes `log`.
    pub fn new(log: &ContextualLog) -> Self {
        let menus = log.menus.len();
        let mut index = vec![None; log.contexts.len() * menus];
        for (f, feedback) in log.feedback.iter().enumerate() {
            index[feedback.context * menus + feedback.menu] = Some(f);
        }
        Self { menus, index }
    }

    /// `S^m_i`.
    pub fn selected(&self, context: usize, menu: usize) -> bool {
        self.index[context * self.menus + menu].is_some()
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
        self.index[context * self.menus + menu].map(|f| {
            let size = log.menus[menu].len();
            log.feedback[f].verdicts[first * size + second]
        })
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
    let n = log.contexts.len();
    let columns = log.feature_names.len();
    let menus = log.menus.len();
    let observed = Observed::new(log);
    let folds = context_folds(n, options.folds, options.seed)?;
    let mut fold_sizes = vec![0; options.folds];
    folds.iter().for_each(|&f| fold_sizes[f] += 1);
    let mut propensity = vec![0.0; n * menus];
    let mut outcome = vec![0.0; n * pairs.outcomes];
    let mut outcome_models = Vec::new();
    let total = options.folds * (menus + pairs.outcomes);
    let mut done = 0;
    for fold in 0..options.folds {
        let (held, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| folds[i] == fold);
        let held_x = gather(&log.features, columns, &held);
        let train_x = gather(&log.features, columns, &train);
        let mut fold_models = Vec::new();
        for (m, menu_outcomes) in pairs.menu_outcomes.iter().enumerate() {
            let at = |e: LearnerError| {
                LearnerError(format!("fold {fold}, menu {}: {e}", menu_label(log, m)))
            };
            let labels: Vec<f64> = train
                .iter()
                .map(|&i| f64::from(u8::from(observed.selected(i, m))))
                .collect();
            let predicted = fit_propensity(&options.propensity, &train_x, columns, &labels)
                .map_err(at)?
                .predict_at(&held_x, columns);
            for (&i, e) in held.iter().zip(predicted) {
                propensity[i * menus + m] = e;
            }
            done += 1;
            progress(done, total);
            let chosen: Vec<usize> = train
                .iter()
                .copied()
                .filter(|&i| observed.selected(i, m))
                .collect();
            if chosen.is_empty() {
                return Err(at(LearnerError(
                    "no training context outside this fold has feedback on the menu; \
                     use fewer folds or drop the menu"
                        .into(),
                )));
            }
            let chosen_x = gather(&log.features, columns, &chosen);
            for &(_, holder) in menu_outcomes {
                let targets: Vec<f64> = chosen
                    .iter()
                    .map(|&i| {
                        observed
                            .verdict(log, i, m, holder.first, holder.second)
                            .unwrap_or(0.0)
                    })
                    .collect();
                let mut model = options.outcome.regressor();
                model.fit(&chosen_x, columns, &targets).map_err(at)?;
                for (&i, mu) in held.iter().zip(model.predict(&held_x)) {
                    outcome[i * pairs.outcomes + holder.outcome] = mu;
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
    let floor = options.propensity_floor;
    let mut clipped = 0;
    let mut log_loss = 0.0;
    for (c, e) in propensity.iter_mut().enumerate() {
        let s = observed.selected(c / menus, c % menus);
        let p = e.clamp(1e-12, 1.0 - 1e-12);
        log_loss -= if s { p.ln() } else { (1.0 - p).ln() };
        if *e < floor {
            *e = floor;
            clipped += 1;
        }
    }
    let (mut squared, mut count) = (0.0, 0usize);
    for i in 0..n {
        for menu_outcomes in &pairs.menu_outcomes {
            for &(_, h) in menu_outcomes {
                if let Some(z) = observed.verdict(log, i, h.menu, h.first, h.second) {
                    squared += (z - outcome[i * pairs.outcomes + h.outcome]).powi(2);
                    count += 1;
                }
            }
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
        outcome_loss: squared / count.max(1) as f64,
        propensity_loss: log_loss / (n * menus).max(1) as f64,
        outcome_models,
    })
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
    let mut model = backbone.classifier();
    model.fit(features, columns, labels)?;
    Ok(Propensity::Model(model))
}

fn menu_label(log: &ContextualLog, menu: usize) -> String {
    let names: Vec<&str> = log.menus[menu]
        .iter()
        .map(|&a| log.agents[a].as_str())
        .collect();
    format!("[{}]", names.join(", "))
}
