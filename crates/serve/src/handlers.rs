//! The prediction, routing, catalogue, health, metrics and reload endpoints.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use verdict::io::shown_name;
use verdict::model_file::predict_at;
use verdict::report::predictions_json;

use crate::http::{compute, json_headers, parse_json, read_body, ApiError};
use crate::route::{objects_source, route_context, RouteFields};
use crate::served::Served;
use crate::state::App;

/// `POST /v1/predict`: `{"contexts": [{...}, ...], "payoff": false}` (or the bare
/// array) → the JSON `verdict predict --format json` writes for the same contexts,
/// byte for byte. A context without `context_id` is numbered by its place.
pub(crate) async fn predict(State(app): State<Arc<App>>, body: Body) -> Response {
    answer(predict_inner(app, body).await)
}

async fn predict_inner(app: Arc<App>, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(&app, body).await?;
    let served = app.current();
    let max_contexts = app.limits.max_contexts;
    compute(move || {
        let (contexts, payoff) = contexts_of(parse_json(&bytes)?)?;
        if contexts.len() > max_contexts {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{} contexts in one request; the server takes at most {max_contexts} (--max-contexts): split the batch",
                    contexts.len()
                ),
            ));
        }
        let source = objects_source(&contexts, "contexts.json")?;
        let warning = std::sync::Mutex::new(None);
        let predictions = predict_at(&served.model, &source, served.encoder.as_ref(), payoff, &|w| {
            *warning.lock().expect("one thread") = Some(w.to_string());
        })
        .map_err(|e| ApiError::from_verdict(&e))?;
        let mut response = (json_headers(), predictions_json(&predictions)).into_response();
        warn_in(&mut response, warning.into_inner().expect("one thread").as_deref());
        Ok(response)
    })
    .await
}

/// The contexts of a prediction request, each with a `context_id`, and whether the
/// payoff matrices are asked for.
fn contexts_of(value: Value) -> Result<(Vec<Value>, bool), ApiError> {
    let shape = "send {\"contexts\": [{\"context_id\": ..., FEATURE: value, ...}, ...]} (or the array alone), optionally with \"payoff\": true";
    let (items, payoff) = match value {
        Value::Array(items) => (items, false),
        Value::Object(mut object) => {
            let payoff = match object.remove("payoff") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => b,
                Some(_) => {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "payoff must be true or false",
                    ))
                }
            };
            let contexts = object.remove("contexts");
            // verdict's own objects refuse what they do not read, as /v1/route does.
            if let Some(unknown) = object.keys().next() {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("unknown field {unknown:?}; a predict request has contexts and payoff"),
                ));
            }
            match contexts {
                Some(Value::Array(items)) => (items, payoff),
                _ => {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        format!("no contexts array: {shape}"),
                    ))
                }
            }
        }
        _ => return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, shape)),
    };
    if items.is_empty() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the contexts array is empty: {shape}"),
        ));
    }
    let contexts = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(mut object) => {
                object
                    .entry("context_id")
                    .or_insert_with(|| Value::String(i.to_string()));
                Ok(Value::Object(object))
            }
            _ => Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("context {i} is not a JSON object: {shape}"),
            )),
        })
        .collect::<Result<_, _>>()?;
    Ok((contexts, payoff))
}

/// `POST /v1/route`: `{"context": {...}, "rule": "sample" | "argmax", "max_cost": C |
/// "surcharge": λ, "menu_size": 1 | 2, "request_id": "..."}` → the routed model (or
/// menu), `pi(x)`, the menu's propensity and the expected cost.
pub(crate) async fn route(State(app): State<Arc<App>>, body: Body) -> Response {
    answer(route_inner(app, body).await)
}

async fn route_inner(app: Arc<App>, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(&app, body).await?;
    let served = app.current();
    let worker = app.clone();
    compute(move || {
        let Value::Object(mut object) = parse_json(&bytes)? else {
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "send a JSON object: {\"context\": {...}, \"rule\": \"sample\"}"));
        };
        let context = match object.remove("context") {
            Some(Value::Object(context)) => context,
            _ => return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "no context object: send {\"context\": {FEATURE: value, ...}}")),
        };
        if let Some(unknown) = object.keys().find(|k| !crate::route::ROUTE_FIELDS.contains(&k.as_str())) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("unknown field {unknown:?}; a route request has context, rule, max_cost, surcharge, cost_cap, menu_size, request_id"),
            ));
        }
        let fields = RouteFields::from_object(&object)?;
        let request = fields.request(&worker)?;
        let routed = route_context(&served, context.clone(), request)?;
        routed.log(&worker, &served, &context)?;
        let mut response = (json_headers(), routed.answer(&served).to_string()).into_response();
        warn_in(&mut response, routed.warning.as_deref());
        if let Ok(value) = HeaderValue::from_str(&served.model.agents[routed.route.menu[0]]) {
            response.headers_mut().insert("x-verdict-model", value);
        }
        response.extensions_mut().insert(routed.note(None));
        Ok(response)
    })
    .await
}

