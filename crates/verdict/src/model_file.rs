//! NashEval model files: a fitted [`NashEvalModel`] saved and loaded as JSON (format
//! name and version, every option, the featurizer, LightGBM model text, the network),
//! and new contexts read with the model's featurizer into its feature order — the
//! same for the command line, Rust programs and the Python module.

use std::path::Path;

use serde::{Deserialize, Serialize};
use verdict_io::{
    read_contexts, read_table, write_parquet_table, CategoricalEncoding, ColumnData, ContextTable,
    ContextualOptions, EncoderIdentity, OutputFile, Source, TextEncoder,
};
use verdict_nasheval::{NashEvalModel, Predictions, WinnerFrequency};

use crate::VerdictError;

/// How contexts become features: recorded in a model so that prediction reads new
/// contexts exactly as the training log was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Featurizer {
    /// The free-text column, embedded by `encoder` or else hashed into n-gram
    /// features, if any.
    #[serde(default)]
    pub text_column: Option<String>,
    /// Dimensions of the hashed text features.
    #[serde(default = "default_text_dim")]
    pub text_dim: usize,
    /// `onehot` or `codes` for categorical columns.
    #[serde(default)]
    pub categorical: CategoricalEncoding,
    /// The encoder that embedded the text column (name, dimension, SHA-256 of its
    /// files, normalization); absent when the text was hashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder: Option<EncoderIdentity>,
}

fn default_text_dim() -> usize {
    ContextualOptions::default().text_dim
}

impl Default for Featurizer {
    fn default() -> Self {
        Self::from_options(&ContextualOptions::default())
    }
}

impl Featurizer {
    /// The featurizer of reading options.
    pub fn from_options(options: &ContextualOptions) -> Self {
        Self {
            text_column: options.text_column.clone(),
            text_dim: options.text_dim,
            categorical: options.categorical,
            encoder: options
                .text_encoder
                .as_ref()
                .filter(|_| options.text_column.is_some())
                .map(|e| e.identity().clone()),
        }
    }

    /// The reading options it stands for (no catalogue), with `encoder` embedding the
    /// text when the model recorded one — normalizing as the model recorded, whatever
    /// `encoder` was loaded with.
    ///
    /// # Errors
    /// [`VerdictError::Settings`] when `encoder` is not the one the model recorded:
    /// none given for a model that embeds its text (naming the encoder to load), one
    /// with other files, or one given to a model that hashes.
    pub fn options(
        &self,
        encoder: Option<&TextEncoder>,
    ) -> Result<ContextualOptions, VerdictError> {
        let text_encoder = match (&self.encoder, encoder) {
            (None, None) => None,
            (Some(recorded), Some(given)) if recorded.same_files_as(given.identity()) => {
                Some(given.with_normalization(recorded.normalize))
            }
            (Some(recorded), Some(given)) => {
                return Err(VerdictError::Settings(format!(
                    "the model was fitted with encoder {} (dimension {}, SHA-256 {}), not {} (dimension {}, SHA-256 {}); give the encoder it was fitted with",
                    recorded.name, recorded.dim, short(&recorded.sha256),
                    given.identity().name, given.identity().dim, short(&given.identity().sha256)
                )))
            }
            (Some(recorded), None) => {
                return Err(VerdictError::Settings(format!(
                    "the model embeds its text column {} with encoder {} (dimension {}, SHA-256 {}); give that encoder's directory (--encoder DIR, or encoder= in Python)",
                    self.text_column.as_deref().unwrap_or("?"), recorded.name, recorded.dim, short(&recorded.sha256)
                )))
            }
            (None, Some(given)) => {
                return Err(VerdictError::Settings(format!(
                    "the model {}; it reads no encoder: drop --encoder {}",
                    if self.text_column.is_some() { "hashes its text column" } else { "has no text column" },
                    given.identity().name
                )))
            }
        };
        Ok(ContextualOptions {
            text_column: self.text_column.clone(),
            text_dim: self.text_dim,
            text_encoder,
            categorical: self.categorical,
            catalogue: None,
            propensity_column: None,
        })
    }

