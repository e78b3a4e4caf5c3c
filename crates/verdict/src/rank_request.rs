//! One ranking request — where the battles are, how to read them, the settings —
//! routed to the reader and the leaderboard it needs, so that `verdict rank` and
//! Python's `rank` each convert their arguments, make one call ([`rank_request`]) and
//! render what comes back.
//!
//! The route ([`Reading::route`]):
//! - `method` Plackett–Luce reads rankings: a feedback table's menu, modality and
//!   response ([`rank_rankings`]); the battle-log settings do not apply and are
//!   refused by name.
//! - covariates or style control read every battle with its covariates
//!   ([`read_covariate_log`], [`rank_with_covariates`]): one table, one board.
//! - Bradley–Terry and the plain lottery read nothing but pair counts: a dataset (a
//!   directory or a glob) always, and a file or an in-memory table when neither an
//!   order, groups nor the robust lottery is asked for — Parquet is then streamed,
//!   and a table of counts accepted ([`read_pair_counts`], [`rank_counts`]).
//! - everything else reads the battles themselves ([`read_battles`],
//!   [`rank_with_groups`]), with each battle's group when `group_by` names a column
//!   and its weight when `weight_col` does (a weighted log is one table, never a
//!   dataset or a counts table).

use std::path::{Path, PathBuf};
use verdict_settings::Setting;

use verdict_io::{
    battle_columns, dataset_files, numeric_columns, pair_count_columns, read_battles,
    read_pair_counts, read_rankings, DatasetFile, IoError, LoadedBattles, LoadedCounts,
    ReadOptions, Source,
};
use verdict_ratings::CovariateBradleyTerry;
use verdict_report::{GroupBoard, RankReport};

use crate::hygiene::{dropped_rows_csv, Hygiene};
use crate::plackett_luce::rank_rankings;
use crate::rank::RankSettings;
use crate::rank::{
    rank_counts, rank_each_group, rank_with_groups, BattleGroups, BattleWeights, Method,
};
use crate::style::{covariate_columns, rank_with_covariates, read_covariate_log, CovariateRequest};
use crate::VerdictError;

/// Where a ranking's battles are.
#[derive(Debug, Clone)]
pub enum RankInput {
    /// One table: a file, bytes (standard input), or a table already in memory.
    Table(Source),
    /// Every data file of a directory or a glob (partition values in the paths), read
    /// as pair counts.
    Dataset(PathBuf),
}

impl RankInput {
    /// A path as given on a command line: a file is one table, anything else (a
    /// directory, a glob) a dataset.
    pub fn path(path: &Path) -> Self {
        if path.is_file() {
            RankInput::Table(Source::File(path.to_path_buf()))
        } else {
            RankInput::Dataset(path.to_path_buf())
        }
    }

    /// How results and pages name the input.
    pub fn shown_name(&self) -> String {
        match self {
            RankInput::Table(source) => source.shown_name(),
            RankInput::Dataset(path) => crate::page::shown_name(path),
        }
    }
}

/// How a log is read: the reader's options, the group column and the covariates.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// Format, column names, filters, order and self-battles (its `keep` is set by
    /// the route: the group column).
    pub options: ReadOptions,
    /// The column whose value is each battle's group (the robust lottery's groups,
    /// and each group's own board with [`RankRequest::group_boards`]).
    pub group_by: Option<String>,
    /// The column holding each battle's weight (finite, non-negative), for a weighted
    /// fit ([`BattleWeights`]).
    pub weight_col: Option<String>,
    /// A saved counts state — a counts table, such as [`Ranked::counts`] written by
    /// [`verdict_io::counts_table_csv`] — whose battles are added to the input's: a
    /// log that only grows is refitted from yesterday's counts and today's battles,
    /// at a cost in today's battles plus the solve, with the numbers of the whole log.
    pub warm: Option<PathBuf>,
    /// Vote hygiene before the fit: duplicates, a daily cap per judge, outlier judges
    /// ([`Hygiene`]).
    pub hygiene: Hygiene,
    /// Covariates to control for (Bradley–Terry with covariates).
    pub covariates: CovariateRequest,
    /// The covariate model's settings.
    pub covariate_model: CovariateBradleyTerry,
}

