#![warn(missing_docs)]
//! The shared vocabulary of verdict: agents named by strings outside and by dense
//! indices inside, the outcome of one pairwise battle, a battle log, and relative
//! feedback of every modality as an ordered partition of its menu (NashEval Eq. 2–3,
//! Table 5).
//!
//! A battle between models `a` and `b` ends in one of four outcomes (LMArena schema):
//! `model_a`, `model_b`, `tie` or `tie (bothbad)`. Its pairwise verdict is
//! `Z_ab = 1[a ≻ b] − 1[b ≻ a]` (NashEval Eq. 3): +1, −1, or 0 for either tie.

mod battles;
mod contextual;
mod counts;
mod interner;
mod outcome;
mod partition;

pub use battles::{BattleLog, BattleLogError};
pub use contextual::{ContextualLog, ContextualLogBuilder, LogSummary, MenuFeedback, MenuSummary};
pub use counts::{ModelTally, PairCounts, PairCountsBuilder, PairTally, WeightBin};
pub use interner::{Interner, ModelId};
pub use outcome::{Outcome, ParseOutcomeError};
pub use partition::{FeedbackError, OrderedPartition, Response};
