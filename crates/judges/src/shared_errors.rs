//! Judges that share their mistakes: a bias per (judge, item) beside the call noise,
//! correlated between judges of one family, estimated from the calls, and the
//! generalised-least-squares score that accounts for it.
//!
//! **Model.** Call c of judge j on item k scores
//!
//! ```text
//! y_kjc = s_k + b_kj + e_kjc,   Var(e_kjc) = sigma^2_j,   Cov(b_kj, b_kj') = Sigma_jj',
//! ```
//!
//! the call noise `e` independent of everything, the item biases `b_k·` independent
//! between items with covariance `Sigma` between judges: `Sigma_jj = tau^2_j`, and
//! `Sigma_jj' = 0` for judges of different families. Repeating a judge averages `e`
//! away, never `b`: the mean `m_kj` of `n_kj` calls has `Var(m_kj - s_k) = tau^2_j +
//! sigma^2_j / n_kj`. This is generalizability theory's item × rater design with
//! replications — the interaction `b` and the within-cell error `e` are separated by
//! the repeated calls (Brennan 2001, *Generalizability Theory*, ch. 3; the variance
//! components of Shrout & Fleiss 1979's intraclass correlations) — with raters grouped
//! in families whose interactions correlate (a one-factor model per family).
//!
//! **Estimation** (method of moments, [`SharedErrors::estimate`]), over the items
//! each two judges both scored (at least [`MIN_SHARED_ITEMS`]):
//! - `sigma^2_j`: the pooled within-pair variance of judge j's calls (the within-cell
//!   mean square, `sum_k (n_kj - 1) s^2_kj / sum_k (n_kj - 1)`);
//! - differences, which do not involve the true scores (they cancel item by item):
//!   `Var(m_i - m_j) - mean_k (sigma^2_i / n_ki + sigma^2_j / n_kj)` equals
//!   `tau^2_i + tau^2_j - 2 Sigma_ij`, solved by least squares for the unknown entries
//!   of `Sigma` ([`BiasStructure`]: one `tau^2` and one within-family covariance, or
//!   one per judge and pair);
//! - levels, only for the directions the differences leave open (two families: which
//!   one's bias is larger) and for `Var(s)`, the true scores' spread: the covariance of
//!   two judges' means `S_ij = Var(s) + Sigma_ij` and each judge's variance of means
//!   less its noise, `S_jj - mean_k sigma^2_j / n_kj = Var(s) + tau^2_j`;
//! - `Sigma` projected on the positive semidefinite matrices (negative eigenvalues set
//!   to 0, Higham 1988).
//!
//! Without two families that share items, `Var(s)` — and so the bias — cannot be
//! told from the judges' agreement: every judge could share one bias. The estimate
//! then says so ([`SharedErrors::identified`]) and takes the bias as 0 (the consensus).
//! A bias every judge shares (all families alike) is never visible in the judges'
//! calls; only gold labels measure it (module `gold`): PPI's correction of the panel's
//! mean removes it on average, and the bias-aware interval of each item is then about
//! the judges' part of the error.
//!
//! **Combination** ([`gls_scores`]): item k's judges with calls, `O`, give
//! `V_k = Sigma[O, O] + diag(sigma^2_j / n_kj)`; the best linear unbiased score is
//! `s_hat_k = a' m`, `a = V^-1 1 / 1' V^-1 1` (Aitken's generalised least squares),
//! with `Var(s_hat_k - s_k) = 1 / 1' V^-1 1` when `V` is right. The interval uses the
//! sandwich `a' (Sigma + diag(sigma_hat^2_kj / n_kj)) a` instead, each pair's own
//! sample variance in place of its judge's pooled one, with Welch–Satterthwaite
//! degrees of freedom (module `uncertainty`). With `Sigma = 0` it is IVWE and today's
//! interval — the consensus interval, which covers what the judges would say on
//! average; the bias-aware one covers the true score.
//!
//! **Effective judges**: `n_eff = m · 1' V^-1 1 / 1' D^-1 1`, `D = diag(V)`: the m
//! judges' information over what they would give with independent errors, times m —
//! for `m` equally noisy judges at correlation `r`, Kish's design effect
//! `m / (1 + (m - 1) r)` (Kish 1965, *Survey Sampling*, §8.2).

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use crate::uncertainty::{calls_agree, CallVariance, Combination};
use crate::{JudgeError, PairStats, ScoreUncertainty};

