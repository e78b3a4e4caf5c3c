//! Static token-embedding text encoders: a text's vector is the mean of its tokens'
//! rows in an embedding table, optionally scaled to unit length.
//!
//! This is the model of WordLlama (D. Lee Miller, 2024: a LLaMA tokenizer and a
//! 256-dimensional table trained from LLaMA's token embeddings; its PyPI package ships
//! the table and the tokenizer, MIT) and of model2vec (Tulkens & van Dongen, 2024:
//! distilled static embeddings of a sentence transformer's vocabulary). Production
//! routers embed the prompt the same way in spirit (an encoder's pooled vector as the
//! router's features); a static table is the form that runs in Rust at request time
//! in microseconds with no Python and no network.
//!
//! An encoder is a directory holding one `*.safetensors` file (the table: one 2-D
//! tensor, `vocabulary × dimension`, in f16, bf16 or f32) and one tokenizer JSON (the
//! Hugging Face `tokenizers` format) — `tokenizer.json`, or the one file whose name
//! contains `tokenizer`, as WordLlama names it. The embedding of a text follows
//! WordLlama's `WordLlamaInference.embed` exactly: tokens without special tokens, no
//! truncation, ids past the table clamped to its last row, the mean of the rows
//! (a text of no tokens is the zero vector), then, when asked, division by the
//! Euclidean norm.

mod directory;
mod table;

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use directory::EncoderFiles;
use table::Table;

/// Why an encoder could not be loaded, each naming the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    /// The directory or one of its files is not what an encoder needs.
    #[error("encoder {place}: {message}")]
    Invalid {
        /// The directory or file.
        place: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A file could not be read.
    #[error("encoder {place}: cannot read it: {source}")]
    Read {
        /// The file.
        place: String,
        /// The system's reason.
        source: std::io::Error,
    },
}

impl EncoderError {
    fn invalid(place: &Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            place: place.display().to_string(),
            message: message.into(),
        }
    }
}

/// What a model file records of the encoder that made its features, so that
/// `predict`, `serve` and Python compute the same numbers or refuse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncoderIdentity {
    /// The encoder directory's base name (`wordllama-l2-supercat`).
    pub name: String,
    /// The embedding dimension.
    pub dim: usize,
    /// SHA-256 of the table file's bytes followed by the tokenizer file's bytes, hex.
    pub sha256: String,
    /// Whether embeddings are scaled to unit Euclidean length.
    pub normalize: bool,
}

impl EncoderIdentity {
    /// Whether `other` computes the same features: the same files (by digest) and the
    /// same normalization. The name is only a label: a copy under another name is the
    /// same encoder.
    pub fn same_features_as(&self, other: &EncoderIdentity) -> bool {
        self.same_files_as(other) && self.normalize == other.normalize
    }

    /// Whether `other` loads the same table and tokenizer (by digest), whatever the
    /// normalization.
    pub fn same_files_as(&self, other: &EncoderIdentity) -> bool {
        self.sha256 == other.sha256 && self.dim == other.dim
    }
}

/// A static token-embedding encoder loaded from a directory ([`StaticEncoder::load`]).
pub struct StaticEncoder {
    identity: EncoderIdentity,
    files: Arc<Loaded>,
}

/// What an encoder read from its files, shared by its normalized and plain forms.
struct Loaded {
    tokenizer: tokenizers::Tokenizer,
    table: Table,
}

impl std::fmt::Debug for StaticEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEncoder")
            .field("identity", &self.identity)
            .field("vocabulary", &self.files.table.rows())
            .finish_non_exhaustive()
    }
}

