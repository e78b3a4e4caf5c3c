#![warn(missing_docs)]
//! Estimating item scores with several LLM judges of different cost and noise under a
//! fixed budget (multi-judge budget estimation paper, Sections 2–4 and 7).
//!
//! K items have unknown scores `s_k`; judge j costs `c_j` per call and returns a noisy
//! score in `[0, R]` with mean `s_k` and variance `sigma^2_kj`. Given a budget B, the
//! goal is a small `||s_hat - s||_p`. This crate holds the problem instance and its
//! synthetic generators (Appendix H.1, H.3), the allocation objective and the oracle
//! allocation (Theorem 3.2), the inverse-variance weighted estimator (IVWE, Section 3),
//! and the strategies that spend the budget: uniform, oracle, Est-IVWE (bounded,
//! Algorithm 1) and Est-IVWE (Gaussian, Appendix G.1), all through one [`JudgePool`]
//! trait whose calls are counted against the budget by [`Spender`].

mod adaptive;
mod allocation;
mod bias_world;
mod configured;
mod error;
mod experiment;
mod gold;
mod http;
mod instance;
mod ivwe;
mod judge;
mod judged;
mod ledger;
mod ledger_file;
mod ledger_lock;
mod ledger_spend;
mod methods;
mod norm;
mod plan;
mod run;
mod shared_allocation;
mod shared_errors;
mod shared_phase;
mod spend;
mod target;
mod uncertainty;

pub use allocation::{
    allocation_objective, integer_counts, oracle_allocation, oracle_weights, uniform_counts,
    Allocation, OracleWeights,
};
pub use bias_world::BiasWorld;
pub use configured::{item_ids, ConfiguredPool, JudgeConfig, JudgesConfig};
pub use error::JudgeError;
pub use experiment::{
    run_experiment, BiasAwareRow, ExperimentRow, ExperimentSettings, COVERAGE_LEVEL, METHODS,
    SHARED_METHODS,
};
pub use gold::{
    gold_from_pairs, gold_labels, gold_report, judge_agreement, krippendorff_alpha, ppi_mean,
    read_gold, GoldLabel, GoldReport, JudgeAgreement, PpiMean,
};
pub use http::HttpConfig;
pub use instance::{CostStructure, Instance, Scenario};
pub use ivwe::{ivwe, ivwe_from_scores, PairStats};
pub use judge::{JudgePool, SimulatedJudges};
pub use judged::{family_indices, BiasAwareItem, ItemScore, JudgedScores, SharedMistakes};
pub use ledger::LedgeredPool;
pub use ledger_file::{
    Ledger, LedgerCall, LedgerEntry, LedgerJudge, LedgerRun, LedgerStart, LEDGER_FORMAT,
    LEDGER_VERSION,
};
pub use ledger_lock::{lock_path, LedgerLock};
pub use ledger_spend::LedgerSpend;
pub use methods::{
    default_exploration, estimate, Estimate, EstimateSettings, Method, DEFAULT_DELTA,
};
pub use norm::Norm;
pub use plan::{pilot_plan, plan_budget, shared_plan, BudgetPlan, SharedPlan};
pub use run::{
    explain_failure, judge_with_ledger, lost_call_warning, plan_with_ledger, read_items,
    JudgedItems, JudgingRun, PaidCalls, StopCheck,
};
pub use shared_allocation::{
    error_floor, shared_budget, shared_error, shared_error_counts, SharedErrorPanel,
};
pub use shared_errors::{
    effective_judges, gls_scores, BiasStructure, GlsScore, SharedErrors, MIN_SHARED_ITEMS,
};
pub use spend::{Spender, ATTEMPTS};
pub use uncertainty::{
    check_level, estimated_error, intervals, Intervals, ScoreInterval, ScoreUncertainty,
};

/// The first name that appears twice in `names`.
pub(crate) fn first_duplicate(names: &[String]) -> Option<&String> {
    let mut seen = std::collections::HashSet::new();
    names.iter().find(|name| !seen.insert(*name))
}

/// The message for two judges of one name: the ledger keys calls by judge name.
pub(crate) fn duplicate_judge(name: &str) -> String {
    format!(
        "two judges are named {name:?}; the ledger keys calls by judge name, so give each judge its own name"
    )
}