/// Fewest items two judges must share for their moments to count: below this a
/// variance of a few differences says little, and a bias reported as 0 from three
/// items would be taken at its word.
pub const MIN_SHARED_ITEMS: usize = 10;

/// One item's score from every judge's calls, bias-aware.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GlsScore {
    /// `s_hat_k = a' m`, `a = V^-1 1 / 1' V^-1 1` (NaN without calls).
    pub score: f64,
    /// The sandwich variance of `s_hat_k - s_k` and its degrees of freedom (infinite
    /// without calls).
    pub uncertainty: ScoreUncertainty,
    /// `m · 1' V^-1 1 / 1' D^-1 1`: independent judges worth as much (0 without calls).
    pub effective_judges: f64,
}

/// The generalised-least-squares score of every item (module docs) from its calls
/// (`pooled`, row-major K×J), with `V` built from `weight_variances` (row-major K×J,
/// one call's variance per pair as the weights assume it) and the judges' bias
/// covariance (`bias_covariance`, row-major J×J). The variance is the sandwich
/// `a' (Sigma + diag(v_kj / n_kj)) a` with each pair's variance per call from
/// `call_variances` (row-major K×J, known) — with `Sigma = 0` and the same variances
/// for both, IVWE and its variance.
///
/// # Errors
/// [`JudgeError::Instance`] when the sizes disagree, a variance is negative or not
/// finite, or an item's `V` is not positive definite (a judge with neither call noise
/// nor bias, say).
pub fn gls_scores(
    pooled: &[PairStats],
    weight_variances: &[f64],
    call_variances: &[f64],
    bias_covariance: &[f64],
    judges: usize,
) -> Result<Vec<GlsScore>, JudgeError> {
    if call_variances.len() != pooled.len() {
        return Err(JudgeError::Instance(format!(
            "{} call variances for {} pairs",
            call_variances.len(),
            pooled.len()
        )));
    }
    check_variances(call_variances)?;
    gls_with(pooled, weight_variances, bias_covariance, judges, |i| {
        CallVariance::known(call_variances[i])
    })
}

/// Every variance is finite and at least 0.
fn check_variances(variances: &[f64]) -> Result<(), JudgeError> {
    match variances.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        Some(v) => Err(JudgeError::Instance(format!(
            "variance {v}: call variances and bias variances must be finite and at least 0"
        ))),
        None => Ok(()),
    }
}

