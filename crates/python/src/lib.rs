//! The native half of the `verdict` Python module: each function turns Python values
//! into library settings, makes one library call with the interpreter released, and
//! hands back what the command line prints (`python/verdict` turns it into frames).
//! No computation lives here.

use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use clap::ValueEnum;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod games;
mod judging;
mod nasheval;
mod ranking;
mod reports;
mod tables;

/// A library error as the exception for bad input: its message names the place.
pub(crate) fn bad_input(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

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

/// `value` of setting `setting` as the library's enum, by the names the command line
/// takes (aliases included).
pub(crate) fn choice<T: ValueEnum>(setting: &str, value: &str) -> PyResult<T> {
    T::from_str(value, false).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| format!("{:?}", p.get_name())))
            .collect();
        PyValueError::new_err(format!("{setting} {value:?}: use {}", names.join(", ")))
    })
}

/// The module `verdict._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(ranking::rank_json, module)?)?;
    module.add_function(wrap_pyfunction!(ranking::bradley_terry, module)?)?;
    module.add_function(wrap_pyfunction!(ranking::elo, module)?)?;
    module.add_function(wrap_pyfunction!(games::maximal_lottery_json, module)?)?;
    module.add_function(wrap_pyfunction!(nasheval::simulate, module)?)?;
    module.add_function(wrap_pyfunction!(nasheval::fit, module)?)?;
    module.add_class::<nasheval::Model>()?;
    module.add_function(wrap_pyfunction!(judging::judge, module)?)?;
    module.add_function(wrap_pyfunction!(judging::oracle_allocation, module)?)?;
    module.add_function(wrap_pyfunction!(judging::ivwe, module)?)?;
    module.add_function(wrap_pyfunction!(judging::ppi_mean, module)?)?;
    module.add_function(wrap_pyfunction!(judging::krippendorff_alpha, module)?)?;
    module.add_class::<judging::CallableJudge>()?;
    module.add_function(wrap_pyfunction!(reports::report_html, module)?)?;
    module.add_function(wrap_pyfunction!(reports::write_page, module)?)?;
    Ok(())
}
