//! Contextual feedback logs: a *contexts* table (`context_id` and feature columns —
//! numbers as they are, categories one-hot or as codes, optionally a text column
//! turned into hashed n-gram features) and a *feedback* table (`context_id`, `menu`,
//! `modality`, `response`), each CSV, JSON Lines, JSON or Parquet.
//!
//! `menu` is a list of agent names (a JSON array, a Parquet list, or names joined
//! by `|`); `response` is the modality's natural form (a winner name, a JSON list for
//! rankings and top sets, a list of lists for weak rankings, an object for scores or
//! best–worst; see [`verdict_feedback::Response::from_json`]).

use std::collections::{HashMap, HashSet};
use verdict_settings::Setting;

use verdict_feedback::{ContextualLog, ContextualLogBuilder, Outcome, Response};

use crate::text_encoder::TextEncoder;
use crate::{read_table, IoError, Location, Source, Table};
use sha2::Digest as _;

/// How categorical context columns become features (named `onehot` and `codes` in
/// model files and on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::VariantArray, strum::EnumString, strum::EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum CategoricalEncoding {
    /// One 0/1 column per category (`column=value`).
    #[default]
    #[strum(to_string = "onehot")]
    OneHot,
    /// One column holding the category's code, [`category_code`]: the same in every
    /// table, so a model fitted on one reads another.
    Codes,
}

/// Settings of [`read_contextual_log`].
#[derive(Debug, Clone, PartialEq)]
pub struct ContextualOptions {
    /// A column of free text to featurize ([`text_features`]); `None` for none.
    pub text_column: Option<String>,
    /// Dimensions of the hashed text features (unused with an encoder).
    pub text_dim: usize,
    /// The encoder whose mean token embedding is the text column's features
    /// (`embedding_0 ..`); `None` hashes the text.
    pub text_encoder: Option<TextEncoder>,
    /// Encoding of categorical columns.
    pub categorical: CategoricalEncoding,
    /// The menu catalogue Q; `None` infers it from the feedback.
    pub catalogue: Option<Vec<Vec<String>>>,
    /// A feedback column holding the probability with which each row's menu was
    /// offered at its context (a router's decision log records it exactly); `None`
    /// leaves the propensities to be learned.
    pub propensity_column: Option<String>,
}

impl Default for ContextualOptions {
    fn default() -> Self {
        Self {
            text_column: None,
            text_dim: 64,
            text_encoder: None,
            categorical: CategoricalEncoding::OneHot,
            catalogue: None,
            propensity_column: None,
        }
    }
}

/// A contexts table read on its own: ids and features (`contexts × features`,
/// row-major), as a model predicting at new contexts needs them.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextTable {
    /// Context ids, in order.
    pub ids: Vec<String>,
    /// Names of the feature columns.
    pub feature_names: Vec<String>,
    /// Features, contexts × features row-major.
    pub features: Vec<f64>,
}

/// The `context_id` column of a contexts table, checked: every row has one, and no id
/// appears twice.
///
/// # Errors
/// [`IoError`] at the row of a missing or repeated id, or for a table without the
/// column.
pub fn context_ids(table: &Table) -> Result<Vec<String>, IoError> {
    let ids = required(
        table,
        "context_id",
        "name the column of context ids context_id",
    )?;
    let mut seen = HashSet::with_capacity(table.rows());
    let mut names = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let id = ids.value(row).ok_or_else(|| {
            IoError::invalid(
                table.location(row, Some("context_id")),
                "missing context id",
            )
        })?;
        if !seen.insert(id) {
            return Err(IoError::invalid(
                table.location(row, Some("context_id")),
                format!("context id {id:?} appears twice; ids must be unique"),
            ));
        }
        names.push(id.to_string());
    }
    Ok(names)
}

