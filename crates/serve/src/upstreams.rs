//! `upstreams.toml`: for each agent, the OpenAI-compatible endpoint that serves it,
//! the environment variable holding its API key, and its cost.
//!
//! ```toml
//! [upstream.model-a]
//! base_url = "https://api.example.com/v1"   # POST {base_url}/chat/completions
//! api_key_env = "MODEL_A_KEY"               # optional; the key is read at start
//! cost = 2.5                                 # per request, in any unit
//! model = "model-a-2025-01"                  # optional; the upstream's own name
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use verdict::VerdictError;

/// One agent's endpoint.
#[derive(Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UpstreamEntry {
    base_url: String,
    #[serde(default)]
    api_key_env: Option<String>,
    cost: f64,
    #[serde(default)]
    model: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UpstreamsFile {
    upstream: BTreeMap<String, UpstreamEntry>,
}

/// An agent's endpoint, ready to call.
#[derive(Clone)]
pub(crate) struct Upstream {
    /// `{base_url}/chat/completions`.
    pub url: String,
    /// The key, read from its variable at start; never printed.
    pub key: Option<String>,
    /// The name the upstream knows the model by.
    pub model: String,
    /// Its cost.
    pub cost: f64,
}

impl std::fmt::Debug for Upstream {
    /// Leaves the key out, so that no log or error can show it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

/// Every agent's endpoint, by agent name.
#[derive(Debug, Clone)]
pub(crate) struct Upstreams {
    /// The file they were read from, for messages.
    file: String,
    by_agent: BTreeMap<String, Upstream>,
}

impl Upstreams {
    /// Reads `path`: each entry's cost finite and ≥ 0, its URL http(s), its key
    /// variable set.
    ///
    /// # Errors
    /// [`VerdictError::Settings`] naming the file and the entry.
    pub fn read(path: &Path) -> Result<Self, VerdictError> {
        let label = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| VerdictError::Settings(format!("{label}: cannot read: {e}")))?;
        let file: UpstreamsFile = toml::from_str(&text).map_err(|e| {
            VerdictError::Settings(format!(
                "{label}: {} (each model is a table [upstream.NAME] with base_url, cost and optionally api_key_env, model)",
                e.message()
            ))
        })?;
        let mut by_agent = BTreeMap::new();
        for (name, entry) in file.upstream {
            let at = |message: String| {
                VerdictError::Settings(format!("{label}: upstream {name:?}: {message}"))
            };
            if !entry.cost.is_finite() || entry.cost < 0.0 {
                return Err(at(format!(
                    "cost {} must be a finite number ≥ 0",
                    entry.cost
                )));
            }
            let base = entry.base_url.trim_end_matches('/');
            if !(base.starts_with("http://") || base.starts_with("https://")) {
                return Err(at(format!(
                    "base_url {base:?} must begin with http:// or https://"
                )));
            }
            let key = match &entry.api_key_env {
                None => None,
                Some(variable) => Some(std::env::var(variable).map_err(|_| {
                    at(format!(
                        "the environment variable {variable} (api_key_env) is not set"
                    ))
                })?),
            };
            by_agent.insert(
                name.clone(),
                Upstream {
                    url: format!("{base}/chat/completions"),
                    key,
                    model: entry.model.unwrap_or_else(|| name.clone()),
                    cost: entry.cost,
                },
            );
        }
        Ok(Self {
            file: label.to_string(),
            by_agent,
        })
    }

    /// The endpoint of `agent`.
    pub fn get(&self, agent: &str) -> Option<&Upstream> {
        self.by_agent.get(agent)
    }

    /// The agents named, in name order.
    pub fn agents(&self) -> Vec<String> {
        self.by_agent.keys().cloned().collect()
    }

    /// Every upstream's key: what no answer may carry back to a client.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.by_agent.values().filter_map(|u| u.key.as_deref())
    }

    /// The costs of `agents`, in their order.
    ///
    /// # Errors
    /// [`VerdictError::Data`] naming the agents without an entry, and entries that
    /// name no agent.
    pub fn costs_for(&self, agents: &[String]) -> Result<Vec<f64>, VerdictError> {
        let missing: Vec<&str> = agents
            .iter()
            .filter(|a| !self.by_agent.contains_key(*a))
            .map(String::as_str)
            .collect();
        let unknown: Vec<&str> = self
            .by_agent
            .keys()
            .filter(|n| !agents.contains(n))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() || !unknown.is_empty() {
            return Err(VerdictError::Data(format!(
                "{}: the upstreams file must name exactly the model's agents: without an entry: [{}]; not an agent: [{}]",
                self.file,
                missing.join(", "),
                unknown.join(", ")
            )));
        }
        Ok(agents.iter().map(|a| self.by_agent[a].cost).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, text: &str) -> std::path::PathBuf {
        let path = dir.join("upstreams.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn upstreams_are_checked_against_the_model_naming_the_file_and_entry() {
        let dir = tempfile::tempdir().unwrap();
        let agents = ["a".to_string(), "b".to_string()];
        let good = file(
            dir.path(),
            "[upstream.a]\nbase_url = \"http://127.0.0.1:1/v1/\"\ncost = 2\n[upstream.b]\nbase_url = \"https://x\"\ncost = 0.5\nmodel = \"b-2025\"\n",
        );
        let upstreams = Upstreams::read(&good).unwrap();
        assert_eq!(upstreams.costs_for(&agents).unwrap(), vec![2.0, 0.5]);
        assert_eq!(
            upstreams.get("a").unwrap().url,
            "http://127.0.0.1:1/v1/chat/completions"
        );
        assert_eq!(upstreams.get("b").unwrap().model, "b-2025");
        let err = upstreams
            .costs_for(&["a".into(), "c".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("upstreams.toml")
                && err.contains("without an entry: [c]")
                && err.contains("not an agent: [b]"),
            "{err}"
        );
        for (text, says) in [
            ("[upstream.a]\nbase_url = \"http://x\"\ncost = -1\n", "cost -1"),
            ("[upstream.a]\nbase_url = \"ftp://x\"\ncost = 1\n", "http:// or https://"),
            ("[upstream.a]\nbase_url = \"http://x\"\ncost = 1\napi_key_env = \"VERDICT_TEST_NO_SUCH_VARIABLE\"\n", "VERDICT_TEST_NO_SUCH_VARIABLE"),
            ("[upstream.a]\nbase_url = \"http://x\"\n", "cost"),
        ] {
            let err = Upstreams::read(&file(dir.path(), text)).unwrap_err().to_string();
            assert!(err.contains("upstreams.toml") && err.contains(says), "{text}: {err}");
        }
    }
}