    /// As a model stores it.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a featurizer serialises")
    }

    /// The featurizer a model recorded.
    ///
    /// # Errors
    /// [`VerdictError::Data`] when the model's featurizer is not one.
    pub fn of(model: &NashEvalModel) -> Result<Self, VerdictError> {
        serde_json::from_value(model.featurizer.clone())
            .map_err(|e| VerdictError::Data(format!("the model's featurizer: {e}")))
    }
}

/// The first 12 hex digits of a digest, as messages show it.
fn short(sha256: &str) -> &str {
    &sha256[..sha256.len().min(12)]
}

/// The model-file output at `path`, named by the user with `option`: under verdict's
/// output policy ([`OutputFile`]), an existing file is replaced when the output
/// manifest records it as verdict's (a file that merely begins like a model file may
/// be a user's edited copy), or when `force` is set.
pub fn model_target(path: impl Into<std::path::PathBuf>, option: &str, force: bool) -> OutputFile {
    OutputFile::new(path, option).forced(force)
}

/// Writes `model` to `target` as JSON under verdict's output policy
/// ([`OutputFile`]): atomically, so no half-written model is ever left, and never over
/// a file verdict did not write.
///
/// # Errors
/// [`VerdictError::Io`] naming the path (a refused target included).
pub fn save_model(model: &NashEvalModel, target: &OutputFile) -> Result<(), VerdictError> {
    let text = serde_json::to_vec(model).expect("a model serialises");
    Ok(target.write_bytes(&text)?)
}

