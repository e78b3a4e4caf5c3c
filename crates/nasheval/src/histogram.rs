//! The out-of-fold propensities of a fit, counted per menu ([`PropensityHistogram`]):
//! made by the cross-fit, kept in the summary and drawn on the fit's page.

use serde::{Deserialize, Serialize};

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
