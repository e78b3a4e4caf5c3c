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

#[cfg(test)]
mod tests {
    use super::*;

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
