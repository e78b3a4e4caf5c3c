//! A loaded text encoder as reading options carry it: shared between readers and
//! threads, and equal to another when the two compute the same features.

use std::sync::Arc;

pub use verdict_encoder::{EncoderError, EncoderIdentity, StaticEncoder};

/// A [`StaticEncoder`] behind an `Arc`: cheap to clone into every reading option,
/// compared by what it computes ([`EncoderIdentity::same_features_as`]).
#[derive(Clone)]
pub struct TextEncoder(pub Arc<StaticEncoder>);

impl TextEncoder {
    /// Loads the encoder in `dir` ([`StaticEncoder::load`]).
    ///
    /// # Errors
    /// As [`StaticEncoder::load`].
    pub fn load(dir: &std::path::Path, normalize: bool) -> Result<Self, EncoderError> {
        Ok(Self(Arc::new(StaticEncoder::load(dir, normalize)?)))
    }

    /// The same encoder, normalizing or not ([`StaticEncoder::with_normalization`]).
    pub fn with_normalization(&self, normalize: bool) -> Self {
        Self(Arc::new(self.0.with_normalization(normalize)))
    }

    /// What a model file records of it.
    pub fn identity(&self) -> &EncoderIdentity {
        self.0.identity()
    }
}

impl PartialEq for TextEncoder {
    fn eq(&self, other: &Self) -> bool {
        self.identity().same_features_as(other.identity())
    }
}

impl std::fmt::Debug for TextEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
