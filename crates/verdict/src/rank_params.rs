//! A ranking's settings by name ([`RankParams`]), as a settings document holds them
//! ([`crate::settings`]): the settings of `verdict rank` that a table in memory can
//! use, under the library's names, each defaulting to the library's default.
//! Python's `rank` hands its keyword arguments over this way.

use serde::{Deserialize, Serialize};
use verdict_game::{AlphaRank, SoftBudgetPrices};
use verdict_io::{BattleSchema, Filter, Format, ReadOptions};
use verdict_ratings::{
    Bootstrap, BothBad, BradleyTerry, CovariateBradleyTerry, Elo, Solver, TieModel, UnobservedPairs,
};

use crate::equilibrium::EquilibriumSettings;
use crate::hygiene::Hygiene;
use crate::rank::{EloOrder, Intervals, Method, RankSettings};
use crate::rank_request::Reading;
use crate::settings::{as_name, as_text, by_name, each_as_text, each_by_text, SettingError};
use crate::style::CovariateRequest;

/// The settings of a ranking by name: `verdict rank`'s settings under its flags'
/// names (`model_a_col` is `--model-a-col`), each with its default — the one place
/// a ranking's defaults live. [`RankParams::reading`] and [`RankParams::settings`]
/// make the request's parts. The command line converts its flags into it (reading
/// the files they name: `costs` is the table of `--costs FILE`), Python its keyword
/// arguments; a test checks both take every setting under its name with its
/// default.
///
/// `bootstrap` is the rounds (none: 1000 for Bradley–Terry and Elo, and the lottery
/// unbootstrapped; 0: no intervals); `ci` the interval level, or sandwich intervals;
/// `alpha` and `population` are α-Rank's; `robust` and `radius` the robust lottery's
/// over the groups of `group_by`; `soft_budget` with `price`, `surcharge` and
/// `width` the soft budget of NashEval Eq. 53.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RankParams {
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub method: Method,
    pub model_a_col: Option<String>,
    pub model_b_col: Option<String>,
    pub winner_col: Option<String>,
    #[serde(deserialize_with = "optional_format", serialize_with = "optional_text")]
    pub input_format: Option<Format>,
    #[serde(deserialize_with = "each_by_text", serialize_with = "each_as_text")]
    pub filter: Vec<Filter>,
    pub order_by: Option<String>,
    pub skip_self_battles: bool,
    pub group_by: Option<String>,
    pub weight_col: Option<String>,
    pub k: f64,
    pub initial: f64,
    pub shuffle_seed: Option<u64>,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub ties: TieModel,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub solver: Solver,
    pub l2: Option<f64>,
    pub tol: f64,
    pub max_iter: Option<usize>,
    pub anchor: Option<(String, f64)>,
    pub mean: f64,
    pub bootstrap: Option<usize>,
    #[serde(deserialize_with = "confidence", serialize_with = "as_confidence")]
    pub ci: Confidence,
    pub seed: u64,
    pub matrix: bool,
    pub allow_unobserved: bool,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub unobserved: UnobservedPairs,
    pub completion_rank: usize,
    pub fragility: bool,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub both_bad: BothBad,
    pub alpha: f64,
    pub population: usize,
    pub robust: bool,
    pub radius: Option<f64>,
    pub rho: f64,
    pub costs: Option<Vec<(String, f64)>>,
    pub budget: Option<f64>,
    pub soft_budget: Option<f64>,
    pub price: f64,
    pub surcharge: f64,
    pub width: f64,
    pub max_entropy: bool,
    pub warm: Option<std::path::PathBuf>,
    pub judge_col: Option<String>,
    pub time_col: Option<String>,
    pub prompt_col: Option<String>,
    pub collapse_duplicates: bool,
    pub max_votes_per_judge_day: Option<usize>,
    pub outlier_alpha: Option<f64>,
    pub covariates: Vec<String>,
    pub style_control: bool,
    pub covariate_penalty: f64,
    pub pair_weights: Option<f64>,
}

/// The level of a ranking's intervals, and whether they are sandwich intervals: a
/// level in (0, 1) such as `0.95`, or `sandwich` / `sandwich:LEVEL` (text, as
/// `--ci` takes it; a settings document also takes the level as a number).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Confidence {
    /// Sandwich (robust normal) intervals instead of the bootstrap.
    pub sandwich: bool,
    /// The confidence level.
    pub level: f64,
}

impl Default for Confidence {
    fn default() -> Self {
        Self {
            sandwich: false,
            level: 0.95,
        }
    }
}

impl std::str::FromStr for Confidence {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (sandwich, level) = match text.strip_prefix("sandwich") {
            Some("") => (true, "0.95"),
            Some(rest) => (
                true,
                rest.strip_prefix(':')
                    .ok_or("expected sandwich or sandwich:LEVEL")?,
            ),
            None => (false, text),
        };
        let level: f64 = level
            .parse()
            .map_err(|_| format!("{text:?} is not a level like 0.95, nor sandwich[:LEVEL]"))?;
        Self::at(sandwich, level)
    }
}