/// `GET /v1/models`: the agents in OpenAI's list shape, each with its cost, and the
/// model file serving.
pub(crate) async fn models(State(app): State<Arc<App>>) -> Response {
    let served = app.current();
    let data: Vec<Value> = served
        .model
        .agents
        .iter()
        .enumerate()
        .map(|(j, agent)| {
            json!({"id": agent, "object": "model", "owned_by": "verdict", "cost": served.costs.get(j)})
        })
        .collect();
    let body = json!({
        "object": "list",
        "data": data,
        "model_id": served.id,
        "features": served.model.feature_names,
        "text_column": served.featurizer.text_column,
    });
    (json_headers(), body.to_string()).into_response()
}

/// `GET /health`: up, and which model serves.
pub(crate) async fn health(State(app): State<Arc<App>>) -> Response {
    let served = app.current();
    // Saturated: every upstream slot is taken, so a chat request now would be refused.
    let saturated = app.upstreams.is_some() && app.upstream_slots.available_permits() == 0;
    let (status, word) = if saturated {
        (StatusCode::SERVICE_UNAVAILABLE, "saturated")
    } else {
        (StatusCode::OK, "ok")
    };
    let body = json!({"status": word, "model_id": served.id, "agents": served.model.agents.len()});
    (status, json_headers(), body.to_string()).into_response()
}

/// `GET /metrics`: Prometheus's text format.
pub(crate) async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4"),
        )],
        app.metrics.render(),
    )
        .into_response()
}

/// `POST /admin/reload`: the model file read again, checked, and swapped in only when
/// it loads and ranks the same agents on the same features.
pub(crate) async fn reload(State(app): State<Arc<App>>) -> Response {
    match reload_model(&app).await {
        Ok(served_id) => (
            json_headers(),
            json!({"reloaded": true, "model_id": served_id}).to_string(),
        )
            .into_response(),
        Err(error) => error.into_response(),
    }
}

/// Loads the model file on the blocking pool and swaps it in; what SIGHUP does too.
///
/// # Errors
/// 422 with the reason the file was refused; the old model keeps serving.
pub(crate) async fn reload_model(app: &Arc<App>) -> Result<String, ApiError> {
    let _one_at_a_time = app.reloading.lock().await;
    let worker = app.clone();
    let loaded = compute(move || {
        // The client learns the file's name; the operator's log says where it is.
        let path = &worker.model_path;
        Served::load(
            path,
            &shown_name(path),
            worker.upstreams.as_ref(),
            worker.encoder.as_ref(),
        )
        .map_err(|e| {
            eprintln!("verdict serve: reload of {} refused: {e}", path.display());
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("reload refused, the old model keeps serving: {e}"),
            )
        })
    })
    .await;
    let next = match loaded {
        Ok(next) => next,
        Err(e) => {
            app.metrics.reloaded(false);
            return Err(e);
        }
    };
    if let Some(reason) = app.current().refuses(&next) {
        app.metrics.reloaded(false);
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("reload refused, the old model keeps serving: {reason}"),
        ));
    }
    let id = next.id.clone();
    *app.served
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(next);
    app.metrics.reloaded(true);
    Ok(id)
}

/// A handler's result as a response.
fn answer(result: Result<Response, ApiError>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

/// Puts `warning` (the categories a context brought that the model never saw) in the
/// answer's `x-verdict-warning` header, on one line.
pub(crate) fn warn_in(response: &mut Response, warning: Option<&str>) {
    if let Some(Ok(value)) = warning.map(|w| HeaderValue::from_str(&w.replace(['\r', '\n'], " "))) {
        response.headers_mut().insert("x-verdict-warning", value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_without_ids_are_numbered_by_place() {
        let (contexts, payoff) = contexts_of(
            json!({"contexts": [{"x": 1}, {"context_id": "b", "x": 2}], "payoff": true}),
        )
        .unwrap();
        assert!(payoff);
        assert_eq!(contexts[0]["context_id"], "0");
        assert_eq!(contexts[1]["context_id"], "b");
        assert!(contexts_of(json!({"contexts": []})).is_err());
        assert!(contexts_of(json!([1])).is_err());
    }
}