/// [`gls_scores`] with each pair's variance per call (and the degrees of freedom it is
/// known on) from `per_call`.
fn gls_with(
    pooled: &[PairStats],
    weight_variances: &[f64],
    bias_covariance: &[f64],
    judges: usize,
    per_call: impl Fn(usize) -> CallVariance,
) -> Result<Vec<GlsScore>, JudgeError> {
    let bad = |message: String| Err(JudgeError::Instance(message));
    if judges == 0 || !pooled.len().is_multiple_of(judges) || weight_variances.len() != pooled.len()
    {
        return bad(format!(
            "{} pairs and {} variances for {judges} judges",
            pooled.len(),
            weight_variances.len()
        ));
    }
    if bias_covariance.len() != judges * judges {
        return bad(format!(
            "a bias covariance of {} entries for {judges} judges (J × J = {})",
            bias_covariance.len(),
            judges * judges
        ));
    }
    check_variances(weight_variances)?;
    let diagonal: Vec<f64> = bias_covariance
        .iter()
        .step_by(judges + 1)
        .copied()
        .collect();
    check_variances(&diagonal)?;
    pooled
        .chunks(judges)
        .enumerate()
        .map(|(k, pairs)| {
            let seen: Vec<usize> = (0..judges).filter(|&j| pairs[j].count > 0).collect();
            if seen.is_empty() {
                return Ok(GlsScore {
                    score: f64::NAN,
                    uncertainty: ScoreUncertainty {
                        variance: f64::INFINITY,
                        degrees_of_freedom: f64::INFINITY,
                    },
                    effective_judges: 0.0,
                });
            }
            let bias = DMatrix::from_fn(seen.len(), seen.len(), |a, b| {
                bias_covariance[seen[a] * judges + seen[b]]
            });
            let calls: Vec<f64> = seen.iter().map(|&j| pairs[j].count as f64).collect();
            let mut v = bias.clone();
            for (a, &j) in seen.iter().enumerate() {
                v[(a, a)] += weight_variances[k * judges + j] / calls[a];
            }
            let weights = gls_weights(&v).ok_or_else(|| {
                JudgeError::Instance(format!(
                    "item {k}: the covariance of its judges' means is not positive definite (a judge with neither call noise nor item bias?)"
                ))
            })?;
            let mut combination = Combination::default();
            for (a, &j) in seen.iter().enumerate() {
                combination.add(weights.weights[a], calls[a], per_call(k * judges + j));
            }
            let shared = weights.weights.dot(&(&bias * &weights.weights));
            combination.add(1.0, 1.0, CallVariance::known(shared.max(0.0)));
            Ok(GlsScore {
                score: seen
                    .iter()
                    .zip(weights.weights.iter())
                    .map(|(&j, a)| a * pairs[j].mean())
                    .sum(),
                uncertainty: combination.finish(),
                effective_judges: weights.effective_judges,
            })
        })
        .collect()
}

/// The GLS weights `a = V^-1 1 / 1' V^-1 1` of means with covariance `V`, and the
/// effective number of judges.
struct GlsWeights {
    weights: DVector<f64>,
    effective_judges: f64,
}

/// [`GlsWeights`] of `v`; `None` when it is not positive definite.
fn gls_weights(v: &DMatrix<f64>) -> Option<GlsWeights> {
    let ones = DVector::from_element(v.nrows(), 1.0);
    let solved = v.clone().cholesky()?.solve(&ones);
    let information = solved.sum();
    let independent: f64 = v.diagonal().iter().map(|d| 1.0 / d).sum();
    (information.is_finite() && information > 0.0).then(|| GlsWeights {
        weights: solved / information,
        effective_judges: v.nrows() as f64 * information / independent,
    })
}

/// The effective number of independent judges behind `covariance` (row-major m×m, the
/// covariance of m judges' errors on one item): `m · 1' V^-1 1 / 1' D^-1 1`, `D` its
/// diagonal — m times the information the judges give over what they would give
/// were their errors independent; `None` when it is not positive definite.
pub fn effective_judges(covariance: &[f64], judges: usize) -> Option<f64> {
    let v = DMatrix::from_row_slice(judges, judges, covariance);
    gls_weights(&v).map(|g| g.effective_judges)
}

/// The estimated variance components of a panel's errors (module docs).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SharedErrors {
    /// Number of judges J.
    pub judges: usize,
    /// Each judge's family (judges of one family may share item biases).
    pub families: Vec<usize>,
    /// `sigma^2_j`: the variance of one call around the judge's own view of the item
    /// (0 for a judge never called twice on an item, whose noise is then counted in
    /// its bias).
    pub call_variance: Vec<f64>,
    /// Whether each judge's call variance came from repeated calls.
    pub call_variance_measured: Vec<bool>,
    /// `Sigma`, row-major J×J: the covariance of the judges' item biases.
    pub bias_covariance: Vec<f64>,
    /// `Var(s)`: the spread of the true scores over the items, from judges of
    /// different families (`None` when no two families share items).
    pub score_variance: Option<f64>,
    /// The effective number of independent judges of one call of every judge.
    pub panel_effective_judges: Option<f64>,
}

