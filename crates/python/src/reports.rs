//! Report pages: saved results drawn as one self-contained HTML page, as `verdict
//! report` draws them.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use verdict::results::{parse_result, results_page};

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
    let mut saved = Vec::with_capacity(results.len());
    for (name, value) in results {
        let bytes = if let Ok(model) = value.cast::<Model>() {
            serde_json::to_vec(model.get().model()).map_err(failure)?
        } else {
            value.cast::<PyBytes>()?.as_bytes().to_vec()
        };
        // Errors name the file as given; the page names it as `verdict report` does.
        saved.push((
            verdict::page::shown_name(std::path::Path::new(&name)),
            parse_result(&name, &bytes, &[verdict_lab::results::LAB_RESULTS]).map_err(failure)?,
        ));
    }
    if saved.is_empty() {
        return Err(failure("report: give at least one result"));
    }
    results_page(&saved, title.as_deref()).map_err(failure)
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
