//! Synthetic judges that share their mistakes: item biases with a family structure,
//! for the experiments of `verdict bench judges` (module `shared_errors` for the model).

use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::JudgeError;

/// Item biases `b_kj = B (sqrt(R) z_kf + sqrt(1 - R) z_kj)`, `z` standard normal,
/// judge j in family `f = j mod F`: standard deviation `B` per judge, correlation `R`
/// between judges of one family, independent between families and items.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BiasWorld {
    /// `B`, the item-bias standard deviation, in score units.
    pub bias_sd: f64,
    /// `F`, the number of families (judges dealt round-robin).
    pub families: usize,
    /// `R`, the correlation of item biases within a family.
    pub family_correlation: f64,
}

impl BiasWorld {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] naming the setting and its range.
    pub fn check(&self, judges: usize) -> Result<(), JudgeError> {
        let bad = |message: String| Err(JudgeError::Setting(message));
        if !(self.bias_sd.is_finite() && (0.0..=0.5).contains(&self.bias_sd)) {
            return bad(format!(
                "--bias-sd {:?}: the item-bias standard deviation is in score units, from 0 to half the range (0.5)",
                self.bias_sd
            ));
        }
        if self.families == 0 || self.families > judges {
            return bad(format!(
                "--families {}: from 1 to the number of judges ({judges})",
                self.families
            ));
        }
        if !(0.0..=1.0).contains(&self.family_correlation) {
            return bad(format!(
                "--family-correlation {:?}: a correlation from 0 to 1",
                self.family_correlation
            ));
        }
        Ok(())
    }

    /// Each judge's family: `j mod F`.
    pub fn families_of(&self, judges: usize) -> Vec<usize> {
        (0..judges).map(|j| j % self.families).collect()
    }

    /// One draw of every item's biases, row-major K×J.
    pub fn draw(&self, items: usize, judges: usize, rng: &mut impl Rng) -> Vec<f64> {
        let shared = self.family_correlation.sqrt();
        let own = (1.0 - self.family_correlation).sqrt();
        let families = self.families_of(judges);
        let mut biases = Vec::with_capacity(items * judges);
        for _ in 0..items {
            let family: Vec<f64> = (0..self.families)
                .map(|_| StandardNormal.sample(rng))
                .collect();
            for &f in &families {
                let z: f64 = StandardNormal.sample(rng);
                biases.push(self.bias_sd * (shared * family[f] + own * z));
            }
        }
        biases
    }

    /// The biases' covariance between judges, row-major J×J: `B^2` on the diagonal,
    /// `R B^2` within a family, 0 between families.
    pub fn covariance(&self, judges: usize) -> Vec<f64> {
        let families = self.families_of(judges);
        let variance = self.bias_sd * self.bias_sd;
        (0..judges * judges)
            .map(|i| {
                let (a, b) = (i / judges, i % judges);
                match (a == b, families[a] == families[b]) {
                    (true, _) => variance,
                    (false, true) => self.family_correlation * variance,
                    (false, false) => 0.0,
                }
            })
            .collect()
    }
}