impl SharedErrors {
    /// Estimates the components from every call (`pooled`, row-major K×J) with the
    /// judges' `families` (one index per judge; each judge its own family when every
    /// index differs) and `structure` — the method of moments in the module docs.
    ///
    /// # Errors
    /// [`JudgeError::Instance`] when the sizes disagree.
    pub fn estimate(
        pooled: &[PairStats],
        families: &[usize],
        structure: BiasStructure,
    ) -> Result<Self, JudgeError> {
        let judges = families.len();
        if judges == 0 || !pooled.len().is_multiple_of(judges) {
            return Err(JudgeError::Instance(format!(
                "{} pairs for {judges} judges",
                pooled.len()
            )));
        }
        let rows: Vec<&[PairStats]> = pooled.chunks(judges).collect();
        let (call_variance, call_variance_measured): (Vec<f64>, Vec<bool>) = (0..judges)
            .map(|j| within_pair_variance(rows.iter().map(|r| &r[j])))
            .unzip();
        // The noise part of judge j's variance of means over the items `shared`.
        let noise = |j: usize, shared: &[usize]| {
            shared
                .iter()
                .map(|&k| call_variance[j] / rows[k][j].count as f64)
                .sum::<f64>()
                / shared.len() as f64
        };
        let unknowns = BiasUnknowns::new(families, structure);
        let mut differences = Moments::default();
        let mut levels = Moments::default();
        for i in 0..judges {
            for j in i..judges {
                let shared: Vec<usize> = (0..rows.len())
                    .filter(|&k| rows[k][i].count > 0 && rows[k][j].count > 0)
                    .collect();
                if shared.len() < MIN_SHARED_ITEMS {
                    continue;
                }
                let x: Vec<f64> = shared.iter().map(|&k| rows[k][i].mean()).collect();
                let y: Vec<f64> = shared.iter().map(|&k| rows[k][j].mean()).collect();
                if i == j {
                    // S_jj - noise = Var(s) + tau^2_j.
                    let level = covariance(&x, &x) - noise(i, &shared);
                    levels.push(unknowns.row(&[(i, i, 1.0)]), level);
                    continue;
                }
                // S_ij = Var(s) + Sigma_ij.
                levels.push(unknowns.row(&[(i, j, 1.0)]), covariance(&x, &y));
                // Var(m_i - m_j) - noise = tau^2_i + tau^2_j - 2 Sigma_ij: the true
                // scores cancel item by item.
                let gap: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
                let spread = covariance(&gap, &gap) - noise(i, &shared) - noise(j, &shared);
                differences.push(
                    unknowns.row(&[(i, i, 1.0), (j, j, 1.0), (i, j, -2.0)]),
                    spread,
                );
            }
        }
        let solved = unknowns.solve(&differences, &levels);
        let (bias, score_variance) = match solved {
            Some((x, var_s)) => (
                nearest_positive_semidefinite(&unknowns.covariance(&x), judges),
                Some(var_s),
            ),
            None => (vec![0.0; judges * judges], None),
        };
        let mut model = Self {
            judges,
            families: families.to_vec(),
            call_variance,
            call_variance_measured,
            bias_covariance: bias,
            score_variance,
            panel_effective_judges: None,
        };
        model.panel_effective_judges = model.panel();
        Ok(model)
    }

    /// Whether the bias could be estimated: two families that share items.
    pub fn identified(&self) -> bool {
        self.score_variance.is_some()
    }

    /// `tau^2_j`, each judge's item-bias variance.
    pub fn bias_variance(&self) -> Vec<f64> {
        (0..self.judges)
            .map(|j| self.bias_covariance[j * self.judges + j])
            .collect()
    }

