//! Tables handed over from Python through the Arrow C stream interface
//! (`__arrow_c_stream__`, the PyCapsule protocol pandas, polars and pyarrow implement):
//! the batches are read in place into a library [`Table`], with no detour through text.
//!
//! The capsule is unpacked by hand: the `pyo3-arrow` crate does this too, but it pins
//! its own arrow and pyo3 versions, and the unpacking is the dozen lines below.

use std::sync::Arc;

use arrow::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow::record_batch::RecordBatchReader;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use verdict::io::{read_record_batches, Source};

use crate::failure;

/// A table argument: a path, or an object with `__arrow_c_stream__`.
pub enum TableArg {
    /// A file path (the format from its extension).
    Path(String),
    /// An Arrow stream's producer (pandas, polars, pyarrow).
    Stream(Py<PyAny>),
}

impl<'py> FromPyObject<'_, 'py> for TableArg {
    type Error = PyErr;

    fn extract(object: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if object.hasattr("__arrow_c_stream__")? {
            return Ok(TableArg::Stream(object.to_owned().unbind()));
        }
        let os = object.py().import("os")?;
        if let Ok(path) = os.call_method1("fspath", (object,)) {
            if let Ok(path) = path.extract::<String>() {
                return Ok(TableArg::Path(path));
            }
        }
        Err(PyTypeError::new_err(format!(
            "expected a path or a table (pandas, polars or pyarrow: anything with __arrow_c_stream__), not {}",
            object.get_type().name()?
        )))
    }
}

impl TableArg {
    /// The table as a library source: a file, or the stream's columns `wanted` (all
    /// when `None`) read now, labelled `label` in messages. Reading a stream runs with
    /// the interpreter released (a producer that needs it takes it back itself).
    pub fn source(
        &self,
        py: Python<'_>,
        label: &str,
        wanted: Option<&[String]>,
    ) -> PyResult<Source> {
        match self {
            TableArg::Path(path) => Ok(Source::File(path.into())),
            TableArg::Stream(producer) => {
                let reader = stream_reader(producer.bind(py))?;
                let schema = reader.schema();
                let table = py
                    .detach(|| read_record_batches(reader, &schema, label, wanted))
                    .map_err(failure)?;
                Ok(Source::Table(Arc::new(table)))
            }
        }
    }
}

/// Takes the stream out of the producer's capsule: the capsule keeps an emptied
/// (released) struct, so its destructor frees the memory and nothing else.
pub(crate) fn stream_reader(producer: &Bound<'_, PyAny>) -> PyResult<RecordBatchStreamReader> {
    let capsule = producer.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_stream__ did not return a PyCapsule"))?;
    let pointer = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule named "arrow_array_stream" holds an FFI_ArrowArrayStream
    // (the Arrow PyCapsule interface); `from_raw` moves it out and leaves a released
    // stream behind, so the stream is released exactly once, by the reader.
    unsafe { RecordBatchStreamReader::from_raw(pointer.as_ptr().cast::<FFI_ArrowArrayStream>()) }
        .map_err(|e| failure(format!("cannot read the table's Arrow stream: {e}")))
}
