//! The files one run writes, all under the output policy ([`OutputFile`]: atomic, and
//! never over a file verdict did not write unless forced). A face makes one
//! [`Outputs`] from its force setting, names each output with its own spelling of the
//! option (`--out`, `out=`), and checks every output before any work
//! ([`Outputs::check`]), so a refusal costs nothing.

use std::path::{Path, PathBuf};

use verdict_io::OutputFile;

use crate::VerdictError;

/// The outputs of one run and whether they may replace files verdict did not write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    /// Replace a file verdict did not write, and write through a symbolic link.
    pub force: bool,
}

impl Outputs {
    /// A run's outputs, forced or not.
    pub fn new(force: bool) -> Self {
        Self { force }
    }

    /// A data file (a table, a JSON result, a figure) at `path`, named `option`.
    pub fn file(&self, path: impl Into<PathBuf>, option: &str) -> OutputFile {
        OutputFile::new(path, option).forced(self.force)
    }

    /// [`Self::file`] of an optional path.
    pub fn optional(&self, path: Option<&Path>, option: &str) -> Option<OutputFile> {
        path.map(|path| self.file(path, option))
    }

    /// A page at `path`, named `option` ([`crate::page::page_target`]).
    pub fn page(&self, path: impl Into<PathBuf>, option: &str) -> OutputFile {
        crate::page::page_target(path, option, self.force)
    }

    /// [`Self::page`] of an optional path.
    pub fn optional_page(&self, path: Option<&Path>, option: &str) -> Option<OutputFile> {
        path.map(|path| self.page(path, option))
    }

    /// A model file at `path`, named `option` ([`crate::model_file::model_target`]).
    #[cfg(feature = "nasheval")]
    pub fn model(&self, path: impl Into<PathBuf>, option: &str) -> OutputFile {
        crate::model_file::model_target(path, option, self.force)
    }

    /// Refuses, before any work, each given output that would replace a file verdict
    /// did not write (or go through a link).
    ///
    /// # Errors
    /// The first output refused, naming the file and the fix.
    pub fn check(outputs: &[Option<OutputFile>]) -> Result<(), VerdictError> {
        for output in outputs.iter().flatten() {
            output.check()?;
        }
        Ok(())
    }

    /// [`Self::check`], and refuses an output that is one of `inputs` (the run would
    /// replace a file it reads).
    ///
    /// # Errors
    /// As [`Self::check`]; also an output that is an input.
    pub fn check_with_inputs(
        outputs: &[Option<OutputFile>],
        inputs: &[&Path],
    ) -> Result<(), VerdictError> {
        for output in outputs.iter().flatten() {
            output.check_not_reading(inputs)?;
        }
        Self::check(outputs)
    }
}
