//! Contextual logs read from contexts and feedback tables or from a battle log, a menu
//! catalogue read from JSON, and a log made ready for a NashEval fit: pairs of agents
//! that no menu holds are refused, or given a menu of their own for the pooled outcome
//! model to extrapolate to.

use std::path::Path;
use verdict_settings::Setting;

use verdict_feedback::ContextualLog;
use verdict_io::{read_battles_as_contextual, read_contextual_log, ContextualOptions, Source};
use verdict_nasheval::NuisanceDesign;

use crate::VerdictError;

/// Where a contextual log comes from.
#[derive(Debug, Clone)]
pub enum LogSource {
    /// A contexts table (`context_id` and features) and a feedback table
    /// (`context_id, menu, modality, response`).
    Tables {
        /// The contexts table.
        contexts: Source,
        /// The feedback table.
        feedback: Source,
    },
    /// An LMArena battle log read as pairwise feedback, each battle's context made of
    /// the named metadata columns.
    Battles {
        /// The battle log.
        log: Source,
        /// The columns that make up a battle's context.
        context_columns: Vec<String>,
    },
}

impl LogSource {
    /// The log that the given tables name: contexts with feedback, or a battle log
    /// whose `context_columns` make the context — what every face's settings say.
    ///
    /// # Errors
    /// [`VerdictError::Settings`] for any other combination, naming the settings.
    pub fn from_tables(
        contexts: Option<Source>,
        feedback: Option<Source>,
        battles: Option<Source>,
        context_columns: Vec<String>,
    ) -> Result<Self, VerdictError> {
        match (contexts, feedback, battles) {
            (Some(contexts), Some(feedback), None) => Ok(Self::Tables { contexts, feedback }),
            (None, None, Some(log)) => Ok(Self::Battles {
                log,
                context_columns,
            }),
            _ => Err(VerdictError::Settings(format!(
                "give {} and {}, or {} with {} or {}",
                Setting("contexts"),
                Setting("feedback"),
                Setting("battles"),
                Setting("context_cols"),
                Setting("text_col")
            ))),
        }
    }
}

/// Reads the log `source` names with `options`.
///
/// # Errors
/// [`VerdictError::Io`] naming the file, row and column at fault.
pub fn read_log(
    source: &LogSource,
    options: &ContextualOptions,
) -> Result<ContextualLog, VerdictError> {
    Ok(match source {
        LogSource::Tables { contexts, feedback } => {
            read_contextual_log(contexts, feedback, options)?
        }
        LogSource::Battles { .. } if options.propensity_column.is_some() => {
            return Err(VerdictError::Settings(format!(
                "{} reads a feedback table's column; a battle log has none: give the log as contexts and feedback tables",
                Setting("propensity_column")
            )))
        }
        LogSource::Battles {
            log,
            context_columns,
        } => read_battles_as_contextual(log, context_columns, options)?,
    })
}

/// A menu catalogue: a JSON list of menus, each a list of agent names.
///
/// # Errors
/// [`VerdictError::Data`] naming the file when it cannot be read or is not such a list.
pub fn read_catalogue(path: &Path) -> Result<Vec<Vec<String>>, VerdictError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| VerdictError::Data(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        VerdictError::Data(format!(
            "{}: the catalogue must be a JSON list of menus, each a list of agent names ({e})",
            path.display()
        ))
    })
}

/// Pairs named in a message before "and N more".
const NAMED_PAIRS: usize = 8;

/// Pairs of agents no menu of `log` holds: their payoffs cannot be learned from the
/// log. Refused unless `allow_unobserved`; then each gets a menu of its own with no
/// feedback ([`ContextualLog::hold_every_pair`]), which only an outcome model shared
/// by every pair (pooled or structured) can extrapolate to, and the returned warning
/// names them and the model. `Ok(None)`: every pair is
/// held.
///
/// # Errors
/// [`VerdictError::Settings`] naming the pairs (and `allow_unobserved`), or when
/// `allow_unobserved` is asked of the per-menu design.
pub fn complete_pairs(
    log: &mut ContextualLog,
    allow_unobserved: bool,
    design: NuisanceDesign,
) -> Result<Option<String>, VerdictError> {
    let unheld = log.unheld_pairs();
    if unheld.is_empty() {
        return Ok(None);
    }
    let names: Vec<String> = unheld
        .iter()
        .take(NAMED_PAIRS)
        .map(|&(j, k)| format!("{} vs {}", log.agents[j], log.agents[k]))
        .collect();
    let more = match unheld.len() - names.len() {
        0 => String::new(),
        rest => format!(" and {rest} more"),
    };
    let (count, names) = (unheld.len(), names.join(", "));
    if !allow_unobserved {
        return Err(VerdictError::Settings(format!(
            "{count} pairs of agents never met in any menu ({names}{more}): their payoffs cannot be learned from this log; set {allow_unobserved} to extrapolate them through an outcome model shared by every pair (the pooled or structured design)", allow_unobserved = Setting("allow_unobserved")
        )));
    }
    if design == NuisanceDesign::PerMenu {
        return Err(VerdictError::Settings(
            format!("{allow_unobserved} extrapolates through an outcome model shared by every pair (the pooled or structured design); it does not combine with {nuisance_design} per-menu", allow_unobserved = Setting("allow_unobserved"), nuisance_design = Setting("nuisance_design")),
        ));
    }
    log.hold_every_pair();
    let model = match design {
        NuisanceDesign::Pooled => "the pooled outcome model",
        NuisanceDesign::Structured => "the structured outcome model (each agent's scores)",
        // Auto settles on a design later, and never per menu once pairs are unheld.
        _ => "the outcome model shared by every pair",
    };
    Ok(Some(format!(
        "warning: {count} pairs of agents never met ({names}{more}); their payoffs are extrapolated by {model} from the agents' other battles, not observed"
    )))
}