/// Reads and checks a contexts table: unique ids, features as
/// [`read_contextual_log`] builds them.
///
/// # Errors
/// [`IoError`] naming file, row and column: a missing `context_id` column or id, a
/// duplicate id, no features, a missing feature value.
pub fn read_contexts(
    contexts: &Source,
    options: &ContextualOptions,
) -> Result<ContextTable, IoError> {
    let table = read_table(contexts, None, None)?;
    let names = context_ids(&table)?;
    let (feature_names, features) = featurize(&table, options)?;
    Ok(ContextTable {
        ids: names,
        feature_names,
        features,
    })
}

/// Reads and checks a contextual log.
///
/// # Errors
/// [`IoError`] naming file, row and column: a missing column, a duplicate or unknown
/// context id, contexts with no features, a missing feature value, a menu of one agent
/// or with an agent twice, a response naming agents outside its menu or an agent twice,
/// a menu outside a given catalogue, no feedback at all.
pub fn read_contextual_log(
    contexts: &Source,
    feedback: &Source,
    options: &ContextualOptions,
) -> Result<ContextualLog, IoError> {
    let table = read_contexts(contexts, options)?;
    let index: HashMap<String, usize> = table
        .ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.clone(), i))
        .collect();
    read_feedback(
        feedback,
        options,
        &index,
        table.ids,
        table.feature_names,
        table.features,
    )
}

/// The feedback table against the contexts already read (`index`: id → position).
fn read_feedback(
    feedback: &Source,
    options: &ContextualOptions,
    index: &HashMap<String, usize>,
    names: Vec<String>,
    feature_names: Vec<String>,
    features: Vec<f64>,
) -> Result<ContextualLog, IoError> {
    let log = read_table(feedback, None, None)?;
    let hint = "feedback needs columns context_id, menu, modality, response";
    let context_column = required(&log, "context_id", hint)?;
    let responses = FeedbackColumns::new(&log, hint)?;
    let propensity_column = options
        .propensity_column
        .as_deref()
        .map(|name| {
            required(
                &log,
                name,
                &format!(
                    "{} names the feedback column of logged propensities",
                    Setting("propensity_column")
                ),
            )
        })
        .transpose()?;
    let mut builder = match &options.catalogue {
        Some(menus) => ContextualLogBuilder::with_catalogue(menus)
            .map_err(|e| IoError::invalid_file(log.file(), format!("catalogue: {e}")))?,
        None => ContextualLogBuilder::new(),
    };
    for row in 0..log.rows() {
        let id = cell(&log, context_column, row)?;
        let &context = index.get(id).ok_or_else(|| {
            IoError::invalid(
                log.location(row, Some("context_id")),
                format!("context id {id:?} is not in the contexts table"),
            )
        })?;
        let (menu, response) = responses.row(row)?;
        let menu = builder
            .menu_of(&menu)
            .map_err(|e| IoError::invalid(log.location(row, Some("menu")), e.0))?;
        builder
            .add_to_menu(context, menu, &response)
            .map_err(|e| IoError::invalid(log.location(row, Some("response")), e.0))?;
        if let Some(column) = propensity_column {
            let at = || log.location(row, Some(column.name()));
            let text = cell(&log, column, row)?;
            let propensity = text.trim().parse::<f64>().map_err(|_| {
                IoError::invalid(at(), format!("propensity {text:?} is not a number"))
            })?;
            builder
                .log_propensity(context, menu, propensity)
                .map_err(|e| IoError::invalid(at(), e.0))?;
        }
    }
    Ok(builder.finish(names, feature_names, features))
}

/// The `menu`, `modality` and `response` columns of a feedback table, read a row at a
/// time.
pub(crate) struct FeedbackColumns<'t> {
    table: &'t Table,
    menu: &'t crate::Column,
    modality: &'t crate::Column,
    response: &'t crate::Column,
}

