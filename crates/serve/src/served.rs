//! The model a server answers with: loaded and checked from its file, with the
//! costs routing uses, swapped whole on reload.

use std::path::Path;

use sha2::{Digest, Sha256};
use verdict::io::TextEncoder;
use verdict::model_file::{model_from_value, Featurizer};
use verdict::nasheval::NashEvalModel;
use verdict::VerdictError;

use crate::upstreams::Upstreams;

/// A loaded model and what is derived from it once.
#[derive(Debug)]
pub(crate) struct Served {
    /// The fitted model.
    pub model: NashEvalModel,
    /// Its featurizer (the text column chat messages go into).
    pub featurizer: Featurizer,
    /// Per agent, in agent order: the upstreams file's costs, else the fit's; empty
    /// when neither gives them.
    pub costs: Vec<f64>,
    /// The first 16 hex digits of the file's SHA-256: which model answered.
    pub id: String,
    /// The encoder that embeds the request's text, when the model was fitted with one.
    pub encoder: Option<TextEncoder>,
}

impl Served {
    /// Reads and checks the model at `path`, naming it `label` in errors; `upstreams`
    /// must name every agent when given; `encoder` must be the one the model was
    /// fitted with, if it was fitted with one.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the file: unreadable, not a model, or agents the
    /// upstreams file does not cover; [`VerdictError::Settings`] for an encoder that is
    /// not the model's, or none for a model that embeds its text.
    pub fn load(
        path: &Path,
        label: &str,
        upstreams: Option<&Upstreams>,
        encoder: Option<&TextEncoder>,
    ) -> Result<Self, VerdictError> {
        let bytes = std::fs::read(path)
            .map_err(|e| VerdictError::Data(format!("{label}: cannot read the model: {e}")))?;
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            VerdictError::Data(format!(
                "{label}: not a model written by verdict fit (or damaged): {e}"
            ))
        })?;
        let model = model_from_value(label, value)?;
        let featurizer = Featurizer::of(&model)?;
        let reading = featurizer
            .options(encoder)
            .map_err(|e| VerdictError::Settings(format!("{label}: {e}")))?;
        let costs = match upstreams {
            Some(upstreams) => upstreams.costs_for(&model.agents)?,
            None => model.options.costs.clone(),
        };
        let digest = Sha256::digest(&bytes);
        let id = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Ok(Self {
            model,
            featurizer,
            costs,
            id,
            encoder: reading.text_encoder,
        })
    }

    /// Why `next` cannot replace `self` without breaking clients, if it cannot: the
    /// agents (names and order) and the features must be the same.
    pub fn refuses(&self, next: &Served) -> Option<String> {
        if next.model.agents != self.model.agents {
            return Some(format!(
                "the new model ranks other agents ({}) than the one serving ({}); restart the server to change agents",
                next.model.agents.join(", "),
                self.model.agents.join(", ")
            ));
        }
        if next.model.feature_names != self.model.feature_names
            || next.featurizer != self.featurizer
        {
            return Some(
                "the new model reads contexts differently (other features or featurizer) than the one serving; restart the server to change them".into(),
            );
        }
        None
    }
}
