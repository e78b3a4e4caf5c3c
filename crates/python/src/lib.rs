//! The native half of the `verdict` Python module: each function turns Python values
//! into library settings, makes one library call with the interpreter released, and
//! hands back what the command line prints (`python/verdict` turns it into frames).
//! No computation lives here.

use clap::ValueEnum;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod games;
mod judging;
mod nasheval;
mod ranking;
mod tables;

/// A library error as the exception for bad input: its message names the place.
pub(crate) fn bad_input(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
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
    module.add_class::<judging::CallableJudge>()?;
    Ok(())
}