/// Which reader and leaderboard a request takes (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// A feedback table's rankings, Plackett–Luce.
    Rankings,
    /// Every battle with its covariates, Bradley–Terry with covariates.
    Covariates,
    /// Pair counts.
    Counts,
    /// The battles themselves.
    Battles,
}

/// What the route needs to know of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    /// A directory or a glob.
    Dataset,
    /// A file or a table in memory: read as counts when they suffice.
    Table,
    /// Bytes (standard input): read as battles, as they always were (their bootstrap
    /// resamples the battles).
    Bytes,
}

impl InputKind {
    fn of(input: &RankInput) -> Self {
        match input {
            RankInput::Dataset(_) => InputKind::Dataset,
            RankInput::Table(Source::Bytes { .. }) => InputKind::Bytes,
            RankInput::Table(_) => InputKind::Table,
        }
    }
}

impl Reading {
    /// The route for `settings` on `input` (module docs).
    ///
    /// # Errors
    /// [`VerdictError::Settings`] naming the setting that does not apply to the
    /// route: a battle-log setting with Plackett–Luce, groups or the robust lottery
    /// with covariates, a dataset where one table is needed.
    pub fn route(&self, settings: &RankSettings, input: &RankInput) -> Result<Route, VerdictError> {
        self.route_for(settings, InputKind::of(input))
            .map_err(|message| VerdictError::Settings(format!("{}: {message}", input.shown_name())))
    }

    fn route_for(&self, settings: &RankSettings, input: InputKind) -> Result<Route, String> {
        self.hygiene.validate().map_err(|e| e.to_string())?;
        let route = self.route_of(settings, input)?;
        if self.hygiene.is_active() && route != Route::Battles {
            return Err(format!(
                "vote hygiene ({judge_col}, {max_votes}, {dedupe}, {outliers}) reads every battle with its judge; this ranking reads {}",
                match route {
                    Route::Rankings => "rankings",
                    Route::Covariates => "covariates (drop them, or clean the log first)",
                    _ => "pair counts (a directory, a glob or a counts table)",
                },
                judge_col = Setting("judge_col"),
                max_votes = Setting("max_votes_per_judge_day"),
                dedupe = Setting("collapse_duplicates"),
                outliers = Setting("outlier_alpha"),
            ));
        }
        if self.warm.is_some() && route != Route::Counts {
            return Err(format!(
                "{warm} adds saved pair counts, which Bradley–Terry, the lottery and the social-choice orders read; this ranking reads the battles themselves (Elo, an order, groups, weights, covariates or rankings)",
                warm = Setting("warm")
            ));
        }
        Ok(route)
    }

    fn route_of(&self, settings: &RankSettings, input: InputKind) -> Result<Route, String> {
        let dataset = input == InputKind::Dataset;
        if settings.method == Method::PlackettLuce {
            let options = &self.options;
            let columns = ["model_a_column", "model_b_column", "winner_column"];
            let battle_settings: [(&[&str], bool); 6] = [
                (&["filters"], !options.filters.is_empty()),
                (&["weight_col"], self.weight_col.is_some()),
                (&["order_by"], options.order_by.is_some()),
                (&["group_by"], self.group_by.is_some()),
                (&columns, options.schema.is_some()),
                (&["skip_self_battles"], options.skip_self_battles),
            ];
            if let Some((settings, _)) = battle_settings.iter().find(|(_, given)| *given) {
                let named: Vec<String> = settings.iter().map(|s| Setting(s).to_string()).collect();
                return Err(format!("{} applies to battle logs; {method} plackett-luce reads a feedback table (menu, modality, response)", named.join(" or "), method = Setting("method")));
            }
            if dataset {
                return Err(format!(
                    "{method} plackett-luce reads one feedback table, not a directory or a glob",
                    method = Setting("method")
                ));
            }
            return Ok(Route::Rankings);
        }
        if self.weight_col.is_some() && dataset {
            return Err(format!("{weight_col} weighs each battle of one table; a directory or a glob is read as pair counts, which keep no weights", weight_col = Setting("weight_col")));
        }
        if !self.covariates.is_empty() {
            if settings.fragility {
                return Err(format!(
                    "{fragility} applies to Bradley–Terry without covariates; drop it or the covariates",
                    fragility = Setting("fragility")
                ));
            }
            if self.weight_col.is_some() {
                return Err(format!(
                    "{weight_col} applies to Bradley–Terry without covariates (and the lottery); drop it or the covariates",
                    weight_col = Setting("weight_col")
                ));
            }
            if self.group_by.is_some() || settings.robust.is_some() {
                return Err(format!("{covariates} and {style_control} fit one Bradley–Terry board; drop {group_by}/{robust}", covariates = Setting("covariates"), style_control = Setting("style_control"), group_by = Setting("group_by"), robust = Setting("robust")));
            }
            if dataset {
                return Err(format!("{covariates} and {style_control} read one file (every battle with its covariates); a directory or glob is read as pair counts, which keep none", covariates = Setting("covariates"), style_control = Setting("style_control")));
            }
            return Ok(Route::Covariates);
        }
        let counts_suffice = (matches!(settings.method, Method::BradleyTerry | Method::Lottery)
            || settings.method.is_social_choice())
            && settings.robust.is_none()
            && self.options.order_by.is_none()
            && self.group_by.is_none()
            && self.weight_col.is_none()
            && !self.hygiene.is_active()
            && settings.both_bad == verdict_ratings::BothBad::Tie;
        Ok(
            if dataset || (counts_suffice && (input == InputKind::Table || self.warm.is_some())) {
                Route::Counts
            } else {
                Route::Battles
            },
        )
    }

