//! The native half of the `verdict_arena` Python module: each function reads its
//! settings as a settings document (the library's setting names, `verdict::settings`),
//! makes one library call with the interpreter released, and hands back what the
//! command line prints (`python/verdict_arena` turns it into frames). No computation
//! lives here.

use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use verdict::{ErrorKind, VerdictError};

mod counts;
mod games;
mod judging;
mod nasheval;
mod ope;
mod ranking;
mod reports;
mod tables;

/// A failure as the exception of its kind (`verdict_arena.errors`): the library
/// classifies its errors ([`ErrorKind`]); text written here is bad input.
pub(crate) fn failure(error: impl Failure) -> PyErr {
    let (kind, message, setting) = error.classified();
    let class = match kind {
        ErrorKind::Input => "InputError",
        ErrorKind::Setting => "SettingError",
        ErrorKind::FileNotFound => "MissingFileError",
        ErrorKind::FileExists => "OutputExistsError",
        ErrorKind::Budget => "BudgetError",
        ErrorKind::Judge => "JudgeCallError",
        ErrorKind::Internal => "InternalError",
    };
    Python::attach(|py| {
        let exception = py
            .import("verdict_arena.errors")
            .and_then(|errors| errors.getattr(class))
            .and_then(|class| class.call1((message,)))
            .and_then(|exception| {
                // The setting at fault, by name: the keyword argument that sets it.
                exception.setattr("setting", setting)?;
                Ok(exception)
            });
        match exception {
            Ok(exception) => PyErr::from_value(exception),
            Err(e) => e,
        }
    })
}

/// A failure's kind, message and the setting at fault (by name), if any.
type Classified = (ErrorKind, String, Option<String>);

/// What [`failure`] takes: a library error, classified by the library, or a message
/// of this crate's own (bad input).
pub(crate) trait Failure {
    /// The kind of failure, its message and its setting.
    fn classified(self) -> Classified;
}

impl Failure for String {
    fn classified(self) -> Classified {
        (ErrorKind::Input, self, None)
    }
}

impl Failure for serde_json::Error {
    /// Serializing a result the library built cannot fail on valid data.
    fn classified(self) -> Classified {
        (ErrorKind::Internal, self.to_string(), None)
    }
}

/// The library's error types, classified through [`VerdictError::kind`].
macro_rules! library_failures {
    ($($error:ty),* $(,)?) => {$(
        impl Failure for $error {
            fn classified(self) -> Classified {
                let error = VerdictError::from(self);
                let setting = error.setting().map(str::to_owned);
                (error.kind(), error.to_string(), setting)
            }
        }
    )*};
}

library_failures!(
    VerdictError,
    verdict::io::IoError,
    verdict::judges::JudgeError,
    verdict::nasheval::FitError,
    verdict::ratings::RatingsError,
    verdict::game::GameError,
    verdict::report::ReportError,
    verdict::feedback::BattleLogError,
    verdict::feedback::FeedbackError,
    verdict::settings::SettingError,
);

/// Runs `work` on its own thread with the interpreter released, answering Ctrl-C:
/// the calling thread waits for the result and checks for a pending signal every
/// 50 ms. On one (`KeyboardInterrupt`) it returns at once, and the work finishes
/// unobserved, its result dropped — only for computations that write nothing (a
/// fit, a ranking), so nothing is left half-done. A panic in the work is a
/// `RuntimeError`.
pub(crate) fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (sender, receiver) = channel();
    std::thread::Builder::new()
        .name("verdict".into())
        .spawn(move || {
            let _ = sender.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut receiver = receiver;
    loop {
        // The receiver travels to the detached closure and back (it is `Send`, not
        // `Sync`).
        let (waited, back) = py.detach(move || {
            let waited = receiver.recv_timeout(Duration::from_millis(50));
            (waited, receiver)
        });
        receiver = back;
        match waited {
            Ok(result) => return Ok(result),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => return Err(PyRuntimeError::new_err(
                "the computation stopped without a result (an internal error); please report it",
            )),
        }
    }
}

/// Shows `message` as a Python `UserWarning` (what the command line prints to
/// standard error).
pub(crate) fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    let message = message.strip_prefix("warning: ").unwrap_or(message);
    let message = std::ffi::CString::new(message.replace('\0', " "))?;
    PyErr::warn(py, &category, &message, 1)
}

/// Every job's settings document with its defaults, as JSON
/// ([`verdict::documents::default_documents`]): what the parity test compares the
/// module's keyword arguments against.
#[pyfunction]
fn default_documents() -> String {
    let mut documents = verdict::documents::default_documents();
    documents["simulate"] =
        serde_json::to_value(verdict_lab::simulation::SimulateParams::default())
            .expect("a settings document serializes");
    documents.to_string()
}

/// The module `verdict_arena._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(default_documents, module)?)?;
    module.add_function(wrap_pyfunction!(ranking::rank_json, module)?)?;
    module.add_function(wrap_pyfunction!(counts::battle_counts, module)?)?;
    module.add_function(wrap_pyfunction!(ranking::bradley_terry, module)?)?;
    module.add_function(wrap_pyfunction!(ranking::elo, module)?)?;
    module.add_function(wrap_pyfunction!(games::maximal_lottery_json, module)?)?;
    module.add_function(wrap_pyfunction!(nasheval::simulate, module)?)?;
    module.add_function(wrap_pyfunction!(nasheval::fit, module)?)?;
    module.add_function(wrap_pyfunction!(nasheval::embed, module)?)?;
    module.add_class::<nasheval::Model>()?;
    module.add_function(wrap_pyfunction!(ope::ope_json, module)?)?;
    module.add_function(wrap_pyfunction!(judging::judge, module)?)?;
    module.add_function(wrap_pyfunction!(judging::oracle_allocation, module)?)?;
    module.add_function(wrap_pyfunction!(judging::ivwe, module)?)?;
    module.add_function(wrap_pyfunction!(judging::ppi_mean, module)?)?;
    module.add_function(wrap_pyfunction!(judging::shared_errors, module)?)?;
    module.add_function(wrap_pyfunction!(judging::krippendorff_alpha, module)?)?;
    module.add_class::<judging::CallableJudge>()?;
    module.add_function(wrap_pyfunction!(reports::report_html, module)?)?;
    module.add_function(wrap_pyfunction!(reports::write_page, module)?)?;
    Ok(())
}