impl Confidence {
    /// The level checked: strictly between 0 and 1.
    fn at(sandwich: bool, level: f64) -> Result<Self, String> {
        if !(level > 0.0 && level < 1.0) {
            return Err(format!(
                "confidence level {level} must lie strictly between 0 and 1"
            ));
        }
        Ok(Self { sandwich, level })
    }
}

/// [`Confidence`] from a number (the level) or its text.
fn confidence<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Confidence, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Level(f64),
        Text(String),
    }
    match Given::deserialize(deserializer)? {
        Given::Level(level) => Confidence::at(false, level),
        Given::Text(text) => text.parse(),
    }
    .map_err(serde::de::Error::custom)
}

/// [`Confidence`] as the level (a number), or `sandwich` / `sandwich:LEVEL`.
fn as_confidence<S: serde::Serializer>(
    confidence: &Confidence,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match (confidence.sandwich, confidence.level) {
        (false, level) => serializer.serialize_f64(level),
        (true, 0.95) => serializer.serialize_str("sandwich"),
        (true, level) => serializer.collect_str(&format_args!("sandwich:{level}")),
    }
}

/// An optional input format by its name (`csv`, `jsonl`, `json`, `parquet`, `arrow`).
fn optional_format<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Format>, D::Error> {
    Option::<String>::deserialize(deserializer)?
        .map(|name| name.parse().map_err(serde::de::Error::custom))
        .transpose()
}

/// An optional setting as its text, none as `null`.
fn optional_text<S: serde::Serializer, T: std::fmt::Display>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => as_text(value, serializer),
        None => serializer.serialize_none(),
    }
}

impl Default for RankParams {
    /// The library's defaults, the same as `verdict rank`'s.
    fn default() -> Self {
        let settings = RankSettings::default();
        let covariate_model = CovariateBradleyTerry::default();
        let elo = Elo::default();
        Self {
            method: settings.method,
            model_a_col: None,
            model_b_col: None,
            winner_col: None,
            input_format: None,
            filter: Vec::new(),
            order_by: None,
            skip_self_battles: false,
            group_by: None,
            weight_col: None,
            k: elo.k,
            initial: elo.initial,
            shuffle_seed: None,
            ties: settings.bradley_terry.ties,
            solver: settings.bradley_terry.solver,
            l2: settings.bradley_terry.l2,
            tol: settings.bradley_terry.tol,
            max_iter: settings.bradley_terry.max_iter,
            anchor: None,
            mean: settings.mean_rating,
            bootstrap: None,
            ci: Confidence {
                sandwich: false,
                level: settings.confidence,
            },
            seed: Bootstrap::default().seed,
            matrix: settings.matrices,
            allow_unobserved: false,
            unobserved: settings.unobserved,
            completion_rank: settings.completion_rank,
            fragility: settings.fragility,
            both_bad: settings.both_bad,
            alpha: settings.alpha_rank.alpha,
            population: settings.alpha_rank.population,
            robust: false,
            radius: None,
            rho: settings.equilibrium.rho,
            costs: None,
            budget: None,
            soft_budget: None,
            price: SoftBudgetPrices::DEFAULT_BASE_PRICE,
            surcharge: SoftBudgetPrices::DEFAULT_SURCHARGE,
            width: SoftBudgetPrices::DEFAULT_WIDTH,
            max_entropy: settings.equilibrium.max_entropy,
            warm: None,
            judge_col: None,
            time_col: None,
            prompt_col: None,
            collapse_duplicates: false,
            max_votes_per_judge_day: None,
            outlier_alpha: None,
            covariates: Vec::new(),
            style_control: false,
            covariate_penalty: covariate_model.reg,
            pair_weights: covariate_model.pair_weights,
        }
    }
}

impl RankParams {
    /// How the battles are read: format, columns, filters, order, self-battles,
    /// groups, weights, a warm start, vote hygiene and covariates.
    pub fn reading(&self) -> Reading {
        Reading {
            options: ReadOptions {
                format: self.input_format,
                schema: BattleSchema::named(
                    self.model_a_col.clone(),
                    self.model_b_col.clone(),
                    self.winner_col.clone(),
                ),
                filters: self.filter.clone(),
                order_by: self.order_by.clone(),
                skip_self_battles: self.skip_self_battles,
                ..ReadOptions::default()
            },
            group_by: self.group_by.clone(),
            covariates: CovariateRequest {
                columns: self.covariates.clone(),
                style_control: self.style_control,
            },
            covariate_model: CovariateBradleyTerry {
                reg: self.covariate_penalty,
                pair_weights: self.pair_weights,
                ..CovariateBradleyTerry::default()
            },
            weight_col: self.weight_col.clone(),
            warm: self.warm.clone(),
            hygiene: Hygiene {
                judge_col: self.judge_col.clone(),
                time_col: self.time_col.clone(),
                prompt_col: self.prompt_col.clone(),
                collapse_duplicates: self.collapse_duplicates,
                max_votes_per_judge_day: self.max_votes_per_judge_day,
                outlier_alpha: self.outlier_alpha,
            },
        }
    }

