use verdict_settings::Setting;

/// What can go wrong when setting up or running a budgeted estimation.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// A malformed instance: sizes, non-finite or out-of-range values.
    #[error("invalid instance: {0}")]
    Instance(String),
    /// The budget cannot pay for what the method needs at the very least.
    #[error("budget {budget} is too small: {needed} is needed to {purpose}; raise {budget_setting} or lower the exploration", budget_setting = Setting("budget"))]
    InfeasibleBudget {
        /// The budget given.
        budget: f64,
        /// The least amount that works.
        needed: f64,
        /// What the amount pays for.
        purpose: String,
    },
    /// A judge call failed (the call is not charged).
    #[error("judge {judge} on item {item}: {message}")]
    Call {
        /// Item index.
        item: usize,
        /// Judge index.
        judge: usize,
        /// What went wrong.
        message: String,
    },
    /// A call that may have been paid without giving a score: in flight when an
    /// earlier run stopped (and its judge cannot be asked again without paying twice),
    /// or answered by an HTTP judge without a usable score (the endpoint served it).
    /// Charged at its price.
    #[error("judge {judge} on item {item}: {message}")]
    Lost {
        /// Item index.
        item: usize,
        /// Judge index.
        judge: usize,
        /// The price charged.
        cost: f64,
        /// What happened.
        message: String,
    },
    /// The spend ledger cannot be used.
    #[error("ledger {path}: {message}")]
    Ledger {
        /// Ledger file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The run was stopped before it finished (what was paid for is in the ledger).
    #[error("stopped: {0}")]
    Stopped(String),
    /// A setting outside its range.
    #[error("invalid setting: {0}")]
    Setting(String),
}
