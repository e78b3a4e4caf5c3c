//! The allocation objective and the oracle allocation (Section 3, Theorem 3.2), and
//! their integer query counts.
//!
//! An allocation spends the fraction `omega_kj` of the budget B on item k with judge j,
//! i.e. `N_kj = omega_kj B / c_j` calls. IVWE's variance for item k is then
//! `(sum_j N_kj / sigma^2_kj)^-1`, which gives the allocation objective
//!
//! ```text
//! A_p(omega; sigma, c) = ( sum_k ( sum_j omega_kj / (c_j sigma^2_kj) )^(-p/2) )^(2/p)
//! ```
//!
//! (`max_k` of the inner term at `p = inf`). Its minimiser is sparse: item k goes to
//! `j*(k) = argmin_j c_j sigma^2_kj` with weight `∝ (c_j* sigma^2_kj*)^(p/(p+2))`.

use crate::{JudgeError, Norm};

/// Integer query counts `N_kj`, row-major K×J.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// Number of judges J (row length).
    pub judges: usize,
    /// Calls per (item, judge).
    pub counts: Vec<u64>,
}

impl Allocation {
    /// Total cost `sum_kj c_j N_kj`.
    pub fn cost(&self, costs: &[f64]) -> f64 {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &n)| n as f64 * costs[i % self.judges])
            .sum()
    }

    /// Calls for item k and judge j.
    pub fn get(&self, item: usize, judge: usize) -> u64 {
        self.counts[item * self.judges + judge]
    }
}

/// `A_p(omega; sigma, c)` for budget fractions `omega` (row-major K×J); infinite when
/// an item gets nothing.
pub fn allocation_objective(omega: &[f64], variances: &[f64], costs: &[f64], p: Norm) -> f64 {
    let judges = costs.len();
    let inverse_variances = omega
        .chunks(judges)
        .zip(variances.chunks(judges))
        .map(|(w, v)| {
            let information: f64 = (0..judges).map(|j| w[j] / (costs[j] * v[j])).sum();
            1.0 / information
        });
    aggregate(inverse_variances, p)
}

/// `(sum_k x_k^(p/2))^(2/p)`, or `max_k x_k` at `p = inf`.
fn aggregate(terms: impl Iterator<Item = f64>, p: Norm) -> f64 {
    match p {
        Norm::P(p) => terms.map(|x| x.powf(p / 2.0)).sum::<f64>().powf(2.0 / p),
        Norm::Infinity => terms.fold(0.0, f64::max),
    }
}

/// The oracle allocation of Theorem 3.2: one judge per item and its budget share.
#[derive(Debug, Clone, PartialEq)]
pub struct OracleWeights {
    /// `j*(k) = argmin_j c_j sigma^2_kj` (lowest index on ties).
    pub judge: Vec<usize>,
    /// `omega*_k ∝ (c_j* sigma^2_kj*)^(p/(p+2))`, summing to 1.
    pub weight: Vec<f64>,
}

impl OracleWeights {
    /// The budget fractions as a full K×J matrix.
    pub fn omega(&self, judges: usize) -> Vec<f64> {
        let mut omega = vec![0.0; self.judge.len() * judges];
        for (k, (&j, &w)) in self.judge.iter().zip(&self.weight).enumerate() {
            omega[k * judges + j] = w;
        }
        omega
    }
}

/// The oracle allocation for `variances` (row-major K×J) and `costs` (Theorem 3.2).
pub fn oracle_weights(variances: &[f64], costs: &[f64], p: Norm) -> OracleWeights {
    let judges = costs.len();
    let exponent = p.weight_exponent();
    let (judge, effort): (Vec<usize>, Vec<f64>) =
        variances
            .chunks(judges)
            .map(|row| {
                (0..judges).map(|j| (j, costs[j] * row[j])).fold(
                    (0, f64::INFINITY),
                    |best, (j, x)| if x < best.1 { (j, x) } else { best },
                )
            })
            .map(|(j, x)| (j, x.powf(exponent)))
            .unzip();
    let total: f64 = effort.iter().sum();
    OracleWeights {
        judge,
        weight: effort.iter().map(|x| x / total).collect(),
    }
}