    /// The correlation of two judges' item biases (NaN when either has none).
    pub fn bias_correlation(&self, i: usize, j: usize) -> f64 {
        let c = &self.bias_covariance;
        let n = self.judges;
        c[i * n + j] / (c[i * n + i] * c[j * n + j]).sqrt()
    }

    /// Every item's bias-aware score from its calls (`pooled`, row-major K×J): GLS
    /// weights from each judge's pooled call variance (a pair's own few calls would
    /// make erratic weights) and the sandwich variance with each pair's own sample
    /// variance (module `uncertainty`: a judge's noise differs from item to item).
    /// A pair called once, or whose few calls happen to agree, takes its judge's
    /// pooled variance when the judge was called twice on some item (its other items
    /// say how much it varies; the module `uncertainty`'s bounds, `R^2 / 4` and the
    /// rule of three, are for a judge nothing else is known of).
    ///
    /// # Errors
    /// As [`gls_scores`].
    pub fn scores(&self, pooled: &[PairStats], range: f64) -> Result<Vec<GlsScore>, JudgeError> {
        let floor = range * range * 1e-12;
        let judge = |i: usize| i % self.judges;
        let weight_variances: Vec<f64> = (0..pooled.len())
            .map(|i| self.call_variance[judge(i)].max(floor))
            .collect();
        gls_with(
            pooled,
            &weight_variances,
            &self.bias_covariance,
            self.judges,
            |i| {
                let pair = &pooled[i];
                let single_or_agreeing = pair.count == 1 || calls_agree(pair, range);
                if self.call_variance_measured[judge(i)] && single_or_agreeing {
                    CallVariance::known(self.call_variance[judge(i)])
                } else {
                    CallVariance::estimated(pair, range)
                }
            },
        )
    }

    /// The effective judges of one call of every judge.
    fn panel(&self) -> Option<f64> {
        let n = self.judges;
        let mut v = self.bias_covariance.clone();
        for j in 0..n {
            v[j * n + j] += self.call_variance[j];
        }
        effective_judges(&v, n)
    }
}

/// How freely the bias covariance is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BiasStructure {
    /// One bias variance `tau^2` for every judge and one covariance within a family:
    /// two numbers, stable on a few dozen items.
    #[default]
    Pooled,
    /// A bias variance per judge and a covariance per pair of judges of one family:
    /// for panels with hundreds of shared items (on fewer, its noise makes intervals
    /// too narrow).
    PerJudge,
}

/// The unknown entries of the bias covariance: `Sigma_ij` for judges `i <= j` of one
/// family (between families it is 0), one unknown each or, pooled, two in all.
struct BiasUnknowns {
    judges: usize,
    /// The unknown's index of each (i, j), row-major J×J, or None (different families).
    index: Vec<Option<usize>>,
    count: usize,
}

impl BiasUnknowns {
    fn new(families: &[usize], structure: BiasStructure) -> Self {
        let judges = families.len();
        let mut index = vec![None; judges * judges];
        let mut count = 0;
        for i in 0..judges {
            for j in i..judges {
                if families[i] == families[j] {
                    let unknown = match structure {
                        BiasStructure::PerJudge => {
                            count += 1;
                            count - 1
                        }
                        BiasStructure::Pooled => {
                            count = 2;
                            usize::from(i != j)
                        }
                    };
                    index[i * judges + j] = Some(unknown);
                    index[j * judges + i] = Some(unknown);
                }
            }
        }
        if structure == BiasStructure::Pooled
            && families
                .iter()
                .all(|&f| families.iter().filter(|&&g| g == f).count() == 1)
        {
            // No two judges of one family: the within-family covariance is not a
            // parameter.
            count = 1;
        }
        Self {
            judges,
            index,
            count,
        }
    }

