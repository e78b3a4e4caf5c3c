//! Spending a budget on judges that share their mistakes (module `shared_errors`):
//! a second call of a judge averages its call noise down but never its bias at the
//! item, so past some point a first call of another judge — of another family, best —
//! is worth more.
//!
//! **Objective.** With `n_kj` calls of judge j on item k, the GLS score's variance is
//! `Var_k(n) = 1 / 1' (Sigma[O, O] + diag(sigma^2_kj / n_kj))^-1 1` over the judges `O`
//! with calls; the allocation minimises `sum_k Var_k^(p/2)` (the `l_p` error's
//! `A_p`, as in module `allocation`; `p = inf` is approximated by `p = 64`) subject to
//! `sum_kj c_j n_kj <= B`. Without bias it is the budget paper's objective, whose
//! optimum puts each item on one judge; with bias the information an item can get from
//! judge j is capped at about `1 / tau^2_j`, and the optimum spreads.
//!
//! **Method** (written here: no crate solves integer allocations of this form): greedy
//! marginal allocation — start from given counts, repeatedly buy the move with the
//! largest decrease of the objective per unit cost, a move being `d` more calls of one
//! (item, judge) pair with `d` one call while a pair has few and a quarter of its calls
//! after (so that large budgets take few steps). For a separable concave gain (one
//! judge per family, independent biases) and equal prices the greedy rule with single
//! calls is optimal (Fox 1966, "Discrete optimization via marginal analysis"); with
//! unequal prices it is a knapsack, and small panels (up to 64 pairs) are polished by
//! trading calls of one pair for a call of another. With correlated families and the larger steps it
//! is a heuristic, checked against a brute force on small instances in the tests.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use nalgebra::{DMatrix, DVector};

use crate::{Allocation, JudgeError, Norm};

/// The exponent standing in for `p = inf` (the objective is then dominated by the
/// worst items, as the maximum is).
const INFINITY_STANDIN: f64 = 64.0;

/// Largest step, as a share of a pair's calls so far.
const STEP_SHARE: f64 = 0.25;

/// What the allocation knows of the judges: each pair's variance per call (row-major
/// K×J), the bias covariance (row-major J×J) and the prices.
#[derive(Debug, Clone, Copy)]
pub struct SharedErrorPanel<'a> {
    /// `sigma^2_kj`, row-major K×J.
    pub call_variances: &'a [f64],
    /// `Sigma`, row-major J×J.
    pub bias_covariance: &'a [f64],
    /// `c_j`.
    pub costs: &'a [f64],
}

impl SharedErrorPanel<'_> {
    fn judges(&self) -> usize {
        self.costs.len()
    }

    /// `Var_k(n)` for item `k` with calls `counts` (its row); infinite without calls.
    pub fn item_variance(&self, k: usize, counts: &[u64]) -> f64 {
        let judges = self.judges();
        let seen: Vec<usize> = (0..judges).filter(|&j| counts[j] > 0).collect();
        if seen.is_empty() {
            return f64::INFINITY;
        }
        let v = DMatrix::from_fn(seen.len(), seen.len(), |a, b| {
            let (i, j) = (seen[a], seen[b]);
            let call = if a == b {
                self.call_variances[k * judges + j] / counts[j] as f64
            } else {
                0.0
            };
            self.bias_covariance[i * judges + j] + call
        });
        match v.cholesky() {
            Some(c) => 1.0 / c.solve(&DVector::from_element(seen.len(), 1.0)).sum(),
            None => f64::INFINITY,
        }
    }
}

/// A candidate move: `calls` more of (item, judge), lowering the objective by `gain`.
#[derive(Debug, Clone, Copy)]
struct Move {
    per_cost: f64,
    item: usize,
    judge: usize,
    calls: u64,
    cost: f64,
}