impl StaticEncoder {
    /// Loads the encoder in `dir` ([`EncoderFiles::find`]), its embeddings scaled to
    /// unit length when `normalize`.
    ///
    /// # Errors
    /// [`EncoderError`] naming the place: no such directory, no or several tables or
    /// tokenizers, a file that is not a regular file, a table that is not one 2-D
    /// float tensor, a tokenizer the `tokenizers` crate cannot read, a tokenizer whose
    /// vocabulary is larger than the table.
    pub fn load(dir: &Path, normalize: bool) -> Result<Self, EncoderError> {
        let files = EncoderFiles::find(dir)?;
        let table_bytes = directory::read_regular(&files.table)?;
        let tokenizer_bytes = directory::read_regular(&files.tokenizer)?;
        let table = Table::from_safetensors(&files.table, &table_bytes)?;
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(&tokenizer_bytes).map_err(|e| {
            EncoderError::invalid(
                &files.tokenizer,
                format!("is not a tokenizer JSON the `tokenizers` library reads: {e}"),
            )
        })?;
        // WordLlama's inference: no truncation, and padding (which pooling masks out)
        // never adds a token to a single text.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| EncoderError::invalid(&files.tokenizer, e.to_string()))?;
        let vocabulary = tokenizer.get_vocab_size(true);
        if vocabulary > table.rows() {
            return Err(EncoderError::invalid(
                dir,
                format!(
                    "the tokenizer has {vocabulary} tokens but the table {} rows: they are not a pair; put the tokenizer that belongs to {} beside it",
                    table.rows(),
                    files.table.display()
                ),
            ));
        }
        let mut digest = Sha256::new();
        digest.update(&table_bytes);
        digest.update(&tokenizer_bytes);
        let sha256 = digest
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Self {
            identity: EncoderIdentity {
                name: files.name,
                dim: table.dim(),
                sha256,
                normalize,
            },
            files: Arc::new(Loaded { tokenizer, table }),
        })
    }

    /// The same encoder with its embeddings scaled to unit length or not (the files
    /// are shared, not read again).
    pub fn with_normalization(&self, normalize: bool) -> Self {
        Self {
            identity: EncoderIdentity {
                normalize,
                ..self.identity.clone()
            },
            files: Arc::clone(&self.files),
        }
    }

    /// What a model file records of this encoder.
    pub fn identity(&self) -> &EncoderIdentity {
        &self.identity
    }

    /// The embedding dimension.
    pub fn dim(&self) -> usize {
        self.identity.dim
    }

    /// The token ids of `text`, as the embedding reads them: no special tokens, no
    /// truncation.
    ///
    /// # Errors
    /// The tokenizer's own error, as text (a tokenizer that cannot encode the text).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, String> {
        self.files
            .tokenizer
            .encode(text, false)
            .map(|encoding| encoding.get_ids().to_vec())
            .map_err(|e| format!("the tokenizer cannot encode this text: {e}"))
    }

    /// The embedding of `text`: `e = (1 / max(n, 1)) Σ_t W[min(id_t, V − 1)]` over its
    /// `n` tokens (WordLlama's `avg_pool`), divided by `‖e‖₂` when the encoder
    /// normalizes and `e ≠ 0`. Sums are kept in f64 and the result given in f64.
    ///
    /// # Errors
    /// As [`StaticEncoder::token_ids`].
    pub fn embed(&self, text: &str) -> Result<Vec<f64>, String> {
        let ids = self.token_ids(text)?;
        let mut sum = vec![0.0_f64; self.dim()];
        let table = &self.files.table;
        let last = table.rows() - 1;
        for &id in &ids {
            let row = table.row((id as usize).min(last));
            for (s, &w) in sum.iter_mut().zip(row) {
                *s += f64::from(w);
            }
        }
        let count = ids.len().max(1) as f64;
        sum.iter_mut().for_each(|s| *s /= count);
        if self.identity.normalize {
            let norm = sum.iter().map(|s| s * s).sum::<f64>().sqrt();
            if norm > 0.0 {
                sum.iter_mut().for_each(|s| *s /= norm);
            }
        }
        Ok(sum)
    }

    /// The embeddings of `texts`, row-major (`texts × dim`), computed in parallel.
    ///
    /// # Errors
    /// The first text the tokenizer cannot encode, by its index.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<f64>, (usize, String)> {
        let rows: Vec<Vec<f64>> = texts
            .par_iter()
            .enumerate()
            .map(|(i, text)| self.embed(text).map_err(|e| (i, e)))
            .collect::<Result<_, _>>()?;
        Ok(rows.concat())
    }
}