    /// The coefficients of `sum c Sigma_ij` over the unknowns (entries between
    /// families drop out).
    fn row(&self, terms: &[(usize, usize, f64)]) -> Vec<f64> {
        let mut row = vec![0.0; self.count];
        for &(i, j, c) in terms {
            if let Some(u) = self.index[i * self.judges + j] {
                row[u] += c;
            }
        }
        row
    }

    /// `Sigma` from the unknowns' values, row-major J×J.
    fn covariance(&self, x: &DVector<f64>) -> Vec<f64> {
        self.index.iter().map(|u| u.map_or(0.0, |u| x[u])).collect()
    }

    /// The unknowns and `Var(s)`: least squares on the differences' moments, which do
    /// not involve the true scores; the directions they leave open (two families:
    /// which family's bias is larger) and `Var(s)` from the levels' moments. `None`
    /// when the levels cannot tell them apart either (one family: a bias all judges
    /// share looks like the true scores' spread).
    fn solve(&self, differences: &Moments, levels: &Moments) -> Option<(DVector<f64>, f64)> {
        let n = self.count;
        let (x0, null) = if differences.values.is_empty() || n == 0 {
            (DVector::zeros(n), DMatrix::identity(n, n))
        } else {
            let a = differences.matrix(n);
            let svd = a.clone().svd(true, true);
            let largest = svd.singular_values.max();
            let tolerance = largest * 1e-9 * n.max(a.nrows()) as f64;
            let x0 = svd.solve(&differences.vector(), tolerance).ok()?;
            let v_t = svd.v_t?;
            // Right singular vectors with (numerically) zero singular values, and
            // those beyond the rank when there are fewer equations than unknowns.
            let kept: Vec<usize> = (0..v_t.nrows())
                .filter(|&r| svd.singular_values[r] <= tolerance)
                .collect();
            let rank = v_t.nrows() - kept.len();
            let full = if rank < n {
                // Complete the null space: vectors orthogonal to the row space.
                let live: Vec<usize> = (0..v_t.nrows()).filter(|r| !kept.contains(r)).collect();
                let rows = DMatrix::from_fn(rank, n, |r, c| v_t[(live[r], c)]);
                orthogonal_complement(&rows, n)
            } else {
                DMatrix::zeros(n, 0)
            };
            (x0, full)
        };
        if levels.values.is_empty() {
            return None;
        }
        // Levels: L (x0 + N c) + Var(s) = l, unknowns (c, Var(s)).
        let l = levels.matrix(n);
        let free = null.ncols();
        let design = DMatrix::from_fn(l.nrows(), free + 1, |r, c| {
            if c < free {
                (l.row(r) * null.column(c))[(0, 0)]
            } else {
                1.0
            }
        });
        let target = levels.vector() - &l * &x0;
        let svd = design.clone().svd(true, true);
        let smallest = svd.singular_values.min();
        let largest = svd.singular_values.max();
        if design.nrows() < design.ncols() || smallest <= largest * 1e-9 {
            return None;
        }
        let solution = svd.solve(&target, largest * 1e-12).ok()?;
        let c = solution.rows(0, free).into_owned();
        Some((x0 + null * c, solution[free]))
    }
}

/// An orthonormal basis (as columns) of the vectors orthogonal to the rows of `rows`
/// (orthonormal rows, `r × n`).
fn orthogonal_complement(rows: &DMatrix<f64>, n: usize) -> DMatrix<f64> {
    // I - R'R projects on the complement; its eigenvectors of eigenvalue 1 span it.
    let projector = DMatrix::identity(n, n) - rows.transpose() * rows;
    let eigen = SymmetricEigen::new(projector);
    let columns: Vec<DVector<f64>> = (0..n)
        .filter(|&i| eigen.eigenvalues[i] > 0.5)
        .map(|i| eigen.eigenvectors.column(i).into_owned())
        .collect();
    if columns.is_empty() {
        DMatrix::zeros(n, 0)
    } else {
        DMatrix::from_columns(&columns)
    }
}

