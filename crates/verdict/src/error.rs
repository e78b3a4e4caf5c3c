/// Any error of a verdict pipeline, with its cause intact.
#[derive(Debug, thiserror::Error)]
pub enum VerdictError {
    /// A battle log that breaks a rule (a model battling itself, say).
    #[error(transparent)]
    BattleLog(#[from] verdict_feedback::BattleLogError),
    /// Feedback that is not an ordered partition of its menu.
    #[error(transparent)]
    Feedback(#[from] verdict_feedback::FeedbackError),
    /// Reading or writing files.
    #[error(transparent)]
    Io(#[from] verdict_io::IoError),
    /// A rating method.
    #[error(transparent)]
    Ratings(#[from] verdict_ratings::RatingsError),
    /// Rendering or plotting.
    #[error(transparent)]
    Report(#[from] verdict_report::ReportError),
    /// A game or equilibrium solver.
    #[error(transparent)]
    Game(#[from] verdict_game::GameError),
    /// A simulation setting.
    #[error(transparent)]
    Simulation(#[from] verdict_sim::SimulationError),
    /// A NashEval fit, prediction or model check.
    #[cfg(feature = "nasheval")]
    #[error(transparent)]
    Fit(#[from] verdict_nasheval::FitError),
    /// A judging run or its ledger.
    #[error(transparent)]
    Judges(#[from] verdict_judges::JudgeError),
    /// A file whose content is not what it should hold (a simulation's truth, say).
    #[error("{0}")]
    Data(String),
    /// A pipeline setting outside its range.
    #[error("{0}")]
    Settings(String),
}

impl From<std::fmt::Error> for VerdictError {
    /// Text written into a `String` (which cannot fail).
    fn from(_: std::fmt::Error) -> Self {
        Self::Data("formatting text failed".into())
    }
}
