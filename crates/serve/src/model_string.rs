//! What the OpenAI `model` field of a chat request asks of the router, for clients
//! that can set nothing but a base URL and a model name (chat UIs, IDE plug-ins,
//! no-code tools):
//!
//! | `model` | meaning |
//! |---|---|
//! | absent, `verdict` | route with the request's fields (defaults: `sample`, no budget) |
//! | `verdict-argmax`, `verdict-sample` | that rule |
//! | `verdict-max_cost-2.5`, `verdict-surcharge-0.1` | that budget (the expected cost, or a price per unit cost) |
//! | `verdict-argmax-max_cost-2.5` | both |
//! | `verdict-cap-1.0`, `verdict-argmax-max_cost-2.5-cap-4` | a per-call cost cap (last): no agent dearer than it |
//! | an agent's name (as `/v1/models` lists it) | that agent, not routed (no fallback, no decision logged) |
//!
//! Fields sent beside it (`rule`, `max_cost`, `surcharge`) win over the model string's.
//! Any other name is refused (422) with this grammar, never silently routed.

use axum::http::StatusCode;
use serde_json::{Map, Value};

use crate::http::ApiError;

/// The router's reading of the `model` field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModelChoice {
    /// Route, with the rule and budget fields the model string sets (as JSON fields
    /// of a route request).
    Route(Map<String, Value>),
    /// The agent of this index, asked for by name.
    Pin(usize),
}

/// The grammar, for messages.
const GRAMMAR: &str = "an agent's name from /v1/models, or verdict[-sample|-argmax][-max_cost-NUMBER|-surcharge-NUMBER][-cap-NUMBER]";

/// Reads `model` against the served `agents`.
///
/// # Errors
/// 422 for a name that is neither an agent nor the grammar, or a budget that is not a
/// finite number at least 0.
pub(crate) fn parse(model: Option<&Value>, agents: &[String]) -> Result<ModelChoice, ApiError> {
    let name = match model {
        None | Some(Value::Null) => return Ok(ModelChoice::Route(Map::new())),
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err(refused("model must be a string")),
    };
    if let Some(j) = agents.iter().position(|a| a == name) {
        return Ok(ModelChoice::Pin(j));
    }
    let Some(rest) = name.strip_prefix("verdict") else {
        return Err(refused(&format!(
            "model {name:?} is not one of the served agents"
        )));
    };
    let mut fields = Map::new();
    let mut tokens = rest.split('-').skip_while(|t| t.is_empty()).peekable();
    if rest.is_empty() {
        return Ok(ModelChoice::Route(fields));
    }
    if !rest.starts_with('-') {
        return Err(refused(&format!(
            "model {name:?} is not one of the served agents"
        )));
    }
    if let Some(&rule) = tokens.peek() {
        if rule == "sample" || rule == "argmax" {
            fields.insert("rule".into(), Value::String(rule.into()));
            tokens.next();
        }
    }
    // After the rule: a budget (max_cost or surcharge), then a cap, each with its
    // number; nothing else, nothing twice.
    let mut last = "";
    while let Some(token) = tokens.next() {
        let field = match token {
            "max_cost" | "surcharge" if last.is_empty() => token,
            "cap" if last != "cap" => "cost_cap",
            _ => {
                return Err(refused(&format!(
                    "model {name:?}: {token:?} is not a rule, a budget or a cap in its place"
                )))
            }
        };
        let value = tokens
            .next()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                refused(&format!(
                    "model {name:?}: {token} needs a number at least 0"
                ))
            })?;
        fields.insert(field.into(), serde_json::json!(value));
        last = token;
    }
    Ok(ModelChoice::Route(fields))
}

fn refused(message: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        format!("{message}; give {GRAMMAR}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agents() -> Vec<String> {
        vec!["gpt-4o".into(), "claude".into()]
    }

    fn fields(model: &str) -> Map<String, Value> {
        match parse(Some(&json!(model)), &agents()).unwrap() {
            ModelChoice::Route(fields) => fields,
            ModelChoice::Pin(j) => panic!("{model} pinned {j}"),
        }
    }

    #[test]
    fn the_grammar_sets_rule_and_budget_and_a_name_pins() {
        assert!(fields("verdict").is_empty());
        assert!(matches!(parse(None, &agents()), Ok(ModelChoice::Route(f)) if f.is_empty()));
        assert_eq!(fields("verdict-argmax")["rule"], "argmax");
        assert_eq!(fields("verdict-max_cost-2.5")["max_cost"], 2.5);
        assert_eq!(fields("verdict-cap-1")["cost_cap"], 1.0);
        let all = fields("verdict-argmax-surcharge-0.5-cap-4");
        assert_eq!(
            (all["surcharge"].clone(), all["cost_cap"].clone()),
            (json!(0.5), json!(4.0))
        );
        let both = fields("verdict-sample-surcharge-0.1");
        assert_eq!(
            (both["rule"].clone(), both["surcharge"].clone()),
            (json!("sample"), json!(0.1))
        );
        // A served agent's name, hyphens and all, pins it.
        assert_eq!(
            parse(Some(&json!("gpt-4o")), &agents()).unwrap(),
            ModelChoice::Pin(0)
        );
        assert_eq!(
            parse(Some(&json!("claude")), &agents()).unwrap(),
            ModelChoice::Pin(1)
        );
    }

    #[test]
    fn anything_else_is_refused_with_the_grammar() {
        for bad in [
            json!("gpt-3.5"),
            json!("verdictx"),
            json!("verdict-fast"),
            json!("verdict-max_cost"),
            json!("verdict-max_cost-inf"),
            json!("verdict-max_cost--1"),
            json!("verdict-argmax-max_cost-1-2"),
            json!("verdict-cap-1-max_cost-2"),
            json!("verdict-cap-1-cap-2"),
            json!("verdict-max_cost-1-surcharge-2"),
            json!(7),
        ] {
            let error = parse(Some(&bad), &agents()).unwrap_err();
            assert_eq!(error.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
            assert!(
                error.message.contains("verdict[-sample|-argmax]"),
                "{bad}: {}",
                error.message
            );
        }
    }
}