/// The oracle allocation of Theorem 3.2 for known variances (row-major K×J),
/// `costs` and `budget`: [`oracle_weights`] then [`integer_counts`], after checking
/// the input.
///
/// # Errors
/// [`JudgeError::Instance`] for no items or judges, mismatched sizes, variances or
/// costs that are not positive and finite, or a budget that is not; and
/// [`JudgeError::InfeasibleBudget`] from [`integer_counts`].
pub fn oracle_allocation(
    variances: &[f64],
    costs: &[f64],
    budget: f64,
    p: Norm,
) -> Result<(OracleWeights, Allocation), JudgeError> {
    let judges = costs.len();
    let bad = |message: String| Err(JudgeError::Instance(message));
    if judges == 0 || variances.is_empty() || !variances.len().is_multiple_of(judges) {
        return bad(format!(
            "{} variances for {judges} judges: give K rows of one variance per judge (K >= 1)",
            variances.len()
        ));
    }
    crate::instance::check_costs(costs)?;
    crate::ivwe::check_variances(variances, judges)?;
    if !(budget.is_finite() && budget > 0.0) {
        return bad(format!("budget {budget} must be positive and finite"));
    }
    let weights = oracle_weights(variances, costs, p);
    let allocation = integer_counts(&weights, variances, costs, budget, p)?;
    Ok((weights, allocation))
}

/// Integer calls that follow `weights` and never cost more than `budget`: each item's
/// chosen judge gets `floor(omega_k B / c_j*)` calls (at least one), then the budget
/// left over buys, one call at a time, the (item, judge) pair — any judge — that
/// lowers the objective most per unit cost among those still affordable.
///
/// # Errors
/// [`JudgeError::InfeasibleBudget`] when the budget cannot buy one call of each
/// item's chosen judge.
pub fn integer_counts(
    weights: &OracleWeights,
    variances: &[f64],
    costs: &[f64],
    budget: f64,
    p: Norm,
) -> Result<Allocation, JudgeError> {
    let judges = costs.len();
    let items = weights.judge.len();
    let minimum: f64 = weights.judge.iter().map(|&j| costs[j]).sum();
    if minimum > budget {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed: minimum,
            purpose: "score every item once with its chosen judge".into(),
        });
    }
    let mut counts = vec![0u64; items * judges];
    for (k, (&j, &w)) in weights.judge.iter().zip(&weights.weight).enumerate() {
        counts[k * judges + j] = ((w * budget / costs[j]).floor() as u64).max(1);
    }
    let mut allocation = Allocation { judges, counts };
    // Rounding up to one call can overshoot; take calls back from the items with the
    // most calls of their judge until the budget holds.
    let mut cost = allocation.cost(costs);
    while cost > budget {
        let k = (0..items)
            .max_by_key(|&k| allocation.counts[k * judges + weights.judge[k]])
            .expect("items exist");
        allocation.counts[k * judges + weights.judge[k]] -= 1;
        cost -= costs[weights.judge[k]];
    }
    fill_leftover(&mut allocation, variances, costs, budget, p);
    if allocation.counts.len() <= SWAP_SEARCH_PAIRS {
        improve_by_swaps(&mut allocation, variances, costs, budget, p);
    }
    Ok(allocation)
}

/// Up to this many (item, judge) pairs the counts are polished by [`improve_by_swaps`];
/// beyond it one call more or less per item is far below the estimator's noise.
const SWAP_SEARCH_PAIRS: usize = 64;

/// Local search on small instances, where a single call matters: move one call from
/// some pair to another, refill the budget greedily, keep the result if the objective
/// drops; repeat until no such move helps. (The greedy fill alone is not optimal for
/// a knapsack with unequal prices; with this search the counts match a brute force
/// over all integer allocations in the tests.)
fn improve_by_swaps(
    allocation: &mut Allocation,
    variances: &[f64],
    costs: &[f64],
    budget: f64,
    p: Norm,
) {
    let judges = costs.len();
    let pairs = allocation.counts.len();
    let mut current = integer_objective(allocation, variances, p);
    let mut improved = true;
    while improved {
        improved = false;
        let spent = allocation.cost(costs);
        'search: for from in 0..pairs {
            let item = from / judges;
            let item_calls: u64 = allocation.counts[item * judges..(item + 1) * judges]
                .iter()
                .sum();
            if allocation.counts[from] == 0 {
                continue;
            }
            for to in (0..pairs).filter(|&to| to != from) {
                let leaves_item_empty = item_calls == 1 && to / judges != item;
                if leaves_item_empty || spent - costs[from % judges] + costs[to % judges] > budget {
                    continue;
                }
                let mut candidate = allocation.clone();
                candidate.counts[from] -= 1;
                candidate.counts[to] += 1;
                fill_leftover(&mut candidate, variances, costs, budget, p);
                let value = integer_objective(&candidate, variances, p);
                if value < current * (1.0 - 1e-12) {
                    *allocation = candidate;
                    current = value;
                    improved = true;
                    break 'search;
                }
            }
        }
    }
}

