#![warn(missing_docs)]
//! Rendering of verdict results: aligned tables for people, JSON and CSV for scripts,
//! and plots. Domain crates compute `Serialize` structs; only this crate formats them.
//!
//! # The `rank` JSON schema
//! One method:
//! ```text
//! {"method": "bradley-terry" | "bradley-terry-covariates" | "elo" | "maximal-lottery",
//!  "point": "fit" | "bootstrap-median",                       // Elo with bootstrap: medians
//!  "interval": {"method": {"kind": "bootstrap", "rounds": 1000, "seed": 0} | {"kind": "sandwich"},
//!               "confidence": 0.95} | null,
//!  "models": [{"name", "score", "ci_low", "ci_high", "rank", "rank_ub",
//!              "wins", "losses", "ties", "battles",
//!              "probability", "exploitability",              // the lottery only
//!              "support_share",                               // bootstrapped lottery only
//!              "rank_change",                                 // covariates: vs the plain board
//!              "flip": {"battles", "approximate"}}, ...],     // --fragility: to level the next
//!                                                             // (best first)
//!  "lottery": {"support", "exploitability", "status", "condorcet_winner",
//!              "unobserved_pairs"},                           // maximal lottery only
//!  "fit": {"solver", "ties", "iterations", "gradient_norm", "status",
//!          "regularization", "log_likelihood", "tie_parameter"} | null,
//!  "matrices": {"models", "wins", "ties", "win_probability"} | null,   // --matrix
//!  "coefficients": [{"name", "estimate", "ci_low", "ci_high", "mean", "sd"}],  // covariates only
//!  "top_flip": {"top", "challenger", "battles", "approximate"},  // --fragility
//!  "battles": N, "source": "file", "notes": ["..."]}
//! ```
//! `--method all`: `{"method": "all", "leaderboards": [<one method>, ...], "notes": [...]}`;
//! the maximal lottery is left out (with a note) when pairs never met and
//! `--allow-unobserved` is not given.

mod cells;
mod combined;
#[cfg(feature = "plots")]
mod curves;
mod error;
mod game;
mod html;
mod judge_run;
mod judges;
mod log;
#[cfg(feature = "nasheval")]
mod nasheval;
#[cfg(feature = "nasheval")]
mod nasheval_figures;
mod ope_page;
#[cfg(feature = "plots")]
mod plot;
mod rank;
mod table;

pub use cells::{spreadsheet_safe, terminal_safe};
pub use combined::{combined_html, PagePart};
#[cfg(feature = "plots")]
pub use curves::{curves_svg, plot_curves, Curves, Series};
pub use error::ReportError;
pub use game::{game_table, AgentProbability, GameReport};
#[cfg(feature = "plots")]
pub use html::{experiment_sections, judges_html, judges_sections};
pub use html::{
    game_html, game_sections, page, rank_html, rank_sections, IntervalRow, GENERATOR_META,
};
pub use judge_run::{
    budget_plan_csv, budget_plan_text, judge_run_html, judge_run_sections, judged_scores_csv,
    judged_scores_sections,
};
#[cfg(feature = "plots")]
pub use judges::judges_curves;
pub use judges::judges_table;
pub use log::log_summary;
#[cfg(feature = "nasheval")]
pub use nasheval::{
    fit_html, fit_notes, fit_sections, fit_summary, floor_text, predictions_csv, predictions_json,
    rank_choice_lines, score_sections, FitPage, PolicyScoreRow,
};
pub use ope_page::{ope_html, OpePage, PlanePoint, Ranged};
#[cfg(feature = "plots")]
pub use plot::plot_leaderboard;
pub use rank::{
    Coefficient, FitSummary, GroupBoard, LotterySummary, Matrices, RankOutput, RankReport,
    RobustSummary, TopFlip, UnobservedDiagnosis, UnobservedMember,
};
pub use table::{render_csv, render_table, TextTable};
