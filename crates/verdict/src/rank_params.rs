//! A ranking's settings by name ([`RankParams`]), as a settings document holds them
//! ([`crate::settings`]): the settings of `verdict rank` that a table in memory can
//! use, under the library's names, each defaulting to the library's default.
//! Python's `rank` hands its keyword arguments over this way.

use serde::Deserialize;
use verdict_game::AlphaRank;
use verdict_io::{BattleSchema, Filter, ReadOptions};
use verdict_ratings::{
    Bootstrap, BothBad, BradleyTerry, CovariateBradleyTerry, TieModel, UnobservedPairs,
};

use crate::equilibrium::EquilibriumSettings;
use crate::hygiene::Hygiene;
use crate::rank::{Intervals, Method, RankSettings};
use crate::rank_request::Reading;
use crate::settings::{by_name, each_by_text, SettingError};
use crate::style::CovariateRequest;

/// The settings of a ranking by name; [`RankParams::reading`] and
/// [`RankParams::settings`] make the request's parts.
///
/// Names and meanings are those of `verdict rank`'s flags, with these differences:
/// `model_a`, `model_b` and `winner` name the columns; `bootstrap` is the rounds
/// (0 for none; given, the lottery is bootstrapped too); `ci` the level and
/// `sandwich` asks for sandwich intervals in place of the bootstrap; `alpha` and
/// `population` are α-Rank's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RankParams {
    #[serde(deserialize_with = "by_name")]
    pub method: Method,
    pub model_a: Option<String>,
    pub model_b: Option<String>,
    pub winner: Option<String>,
    #[serde(deserialize_with = "by_name")]
    pub ties: TieModel,
    pub bootstrap: Option<usize>,
    pub ci: f64,
    pub sandwich: bool,
    pub seed: u64,
    pub anchor: Option<(String, f64)>,
    pub l2: Option<f64>,
    #[serde(deserialize_with = "each_by_text")]
    pub filters: Vec<Filter>,
    pub skip_self_battles: bool,
    pub weight_col: Option<String>,
    pub warm: Option<std::path::PathBuf>,
    pub judge_col: Option<String>,
    pub time_col: Option<String>,
    pub prompt_col: Option<String>,
    pub collapse_duplicates: bool,
    pub max_votes_per_judge_day: Option<usize>,
    pub outlier_alpha: Option<f64>,
    pub allow_unobserved: bool,
    #[serde(deserialize_with = "by_name")]
    pub unobserved: UnobservedPairs,
    pub completion_rank: usize,
    pub rho: f64,
    pub costs: Option<Vec<(String, f64)>>,
    pub budget: Option<f64>,
    pub covariates: Vec<String>,
    pub style_control: bool,
    pub covariate_penalty: f64,
    pub pair_weights: Option<f64>,
    pub alpha: f64,
    pub population: usize,
    pub fragility: bool,
    #[serde(deserialize_with = "by_name")]
    pub both_bad: BothBad,
}

impl Default for RankParams {
    /// The library's defaults, the same as `verdict rank`'s.
    fn default() -> Self {
        let settings = RankSettings::default();
        let covariate_model = CovariateBradleyTerry::default();
        Self {
            method: settings.method,
            model_a: None,
            model_b: None,
            winner: None,
            ties: settings.bradley_terry.ties,
            bootstrap: None,
            ci: settings.confidence,
            sandwich: false,
            seed: Bootstrap::default().seed,
            anchor: None,
            l2: None,
            filters: Vec::new(),
            skip_self_battles: false,
            weight_col: None,
            warm: None,
            judge_col: None,
            time_col: None,
            prompt_col: None,
            collapse_duplicates: false,
            max_votes_per_judge_day: None,
            outlier_alpha: None,
            allow_unobserved: false,
            unobserved: settings.unobserved,
            completion_rank: settings.completion_rank,
            rho: settings.equilibrium.rho,
            costs: None,
            budget: None,
            covariates: Vec::new(),
            style_control: false,
            covariate_penalty: covariate_model.reg,
            pair_weights: covariate_model.pair_weights,
            alpha: settings.alpha_rank.alpha,
            population: settings.alpha_rank.population,
            fragility: settings.fragility,
            both_bad: settings.both_bad,
        }
    }
}

impl RankParams {
    /// How the battles are read: columns, filters, self-battles, weights, vote
    /// hygiene and covariates.
    pub fn reading(&self) -> Reading {
        Reading {
            options: ReadOptions {
                schema: BattleSchema::named(
                    self.model_a.clone(),
                    self.model_b.clone(),
                    self.winner.clone(),
                ),
                filters: self.filters.clone(),
                skip_self_battles: self.skip_self_battles,
                ..ReadOptions::default()
            },
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
            ..Reading::default()
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
            _ if self.sandwich => Intervals::Sandwich,
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
                l2: self.l2,
                ..BradleyTerry::default()
            },
            anchor: self.anchor.clone(),
            intervals,
            lottery_bootstrap: self.bootstrap.is_some_and(|rounds| rounds > 0),
            confidence: self.ci,
            unobserved,
            completion_rank: self.completion_rank,
            equilibrium: EquilibriumSettings {
                rho: self.rho,
                costs: self.costs.clone(),
                budget: self.budget,
                ..EquilibriumSettings::default()
            },
            alpha_rank: AlphaRank {
                alpha: self.alpha,
                population: self.population,
            },
            fragility: self.fragility,
            both_bad: self.both_bad,
            ..RankSettings::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::from_document;

    #[test]
    fn an_empty_document_is_the_library_default() {
        let params: RankParams = from_document("{}").unwrap();
        assert_eq!(params, RankParams::default());
        assert_eq!(params.settings().unwrap(), RankSettings::default());
    }

    #[test]
    fn names_values_and_refusals() {
        let params: RankParams = from_document(
            r#"{"method": "lottery", "bootstrap": 50, "filters": ["lang=en"], "ties": "drop"}"#,
        )
        .unwrap();
        let settings = params.settings().unwrap();
        assert_eq!(settings.method, Method::Lottery);
        assert!(settings.lottery_bootstrap);
        assert_eq!(settings.bradley_terry.ties, TieModel::Drop);
        assert_eq!(params.reading().options.filters.len(), 1);
        for (document, setting) in [
            (r#"{"method": "best"}"#, "method"),
            (r#"{"filters": ["no operator"]}"#, "filters"),
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