    /// The columns a table given in memory needs for `settings` (all of them for
    /// rankings): what a face hands over from a data frame.
    ///
    /// # Errors
    /// As [`Reading::route`].
    pub fn columns(&self, settings: &RankSettings) -> Result<Option<Vec<String>>, VerdictError> {
        let route = self
            .route_for(settings, InputKind::Table)
            .map_err(VerdictError::Settings)?;
        Ok(match route {
            Route::Rankings => None,
            Route::Covariates => Some(covariate_columns(&self.options, &self.covariates)),
            Route::Counts => Some(pair_count_columns(&self.options)),
            Route::Battles => Some(battle_columns(&self.battle_options())),
        })
    }

    /// The reader's options for the battles themselves: the group, weight and hygiene
    /// columns kept.
    fn battle_options(&self) -> ReadOptions {
        let mut keep: Vec<String> = self
            .group_by
            .iter()
            .chain(&self.weight_col)
            .cloned()
            .collect();
        for column in self.hygiene.columns() {
            if !keep.contains(&column) {
                keep.push(column);
            }
        }
        ReadOptions {
            keep,
            ..self.options.clone()
        }
    }
}

/// A ranking to compute: input, reading, settings.
#[derive(Debug, Clone)]
pub struct RankRequest {
    /// Where the battles are.
    pub input: RankInput,
    /// How to read them.
    pub reading: Reading,
    /// The leaderboards to compute.
    pub settings: RankSettings,
    /// With `group_by`, each group's own board too (a page shows them).
    pub group_boards: bool,
}

/// What a ranking request gives back.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// The leaderboards.
    pub report: RankReport,
    /// Each group's own board (with [`RankRequest::group_boards`] and `group_by`).
    pub group_boards: Vec<GroupBoard>,
    /// Rows skipped because a model battles itself (`skip_self_battles`).
    pub self_battles_skipped: usize,
    /// The pair counts ranked, warm state included, when the route read counts: the
    /// state to save for the next refit ([`verdict_io::counts_table_csv`]).
    pub counts: Option<LoadedCounts>,
    /// With vote hygiene: the rows it dropped, as CSV ([`dropped_rows_csv`]).
    pub dropped_rows: Option<Vec<u8>>,
}

