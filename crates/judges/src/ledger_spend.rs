//! What a spend ledger says was spent, per judge and per item, and which judges each
//! item got: the allocation a run made, read back from its record.

use std::collections::HashMap;

use serde::Serialize;

use crate::ledger_file::{Ledger, LedgerCall};

/// Spend and calls of one run, items × judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerSpend {
    /// The judges, in the run's price-list order.
    pub judges: Vec<String>,
    /// The items, in the order given (items the ledger never names included).
    pub items: Vec<String>,
    /// `scored[i][j]`: calls of judge `j` on item `i` that returned a score.
    pub scored: Vec<Vec<u32>>,
    /// `cost[i][j]`: what those calls, and lost ones, cost.
    pub cost: Vec<Vec<f64>>,
    /// Calls that failed (not charged).
    pub failed: usize,
    /// Calls found in flight by a restart and charged as lost.
    pub lost: usize,
    /// Calls started and never ended (in flight when the ledger was read).
    pub in_doubt: usize,
}

impl LedgerSpend {
    /// The spend of `ledger` over `items` (the run's item ids, in order). Calls on an
    /// item or judge not in the run are impossible in a ledger verdict reads (its
    /// header fixes both); they would be left out.
    pub fn of(ledger: &Ledger, items: &[String]) -> Self {
        let judges: Vec<String> = ledger.run.judges.iter().map(|j| j.name.clone()).collect();
        let item_row: HashMap<&str, usize> = items
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        let judge_column: HashMap<&str, usize> = judges
            .iter()
            .enumerate()
            .map(|(j, name)| (name.as_str(), j))
            .collect();
        let mut spend = Self {
            scored: vec![vec![0; judges.len()]; items.len()],
            cost: vec![vec![0.0; judges.len()]; items.len()],
            judges: judges.clone(),
            items: items.to_vec(),
            failed: 0,
            lost: 0,
            in_doubt: 0,
        };
        for call in &ledger.calls {
            let entry = match call {
                LedgerCall::Ended(entry) => entry,
                LedgerCall::InDoubt(_) => {
                    spend.in_doubt += 1;
                    continue;
                }
            };
            if entry.is_charged_failure() {
                spend.lost += 1;
            } else if entry.score.is_none() {
                spend.failed += 1;
            }
            let (Some(&i), Some(&j)) = (
                item_row.get(entry.item.as_str()),
                judge_column.get(entry.judge.as_str()),
            ) else {
                continue;
            };
            spend.cost[i][j] += entry.cost;
            spend.scored[i][j] += u32::from(entry.score.is_some());
        }
        spend
    }

    /// Total cost per judge.
    pub fn per_judge(&self) -> Vec<f64> {
        (0..self.judges.len())
            .map(|j| self.cost.iter().map(|row| row[j]).sum())
            .collect()
    }

    /// Total cost per item.
    pub fn per_item(&self) -> Vec<f64> {
        self.cost.iter().map(|row| row.iter().sum()).collect()
    }

    /// Everything spent.
    pub fn total(&self) -> f64 {
        self.per_item().iter().sum()
    }
}