impl PartialEq for Move {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Move {}
impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Move {
    fn cmp(&self, other: &Self) -> Ordering {
        // Larger gain per cost first; ties to the lower (item, judge).
        self.per_cost
            .total_cmp(&other.per_cost)
            .then_with(|| (other.item, other.judge).cmp(&(self.item, self.judge)))
    }
}

/// The `l_p` error `(sum_k Var_k^(p/2))^(1/p)` (the largest `Var_k^(1/2)` at
/// `p = inf`) of `counts` (row-major K×J) on `panel`.
pub fn shared_error(panel: &SharedErrorPanel<'_>, counts: &[u64], p: Norm) -> f64 {
    let judges = panel.judges();
    let errors: Vec<f64> = counts
        .chunks(judges)
        .enumerate()
        .map(|(k, row)| panel.item_variance(k, row).sqrt())
        .collect();
    p.length(&errors)
}

/// The error no budget goes below: every judge called on every item without end,
/// leaving only the biases, `Var_k = 1 / 1' Sigma^-1 1` (0 when a judge has none).
pub fn error_floor(panel: &SharedErrorPanel<'_>, items: usize, p: Norm) -> f64 {
    // 10^12 calls of every pair: the call noise is gone to twelve digits.
    let endless = vec![1_000_000_000_000u64; items * panel.judges()];
    shared_error(panel, &endless, p)
}

/// The least budget, beyond `start`'s calls, whose allocation
/// ([`shared_error_counts`]) reaches `target` in the `l_p` error; `None` when the
/// target is at or below [`error_floor`]. Found by doubling, then bisection to a
/// thousandth.
pub fn shared_budget(
    panel: &SharedErrorPanel<'_>,
    start: &Allocation,
    target: f64,
    p: Norm,
) -> Option<f64> {
    let items = start.counts.len() / panel.judges().max(1);
    if error_floor(panel, items, p) >= target {
        return None;
    }
    let reaches = |budget: f64| {
        shared_error_counts(panel, start, budget, p)
            .map(|a| shared_error(panel, &a.counts, p) <= target)
            .unwrap_or(false)
    };
    let cheapest = panel.costs.iter().copied().fold(f64::INFINITY, f64::min);
    if reaches(0.0) {
        return Some(0.0);
    }
    let mut high = cheapest.max(1e-300);
    while !reaches(high) {
        high *= 2.0;
        if !high.is_finite() {
            return None;
        }
    }
    let mut low = high / 2.0;
    while high - low > 1e-3 * high {
        let middle = 0.5 * (low + high);
        if reaches(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    Some(high)
}

/// Counts that spend at most `budget` beyond `start` (calls already made, counted in
/// the variances) on the judges of `panel`, by greedy marginal allocation (module
/// docs).
///
/// # Errors
/// [`JudgeError::InfeasibleBudget`] when `start` leaves an item without calls and the
/// budget cannot buy each such item one call of its cheapest judge.
pub fn shared_error_counts(
    panel: &SharedErrorPanel<'_>,
    start: &Allocation,
    budget: f64,
    p: Norm,
) -> Result<Allocation, JudgeError> {
    let judges = panel.judges();
    let items = start.counts.len() / judges.max(1);
    let exponent = match p {
        Norm::P(p) => p / 2.0,
        Norm::Infinity => INFINITY_STANDIN / 2.0,
    };
    let mut counts = start.counts.clone();
    let mut left = budget;
    // Items without a call get one of the judge with the least `c_j (tau^2_j +
    // sigma^2_kj)` first: without it their variance is infinite.
    let mut needed = 0.0;
    for k in 0..items {
        if counts[k * judges..(k + 1) * judges].iter().all(|&n| n == 0) {
            let cheapest = (0..judges)
                .min_by(|&a, &b| {
                    let price = |j: usize| {
                        panel.costs[j]
                            * (panel.bias_covariance[j * judges + j]
                                + panel.call_variances[k * judges + j])
                    };
                    price(a).total_cmp(&price(b))
                })
                .expect("judges exist");
            counts[k * judges + cheapest] = 1;
            needed += panel.costs[cheapest];
        }
    }
    if needed > left {
        return Err(JudgeError::InfeasibleBudget {
            budget,
            needed,
            purpose: "score every item once".into(),
        });
    }
    left -= needed;
    let term = |k: usize, row: &[u64]| panel.item_variance(k, row).powf(exponent);
    let best_move = |k: usize, row: &[u64], left: f64| -> Option<Move> {
        let now = term(k, row);
        let mut trial = row.to_vec();
        (0..judges)
            .filter_map(|j| {
                let step = ((row[j] as f64 * STEP_SHARE).floor() as u64).max(1);
                let affordable = (left / panel.costs[j]).floor() as u64;
                let calls = step.min(affordable);
                if calls == 0 {
                    return None;
                }
                trial[j] += calls;
                let gain = now - term(k, &trial);
                trial[j] -= calls;
                let cost = calls as f64 * panel.costs[j];
                (gain > 0.0).then_some(Move {
                    per_cost: gain / cost,
                    item: k,
                    judge: j,
                    calls,
                    cost,
                })
            })
            .max()
    };
    let fill = |counts: &mut Vec<u64>, mut left: f64| {
        let mut heap: BinaryHeap<Move> = (0..items)
            .filter_map(|k| best_move(k, &counts[k * judges..(k + 1) * judges], left))
            .collect();
        while let Some(chosen) = heap.pop() {
            let k = chosen.item;
            if chosen.cost <= left {
                counts[k * judges + chosen.judge] += chosen.calls;
                left -= chosen.cost;
            }
            // The item's next move (or a smaller one that what is left affords).
            if let Some(next) = best_move(k, &counts[k * judges..(k + 1) * judges], left) {
                heap.push(next);
            }
        }
        left
    };
    left = fill(&mut counts, left);
    if counts.len() <= SWAP_SEARCH_PAIRS {
        // Small panels, where one call matters: give up the fewest calls of one pair
        // that buy a call of another, refill what is left, keep what lowers the
        // objective (the greedy rule alone is not optimal for unequal prices: a
        // knapsack).
        let total = |counts: &[u64]| -> f64 {
            (0..items)
                .map(|k| term(k, &counts[k * judges..(k + 1) * judges]))
                .sum()
        };
        let mut best = total(&counts);
        let mut improved = true;
        while improved {
            improved = false;
            for from in 0..counts.len() {
                for to in (0..counts.len()).filter(|&i| i != from) {
                    if counts[from] <= start.counts[from] {
                        break;
                    }
                    // Give up as few calls of `from` as buy one of `to`.
                    let (price_from, price_to) =
                        (panel.costs[from % judges], panel.costs[to % judges]);
                    let given = ((price_to - left) / price_from).ceil().max(1.0) as u64;
                    if given > counts[from] - start.counts[from] {
                        continue;
                    }
                    let freed = left + given as f64 * price_from - price_to;
                    let mut trial = counts.clone();
                    trial[from] -= given;
                    trial[to] += 1;
                    let rest = fill(&mut trial, freed);
                    let value = total(&trial);
                    if value < best * (1.0 - 1e-12) {
                        (counts, left, best, improved) = (trial, rest, value, true);
                    }
                }
            }
        }
    }
    Ok(Allocation { judges, counts })
}

/// Up to this many (item, judge) pairs the greedy counts are polished by moving single
/// calls; beyond it one call is far below the estimator's noise.
const SWAP_SEARCH_PAIRS: usize = 64;
