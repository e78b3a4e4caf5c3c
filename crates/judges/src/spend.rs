//! Calls to a [`JudgePool`] counted against the budget.

use crate::ledger_file::BILLED_PREFIX;
use crate::{Allocation, JudgeError, JudgePool, PairStats};

/// Rounds of attempts for the scores of one request before a failing judge stops the
/// run: the calls that failed are asked again, up to this many times in all (failed
/// attempts are not charged; with a ledger they are recorded, and a restart resumes
/// from them).
pub const ATTEMPTS: usize = 3;

/// Charges every successful call to the budget and refuses calls it cannot pay for,
/// so a strategy can never spend more than B.
pub struct Spender<'a> {
    pool: &'a mut dyn JudgePool,
    budget: f64,
    spent: f64,
    calls: u64,
    /// Every score so far by (item, judge), row-major K×J: what the variance
    /// estimates behind the intervals pool.
    pooled: Vec<PairStats>,
}

impl<'a> Spender<'a> {
    /// A spender of `budget` on `pool`.
    pub fn new(pool: &'a mut dyn JudgePool, budget: f64) -> Self {
        let pairs = pool.items() * pool.costs().len();
        Self {
            pool,
            budget,
            spent: 0.0,
            calls: 0,
            pooled: vec![PairStats::default(); pairs],
        }
    }

    /// Every score so far by (item, judge), row-major K×J.
    pub fn pooled(&self) -> &[PairStats] {
        &self.pooled
    }

    /// The score range `R`.
    pub fn range(&self) -> f64 {
        self.pool.range()
    }

    /// Budget not yet spent.
    pub fn left(&self) -> f64 {
        self.budget - self.spent
    }

    /// Amount spent.
    pub fn spent(&self) -> f64 {
        self.spent
    }

    /// Successful calls.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The pool's costs.
    pub fn costs(&self) -> &[f64] {
        self.pool.costs()
    }

    /// `count` scores of `item` by `judge`, added to `stats`.
    ///
    /// # Errors
    /// [`JudgeError::InfeasibleBudget`] if the calls would exceed the budget (nothing is
    /// called); [`JudgeError::Call`] for a failed call or a score outside `[0, R]`.
    pub fn sample(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        stats: &mut PairStats,
    ) -> Result<(), JudgeError> {
        let cost = self.pool.costs()[judge];
        // A relative slack absorbs rounding in sums of many costs.
        let slack = 1e-9 * self.budget.abs().max(1.0);
        if self.spent + cost * count as f64 > self.budget + slack {
            return Err(JudgeError::InfeasibleBudget {
                budget: self.budget,
                needed: self.spent + cost * count as f64,
                purpose: format!("{count} more calls of judge {judge}"),
            });
        }
        let range = self.pool.range();
        let judges = self.pool.costs().len();
        let Self {
            pool,
            spent,
            calls,
            pooled,
            ..
        } = self;
        let pooled = &mut pooled[item * judges + judge];
        // Every failed call is asked again, up to ATTEMPTS rounds of the missing ones. A
        // call lost in flight by an earlier run was charged there: it is paid for, and
        // asked again only while the budget still covers it.
        let budget = self.budget;
        let mut missing = count;
        let mut last_failure = None;
        for _ in 0..ATTEMPTS {
            let affordable = ((budget + slack - *spent) / cost).floor().max(0.0) as u64;
            let asked = missing.min(affordable);
            if asked == 0 {
                break;
            }
            let mut failures = 0;
            pool.score_pair(item, judge, asked, &mut |result| {
                match result.and_then(|score| in_range(item, judge, score, range)) {
                    Ok(score) => {
                        *spent += cost;
                        *calls += 1;
                        stats.push(score);
                        pooled.push(score);
                    }
                    Err(JudgeError::Lost {
                        item,
                        judge,
                        cost,
                        message,
                    }) => {
                        *spent += cost;
                        failures += 1;
                        // A judge that keeps answering without a score stops the run
                        // like one that fails; a call lost in flight does not.
                        if message.starts_with(BILLED_PREFIX) {
                            last_failure = Some(JudgeError::Lost {
                                item,
                                judge,
                                cost,
                                message,
                            });
                        }
                    }
                    Err(failure @ JudgeError::Call { .. }) => {
                        failures += 1;
                        last_failure = Some(failure);
                    }
                    Err(other) => return Err(other),
                }
                Ok(())
            })?;
            missing = missing - asked + failures;
        }
        match last_failure {
            Some(failure) if missing > 0 => Err(failure),
            _ => Ok(()),
        }
    }
}

/// `score` if it lies in `[0, R]`; otherwise (NaN included) a failed call of the judge.
pub(crate) fn in_range(
    item: usize,
    judge: usize,
    score: f64,
    range: f64,
) -> Result<f64, JudgeError> {
    if (0.0..=range).contains(&score) {
        Ok(score)
    } else {
        Err(JudgeError::Call {
            item,
            judge,
            message: format!("score {score} outside [0, {range}]"),
        })
    }
}

/// Buys `allocation`'s calls (row-major item × judge counts) through `spender`,
/// adding each call's score to its pair's `stats`.
pub(crate) fn spend(
    spender: &mut Spender<'_>,
    allocation: &Allocation,
    stats: &mut [PairStats],
) -> Result<(), JudgeError> {
    let judges = allocation.judges;
    for (i, &count) in allocation.counts.iter().enumerate() {
        if count > 0 {
            spender.sample(i / judges, i % judges, count, &mut stats[i])?;
        }
    }
    Ok(())
}
