//! Calls to a [`JudgePool`] counted against the budget.

use crate::{JudgeError, JudgePool, PairStats};

/// Attempts per score before a failing judge stops the run (failed attempts are not
/// charged; with a ledger they are recorded, and a restart resumes from them).
pub const ATTEMPTS: usize = 3;

/// Charges every successful call to the budget and refuses calls it cannot pay for,
/// so a strategy can never spend more than B.
pub struct Spender<'a> {
    pool: &'a mut dyn JudgePool,
    budget: f64,
    spent: f64,
    calls: u64,
}

impl<'a> Spender<'a> {
    /// A spender of `budget` on `pool`.
    pub fn new(pool: &'a mut dyn JudgePool, budget: f64) -> Self {
        Self {
            pool,
            budget,
            spent: 0.0,
            calls: 0,
        }
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
        for _ in 0..count {
            let score = self.score_with_retries(item, judge, range)?;
            self.spent += cost;
            self.calls += 1;
            stats.push(score);
        }
        Ok(())
    }

    /// One valid score, trying up to [`ATTEMPTS`] times; garbage, NaN and scores
    /// outside `[0, R]` count as failures.
    fn score_with_retries(
        &mut self,
        item: usize,
        judge: usize,
        range: f64,
    ) -> Result<f64, JudgeError> {
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match self
                .pool
                .score(item, judge)
                .and_then(|score| in_range(item, judge, score, range))
            {
                Ok(score) => return Ok(score),
                Err(failure @ JudgeError::Call { .. }) => last = Some(failure),
                Err(other) => return Err(other),
            }
        }
        Err(last.expect("at least one attempt"))
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