impl<'t> FeedbackColumns<'t> {
    /// The columns of `table`; `hint` names every column the caller needs, for the
    /// error when one is missing.
    ///
    /// # Errors
    /// A missing column; a table without rows.
    pub(crate) fn new(table: &'t Table, hint: &str) -> Result<Self, IoError> {
        let column = |name: &str| required(table, name, hint);
        let columns = Self {
            table,
            menu: column("menu")?,
            modality: column("modality")?,
            response: column("response")?,
        };
        if table.rows() == 0 {
            return Err(IoError::invalid_file(
                table.file(),
                "no feedback rows; the log is empty",
            ));
        }
        Ok(columns)
    }

    /// Row `row`'s menu and response.
    ///
    /// # Errors
    /// A missing cell, a malformed menu or response, located at its row and column.
    pub(crate) fn row(&self, row: usize) -> Result<(Vec<String>, Response), IoError> {
        let log = self.table;
        let menu = parse_menu(cell(log, self.menu, row)?)
            .map_err(|m| IoError::invalid(log.location(row, Some("menu")), m))?;
        let modality = cell(log, self.modality, row)?;
        let raw = cell(log, self.response, row)?;
        let value = serde_json::from_str(raw)
            .unwrap_or_else(|_| serde_json::Value::String(raw.to_string()));
        let response = Response::from_json(modality, &value)
            .map_err(|e| IoError::invalid(log.location(row, Some("response")), e.0))?;
        Ok((menu, response))
    }
}

/// The value of `column` at `row`, or an error at that place.
fn cell<'t>(table: &Table, column: &'t crate::Column, row: usize) -> Result<&'t str, IoError> {
    column
        .value(row)
        .ok_or_else(|| IoError::invalid(table.location(row, Some(column.name())), "missing value"))
}

fn required<'t>(table: &'t Table, name: &str, hint: &str) -> Result<&'t crate::Column, IoError> {
    table.required(name, hint)
}

/// A menu: a JSON array of names, or names joined by `|`.
fn parse_menu(text: &str) -> Result<Vec<String>, String> {
    let text = text.trim();
    if text.starts_with('[') {
        return serde_json::from_str::<Vec<String>>(text)
            .map_err(|e| format!("menu {text:?} is not a JSON list of names: {e}"));
    }
    Ok(text.split('|').map(|s| s.trim().to_string()).collect())
}

/// Feature columns of the contexts table: every column but `context_id` (and the text
/// column, which becomes `text_0 ..`).
fn featurize(
    table: &Table,
    options: &ContextualOptions,
) -> Result<(Vec<String>, Vec<f64>), IoError> {
    let mut columns = Vec::new();
    for column in table.columns() {
        let name = column.name();
        if name == "context_id" || Some(name) == options.text_column.as_deref() {
            continue;
        }
        columns.push((name.to_string(), column_values(table, column)?));
    }
    let text = match &options.text_column {
        Some(_) if options.text_dim == 0 && options.text_encoder.is_none() => return Err(IoError::invalid_file(
            table.file(),
            format!("{text_dim} 0 leaves the text column no features; use at least 1 (the default is 64)", text_dim = Setting("text_dim")),
        )),
        Some(text) => {
            required(
                table,
                text,
                &format!("{text_column} names a column of the contexts table", text_column = Setting("text_column")),
            )?;
            let column = table.column(text).expect("checked");
            Some((
                text.as_str(),
                (0..table.rows())
                    .map(|r| column.value(r).unwrap_or(""))
                    .collect(),
            ))
        }
        None => None,
    };
    let locate = |row: usize, column: &str| table.location(row, Some(column));
    encode_features(&columns, text, options, table.rows(), &locate)?.ok_or_else(|| {
        IoError::invalid_file(
            table.file(),
            "the contexts have no features; add feature columns or name a text column",
        )
    })
}