/// Moment equations `row · x = value`.
#[derive(Default)]
struct Moments {
    rows: Vec<Vec<f64>>,
    values: Vec<f64>,
}

impl Moments {
    fn push(&mut self, row: Vec<f64>, value: f64) {
        self.rows.push(row);
        self.values.push(value);
    }

    fn matrix(&self, unknowns: usize) -> DMatrix<f64> {
        DMatrix::from_fn(self.rows.len(), unknowns, |r, c| self.rows[r][c])
    }

    fn vector(&self) -> DVector<f64> {
        DVector::from_column_slice(&self.values)
    }
}

/// The pooled within-pair variance of one judge's calls over the items, and whether
/// any item had two calls (else 0).
fn within_pair_variance<'a>(pairs: impl Iterator<Item = &'a PairStats>) -> (f64, bool) {
    let (squares, freedom) = pairs
        .filter(|s| s.count >= 2)
        .fold((0.0, 0.0), |(ss, df), s| {
            let n = s.count as f64;
            (ss + s.sample_variance() * (n - 1.0), df + n - 1.0)
        });
    if freedom > 0.0 {
        (squares / freedom, true)
    } else {
        (0.0, false)
    }
}

/// The unbiased sample covariance of two equally long series.
fn covariance(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / (n - 1.0)
}

/// The positive semidefinite matrix nearest a symmetric one in the Frobenius norm:
/// its eigenvalues below 0 set to 0 (Higham 1988).
fn nearest_positive_semidefinite(matrix: &[f64], n: usize) -> Vec<f64> {
    let m = DMatrix::from_row_slice(n, n, matrix);
    let eigen = SymmetricEigen::new(m);
    let clipped = eigen.eigenvalues.map(|l| l.max(0.0));
    let projected =
        &eigen.eigenvectors * DMatrix::from_diagonal(&clipped) * eigen.eigenvectors.transpose();
    (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| 0.5 * (projected[(i, j)] + projected[(j, i)]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ivwe::ivwe;
    use crate::uncertainty::ivwe_uncertainty;

    /// With no bias the GLS score is today's IVWE and its sandwich variance today's,
    /// with the same Welch–Satterthwaite degrees of freedom.
    #[test]
    fn without_bias_the_score_and_its_interval_are_todays() {
        let (items, judges) = (7, 3);
        let mut pooled = vec![PairStats::default(); items * judges];
        for (i, stats) in pooled.iter_mut().enumerate() {
            // Pair i: (i mod 4) calls (none for some), spread scores.
            for c in 0..(i % 4) {
                stats.push(((i * 37 + c * 11) % 97) as f64 / 97.0);
            }
        }
        let weights: Vec<f64> = (0..items * judges)
            .map(|i| 0.01 + (i % 5) as f64 * 0.02)
            .collect();
        let zero = vec![0.0; judges * judges];
        let per_call = |i: usize| CallVariance::estimated(&pooled[i], 1.0);
        let found = gls_with(&pooled, &weights, &zero, judges, per_call).unwrap();
        let scores = ivwe(&pooled, &weights, judges);
        let today = ivwe_uncertainty(&pooled, &weights, judges, per_call);
        for k in 0..items {
            let (new, old) = (found[k].uncertainty, today[k]);
            if scores[k].is_nan() {
                assert!(found[k].score.is_nan() && new.variance.is_infinite());
                continue;
            }
            assert!((found[k].score - scores[k]).abs() < 1e-12, "item {k}");
            assert!(
                (new.variance - old.variance).abs() < 1e-12 * old.variance,
                "item {k}"
            );
            let df = (new.degrees_of_freedom, old.degrees_of_freedom);
            assert!(
                df.0 == df.1 || (df.0 - df.1).abs() < 1e-9 * df.1,
                "item {k}: {df:?}"
            );
        }
    }
}