    /// The leaderboards' settings (checked when the ranking is made);
    /// `allow_unobserved` is `unobserved = "ties"`, as on the command line.
    ///
    /// # Errors
    /// `allow_unobserved` beside another `unobserved` option.
    pub fn settings(&self) -> Result<RankSettings, SettingError> {
        let unobserved = match (self.allow_unobserved, self.unobserved) {
            (false, option) => option,
            (true, UnobservedPairs::Refuse | UnobservedPairs::Ties) => UnobservedPairs::Ties,
            (true, other) => {
                return Err(SettingError::new(
                    "allow_unobserved",
                    format!(
                        "counts the pairs that never met as ties, but unobserved is {}; give one of the two",
                        other.name()
                    ),
                ))
            }
        };
        let intervals = match self.bootstrap {
            _ if self.ci.sandwich => Intervals::Sandwich,
            Some(0) => Intervals::None,
            rounds => Intervals::Bootstrap(Bootstrap {
                rounds: rounds.unwrap_or(Bootstrap::default().rounds),
                seed: self.seed,
            }),
        };
        Ok(RankSettings {
            method: self.method,
            bradley_terry: BradleyTerry {
                ties: self.ties,
                solver: self.solver,
                tol: self.tol,
                max_iter: self.max_iter,
                l2: self.l2,
            },
            elo: Elo {
                initial: self.initial,
                k: self.k,
                ..Elo::default()
            },
            elo_order: match (self.shuffle_seed, &self.order_by) {
                (Some(seed), _) => EloOrder::Shuffled(seed),
                (None, Some(column)) => EloOrder::SortedBy(column.clone()),
                (None, None) => EloOrder::Log,
            },
            mean_rating: self.mean,
            anchor: self.anchor.clone(),
            intervals,
            lottery_bootstrap: self.bootstrap.is_some_and(|rounds| rounds > 0),
            confidence: self.ci.level,
            matrices: self.matrix,
            unobserved,
            completion_rank: self.completion_rank,
            equilibrium: EquilibriumSettings {
                rho: self.rho,
                costs: self.costs.clone(),
                budget: self.budget,
                max_entropy: self.max_entropy,
                soft_budget: SoftBudgetPrices::given(
                    self.soft_budget,
                    self.price,
                    self.surcharge,
                    self.width,
                ),
            },
            robust: self.robust.then_some(self.radius),
            alpha_rank: AlphaRank {
                alpha: self.alpha,
                population: self.population,
            },
            fragility: self.fragility,
            both_bad: self.both_bad,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::from_document;

    #[test]
    fn ci_accepts_levels_and_sandwich() {
        assert_eq!(
            "0.9".parse::<Confidence>().unwrap(),
            Confidence {
                sandwich: false,
                level: 0.9
            }
        );
        assert_eq!(
            "sandwich".parse::<Confidence>().unwrap(),
            Confidence {
                sandwich: true,
                level: 0.95
            }
        );
        assert_eq!(
            "sandwich:0.8".parse::<Confidence>().unwrap(),
            Confidence {
                sandwich: true,
                level: 0.8
            }
        );
        assert!("1.5".parse::<Confidence>().is_err());
        assert!("sandwichx".parse::<Confidence>().is_err());
    }

    #[test]
    fn an_empty_document_is_the_library_default() {
        let params: RankParams = from_document("{}").unwrap();
        assert_eq!(params, RankParams::default());
        assert_eq!(params.settings().unwrap(), RankSettings::default());
    }

    #[test]
    fn names_values_and_refusals() {
        let params: RankParams = from_document(
            r#"{"method": "lottery", "bootstrap": 50, "filter": ["lang=en"], "ties": "drop"}"#,
        )
        .unwrap();
        let settings = params.settings().unwrap();
        assert_eq!(settings.method, Method::Lottery);
        assert!(settings.lottery_bootstrap);
        assert_eq!(settings.bradley_terry.ties, TieModel::Drop);
        assert_eq!(params.reading().options.filters.len(), 1);
        for (document, setting) in [
            (r#"{"method": "best"}"#, "method"),
            (r#"{"filter": ["no operator"]}"#, "filter"),
            (r#"{"ci": "high"}"#, "ci"),
        ] {
            let error = from_document::<RankParams>(document).unwrap_err();
            assert_eq!(error.setting, setting, "{error}");
        }
    }

    #[test]
    fn allow_unobserved_is_ties_and_refuses_another_option_beside_it() {
        let ties: RankParams = from_document(r#"{"allow_unobserved": true}"#).unwrap();
        assert_eq!(ties.settings().unwrap().unobserved, UnobservedPairs::Ties);
        let core: RankParams =
            from_document(r#"{"unobserved": "core", "completion_rank": 2}"#).unwrap();
        let settings = core.settings().unwrap();
        assert_eq!(
            (settings.unobserved, settings.completion_rank),
            (UnobservedPairs::Core, 2)
        );
        let both: RankParams =
            from_document(r#"{"allow_unobserved": true, "unobserved": "low-rank"}"#).unwrap();
        assert_eq!(both.settings().unwrap_err().setting, "allow_unobserved");
        let unknown = from_document::<RankParams>(r#"{"unobserved": "guess"}"#).unwrap_err();
        assert_eq!(unknown.setting, "unobserved");
    }
}
