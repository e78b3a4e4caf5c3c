//! Settings by name. A face that holds its settings as names and values (Python's
//! keyword arguments) hands the library a settings document — one JSON object, the
//! library's setting names as keys — and the library reads it into its typed request
//! (`fit_request::FitParams`, `rank_request::RankParams`,
//! `judge_request::JudgeParams`). A value that does not fit is a [`SettingError`]
//! naming the setting as data, which each face spells its own way (a keyword
//! argument in Python, a flag on the command line).
//!
//! Messages name settings as data too ([`Setting`], spelled as each face installs with
//! [`spell_settings`]).
//!
//! Enum settings take the names the command line takes (`by_name`), aliases
//! included, so every face accepts the same words.

pub use verdict_settings::{library_spelling, spell_settings, Choice, Setting, Spelling};

use serde::de::DeserializeOwned;
use serde::de::Deserializer;
use serde::{Deserialize, Serializer};

/// A setting whose value cannot be used: which setting, and what is wrong with it.
///
/// Clarabel's `SettingsError` is the model: the name is data, not text to search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {problem}", Setting(setting))]
pub struct SettingError {
    /// The setting, by the library's name (`text_dim`, `ties`).
    pub setting: String,
    /// What is wrong and what it must be.
    pub problem: String,
}

impl SettingError {
    /// Setting `setting` refused because of `problem`.
    pub fn new(setting: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            setting: setting.into(),
            problem: problem.into(),
        }
    }
}

/// Reads a settings document (a JSON object of setting names and values) into `T`.
///
/// # Errors
/// A [`SettingError`] naming the first setting that is unknown, of the wrong type or
/// out of its choices; a document that is not a JSON object names `settings`.
pub fn from_document<T: DeserializeOwned>(document: &str) -> Result<T, SettingError> {
    let mut reader = serde_json::Deserializer::from_str(document);
    serde_path_to_error::deserialize(&mut reader).map_err(|error| {
        let path = error.path().to_string();
        let problem = error.into_inner().to_string();
        // serde_json places its errors in the document; the setting's name already says
        // where, and the document is not the user's text.
        let problem = match problem.find(" at line ") {
            Some(at) => problem[..at].to_owned(),
            None => problem,
        };
        // The setting is the top-level name (the root, or an element of a document that
        // is not an object, is `settings`); a part within it goes into the problem.
        let (setting, within) = match path.find(['.', '[']) {
            _ if path == "." => ("settings", ""),
            Some(0) => ("settings", path.as_str()),
            Some(at) => path.split_at(at),
            None => (path.as_str(), ""),
        };
        let problem = match within.trim_start_matches('.') {
            "" => problem,
            part => format!("{part}: {problem}"),
        };
        let setting = setting.to_owned();
        SettingError { setting, problem }
    })
}

/// Deserializes an enum setting by its name ([`Choice`], aliases included), the name
/// every face takes: `#[serde(deserialize_with = "by_name")]`.
///
/// # Errors
/// A name that is not one of the choices, listing them.
pub fn by_name<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Choice,
{
    let name = String::deserialize(deserializer)?;
    T::from_name(&name).map_err(serde::de::Error::custom)
}

/// [`by_name`] of an optional setting (`null` is none).
///
/// # Errors
/// As [`by_name`].
pub fn by_name_or_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Choice,
{
    Option::<String>::deserialize(deserializer)?
        .map(|name| T::from_name(&name).map_err(serde::de::Error::custom))
        .transpose()
}

/// Deserializes a setting written as text that its type parses (`cubic:0.5`, a row
/// filter `COLUMN=VALUE`): `#[serde(deserialize_with = "by_text")]`.
///
/// # Errors
/// The type's own parse error.
pub fn by_text<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    String::deserialize(deserializer)?
        .parse()
        .map_err(serde::de::Error::custom)
}

/// Serializes an enum setting by its name, as [`by_name`] reads it:
/// `#[serde(serialize_with = "as_name")]`.
///
/// # Errors
/// The serializer's.
pub fn as_name<S: Serializer, T: Choice>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(value.name())
}

/// [`as_name`] of an optional setting (none is `null`).
///
/// # Errors
/// The serializer's.
pub fn as_name_or_none<S: Serializer, T: Choice>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.serialize_some(value.name()),
        None => serializer.serialize_none(),
    }
}

/// Serializes a setting as the text [`by_text`] reads back (its `Display`).
///
/// # Errors
/// The serializer's.
pub fn as_text<S: Serializer, T: std::fmt::Display>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// [`as_text`] of a list of settings, as [`each_by_text`] reads them back.
///
/// # Errors
/// The serializer's.
pub fn each_as_text<S: Serializer, T: std::fmt::Display>(
    values: &[T],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(values.iter().map(ToString::to_string))
}

/// [`by_text`] of a list of settings.
///
/// # Errors
/// The first item's parse error that fails.
pub fn each_by_text<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    Vec::<String>::deserialize(deserializer)?
        .iter()
        .map(|text| text.parse().map_err(serde::de::Error::custom))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[serde(deserialize_with = "by_name", default = "half")]
        ties: verdict_ratings::TieModel,
        #[serde(default)]
        rounds: usize,
    }

    fn half() -> verdict_ratings::TieModel {
        verdict_ratings::TieModel::Half
    }

    #[test]
    fn a_document_reads_by_the_command_lines_names() {
        let doc: Doc = from_document(r#"{"ties": "davidson", "rounds": 3}"#).unwrap();
        assert_eq!(doc.ties, verdict_ratings::TieModel::Davidson);
        assert_eq!(doc.rounds, 3);
    }

    #[test]
    fn each_failure_names_its_setting() {
        let error = from_document::<Doc>(r#"{"ties": "sometimes"}"#).unwrap_err();
        assert_eq!(error.setting, "ties");
        assert!(error.problem.contains("\"half\""), "{error}");
        let error = from_document::<Doc>(r#"{"rounds": -1}"#).unwrap_err();
        assert_eq!(error.setting, "rounds");
        assert!(!error.problem.contains("line"), "{error}");
        let error = from_document::<Doc>(r#"{"round": 1}"#).unwrap_err();
        assert!(error.problem.contains("unknown field `round`"), "{error}");
        let error = from_document::<Doc>("[1]").unwrap_err();
        assert_eq!(error.setting, "settings");
        let error = from_document::<Doc>(r#"{"ties": ["half"]}"#).unwrap_err();
        assert_eq!(error.setting, "ties");
    }
}
