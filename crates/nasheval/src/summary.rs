//! What a fit measured along the way ([`FitSummary`]) and its stages ([`Stage`]).

use serde::{Deserialize, Serialize};

use crate::crossfit::NuisanceDesign;
use crate::network::TrainingReport;
use crate::options::Variant;
use crate::payoff::PayoffRegression;
use crate::selection::CandidateRisk;
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
    /// Out-of-fold log loss of the propensity models.
    pub propensity_loss: Option<f64>,
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
}

/// Out-of-fold propensities `ê^m(X_i)` of the menus the contexts selected, counted per
/// menu in bins a quarter of a decade wide from `1e-4` to 1 (the first bin also holds
/// anything smaller). Propensities near zero are the ones that inflate the debiased
/// correction `(Z − μ̂)/ê` (NashEval Eq. 42) and that the floor raises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PropensityHistogram {
    /// Bin edges, ascending: `BINS + 1` values from `1e-4` to 1.
    pub edges: Vec<f64>,
    /// Counts, menus (catalogue order) × bins.
    pub counts: Vec<Vec<u64>>,
}

impl PropensityHistogram {
    /// Bins: four per decade over four decades.
    pub const BINS: usize = 16;

    /// Empty counts for `menus` menus.
    pub fn new(menus: usize) -> Self {
        let edges = (0..=Self::BINS)
            .map(|b| 10f64.powf(-4.0 + b as f64 / 4.0))
            .collect();
        Self {
            edges,
            counts: vec![vec![0; Self::BINS]; menus],
        }
    }

    /// Whether this is a histogram of `menus` menus: `BINS + 1` edges and `BINS`
    /// counts per menu, as [`PropensityHistogram::new`] makes it (what a model file
    /// must hold for its page to draw it).
    ///
    /// # Errors
    /// What does not fit, in words.
    pub fn check(&self, menus: usize) -> Result<(), String> {
        if self.edges.len() != Self::BINS + 1
            || self.counts.len() != menus
            || self.counts.iter().any(|row| row.len() != Self::BINS)
        {
            return Err(format!(
                "the propensity histogram is not {} bins for each of {menus} menus",
                Self::BINS
            ));
        }
        Ok(())
    }

    /// Counts propensity `e` of `menu`.
    pub fn add(&mut self, menu: usize, e: f64) {
        let bin = if e > 0.0 {
            ((e.log10() + 4.0) * 4.0)
                .floor()
                .clamp(0.0, (Self::BINS - 1) as f64) as usize
        } else {
            0
        };
        self.counts[menu][bin] += 1;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_fits_the_menus_it_was_made_for() {
        let h = PropensityHistogram::new(3);
        assert!(h.check(3).is_ok());
        assert!(h.check(2).is_err());
        let mut short = h.clone();
        short.edges.pop();
        assert!(short.check(3).is_err());
        let mut ragged = h;
        ragged.counts[1].push(0);
        assert!(ragged.check(3).is_err());
    }

    #[test]
    fn propensities_fall_in_quarter_decade_bins() {
        let mut h = PropensityHistogram::new(2);
        assert_eq!(h.edges.len(), PropensityHistogram::BINS + 1);
        assert!((h.edges[0] - 1e-4).abs() < 1e-18 && (h.edges[16] - 1.0).abs() < 1e-12);
        h.add(0, 0.01); // log10 = -2: bin (−2 + 4) · 4 = 8, which starts at 1e-2
        h.add(0, 0.0099); // just below: bin 7
        h.add(1, 1e-7); // below the range: the first bin
        h.add(1, 1.0); // the top edge: the last bin
        assert_eq!(h.counts[0][8], 1);
        assert_eq!(h.counts[0][7], 1);
        assert_eq!(h.counts[1][0], 1);
        assert_eq!(h.counts[1][15], 1);
        assert!((h.edges[8] - 0.01).abs() < 1e-15);
    }
}