/// Every value of `column`, refusing a missing one with its place.
fn column_values<'t>(table: &Table, column: &'t crate::Column) -> Result<Vec<&'t str>, IoError> {
    (0..table.rows())
        .map(|row| {
            column.value(row).ok_or_else(|| {
                IoError::invalid(
                    table.location(row, Some(column.name())),
                    "missing feature value; fill it or drop the column",
                )
            })
        })
        .collect()
}

/// Feature names and the contexts × features matrix, row-major.
type NamedFeatures = (Vec<String>, Vec<f64>);

/// Most distinct values a categorical column may have under one-hot encoding: past
/// it the column is far more likely free text or an identifier than a category.
pub const MAX_ONE_HOT_LEVELS: usize = 100;

/// Features from named columns of values (numbers as they are, anything else a
/// category, one-hot or coded) and an optional text column (hashed); `None` when there
/// is no feature at all. Contexts × features, row-major. `locate` gives the place of
/// value `i` of a column, for errors.
///
/// A column most of whose values are finite numbers is numeric: any other value in it
/// (a word, NaN, inf, 1e400) is an error naming its row, not a silent change of the
/// whole column into categories. A one-hot column with more than
/// [`MAX_ONE_HOT_LEVELS`] levels is refused with the fix.
fn encode_features(
    columns: &[(String, Vec<&str>)],
    text: Option<(&str, Vec<&str>)>,
    options: &ContextualOptions,
    rows: usize,
    locate: &dyn Fn(usize, &str) -> Location,
) -> Result<Option<NamedFeatures>, IoError> {
    let mut names = Vec::new();
    let mut encoded: Vec<Vec<f64>> = Vec::new();
    for (name, values) in columns {
        let parsed: Vec<Option<f64>> = values
            .iter()
            .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        let finite = parsed.iter().filter(|x| x.is_some()).count();
        if finite * 2 > values.len() {
            if let Some(bad) = parsed.iter().position(Option::is_none) {
                return Err(IoError::invalid(
                    locate(bad, name),
                    format!(
                        "{:?} in a numeric column ({finite} of {} values are finite numbers); write a finite number or drop the row",
                        values[bad],
                        values.len()
                    ),
                ));
            }
            names.push(name.clone());
            encoded.push(parsed.into_iter().flatten().collect());
            continue;
        }
        // A precomputed embedding: a list of numbers per row, all of one length.
        if let Some(vectors) = embeddings(values, &|row| locate(row, name))? {
            for d in 0..vectors[0].len() {
                names.push(format!("{name}_{d}"));
                encoded.push(vectors.iter().map(|v| v[d]).collect());
            }
            continue;
        }
        match options.categorical {
            CategoricalEncoding::Codes => {
                names.push(name.clone());
                encoded.push(values.iter().map(|v| category_code(v)).collect());
            }
            CategoricalEncoding::OneHot => {
                let distinct: HashSet<&&str> = values.iter().collect();
                if distinct.len() > MAX_ONE_HOT_LEVELS {
                    return Err(IoError::invalid(
                        Location {
                            column: Some(name.clone()),
                            row: None,
                            ..locate(0, name)
                        },
                        format!(
                            "{} distinct values in {} rows, too many for one-hot features (at most {MAX_ONE_HOT_LEVELS}): {}",
                            distinct.len(),
                            values.len(),
                            many_levels_hint(name, distinct.len() == values.len(), options)
                        ),
                    ));
                }
                let mut levels: Vec<&str> = Vec::new();
                let mut level_of: HashMap<&str, usize> = HashMap::new();
                let codes: Vec<usize> = values
                    .iter()
                    .map(|&v| {
                        *level_of.entry(v).or_insert_with(|| {
                            levels.push(v);
                            levels.len() - 1
                        })
                    })
                    .collect();
                for (level, value) in levels.iter().enumerate() {
                    names.push(format!("{name}={value}"));
                    encoded.push(
                        codes
                            .iter()
                            .map(|&c| f64::from(u8::from(c == level)))
                            .collect(),
                    );
                }
            }
        }
    }
    if let Some((column, text)) = text {
        let (prefix, dim, values) = match &options.text_encoder {
            Some(encoder) => {
                let values = encoder
                    .0
                    .embed_all(&text)
                    .map_err(|(row, message)| IoError::invalid(locate(row, column), message))?;
                ("embedding", encoder.0.dim(), values)
            }
            None => {
                let dim = options.text_dim;
                let values = text.iter().flat_map(|t| text_features(t, dim)).collect();
                ("text", dim, values)
            }
        };
        let mut columns = vec![vec![0.0; rows]; dim];
        for (row, features) in values.chunks(dim.max(1)).enumerate() {
            for (dimension, &v) in columns.iter_mut().zip(features) {
                dimension[row] = v;
            }
        }
        names.extend((0..dim).map(|d| format!("{prefix}_{d}")));
        encoded.extend(columns);
    }
    if encoded.is_empty() {
        return Ok(None);
    }
    let width = encoded.len();
    let mut features = vec![0.0; rows * width];
    for (c, values) in encoded.iter().enumerate() {
        for (row, v) in values.iter().enumerate() {
            features[row * width + c] = *v;
        }
    }
    Ok(Some((names, features)))
}

