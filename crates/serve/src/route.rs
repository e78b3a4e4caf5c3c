//! One context routed: the request's context object read with the model's
//! featurizer (exactly as `verdict predict` reads a JSON file), the library's
//! [`verdict::routing::route`], and the decision written to the log.

use axum::http::StatusCode;
use serde_json::{json, Map, Value};
use verdict::io::{json_objects_table, Source};
use verdict::model_file::read_model_contexts;
use verdict::routing::{Route, RouteBudget, RouteRequest, RouteRule};

use crate::http::ApiError;
use crate::served::Served;
use crate::state::App;

/// What a request asks of the router, read from its JSON fields `rule`, `max_cost`,
/// `surcharge`, `cost_cap`, `menu_size` and `request_id`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RouteFields {
    #[serde(default = "sample")]
    pub rule: RouteRule,
    #[serde(default)]
    pub max_cost: Option<f64>,
    #[serde(default)]
    pub surcharge: Option<f64>,
    #[serde(default)]
    pub cost_cap: Option<f64>,
    #[serde(default = "one")]
    pub menu_size: usize,
    #[serde(default)]
    pub request_id: Option<String>,
}

fn sample() -> RouteRule {
    RouteRule::Sample
}

fn one() -> usize {
    1
}

/// The names of [`RouteFields`], which a chat request carries beside OpenAI's own.
pub(crate) const ROUTE_FIELDS: [&str; 6] = [
    "rule",
    "max_cost",
    "surcharge",
    "cost_cap",
    "menu_size",
    "request_id",
];

impl RouteFields {
    /// The fields of `object` named in [`ROUTE_FIELDS`].
    ///
    /// # Errors
    /// 422 naming the field of the wrong type.
    pub fn from_object(object: &Map<String, Value>) -> Result<Self, ApiError> {
        let picked: Map<String, Value> = object
            .iter()
            .filter(|(k, _)| ROUTE_FIELDS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        serde_json::from_value(Value::Object(picked)).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{e} (rule is \"sample\" or \"argmax\"; max_cost, surcharge and cost_cap are numbers; menu_size is 1 or 2)"),
            )
        })
    }

    /// The library's request, drawn from `app`'s next seed; `app` names a request that
    /// brought no id.
    ///
    /// # Errors
    /// 422 when both budgets are given.
    pub fn request(&self, app: &App) -> Result<RouteRequest, ApiError> {
        let budget =
            match (self.max_cost, self.surcharge) {
                (Some(_), Some(_)) => return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "give max_cost (a limit on the expected cost) or surcharge (a price per unit cost), not both",
                )),
                (Some(limit), None) => Some(RouteBudget::MaxCost(limit)),
                (None, Some(lambda)) => Some(RouteBudget::Surcharge(lambda)),
                (None, None) => None,
            };
        Ok(RouteRequest {
            rule: self.rule,
            budget,
            menu_size: self.menu_size,
            request_id: self
                .request_id
                .clone()
                .unwrap_or_else(|| app.next_request_id()),
            draw_seed: app.draws.next(),
            explore: app.explore,
            cost_cap: self.cost_cap,
        })
    }
}

/// The contexts a request holds, already parsed, as the table the model's reader
/// takes (named `label` in messages).
///
/// # Errors
/// 422 for an item that is not an object.
pub(crate) fn objects_source(items: &[Value], label: &str) -> Result<Source, ApiError> {
    let table = json_objects_table(items, label)
        .map_err(|e| ApiError::from_verdict(&verdict::VerdictError::from(e)))?;
    Ok(Source::Table(std::sync::Arc::new(table)))
}

/// A routed context: the decision and what the log and the answer show of it.
pub(crate) struct Routed {
    pub route: Route,
    pub request: RouteRequest,
    pub context_id: String,
    /// The warning of categories unseen in training, when the context has one
    /// (answered in `x-verdict-warning`, as `/v1/predict` does).
    pub warning: Option<String>,
}

