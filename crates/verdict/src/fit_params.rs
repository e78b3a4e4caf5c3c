//! A NashEval fit's settings by name ([`FitParams`]), as a settings document holds
//! them ([`crate::settings`]): every setting of `verdict fit`, under the library's
//! names, each defaulting to the library's default. Python's `NashEval` hands its
//! keyword arguments over this way, so its defaults and choices are the library's.

use serde::{Deserialize, Serialize};
use verdict_game::SoftBudgetPrices;
use verdict_io::{CategoricalEncoding, ContextualOptions, TextEncoder};
use verdict_nasheval::{
    AggregatorKind, BackboneKind, FitMethod, FitOptions, NetworkInit, NetworkOptions,
    NuisanceDesign, PayoffRegression, PolicyKind, RankCriterion, StructuredOptions, Variant,
};
use verdict_ratings::UnobservedPairs;

use crate::contextual::LogSource;
use crate::fit_request::{Backbones, FitRequest};
use crate::settings::{as_name, as_name_or_none, as_text, by_name, by_name_or_none, by_text};
use crate::VerdictError;

/// Every setting of a NashEval fit by name; [`FitParams::request`] makes the request.
///
/// Names, meanings and defaults are those of `verdict fit`'s flags (`text_col` is
/// `--text-col`); `backbone` is the family of every model whose own backbone is not
/// given, `tune` tunes both the learners and the network, and `soft_budget` with
/// `price`, `surcharge` and `width` is the soft budget of NashEval Eq. 53. The faces
/// take every setting here under its name with its default (a test checks both).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)]
pub struct FitParams {
    pub context_cols: Vec<String>,
    pub text_col: Option<String>,
    pub text_dim: usize,
    pub encoder: Option<std::path::PathBuf>,
    pub normalize_embeddings: bool,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub categorical: CategoricalEncoding,
    pub catalogue: Option<Vec<Vec<String>>>,
    pub propensity_col: Option<String>,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub method: FitMethod,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub variant: Variant,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub policy: PolicyKind,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub backbone: BackboneKind,
    #[serde(
        deserialize_with = "by_name_or_none",
        serialize_with = "as_name_or_none"
    )]
    pub outcome_backbone: Option<BackboneKind>,
    #[serde(
        deserialize_with = "by_name_or_none",
        serialize_with = "as_name_or_none"
    )]
    pub propensity_backbone: Option<BackboneKind>,
    #[serde(
        deserialize_with = "by_name_or_none",
        serialize_with = "as_name_or_none"
    )]
    pub payoff_backbone: Option<BackboneKind>,
    pub linear_penalty: f64,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub payoff_regression: PayoffRegression,
    #[serde(deserialize_with = "by_text", serialize_with = "as_text")]
    pub aggregator: AggregatorKind,
    pub rho: f64,
    pub folds: usize,
    pub seed: u64,
    pub costs: Option<Vec<(String, f64)>>,
    pub budget: Option<f64>,
    pub soft_budget: Option<f64>,
    pub price: f64,
    pub surcharge: f64,
    pub width: f64,
    pub tune: bool,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub nuisance_design: NuisanceDesign,
    pub surface_rank: Option<usize>,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub rank_criterion: RankCriterion,
    pub allow_unobserved: bool,
    pub propensity_floor: f64,
    pub propensity_floor_share: f64,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub network_init: NetworkInit,
    pub hidden: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    pub max_epochs: usize,
    pub patience: usize,
    pub groups_by: Option<String>,
    pub robust_radius: Option<f64>,
    #[serde(deserialize_with = "by_name", serialize_with = "as_name")]
    pub unobserved: UnobservedPairs,
    pub completion_rank: usize,
}

impl Default for FitParams {
    /// The library's defaults, the same as `verdict fit`'s.
    fn default() -> Self {
        let reading = ContextualOptions::default();
        let options = FitOptions::default();
        let network = NetworkOptions::default();
        let backbones = Backbones::default();
        Self {
            context_cols: Vec::new(),
            text_col: reading.text_column,
            text_dim: reading.text_dim,
            encoder: None,
            normalize_embeddings: false,
            categorical: reading.categorical,
            catalogue: reading.catalogue,
            propensity_col: reading.propensity_column,
            method: FitMethod::Nasheval,
            variant: options.variant,
            policy: options.policy,
            backbone: backbones.outcome,
            outcome_backbone: None,
            propensity_backbone: None,
            payoff_backbone: None,
            linear_penalty: backbones.linear_penalty,
            payoff_regression: options.regression,
            aggregator: options.aggregator,
            rho: options.rho,
            folds: options.folds,
            seed: options.seed,
            costs: None,
            budget: options.budget,
            soft_budget: None,
            price: SoftBudgetPrices::DEFAULT_BASE_PRICE,
            surcharge: SoftBudgetPrices::DEFAULT_SURCHARGE,
            width: SoftBudgetPrices::DEFAULT_WIDTH,
            tune: options.tune_learners,
            nuisance_design: options.nuisance_design,
            surface_rank: options.structured.rank,
            rank_criterion: options.rank_criterion,
            allow_unobserved: false,
            propensity_floor: options.propensity_floor,
            propensity_floor_share: options.propensity_floor_share,
            network_init: options.network_init,
            hidden: network.hidden,
            learning_rate: network.learning_rate,
            weight_decay: network.weight_decay,
            batch_size: network.batch_size,
            max_epochs: network.max_epochs,
            patience: network.patience,
            groups_by: options.groups_by,
            robust_radius: options.robust_radius,
            unobserved: options.unobserved,
            completion_rank: options.completion_rank,
        }
    }
}