/// `sum_k V_k^(p/2)` (or `max_k V_k`) with `V_k = (sum_j N_kj / sigma^2_kj)^-1`: the
/// objective of integer counts, a monotone transform of `A_p`.
fn integer_objective(allocation: &Allocation, variances: &[f64], p: Norm) -> f64 {
    let terms = information(allocation, variances)
        .into_iter()
        .map(|info| item_term(info, p));
    match p {
        Norm::P(_) => terms.sum(),
        Norm::Infinity => terms.fold(0.0, f64::max),
    }
}

/// Each item's information `sum_j N_kj / sigma^2_kj`, the inverse of its IVWE
/// variance `V_k`.
fn information(allocation: &Allocation, variances: &[f64]) -> Vec<f64> {
    allocation
        .counts
        .chunks(allocation.judges)
        .zip(variances.chunks(allocation.judges))
        .map(|(n, v)| n.iter().zip(v).map(|(&n, v)| n as f64 / v).sum())
        .collect()
}

/// One item's term of the objective from its information: `V^(p/2)`, or `V` at
/// `p = inf`.
fn item_term(information: f64, p: Norm) -> f64 {
    let variance = 1.0 / information;
    match p {
        Norm::P(p) => variance.powf(p / 2.0),
        Norm::Infinity => variance,
    }
}

/// Spends what is left of `budget` call by call on the pair with the largest drop of
/// `sum_k V_k^(p/2)` (or of the largest `V_k` at `p = inf`) per unit cost, where
/// `V_k = (sum_j N_kj / sigma^2_kj)^-1`.
fn fill_leftover(
    allocation: &mut Allocation,
    variances: &[f64],
    costs: &[f64],
    budget: f64,
    p: Norm,
) {
    let judges = costs.len();
    let items = allocation.counts.len() / judges;
    let cheapest = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let mut left = budget - allocation.cost(costs);
    let mut information = information(allocation, variances);
    let term = |info: f64| item_term(info, p);
    // Each item's best affordable call, refreshed when the item changes or its judge
    // stops being affordable; one scan over items per call.
    let best_call = |k: usize, info: f64, left: f64| -> Option<(f64, usize)> {
        let now = term(info);
        (0..judges)
            .filter(|&j| costs[j] <= left)
            .map(|j| {
                (
                    (now - term(info + 1.0 / variances[k * judges + j])) / costs[j],
                    j,
                )
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
    };
    let mut best: Vec<Option<(f64, usize)>> = (0..items)
        .map(|k| best_call(k, information[k], left))
        .collect();
    while left >= cheapest {
        for k in 0..items {
            if best[k].is_some_and(|(_, j)| costs[j] > left) {
                best[k] = best_call(k, information[k], left);
            }
        }
        let candidates = (0..items).filter(|&k| best[k].is_some());
        let chosen = match p {
            // At p = inf only the least informed item matters.
            Norm::Infinity => (0..items).min_by(|&a, &b| information[a].total_cmp(&information[b])),
            Norm::P(_) => candidates.max_by(|&a, &b| {
                let gain = |k: usize| best[k].map_or(f64::NEG_INFINITY, |b| b.0);
                gain(a).total_cmp(&gain(b))
            }),
        };
        let Some(k) = chosen else { break };
        let Some((_, j)) = best[k] else { break };
        allocation.counts[k * judges + j] += 1;
        information[k] += 1.0 / variances[k * judges + j];
        left -= costs[j];
        best[k] = best_call(k, information[k], left);
    }
}

/// The uniform baseline: the same number of calls for every (item, judge) pair, as
/// many as the budget pays for.
///
/// # Errors
/// [`JudgeError::InfeasibleBudget`] when one round of every pair costs more than B.
pub fn uniform_counts(items: usize, costs: &[f64], budget: f64) -> Result<Allocation, JudgeError> {
    let round = items as f64 * costs.iter().sum::<f64>();
    let per_pair = (budget / round).floor() as u64;
    if per_pair == 0 {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed: round,
            purpose: "ask every judge about every item once (uniform allocation)".into(),
        });
    }
    Ok(Allocation {
        judges: costs.len(),
        counts: vec![per_pair; items * costs.len()],
    })
}
