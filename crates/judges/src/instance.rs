//! A problem instance `(s, sigma, c)` (Section 2) and the synthetic instances of the
//! experiments (Appendix H.1 and H.3).

use rand::Rng;

use crate::JudgeError;

/// K items, J judges: true scores, per-pair variances, per-judge costs, score range.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    items: usize,
    judges: usize,
    scores: Vec<f64>,
    variances: Vec<f64>,
    costs: Vec<f64>,
    range: f64,
}

impl Instance {
    /// Checks and stores an instance; `variances` is row-major K×J.
    ///
    /// # Errors
    /// [`JudgeError::Instance`] for mismatched sizes, no items or judges, a range that
    /// is not positive, scores outside `[0, R]`, variances that are not positive or
    /// exceed the largest a distribution on `[0, R]` with that mean can have
    /// (`s (R - s)`, Bhatia–Davis), or costs that are not positive and finite.
    pub fn new(
        scores: Vec<f64>,
        variances: Vec<f64>,
        costs: Vec<f64>,
        range: f64,
    ) -> Result<Self, JudgeError> {
        let (items, judges) = (scores.len(), costs.len());
        let bad = |message: String| Err(JudgeError::Instance(message));
        if items == 0 || judges == 0 {
            return bad(format!(
                "{items} items and {judges} judges; need at least one of each"
            ));
        }
        if variances.len() != items * judges {
            return bad(format!(
                "{} variances for {items} items × {judges} judges",
                variances.len()
            ));
        }
        if !(range.is_finite() && range > 0.0) {
            return bad(format!("score range R = {range} must be positive"));
        }
        check_costs(&costs)?;
        for (k, &s) in scores.iter().enumerate() {
            if !(0.0..=range).contains(&s) {
                return bad(format!("item {k} has score {s} outside [0, {range}]"));
            }
            for j in 0..judges {
                let v = variances[k * judges + j];
                if !(v > 0.0 && v <= s * (range - s)) {
                    return bad(format!(
                        "variance {v} of item {k}, judge {j} must be in (0, {}] (score {s})",
                        s * (range - s)
                    ));
                }
            }
        }
        Ok(Self {
            items,
            judges,
            scores,
            variances,
            costs,
            range,
        })
    }

    /// Number of items K.
    pub fn items(&self) -> usize {
        self.items
    }

    /// Number of judges J.
    pub fn judges(&self) -> usize {
        self.judges
    }

    /// True scores `s`.
    pub fn scores(&self) -> &[f64] {
        &self.scores
    }

    /// Row-major K×J variances `sigma^2`.
    pub fn variances(&self) -> &[f64] {
        &self.variances
    }

    /// Costs `c`.
    pub fn costs(&self) -> &[f64] {
        &self.costs
    }

    /// Score range R.
    pub fn range(&self) -> f64 {
        self.range
    }
}

/// How judge costs relate to judge quality in the sensitivity study (Appendix H.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CostStructure {
    /// `c_j ∝ sum_k sigma^2_kj`: noisy judges cost more.
    BadIsExpensive,
    /// `c_j ∝ sum_k sigma^-2_kj`: noisy judges are cheap.
    BadIsCheap,
    /// Equal costs.
    Uniform,
}

/// Which synthetic instance to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// Appendix H.1: `s_k ~ U[0.1, 0.9]`, `sigma^2_kj ~ U[1e-4, 0.9 s_k (1 - s_k)]`,
    /// `c_j ~ U[0.5, 1.5]`, R = 1.
    Random,
    /// Appendix H.3: `sigma^2_kj ~ U[j, J + j - 1] · s_k (1 - s_k) / (2J)` (j from 1),
    /// costs by the structure, normalised to mean 0.1.
    CostQuality(CostStructure),
}

impl Scenario {
    /// Draws an instance with K items and J judges.
    pub fn draw(self, items: usize, judges: usize, rng: &mut impl Rng) -> Instance {
        let scores: Vec<f64> = (0..items).map(|_| rng.random_range(0.1..0.9)).collect();
        let mut variances = Vec::with_capacity(items * judges);
        for &s in &scores {
            let spread = s * (1.0 - s);
            for j in 1..=judges {
                variances.push(match self {
                    Self::Random => rng.random_range(1e-4..0.9 * spread),
                    Self::CostQuality(_) => {
                        let (low, high) = (j as f64, (judges + j - 1) as f64);
                        let factor = if high > low {
                            rng.random_range(low..high)
                        } else {
                            low
                        };
                        factor * spread / (2.0 * judges as f64)
                    }
                });
            }
        }
        let column = |j: usize, f: &dyn Fn(f64) -> f64| -> f64 {
            (0..items).map(|k| f(variances[k * judges + j])).sum()
        };
        let raw: Vec<f64> = match self {
            Self::Random => (0..judges).map(|_| rng.random_range(0.5..1.5)).collect(),
            Self::CostQuality(CostStructure::BadIsExpensive) => {
                (0..judges).map(|j| column(j, &|v| v)).collect()
            }
            Self::CostQuality(CostStructure::BadIsCheap) => {
                (0..judges).map(|j| column(j, &|v| 1.0 / v)).collect()
            }
            Self::CostQuality(CostStructure::Uniform) => vec![1.0; judges],
        };
        let costs = match self {
            Self::Random => raw,
            Self::CostQuality(_) => {
                let mean = raw.iter().sum::<f64>() / judges as f64;
                raw.iter().map(|c| 0.1 * c / mean).collect()
            }
        };
        Instance::new(scores, variances, costs, 1.0).expect("synthetic instances are valid")
    }
}

/// Every judge's cost is positive and finite.
///
/// # Errors
/// [`JudgeError::Instance`] naming the first judge whose cost is not.
pub(crate) fn check_costs(costs: &[f64]) -> Result<(), JudgeError> {
    match costs
        .iter()
        .enumerate()
        .find(|(_, c)| !(c.is_finite() && **c > 0.0))
    {
        Some((j, c)) => Err(JudgeError::Instance(format!(
            "judge {j} costs {c}; costs must be positive and finite"
        ))),
        None => Ok(()),
    }
}