/// What to do with a column of too many levels for one-hot features: a column that is
/// already the text column is named as such; a column of identifiers (every value
/// distinct, an `id` in its name) is no feature at all; free text goes to the text
/// column; a category with many levels takes codes.
fn many_levels_hint(name: &str, all_distinct: bool, options: &ContextualOptions) -> String {
    let text_column = Setting("text_column");
    let categorical = Setting("categorical");
    if options.text_column.as_deref() == Some(name) {
        return format!("{name} is already the {text_column}; drop it from the context columns");
    }
    let lower = name.to_ascii_lowercase();
    let identifier = ["id", "uuid"].iter().any(|id| {
        lower == *id
            || ["_", "-", " "]
                .iter()
                .any(|sep| lower.ends_with(&format!("{sep}{id}")))
    });
    if all_distinct && identifier {
        return format!("{name} looks like an identifier (every value distinct), which is no feature: drop it from the context columns");
    }
    format!("if it is free text, name it with {text_column} {name} (and not as a context column); a category with many levels takes {categorical} codes")
}

/// The numbers of a list's text (`[0.25, -1.5, NaN]`: a JSON array, or a Parquet or
/// Arrow `list<float>` / `fixed_size_list` as it reads), each parsed on its own so a
/// NaN or infinity is seen rather than failing the whole row; `None` when the text
/// is not a bracketed list whose first item is a number.
fn number_list(text: &str) -> Option<Vec<Result<f64, &str>>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let items: Vec<Result<f64, &str>> = inner
        .split(',')
        .map(|item| item.trim().parse::<f64>().map_err(|_| item.trim()))
        .collect();
    items[0].is_ok().then_some(items)
}

/// A column of precomputed embeddings — more than half of its rows lists of numbers
/// ([`number_list`]) — as one vector per row, or `None` for another kind of column.
/// Every row must then be a list of finite numbers as long as the first row's.
///
/// # Errors
/// [`IoError`] at `locate(row)` for the first row that is not such a list: of
/// another length, with NaN, an infinity or a word in it, or not a list at all.
fn embeddings(
    values: &[&str],
    locate: &dyn Fn(usize) -> Location,
) -> Result<Option<Vec<Vec<f64>>>, IoError> {
    let lists: Vec<Option<Vec<Result<f64, &str>>>> =
        values.iter().map(|v| number_list(v)).collect();
    if lists.iter().filter(|l| l.is_some()).count() * 2 <= values.len() {
        return Ok(None);
    }
    let dimension = lists.iter().flatten().next().map_or(0, Vec::len);
    let mut vectors = Vec::with_capacity(values.len());
    for (row, list) in lists.into_iter().enumerate() {
        let problem = match &list {
            None => Some(format!("{:?} is not a list of numbers", values[row])),
            Some(items) if items.len() != dimension || dimension == 0 => Some(format!(
                "an embedding of {} numbers where the first row's has {dimension}; every row needs the same dimension",
                items.len()
            )),
            Some(items) => items.iter().find_map(|item| match item {
                Ok(x) if x.is_finite() => None,
                Ok(x) => Some(format!("{x} in an embedding; every entry must be a finite number")),
                Err("") => Some("a missing value (null or NaN) in an embedding; every entry must be a finite number".into()),
                Err(word) => Some(format!("{word:?} in an embedding; every entry must be a finite number")),
            }),
        };
        if let Some(problem) = problem {
            return Err(IoError::invalid(
                locate(row),
                format!("{problem} (fix or drop the row)"),
            ));
        }
        let items = list.expect("checked");
        vectors.push(items.into_iter().map(|x| x.expect("checked")).collect());
    }
    Ok(Some(vectors))
}