/// Routes the context `object` (its `context_id` defaulting to the request id).
///
/// # Errors
/// 422 for a context the model cannot read or a budget it cannot meet.
pub(crate) fn route_context(
    served: &Served,
    mut object: Map<String, Value>,
    request: RouteRequest,
) -> Result<Routed, ApiError> {
    let context_id = match object.get("context_id") {
        Some(Value::String(id)) => id.clone(),
        Some(other) => other.to_string(),
        None => request.request_id.clone(),
    };
    object.insert("context_id".into(), Value::String(context_id.clone()));
    let source = objects_source(&[Value::Object(object)], "context.json")?;
    let read = read_model_contexts(&served.model, &source, served.encoder.as_ref())
        .map_err(|e| ApiError::from_verdict(&e))?;
    let route = verdict::routing::route(&served.model, &read.features, &served.costs, &request)
        .map_err(|e| ApiError::from_verdict(&e))?;
    Ok(Routed {
        route,
        request,
        context_id,
        warning: read.unseen_warning(),
    })
}

impl Routed {
    /// The agent names of the menu.
    pub fn menu_names<'a>(&self, served: &'a Served) -> Vec<&'a str> {
        self.route
            .menu
            .iter()
            .map(|&j| served.model.agents[j].as_str())
            .collect()
    }

    /// `pi(x)` by agent name.
    fn probabilities(&self, served: &Served) -> Map<String, Value> {
        served
            .model
            .agents
            .iter()
            .zip(&self.route.probabilities)
            .map(|(a, &p)| (a.clone(), json!(p)))
            .collect()
    }

    /// The answer of `/v1/route`.
    pub fn answer(&self, served: &Served) -> Value {
        let menu = self.menu_names(served);
        json!({
            "request_id": self.request.request_id,
            "context_id": self.context_id,
            "model": menu[0],
            "menu": menu,
            "propensity": self.route.propensity,
            "probabilities": self.probabilities(served),
            "expected_cost": self.route.expected_cost,
            "rule": self.request.rule,
            "model_id": served.id,
        })
    }

    /// What the request log shows of it.
    pub fn note(&self, upstream_status: Option<u16>) -> crate::state::RequestNote {
        crate::state::RequestNote {
            request_id: self.request.request_id.clone(),
            rule: match self.request.rule {
                RouteRule::Sample => "sample",
                RouteRule::Argmax => "argmax",
            },
            upstream_status,
        }
    }

    /// Counts the decision for its routed agent (`/metrics`) and writes it to the
    /// log, if there is one: the context as read
    /// (`context`), the menu offered in the feedback table's spelling, `pi(x)`, the
    /// routed model and the menu's propensity.
    ///
    /// # Errors
    /// 500 when the log cannot be written: a decision that is not logged is not made.
    pub fn log(
        &self,
        app: &App,
        served: &Served,
        context: &Map<String, Value>,
    ) -> Result<(), ApiError> {
        app.metrics.routed(&served.model.agents[self.route.menu[0]]);
        let Some(log) = &app.decisions else {
            return Ok(());
        };
        let mut context = context.clone();
        context.insert("context_id".into(), Value::String(self.context_id.clone()));
        let budget = match self.request.budget {
            Some(RouteBudget::MaxCost(c)) => json!({"max_cost": c}),
            Some(RouteBudget::Surcharge(l)) => json!({"surcharge": l}),
            None => Value::Null,
        };
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let decision = json!({
            "request_id": self.request.request_id,
            "time": time,
            "context_id": self.context_id,
            "context": context,
            "menu": self.menu_names(served).join("|"),
            "chosen": self.menu_names(served)[0],
            "propensity": self.route.propensity,
            "probabilities": self.probabilities(served),
            "routed_probabilities": served
                .model
                .agents
                .iter()
                .zip(&self.route.routed_probabilities)
                .map(|(a, p)| (a.clone(), json!(p)))
                .collect::<Map<String, Value>>(),
            "rule": self.request.rule,
            "budget": budget,
            "model_id": served.id,
        });
        log.append(&decision).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the decision log could not be written ({e}); nothing was routed"),
            )
        })?;
        app.metrics.decided();
        Ok(())
    }
}
