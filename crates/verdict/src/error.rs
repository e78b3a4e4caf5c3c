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
    /// A NashEval fit, prediction or model check.
    #[cfg(feature = "nasheval")]
    #[error(transparent)]
    Fit(#[from] verdict_nasheval::FitError),
    /// A judging run or its ledger.
    #[error(transparent)]
    Judges(#[from] verdict_judges::JudgeError),
    /// A text encoder that cannot be loaded.
    #[error(transparent)]
    Encoder(#[from] verdict_io::EncoderError),
    /// A file whose content is not what it should hold (a simulation's truth, say).
    #[error("{0}")]
    Data(String),
    /// A pipeline setting outside its range.
    #[error("{0}")]
    Settings(String),
    /// A setting, named as data, whose value cannot be used.
    #[error(transparent)]
    Setting(#[from] crate::settings::SettingError),
}

impl From<std::fmt::Error> for VerdictError {
    /// Text written into a `String` (which cannot fail).
    fn from(_: std::fmt::Error) -> Self {
        Self::Data("formatting text failed".into())
    }
}

/// What kind of failure an error is, for a face to map to its own spelling (an
/// exception class in Python, say) without reading the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The data given breaks a rule: a malformed row, a missing column, a model
    /// battling itself, a damaged ledger or result.
    Input,
    /// A setting outside its range or a combination of settings that cannot work.
    Setting,
    /// A file to read that does not exist.
    FileNotFound,
    /// A file verdict will not replace: it did not write it (the output policy).
    FileExists,
    /// A budget too small for what was asked (judges, or a game's cost budget).
    Budget,
    /// A judge call that failed, or a run stopped before it finished.
    Judge,
    /// Writing a file failed, or a computation failed that should not have: the
    /// message says which.
    Internal,
}

impl VerdictError {
    /// The setting at fault, by the library's name, when the error is about one (a
    /// face spells it its own way: a flag, a keyword argument).
    pub fn setting(&self) -> Option<&str> {
        match self {
            Self::Setting(e) => Some(&e.setting),
            Self::Ratings(verdict_ratings::RatingsError::Setting { name, .. }) => Some(name),
            Self::Game(verdict_game::GameError::Setting { name, .. }) => Some(name),
            #[cfg(feature = "nasheval")]
            Self::Fit(verdict_nasheval::FitError::Setting { setting, .. }) => Some(setting),
            _ => None,
        }
    }

    /// The kind of failure ([`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        use verdict_game::GameError as G;
        use verdict_judges::JudgeError as J;
        use verdict_ratings::RatingsError as R;
        match self {
            Self::BattleLog(_) | Self::Feedback(_) | Self::Data(_) => ErrorKind::Input,
            Self::Encoder(verdict_io::EncoderError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                ErrorKind::FileNotFound
            }
            Self::Encoder(_) => ErrorKind::Input,
            Self::Settings(_) | Self::Setting(_) => ErrorKind::Setting,
            Self::Io(e) => io_kind(e),
            Self::Report(verdict_report::ReportError::Io(e)) => io_kind(e),
            Self::Report(_) => ErrorKind::Internal,
            Self::Ratings(R::Setting { .. } | R::Unsupported(_)) => ErrorKind::Setting,
            Self::Ratings(R::Numerical(_)) => ErrorKind::Internal,
            Self::Ratings(_) => ErrorKind::Input,
            Self::Game(G::InfeasibleBudget { .. }) => ErrorKind::Budget,
            Self::Game(G::Solver(_)) => ErrorKind::Internal,
            Self::Game(G::TooManyAgents { .. } | G::Setting { .. }) => ErrorKind::Setting,
            Self::Game(_) => ErrorKind::Input,
            #[cfg(feature = "nasheval")]
            Self::Fit(e) => fit_kind(e),
            Self::Judges(J::Setting(_)) => ErrorKind::Setting,
            Self::Judges(J::InfeasibleBudget { .. }) => ErrorKind::Budget,
            Self::Judges(J::Call { .. } | J::Lost { .. } | J::Stopped(_)) => ErrorKind::Judge,
            Self::Judges(J::Instance(_) | J::Ledger { .. }) => ErrorKind::Input,
        }
    }
}

fn io_kind(e: &verdict_io::IoError) -> ErrorKind {
    use verdict_io::IoError as I;
    match e {
        I::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            ErrorKind::FileNotFound
        }
        I::NotOurs { .. } => ErrorKind::FileExists,
        I::Write { .. } => ErrorKind::Internal,
        I::UnknownFormat { .. } => ErrorKind::Setting,
        I::Read { .. } | I::MissingColumn { .. } | I::Invalid { .. } => ErrorKind::Input,
    }
}

#[cfg(feature = "nasheval")]
fn fit_kind(e: &verdict_nasheval::FitError) -> ErrorKind {
    use verdict_nasheval::FitError as F;
    match e {
        F::Setting { .. } => ErrorKind::Setting,
        F::Learner(_) | F::Solver { .. } => ErrorKind::Internal,
        F::Log(_) | F::Model(_) | F::Schema { .. } => ErrorKind::Input,
    }
}