impl FitParams {
    /// The fit of the log at `source` with these settings (checked when it is made,
    /// by [`crate::fit_request::fit_request`]), the encoder loaded.
    ///
    /// # Errors
    /// [`VerdictError::Encoder`] for an encoder directory that cannot be loaded.
    pub fn request(self, source: LogSource) -> Result<FitRequest, VerdictError> {
        let family = |given: Option<BackboneKind>| given.unwrap_or(self.backbone);
        let text_encoder = self
            .encoder
            .as_deref()
            .map(|dir| TextEncoder::load(dir, self.normalize_embeddings))
            .transpose()?;
        Ok(FitRequest {
            reading: ContextualOptions {
                text_column: self.text_col,
                text_dim: self.text_dim,
                text_encoder,
                categorical: self.categorical,
                catalogue: self.catalogue,
                propensity_column: self.propensity_col,
            },
            allow_unobserved: self.allow_unobserved,
            costs: self.costs,
            options: FitOptions {
                variant: self.variant,
                policy: self.policy,
                rho: self.rho,
                budget: self.budget,
                soft_budget: SoftBudgetPrices::given(
                    self.soft_budget,
                    self.price,
                    self.surcharge,
                    self.width,
                ),
                folds: self.folds,
                seed: self.seed,
                propensity_floor: self.propensity_floor,
                propensity_floor_share: self.propensity_floor_share,
                regression: self.payoff_regression,
                aggregator: self.aggregator,
                network: NetworkOptions {
                    hidden: self.hidden,
                    learning_rate: self.learning_rate,
                    weight_decay: self.weight_decay,
                    batch_size: self.batch_size,
                    max_epochs: self.max_epochs,
                    patience: self.patience,
                    ..NetworkOptions::default()
                },
                network_init: self.network_init,
                tune_learners: self.tune,
                tune_network: self.tune,
                nuisance_design: self.nuisance_design,
                structured: StructuredOptions {
                    rank: self.surface_rank,
                    ..StructuredOptions::default()
                },
                rank_criterion: self.rank_criterion,
                groups_by: self.groups_by,
                robust_radius: self.robust_radius,
                unobserved: self.unobserved,
                completion_rank: self.completion_rank,
                ..FitOptions::default()
            },
            backbones: Backbones {
                outcome: family(self.outcome_backbone),
                propensity: family(self.propensity_backbone),
                payoff: family(self.payoff_backbone),
                linear_penalty: self.linear_penalty,
            },
            method: self.method,
            ..FitRequest::new(source)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::from_document;

    #[test]
    fn an_empty_document_is_the_library_default() {
        assert_eq!(
            from_document::<FitParams>("{}").unwrap(),
            FitParams::default()
        );
    }

    #[test]
    fn names_values_and_the_backbone_fallback() {
        let params: FitParams = from_document(
            r#"{"backbone": "linear", "payoff_backbone": "gbdt", "aggregator": "cubic:0.5",
                "soft_budget": 2.0, "tune": true}"#,
        )
        .unwrap();
        let request = params
            .request(LogSource::Tables {
                contexts: verdict_io::Source::File("c.csv".into()),
                feedback: verdict_io::Source::File("f.csv".into()),
            })
            .unwrap();
        assert_eq!(request.backbones.outcome, BackboneKind::Linear);
        assert_eq!(request.backbones.payoff, BackboneKind::Gbdt);
        assert_eq!(request.options.aggregator, AggregatorKind::Cubic(0.5));
        assert!(request.options.tune_learners && request.options.tune_network);
        let soft = request.options.soft_budget.unwrap();
        assert_eq!(
            (soft.budget, soft.base_price, soft.surcharge, soft.width),
            (2.0, 0.0, 1.0, 0.01)
        );
        let error = from_document::<FitParams>(r#"{"variant": "best"}"#).unwrap_err();
        assert_eq!(error.setting, "variant");
        let error = from_document::<FitParams>(r#"{"aggregator": "cubic:-1"}"#).unwrap_err();
        assert_eq!(error.setting, "aggregator");
    }
}