/// An LMArena battle log (`model_a`, `model_b`, `winner`) as a contextual log of
/// pairwise duels: the context of a battle is the tuple of its `context_cols` values
/// and, with a text column in `options`, its text (battles with equal values share
/// one context, its id the values joined by `|`, the text shown by the first 12 hex
/// digits of its SHA-256); those columns are its features, the text embedded or
/// hashed as in a contexts table; `tie` and `tie (bothbad)` are declared ties.
///
/// # Errors
/// [`IoError`] naming file, row and column: a missing column or value, an unknown
/// winner label, a model battling itself, neither a context column nor a text
/// column, the text column also named as a context column.
pub fn read_battles_as_contextual(
    source: &Source,
    context_cols: &[String],
    options: &ContextualOptions,
) -> Result<ContextualLog, IoError> {
    let text_column = options.text_column.as_deref();
    let mut wanted: Vec<String> = ["model_a", "model_b", "winner"].map(String::from).to_vec();
    wanted.extend(context_cols.iter().cloned());
    wanted.extend(text_column.map(String::from));
    let table = read_table(source, None, Some(&wanted))?;
    let hint = format!(
        "{context_columns} names metadata columns of the battle log and {text_column} its prompt",
        context_columns = Setting("context_columns"),
        text_column = Setting("text_column")
    );
    for name in &wanted {
        required(&table, name, &hint)?;
    }
    if let Some(text) = text_column.filter(|t| context_cols.iter().any(|c| c == t)) {
        return Err(IoError::invalid_file(
            table.file(),
            format!(
                "{text} is the {text_column} and a context column; name it once, as the {text_column}",
                text_column = Setting("text_column")
            ),
        ));
    }
    if context_cols.is_empty() && text_column.is_none() {
        return Err(IoError::invalid_file(
            table.file(),
            format!(
                "no context columns; name at least one with {context_columns}, or the prompt column with {text_column}",
                context_columns = Setting("context_columns"),
                text_column = Setting("text_column")
            ),
        ));
    }
    let values: Vec<Vec<&str>> = context_cols
        .iter()
        .map(|name| column_values(&table, required(&table, name, &hint)?))
        .collect::<Result<_, _>>()?;
    let texts: Option<Vec<&str>> = text_column
        .map(|name| column_values(&table, required(&table, name, &hint)?))
        .transpose()?;
    let mut index: HashMap<Vec<&str>, usize> = HashMap::new();
    let mut first_row = Vec::new();
    let mut context_of = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let mut key: Vec<&str> = values.iter().map(|v| v[row]).collect();
        key.extend(texts.as_ref().map(|t| t[row]));
        let next = index.len();
        let context = *index.entry(key).or_insert_with(|| {
            first_row.push(row);
            next
        });
        context_of.push(context);
    }
    let columns: Vec<(String, Vec<&str>)> = context_cols
        .iter()
        .zip(&values)
        .map(|(name, v)| (name.clone(), first_row.iter().map(|&r| v[r]).collect()))
        .collect();
    let text = text_column.zip(
        texts
            .as_ref()
            .map(|t| first_row.iter().map(|&r| t[r]).collect()),
    );
    let locate = |i: usize, column: &str| table.location(first_row[i], Some(column));
    let (feature_names, features) =
        encode_features(&columns, text, options, first_row.len(), &locate)?
            .expect("a context column or the text");
    let column = |name: &str| required(&table, name, &hint);
    let (model_a, model_b, winner) = (column("model_a")?, column("model_b")?, column("winner")?);
    let mut builder = ContextualLogBuilder::new();
    for (row, &context) in context_of.iter().enumerate() {
        let (a, b) = (cell(&table, model_a, row)?, cell(&table, model_b, row)?);
        let winner = cell(&table, winner, row)?;
        let outcome = Outcome::parse(winner)
            .map_err(|e| IoError::invalid(table.location(row, Some("winner")), e.to_string()))?;
        let response = Response::Duel(match outcome {
            Outcome::WinA => Some(a.to_string()),
            Outcome::WinB => Some(b.to_string()),
            Outcome::Tie | Outcome::TieBothBad => None,
        });
        builder
            .add(context, &[a.to_string(), b.to_string()], &response)
            .map_err(|e| IoError::invalid(table.location(row, Some("model_b")), e.0))?;
    }
    let mut ids: Vec<(usize, String)> = index
        .into_iter()
        .map(|(key, context)| (context, context_id(&key, texts.is_some())))
        .collect();
    ids.sort();
    Ok(builder.finish(
        ids.into_iter().map(|(_, k)| k).collect(),
        feature_names,
        features,
    ))
}

