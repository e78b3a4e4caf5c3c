//! The token-embedding table: one 2-D float tensor of a safetensors file, kept as
//! f32 rows (WordLlama computes in f32 from its f16 table).

use std::path::Path;

use safetensors::{Dtype, SafeTensors};

use crate::EncoderError;

/// `rows × dim` values, row-major.
pub(crate) struct Table {
    values: Vec<f32>,
    dim: usize,
}

impl Table {
    /// The table in the safetensors file `bytes` (read from `path`): its one 2-D
    /// tensor, or among several the one 2-D tensor there is.
    pub(crate) fn from_safetensors(path: &Path, bytes: &[u8]) -> Result<Self, EncoderError> {
        let tensors = SafeTensors::deserialize(bytes)
            .map_err(|e| EncoderError::invalid(path, format!("is not a safetensors file: {e}")))?;
        let mut matrices: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
            .tensors()
            .into_iter()
            .filter(|(_, view)| view.shape().len() == 2)
            .collect();
        matrices.sort_by(|a, b| a.0.cmp(&b.0));
        let (name, view) = match matrices.len() {
            1 => matrices.remove(0),
            0 => {
                return Err(EncoderError::invalid(
                    path,
                    "holds no 2-D tensor; a token-embedding table is vocabulary × dimension",
                ))
            }
            _ => {
                let names: Vec<&str> = matrices.iter().map(|(n, _)| n.as_str()).collect();
                return Err(EncoderError::invalid(
                    path,
                    format!(
                        "holds {} 2-D tensors ({}); keep the token-embedding table alone in the file",
                        names.len(),
                        names.join(", ")
                    ),
                ));
            }
        };
        let (rows, dim) = (view.shape()[0], view.shape()[1]);
        if rows == 0 || dim == 0 {
            return Err(EncoderError::invalid(
                path,
                format!("tensor {name} is {rows} × {dim}; a table needs rows and columns"),
            ));
        }
        let data = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F16 => data
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            Dtype::BF16 => data
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            other => {
                return Err(EncoderError::invalid(
                    path,
                    format!(
                        "tensor {name} holds {other:?} values; the table must be f16, bf16 or f32"
                    ),
                ))
            }
        };
        if values.len() != rows * dim {
            return Err(EncoderError::invalid(
                path,
                format!(
                    "tensor {name} has {} values for a {rows} × {dim} shape",
                    values.len()
                ),
            ));
        }
        if let Some(at) = values.iter().position(|v| !v.is_finite()) {
            return Err(EncoderError::invalid(
                path,
                format!(
                    "tensor {name} holds a value that is not a finite number (row {}, column {}); the table is damaged",
                    at / dim,
                    at % dim
                ),
            ));
        }
        Ok(Self { values, dim })
    }

    /// The number of rows (the vocabulary the table covers).
    pub(crate) fn rows(&self) -> usize {
        self.values.len() / self.dim
    }

    /// The embedding dimension.
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    /// Row `row`.
    pub(crate) fn row(&self, row: usize) -> &[f32] {
        &self.values[row * self.dim..(row + 1) * self.dim]
    }
}
