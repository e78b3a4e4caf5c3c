#![warn(missing_docs)]
//! Settings named as data. A message of the library that names a setting — an error
//! ("raise `budget`"), a warning, a note — holds it as a [`Setting`], not as text: each
//! face says once, at start-up, how it spells a setting ([`spell_settings`]) — the
//! command line as its flag (`--allow-unobserved`), Python as its keyword argument —
//! and every message reads in that face's words, with no text rewritten afterwards.
//! Without a spelling installed (a Rust program using the library), a setting is shown
//! by its library name in backticks: `` `allow_unobserved` ``.
//!
//! The spelling is per process, like a locale: the command line and the Python module
//! are separate processes, each with its own.

use std::fmt;
use std::sync::OnceLock;

/// A library setting in a message, by its library name (the field of its settings
/// type, e.g. `allow_unobserved`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setting<'a>(pub &'a str);

/// How a face spells a setting, given its library name.
pub type Spelling = fn(&str) -> String;

/// The face's spelling, installed once.
static SPELLING: OnceLock<Spelling> = OnceLock::new();

/// Installs the face's spelling of settings for this process; the first call wins.
/// Returns false when a spelling was already installed.
pub fn spell_settings(spelling: Spelling) -> bool {
    SPELLING.set(spelling).is_ok()
}

/// The library's own spelling: the name in backticks.
pub fn library_spelling(name: &str) -> String {
    format!("`{name}`")
}

impl fmt::Display for Setting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match SPELLING.get() {
            Some(spell) => f.write_str(&spell(self.0)),
            None => f.write_str(&library_spelling(self.0)),
        }
    }
}

/// A setting whose value is one of a fixed set of names: an enum deriving strum's
/// `IntoStaticStr`, `VariantArray`, `EnumString` and `EnumMessage` (with
/// `#[strum(serialize_all = "kebab-case")]`, a variant's `to_string` its name and
/// further `serialize`s its aliases). Every face reads a choice through this trait —
/// the command line's flags, Python's keywords, a settings document, a request — so a
/// name means the same everywhere and no face needs a command-line parser to read one.
pub trait Choice: Sized + Copy + PartialEq + 'static {
    /// Every value, in the order the choices are listed.
    fn choices() -> &'static [Self];
    /// The value's name.
    fn name(self) -> &'static str;
    /// The value's other accepted names.
    fn aliases(self) -> Vec<&'static str>;
    /// What the value means, for help texts: its `message`, else the first paragraph
    /// of its doc comment on one line, without its closing period (as clap's derive
    /// shows a doc comment).
    fn help(self) -> Option<String>;

    /// The value named `text` (a name or an alias, exactly as written).
    ///
    /// # Errors
    /// A name that is not one of the choices, listing them.
    fn from_name(text: &str) -> Result<Self, String> {
        Self::choices()
            .iter()
            .copied()
            .find(|choice| choice.name() == text || choice.aliases().contains(&text))
            .ok_or_else(|| {
                let names: Vec<String> = Self::choices()
                    .iter()
                    .map(|c| format!("{:?}", c.name()))
                    .collect();
                format!("{text:?} is not one of {}", names.join(", "))
            })
    }
}

impl<T> Choice for T
where
    T: strum::VariantArray + strum::EnumMessage + Into<&'static str> + Copy + PartialEq + 'static,
{
    fn choices() -> &'static [Self] {
        T::VARIANTS
    }

    fn name(self) -> &'static str {
        self.into()
    }

    fn aliases(self) -> Vec<&'static str> {
        let name = self.name();
        self.get_serializations()
            .iter()
            .copied()
            .filter(|&other| other != name)
            .collect()
    }

    fn help(self) -> Option<String> {
        if let Some(message) = self.get_message() {
            return Some(message.to_owned());
        }
        let lines: Vec<&str> = self
            .get_documentation()?
            .lines()
            .map(str::trim)
            .skip_while(|line| line.is_empty())
            .take_while(|line| !line.is_empty())
            .collect();
        let text = lines.join(" ");
        Some(text.strip_suffix('.').unwrap_or(&text).to_owned())
    }
}

/// A command line's parser of a [`Choice`]: clap's own possible-values parser (its
/// help lists each name with its meaning; a wrong name is clap's error listing the
/// names; aliases accepted), mapped to the value: `#[arg(value_parser =
/// choice::<Method>())]`.
#[cfg(feature = "clap")]
pub fn choice<T: Choice + Clone + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = T>
{
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = T::choices().iter().map(|&choice| {
        let value = PossibleValue::new(choice.name()).aliases(choice.aliases());
        match choice.help() {
            Some(help) => value.help(help),
            None => value,
        }
    });
    PossibleValuesParser::new(values).try_map(|name: String| T::from_name(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A choice of two values, one with an alias and a two-paragraph doc comment.
    #[derive(
        Debug,
        Clone,
        Copy,
        PartialEq,
        strum::IntoStaticStr,
        strum::VariantArray,
        strum::EnumString,
        strum::EnumMessage,
    )]
    #[strum(serialize_all = "kebab-case")]
    enum Solver {
        /// Newton's method on the
        /// log-likelihood.
        ///
        /// More than the help shows.
        #[strum(to_string = "newton", serialize = "nr")]
        Newton,
        /// Ignored: the message wins.
        #[strum(message = "Zermelo's iteration")]
        MinorizeMaximize,
    }

    #[test]
    fn a_choice_has_names_aliases_and_a_help_line() {
        assert_eq!(
            Solver::choices(),
            &[Solver::Newton, Solver::MinorizeMaximize]
        );
        assert_eq!(Solver::MinorizeMaximize.name(), "minorize-maximize");
        assert_eq!(Solver::Newton.aliases(), vec!["nr"]);
        assert_eq!(Solver::from_name("nr"), Ok(Solver::Newton));
        assert_eq!(
            Solver::Newton.help().as_deref(),
            Some("Newton's method on the log-likelihood")
        );
        assert_eq!(
            Solver::MinorizeMaximize.help().as_deref(),
            Some("Zermelo's iteration")
        );
        assert_eq!(
            Solver::from_name("Newton"),
            Err(r#""Newton" is not one of "newton", "minorize-maximize""#.to_owned())
        );
    }

    /// One test: the spelling is per process, so installing it here is seen by the
    /// whole test binary.
    #[test]
    fn a_setting_reads_in_the_installed_spelling() {
        assert_eq!(Setting("ties").to_string(), "`ties`");
        assert!(spell_settings(|name| format!(
            "--{}",
            name.replace('_', "-")
        )));
        assert_eq!(
            format!("set {} to count them", Setting("allow_unobserved")),
            "set --allow-unobserved to count them"
        );
        assert!(
            !spell_settings(library_spelling),
            "the first spelling stays"
        );
        assert_eq!(Setting("ties").to_string(), "--ties");
    }
}
