/// Errors of the rating methods: bad settings or data a method cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RatingsError {
    /// A setting outside its range.
    #[error(
        "invalid setting {} = {value}: {expected}",
        verdict_settings::Setting(name)
    )]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value, as given.
        value: String,
        /// The accepted range.
        expected: &'static str,
    },
    /// The log has too few models or battles for the method.
    #[error("{0}")]
    NotEnoughData(String),
    /// An anchor names a model the log does not have.
    #[error("anchor model {model:?} is not in the log; known models include: {known}")]
    UnknownAnchor {
        /// The name given.
        model: String,
        /// Some known names.
        known: String,
    },
    /// A method and option that do not go together.
    #[error("{0}")]
    Unsupported(String),
    /// The solver failed numerically (should not happen on valid input).
    #[error("numerical failure in {0}")]
    Numerical(String),
}

impl RatingsError {
    /// A [`RatingsError::Setting`] error.
    pub fn setting(name: &'static str, value: impl ToString, expected: &'static str) -> Self {
        RatingsError::Setting {
            name,
            value: value.to_string(),
            expected,
        }
    }
}