/// Reads the request's input along its route and ranks it; `on_round` is called once
/// per bootstrap round.
///
/// # Errors
/// As [`Reading::route`], and the reader's and the leaderboard's errors.
pub fn rank_request(
    request: &RankRequest,
    on_round: &(dyn Fn() + Sync),
) -> Result<Ranked, VerdictError> {
    let RankRequest {
        input,
        reading,
        settings,
        group_boards,
    } = request;
    let source = input.shown_name();
    let table = |input: &RankInput| match input {
        RankInput::Table(table) => Ok(table.clone()),
        RankInput::Dataset(path) => Err(VerdictError::Settings(format!(
            "{}: a directory or a glob is read as pair counts",
            path.display()
        ))),
    };
    let ranked = |report, skipped| Ranked {
        report,
        group_boards: Vec::new(),
        self_battles_skipped: skipped,
        counts: None,
        dropped_rows: None,
    };
    match reading.route(settings, input)? {
        Route::Rankings => {
            let loaded = read_rankings(&table(input)?, reading.options.format)?;
            let report =
                rank_rankings(&loaded.models, loaded.rankings, &source, settings, on_round)?;
            Ok(ranked(report, 0))
        }
        Route::Covariates => {
            let log = read_covariate_log(&table(input)?, &reading.options, &reading.covariates)?;
            let report = rank_with_covariates(
                &log.loaded.log,
                &log.names,
                &log.columns,
                &reading.covariate_model,
                &source,
                settings,
                on_round,
            )?;
            Ok(ranked(report, log.loaded.self_battles_skipped))
        }
        Route::Counts => {
            let mut files = match input {
                RankInput::Table(table) => vec![DatasetFile::single(table.clone())],
                RankInput::Dataset(path) => dataset_files(path)?,
            };
            if let Some(state) = &reading.warm {
                files.push(DatasetFile::single(Source::File(state.clone())));
            }
            let loaded = read_pair_counts(&files, &reading.options)?;
            let report = rank_counts(&loaded.models, &loaded.counts, &source, settings, on_round)?;
            Ok(Ranked {
                counts: Some(loaded.clone()),
                ..ranked(report, loaded.self_battles_skipped)
            })
        }
        Route::Battles => {
            let read = read_battles(&table(input)?, &reading.battle_options())?;
            let (loaded, cleaning) = if reading.hygiene.is_active() {
                let (cleaned, report) = reading.hygiene.apply(&read)?;
                let csv = dropped_rows_csv(&read, &report, reading.hygiene.judge_col.as_deref())?;
                (cleaned, Some((report, csv)))
            } else {
                (read, None)
            };
            let groups = match &reading.group_by {
                Some(column) => Some(battle_groups(&loaded, column)?),
                None => None,
            };
            let weights = match &reading.weight_col {
                Some(column) => Some(battle_weights(&loaded, column)?),
                None => None,
            };
            let mut report = rank_with_groups(
                &loaded.log,
                groups.as_ref(),
                weights.as_ref(),
                &source,
                settings,
                on_round,
            )?;
            if let Some((cleaning, _)) = &cleaning {
                report.push_note(cleaning.note(loaded.log.len() + cleaning.dropped.len()));
            }
            let boards = match (&groups, group_boards) {
                (Some(groups), true) => {
                    rank_each_group(&loaded.log, groups, weights.as_ref(), &source, settings)?
                }
                _ => Vec::new(),
            };
            Ok(Ranked {
                report,
                group_boards: boards,
                self_battles_skipped: loaded.self_battles_skipped,
                counts: None,
                dropped_rows: cleaning.map(|(_, csv)| csv),
            })
        }
    }
}

/// Each battle's group from the `column` read beside it; a battle without a value is
/// an error at its row.
fn battle_groups(loaded: &LoadedBattles, column: &str) -> Result<BattleGroups, VerdictError> {
    let values = loaded
        .metadata
        .column(column)
        .ok_or_else(|| VerdictError::Data(format!("column {column:?} was not read")))?;
    let mut of_battle = Vec::with_capacity(values.len());
    for row in 0..values.len() {
        let code = values.code(row).ok_or_else(|| {
            IoError::invalid(
                loaded.metadata.location(row, Some(column)),
                format!(
                    "missing group; every battle needs one for {group_by}",
                    group_by = Setting("group_by")
                ),
            )
        })?;
        of_battle.push(code);
    }
    Ok(BattleGroups {
        names: values.dictionary().to_vec(),
        of_battle,
    })
}

/// Each battle's weight from the `column` read beside it: a finite, non-negative
/// number at every row, else an error naming the row.
fn battle_weights(loaded: &LoadedBattles, column: &str) -> Result<BattleWeights, VerdictError> {
    let table = &loaded.metadata;
    let of_battle = numeric_columns(table, &[column.to_owned()])?.remove(0);
    if let Some(row) = of_battle.iter().position(|&w| w < 0.0) {
        return Err(IoError::invalid(
            table.location(row, Some(column)),
            format!(
                "negative weight {}; a battle's weight ({weight_col}) is finite and non-negative",
                of_battle[row],
                weight_col = Setting("weight_col")
            ),
        )
        .into());
    }
    Ok(BattleWeights {
        column: column.to_owned(),
        of_battle,
    })
}
