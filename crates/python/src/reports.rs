//! Report pages: saved results drawn as one self-contained HTML page, as `verdict
//! report` draws them.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use verdict::results::report_page_of_bytes;

use crate::failure;
use crate::nasheval::Model;

/// The page of `results`, each a name with the result's bytes (what a file of it
/// holds) or a fitted model: one result's page as its command draws it, or one page
/// with a part per result, titled `title`.
#[pyfunction]
#[pyo3(signature = (results, title=None))]
pub fn report_html(
    results: Vec<(String, Bound<'_, PyAny>)>,
    title: Option<String>,
) -> PyResult<String> {
    let saved = results
        .into_iter()
        .map(|(name, value)| {
            let bytes = match value.cast::<Model>() {
                Ok(model) => serde_json::to_vec(model.get().model()).map_err(failure)?,
                Err(_) => value.cast::<PyBytes>()?.as_bytes().to_vec(),
            };
            Ok((name, bytes))
        })
        .collect::<PyResult<Vec<_>>>()?;
    report_page_of_bytes(
        &saved,
        title.as_deref(),
        &[verdict_lab::results::LAB_RESULTS],
    )
    .map_err(failure)
}

/// Writes `page` to `path` atomically, never over a file verdict did not write unless
/// `force`.
#[pyfunction]
#[pyo3(signature = (path, page, force=false))]
pub fn write_page(py: Python<'_>, path: PathBuf, page: &str, force: bool) -> PyResult<()> {
    let target = verdict::page::page_target(path, "out", force);
    py.detach(|| verdict::page::write_page(&target, page))
        .map_err(failure)
}