/// Reads a model file and checks it: format name, version and every dimension.
///
/// # Errors
/// [`VerdictError::Data`] naming the file: unreadable, not a model, another version,
/// or inconsistent dimensions.
pub fn load_model(path: &Path) -> Result<NashEvalModel, VerdictError> {
    // A device or pipe named as a model (`/dev/zero`) would be read for ever.
    if verdict_io::not_a_regular_file(path) {
        return Err(VerdictError::Data(format!(
            "{}: not a regular file; name a model file written by verdict fit",
            path.display()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        VerdictError::Data(format!("{}: cannot read the model: {e}", path.display()))
    })?;
    checked_model(&path.display().to_string(), serde_json::from_slice(&bytes))
}

/// A model file already read as JSON (`value`), checked as [`load_model`] does;
/// `label` names the file in errors.
///
/// # Errors
/// As [`load_model`].
pub fn model_from_value(
    label: &str,
    value: serde_json::Value,
) -> Result<NashEvalModel, VerdictError> {
    checked_model(label, serde_json::from_value(value))
}

/// A parsed model's format, version and dimensions checked, or why it is not one.
fn checked_model(
    label: &str,
    parsed: Result<NashEvalModel, serde_json::Error>,
) -> Result<NashEvalModel, VerdictError> {
    let at = |message: String| VerdictError::Data(format!("{label}: {message}"));
    let model = parsed.map_err(|e| {
        at(format!(
            "not a model written by verdict fit (or damaged): {e}"
        ))
    })?;
    model.check_format().map_err(|e| at(e.to_string()))?;
    Ok(model)
}

/// New contexts read with `model`'s featurizer, features in the model's order.
#[derive(Debug, Clone)]
pub struct ModelContexts {
    /// The table as read (ids, feature names as found).
    pub table: ContextTable,
    /// `contexts × features`, in the model's order.
    pub features: Vec<f64>,
    /// One-hot columns of categories the model never saw: dropped, so such a context
    /// has none of the model's known categories.
    pub unseen_categories: Vec<String>,
}

impl ModelContexts {
    /// The warning for categories the model never saw, if any.
    pub fn unseen_warning(&self) -> Option<String> {
        unseen_warning(&self.unseen_categories)
    }
}

/// The warning for one-hot columns of categories a model never saw, if any.
fn unseen_warning(categories: &[String]) -> Option<String> {
    (!categories.is_empty()).then(|| {
        format!(
            "warning: categories unseen in training treated as none of the known ones: {}",
            categories.join(", ")
        )
    })
}

/// Contexts featurized and predicted at a time by [`predict_at`]: 65,536 contexts of
/// 256 embedding dimensions are 128 MiB of features, whatever the table's length.
pub const PREDICT_CHUNK_ROWS: usize = 1 << 16;

/// The model's predictions at the contexts of `source` ([`read_model_contexts`], then
/// [`NashEvalModel::predict`]), each context's payoff matrix with `payoffs`; the
/// warning of categories unseen in training goes to `warn`; `encoder` embeds the text
/// of a model fitted with one.
///
/// The table is read whole (its text), then featurized and predicted
/// [`PREDICT_CHUNK_ROWS`] contexts at a time, so memory holds one chunk's features
/// (a million prompts embedded at once took 6 GiB); every context's prediction
/// depends on its own row only, so the result is the same as in one piece.
///
/// # Errors
/// As [`read_model_contexts`] (a context id that appears twice is refused across
/// chunks too); the policy's errors.
pub fn predict_at(
    model: &NashEvalModel,
    source: &Source,
    encoder: Option<&TextEncoder>,
    payoffs: bool,
    warn: &dyn Fn(&str),
) -> Result<verdict_nasheval::Predictions, VerdictError> {
    let table = std::sync::Arc::new(read_table(source, None, None)?);
    if table.rows() > PREDICT_CHUNK_ROWS {
        verdict_io::context_ids(&table)?;
    }
    let mut predicted: Option<verdict_nasheval::Predictions> = None;
    let mut unseen: Vec<String> = Vec::new();
    for start in (0..table.rows().max(1)).step_by(PREDICT_CHUNK_ROWS) {
        let chunk = if table.rows() <= PREDICT_CHUNK_ROWS {
            std::sync::Arc::clone(&table)
        } else {
            let end = (start + PREDICT_CHUNK_ROWS).min(table.rows());
            std::sync::Arc::new(table.select_rows(&(start..end).collect::<Vec<_>>()))
        };
        let read = read_model_contexts(model, &Source::Table(chunk), encoder)?;
        for category in read.unseen_categories {
            if !unseen.contains(&category) {
                unseen.push(category);
            }
        }
        let part = model.predict(read.table.ids, &read.features, payoffs)?;
        match &mut predicted {
            None => predicted = Some(part),
            Some(whole) => whole.append(part),
        }
    }
    if let Some(warning) = unseen_warning(&unseen) {
        warn(&warning);
    }
    Ok(predicted.expect("at least one chunk is predicted"))
}

/// Reads `source` with `model`'s featurizer — its text embedded by `encoder` when the
/// model was fitted with one ([`Featurizer::options`]) — and aligns its features to
/// the model.
///
/// # Errors
/// [`VerdictError::Io`] for the table; [`VerdictError::Data`] naming the source and
/// the feature when the schema differs from the training log's;
/// [`VerdictError::Settings`] for an encoder that is not the model's.
pub fn read_model_contexts(
    model: &NashEvalModel,
    source: &Source,
    encoder: Option<&TextEncoder>,
) -> Result<ModelContexts, VerdictError> {
    let table = read_contexts(source, &Featurizer::of(model)?.options(encoder)?)?;
    check_feature_magnitudes(&table, &source.label())?;
    let aligned = model
        .align_features(&table.feature_names, &table.features)
        .map_err(|e| VerdictError::Data(format!("{}: {e}", source.label())))?;
    Ok(ModelContexts {
        table,
        features: aligned.features,
        unseen_categories: aligned.unseen_categories,
    })
}

/// The largest feature value a model is asked about, in magnitude: far past any
/// feature a model was fitted on, and far below where standardizing and the network's
/// arithmetic overflow (1e308 gave a near-uniform policy with every agent a winner,
/// 5e307 an error blaming the model).
pub const MAX_FEATURE_MAGNITUDE: f64 = 1e15;

/// Refuses a context whose feature value lies beyond [`MAX_FEATURE_MAGNITUDE`],
/// naming the context, the feature and the value: the request's value, not the model,
/// is what to fix.
fn check_feature_magnitudes(
    table: &verdict_io::ContextTable,
    label: &str,
) -> Result<(), VerdictError> {
    let columns = table.feature_names.len().max(1);
    match table
        .features
        .iter()
        .position(|v| v.abs() > MAX_FEATURE_MAGNITUDE)
    {
        None => Ok(()),
        Some(at) => Err(VerdictError::Data(format!(
            "{label}: context {:?}, feature {:?} = {:e} is beyond ±{MAX_FEATURE_MAGNITUDE:e}, where a model's arithmetic stops being exact; give it in a smaller unit",
            table.ids.get(at / columns).map_or("", String::as_str),
            table.feature_names[at % columns],
            table.features[at]
        ))),
    }
}

/// Most categories [`winners_by`] draws: more are a number, not a category.
pub const MAX_WINNER_CATEGORIES: usize = 50;

/// The values of column `column` of the contexts table at `source`, one per row, as
/// text (a missing value as `(missing)`).
///
/// # Errors
/// [`VerdictError::Data`] when the column is absent or has more than
/// [`MAX_WINNER_CATEGORIES`] distinct values.
pub fn category_column(source: &Source, column: &str) -> Result<Vec<String>, VerdictError> {
    let table = read_table(source, None, Some(&[column.to_string()]))?;
    let values = table.column(column).ok_or_else(|| {
        VerdictError::Data(format!(
            "{}: no column {column:?}; name a categorical column of the contexts table (e.g. language)",
            source.label()
        ))
    })?;
    let labels: Vec<String> = (0..table.rows())
        .map(|r| values.value(r).unwrap_or("(missing)").to_string())
        .collect();
    let distinct: std::collections::HashSet<&String> = labels.iter().collect();
    if distinct.len() > MAX_WINNER_CATEGORIES {
        return Err(VerdictError::Data(format!(
            "{}: column {column:?} has {} distinct values; who wins where needs a categorical column (at most {MAX_WINNER_CATEGORIES} values)",
            source.label(),
            distinct.len()
        )));
    }
    Ok(labels)
}

/// Who wins where: the share of the contexts at `source` of each value of its
/// categorical column `column` whose equilibrium under `model` puts most probability
/// on each agent (NashEval Figure 4).
///
/// # Errors
/// As [`read_model_contexts`] and [`category_column`].
pub fn winners_by(
    model: &NashEvalModel,
    source: &Source,
    encoder: Option<&TextEncoder>,
    column: &str,
) -> Result<WinnerFrequency, VerdictError> {
    let read = read_model_contexts(model, source, encoder)?;
    let labels = category_column(source, column)?;
    if labels.len() != read.table.ids.len() {
        return Err(VerdictError::Data(format!(
            "{}: {} rows but {} contexts",
            source.label(),
            labels.len(),
            read.table.ids.len()
        )));
    }
    let policies = model.policy(&read.features)?;
    Ok(WinnerFrequency::new(&model.agents, &labels, &policies))
}

/// Writes predictions as a Parquet table under verdict's output policy
/// ([`OutputFile`]): `context_id`, one float column per agent, `winners` (a list of
/// names) and, when present, `payoff` (the `K × K` matrix as a flat list, row-major).
///
/// # Errors
/// [`VerdictError::Io`] when the target is refused or cannot be written.
pub fn write_predictions_parquet(target: &OutputFile, p: &Predictions) -> Result<(), VerdictError> {
    let k = p.agents.len();
    let mut columns = vec![("context_id", ColumnData::Text(p.ids.clone()))];
    for (j, agent) in p.agents.iter().enumerate() {
        let column = p.probabilities.iter().skip(j).step_by(k).copied().collect();
        columns.push((agent.as_str(), ColumnData::Float(column)));
    }
    columns.push(("winners", ColumnData::TextList(p.winners.clone())));
    if let Some(payoffs) = &p.payoffs {
        let matrices = payoffs.chunks(k * k).map(<[f64]>::to_vec).collect();
        columns.push(("payoff", ColumnData::FloatList(matrices)));
    }
    target.write_through_path(|temporary| write_parquet_table(temporary, &columns))?;
    Ok(())
}