/// A battle context's id: its column values joined by `|`, a text (the last value when
/// `with_text`) shown by the first 12 hex digits of its SHA-256.
fn context_id(key: &[&str], with_text: bool) -> String {
    let mut parts: Vec<String> = key.iter().map(|v| (*v).to_owned()).collect();
    if with_text {
        if let Some(text) = parts.last_mut() {
            let digest = sha2::Sha256::digest(text.as_bytes());
            let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
            *text = format!("text:{hex}");
        }
    }
    parts.join("|")
}

/// Hashed text features: lower-cased word unigrams and bigrams and character
/// trigrams, each added with a hash-chosen sign to one of `dim` buckets (feature
/// hashing), then scaled to unit length. Deterministic across runs and platforms
/// (FNV-1a, written out here because a hash crate for ten lines is not worth a
/// dependency, and the standard library's hasher may change between releases).
pub fn text_features(text: &str, dim: usize) -> Vec<f64> {
    let mut out = vec![0.0; dim];
    if dim == 0 {
        return out;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut add = |gram: &str| {
        let h = fnv1a(gram.as_bytes());
        let sign = if h >> 63 == 1 { -1.0 } else { 1.0 };
        out[(h % dim as u64) as usize] += sign;
    };
    for w in &words {
        add(&format!("w:{w}"));
    }
    for pair in words.windows(2) {
        add(&format!("b:{} {}", pair[0], pair[1]));
    }
    let chars: Vec<char> = format!(" {} ", words.join(" ")).chars().collect();
    for tri in chars.windows(3) {
        add(&format!("c:{}", tri.iter().collect::<String>()));
    }
    let norm = out.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 {
        out.iter_mut().for_each(|v| *v /= norm);
    }
    out
}

/// The code of a category under [`CategoricalEncoding::Codes`]: its 64-bit FNV-1a
/// hash scaled into `[0, 1)`. It depends on the value alone — not on the order in
/// which a table lists its categories — so training and prediction tables agree; the
/// order it induces is arbitrary, as any coding of unordered categories is.
pub fn category_code(value: &str) -> f64 {
    fnv1a(value.as_bytes()) as f64 / 2f64.powi(64)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
