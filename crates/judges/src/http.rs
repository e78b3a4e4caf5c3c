//! A judge behind an OpenAI-compatible chat-completions endpoint: the item fills a
//! prompt template, the reply's text is parsed for a score, transient failures
//! (refused connections, HTTP 429 and 5xx) are retried with exponential backoff, and
//! at most `concurrency` calls run at once.
//!
//! One deadline covers a whole call: `timeout_seconds` bounds every attempt, wait and
//! retry together, and a `Retry-After` that would pass it ends the call instead of
//! sleeping. A call the endpoint may have billed — a reply that came back without a
//! usable score, or a request sent and not answered in time — is never retried inside
//! the call: it is reported as billed ([`CallFailure::billed`]) and charged.
//!
//! ```toml
//! [[judge]]
//! name = "mini"
//! cost = 0.0004
//! timeout_seconds = 60
//! [judge.http]
//! url = "https://api.openai.com/v1/chat/completions"
//! model = "gpt-4o-mini"
//! api_key_env = "OPENAI_API_KEY"
//! system = "You grade answers."
//! prompt = "Question: {question}\nAnswer: {answer}\nScore the answer from 0 to 10; reply with the number only."
//! temperature = 1.0
//! concurrency = 8
//! ```

// Without the `http` feature the client is compiled out and `HttpJudge::new` refuses
// with a message; the configuration and templates stay, so a judges.toml naming an
// HTTP judge still reads and is refused clearly rather than misparsed.
#![cfg_attr(
    not(feature = "http"),
    allow(dead_code, unused_variables, unreachable_code)
)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use regex::Regex;

use crate::JudgeError;

/// The `[judge.http]` table.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// The chat-completions URL.
    pub url: String,
    /// The `model` field of each request.
    pub model: String,
    /// The user message; `{field}` is replaced by the item's field (strings as they
    /// are, anything else as JSON) and `{item}` by the whole item as JSON.
    pub prompt: String,
    /// An optional system message (same placeholders).
    pub system: Option<String>,
    /// Environment variable holding the API key (sent as a bearer token); none sends
    /// no key.
    pub api_key_env: Option<String>,
    /// Sampling temperature (the endpoint's default when absent).
    pub temperature: Option<f64>,
    /// Most tokens in the reply (the endpoint's default when absent).
    pub max_tokens: Option<u64>,
    /// A regular expression whose first capture group (or whole match) is the score;
    /// by default the last number in the reply.
    pub score_regex: Option<String>,
    /// Retries of a transient failure before the call counts as failed (default 4).
    pub retries: Option<u32>,
    /// Wait before the first retry, doubled for each next one (default 1 s, at least
    /// 0); a `Retry-After` header in seconds takes precedence. No wait passes the
    /// call's deadline (`timeout_seconds`).
    pub backoff_seconds: Option<f64>,
    /// Most calls in flight at once (default 4).
    pub concurrency: Option<usize>,
}

/// A ready-to-call HTTP judge: the agent, the key, the parsed templates.
pub(crate) struct HttpJudge {
    config: HttpConfig,
    #[cfg(feature = "http")]
    agent: ureq::Agent,
    /// One call's deadline, from its first attempt.
    timeout: Duration,
    key: Option<String>,
    score: Regex,
    placeholder: Regex,
}

impl HttpJudge {
    /// Checks the configuration and reads the key.
    ///
    /// # Errors
    /// A message naming what to fix: an unset key variable, a bad regular expression,
    /// a concurrency of 0, a timeout that is not positive or a backoff that is not a
    /// number of seconds.
    pub(crate) fn new(config: HttpConfig, timeout_seconds: f64) -> Result<Self, String> {
        if !(timeout_seconds.is_finite() && timeout_seconds > 0.0) {
            return Err(format!(
                "timeout_seconds = {timeout_seconds} must be positive"
            ));
        }
        if let Some(backoff) = config.backoff_seconds {
            if !(backoff.is_finite() && (0.0..=timeout_seconds).contains(&backoff)) {
                return Err(format!(
                    "backoff_seconds = {backoff} must be a number of seconds in [0, timeout_seconds = {timeout_seconds}]"
                ));
            }
        }
        if config.concurrency == Some(0) {
            return Err("concurrency = 0; at least one call must be allowed".into());
        }
        let key = match &config.api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| {
                format!("environment variable {var} (api_key_env) is not set; export the API key")
            })?),
            None => None,
        };
        let pattern = config
            .score_regex
            .as_deref()
            .unwrap_or(r"(-?\d+(?:\.\d+)?)(?:\D*)$");
        let score =
            Regex::new(pattern).map_err(|e| format!("score_regex {pattern:?} is invalid: {e}"))?;
        #[cfg(not(feature = "http"))]
        return Err(
            "this build of verdict makes no HTTP calls (built without the `http` feature); build it with the feature, or wrap the endpoint in a command judge".into(),
        );
        #[cfg(feature = "http")]
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        #[cfg(feature = "http")]
        Ok(Self {
            config,
            agent,
            timeout: Duration::from_secs_f64(timeout_seconds),
            key,
            score,
            placeholder: Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid pattern"),
        })
    }

    /// The request body for one item.
    ///
    /// # Errors
    /// The name of a placeholder the item lacks.
    pub(crate) fn request(&self, item: &serde_json::Value) -> Result<serde_json::Value, String> {
        let mut messages = Vec::new();
        if let Some(system) = &self.config.system {
            messages
                .push(serde_json::json!({"role": "system", "content": self.fill(system, item)?}));
        }
        messages.push(
            serde_json::json!({"role": "user", "content": self.fill(&self.config.prompt, item)?}),
        );
        let mut body = serde_json::json!({"model": self.config.model, "messages": messages});
        if let Some(t) = self.config.temperature {
            body["temperature"] = t.into();
        }
        if let Some(m) = self.config.max_tokens {
            body["max_tokens"] = m.into();
        }
        Ok(body)
    }

    fn fill(&self, template: &str, item: &serde_json::Value) -> Result<String, String> {
        let mut missing = None;
        let text = self
            .placeholder
            .replace_all(template, |c: &regex::Captures| {
                let name = &c[1];
                match (name, item.get(name)) {
                    ("item", _) => item.to_string(),
                    (_, Some(serde_json::Value::String(s))) => s.clone(),
                    (_, Some(other)) => other.to_string(),
                    (_, None) => {
                        missing = Some(name.to_string());
                        String::new()
                    }
                }
            });
        match missing {
            Some(name) => Err(format!(
                "the prompt uses {{{name}}} but the item has no field {name:?}"
            )),
            None => Ok(text.into_owned()),
        }
    }

    /// Most calls in flight at once.
    pub(crate) fn concurrency(&self) -> u64 {
        self.config.concurrency.unwrap_or(4) as u64
    }

    /// `count` calls with `body`, at most `concurrency` at once, the n-th started with
    /// the idempotency key `keys[n]` (when given); each outcome goes to `take` as it
    /// arrives, and the first error `take` returns stops new calls (those in flight
    /// finish unrecorded: a ledger then holds them as in doubt).
    pub(crate) fn call_many(
        &self,
        body: &serde_json::Value,
        count: u64,
        keys: &[String],
        take: &mut dyn FnMut(Result<f64, CallFailure>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let workers = self.concurrency().min(count);
        let started = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::channel();
            for _ in 0..workers {
                let sender = sender.clone();
                let (started, stop) = (&started, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        let n = started.fetch_add(1, Ordering::SeqCst);
                        if n >= count {
                            break;
                        }
                        let key = usize::try_from(n).ok().and_then(|n| keys.get(n));
                        if sender.send(self.call(body, key)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for outcome in receiver {
                if let Err(e) = take(outcome) {
                    stop.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
            Ok(())
        })
    }

    /// One score, retrying transient failures (with the same idempotency key) until
    /// the call's deadline; the API key never appears in what goes wrong, even when the
    /// server echoes it.
    fn call(&self, body: &serde_json::Value, key: Option<&String>) -> Result<f64, CallFailure> {
        let deadline = Instant::now() + self.timeout;
        let retries = self.config.retries.unwrap_or(4);
        let mut wait = self.config.backoff_seconds.unwrap_or(1.0);
        let mut attempt = 0;
        let failure = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.post(body, key, left) {
                Ok(text) => match self.parse(&text) {
                    Ok(score) => return Ok(score),
                    Err(message) => break CallFailure::billed(message),
                },
                Err(Failure::Transient {
                    message,
                    retry_after,
                }) if attempt < retries => {
                    let pause = retry_after.unwrap_or(wait);
                    let left = deadline.saturating_duration_since(Instant::now());
                    if pause >= left.as_secs_f64() {
                        break CallFailure::unpaid(format!(
                            "{message}; the next try (in {pause} s) would pass the call's timeout_seconds = {}",
                            self.timeout.as_secs_f64()
                        ));
                    }
                    std::thread::sleep(Duration::from_secs_f64(pause));
                    wait *= 2.0;
                    attempt += 1;
                }
                Err(Failure::Transient { message, .. }) => {
                    break CallFailure::unpaid(format!("{message} (after {retries} retries)"))
                }
                Err(Failure::Permanent(message)) => break CallFailure::unpaid(message),
                Err(Failure::Billed(message)) => break CallFailure::billed(message),
            }
        };
        Err(CallFailure {
            message: self.redacted(&failure.message),
            ..failure
        })
    }

    /// `message` with every occurrence of the API key replaced: failures are recorded
    /// in the ledger and shown in errors, pages and progress lines. Replies are
    /// redacted whole, before any part of them is cut out for a message.
    fn redacted(&self, message: &str) -> String {
        match &self.key {
            Some(key) if !key.is_empty() => message.replace(key.as_str(), "[API key]"),
            _ => message.to_string(),
        }
    }

    /// Without the `http` feature no judge is built ([`HttpJudge::new`] refuses).
    #[cfg(not(feature = "http"))]
    fn post(
        &self,
        _: &serde_json::Value,
        _: Option<&String>,
        _: Duration,
    ) -> Result<String, Failure> {
        Err(Failure::Permanent(
            "built without the `http` feature".into(),
        ))
    }

    /// The reply's text, or what went wrong, within `left`.
    #[cfg(feature = "http")]
    fn post(
        &self,
        body: &serde_json::Value,
        key: Option<&String>,
        left: Duration,
    ) -> Result<String, Failure> {
        if left.is_zero() {
            return Err(Failure::Permanent(format!(
                "timed out after timeout_seconds = {}",
                self.timeout.as_secs_f64()
            )));
        }
        let mut request = self
            .agent
            .post(&self.config.url)
            .config()
            .timeout_global(Some(left))
            .build();
        if let Some(key) = key {
            request = request.header("Idempotency-Key", key);
        }
        if let Some(key) = &self.key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        let mut response = request.send_json(body).map_err(sending_failure)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(retry_after_seconds);
        let bytes = match response
            .body_mut()
            .with_config()
            .limit(REPLY_LIMIT)
            .read_to_vec()
        {
            Ok(bytes) => bytes,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                return Err(answered(
                    status,
                    format!(
                        "HTTP {status}: the reply is over {} MiB; a score is a short text",
                        REPLY_LIMIT >> 20
                    ),
                ))
            }
            // The endpoint answered and the reply broke off: it may have been billed.
            Err(e) => return Err(answered(status, format!("HTTP {status}: {e}"))),
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(answered(
                status,
                format!("HTTP {status}: the reply is not UTF-8 text"),
            ));
        };
        // Redacted whole before any of it is clipped: a key cut in two is not found.
        let text = self.redacted(&text);
        let snippet = clip(&text);
        match status {
            200..=299 => {}
            429 | 500..=599 => {
                return Err(Failure::Transient {
                    message: format!("HTTP {status}: {snippet}"),
                    retry_after,
                })
            }
            _ => return Err(Failure::Permanent(format!("HTTP {status}: {snippet}"))),
        }
        let reply: serde_json::Value = serde_json::from_str(&text)
            .map_err(|_| Failure::Billed(format!("reply is not JSON: {snippet}")))?;
        reply["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| {
                Failure::Billed(format!(
                    "reply has no choices[0].message.content: {snippet}"
                ))
            })
    }

    fn parse(&self, text: &str) -> Result<f64, String> {
        let captures = self
            .score
            .captures(text)
            .ok_or_else(|| format!("no score in the reply {:?}", clip(text)))?;
        let matched = captures
            .get(1)
            .or_else(|| captures.get(0))
            .expect("a match");
        matched
            .as_str()
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|score| score.is_finite())
            .ok_or_else(|| format!("{:?} in the reply is not a finite number", matched.as_str()))
    }
}

/// The most bytes of a reply read: a score is a few characters, a chat reply a few
/// kilobytes; anything larger is refused rather than held in memory.
const REPLY_LIMIT: u64 = 1 << 20;

/// The first 200 characters of a reply, for messages.
pub(crate) fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}

/// Why a request failed: worth retrying, not, or answered (and so maybe billed).
enum Failure {
    Transient {
        message: String,
        retry_after: Option<f64>,
    },
    Permanent(String),
    Billed(String),
}

/// A failed call of an HTTP judge: what went wrong, and whether the endpoint may have
/// billed it (it answered, or the request was sent and the answer did not come in
/// time). A billed failure is charged at the judge's price and not asked again with
/// the same key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallFailure {
    /// What went wrong, with the API key redacted.
    pub(crate) message: String,
    /// Whether the call may have been paid for.
    pub(crate) billed: bool,
}

impl CallFailure {
    fn billed(message: String) -> Self {
        Self {
            message,
            billed: true,
        }
    }

    fn unpaid(message: String) -> Self {
        Self {
            message,
            billed: false,
        }
    }
}

/// A failure of a request the endpoint answered with `status`: a success status means
/// the call was served (and may be billed); an error status was refused unpaid.
#[cfg(feature = "http")]
fn answered(status: u16, message: String) -> Failure {
    if (200..300).contains(&status) {
        Failure::Billed(message)
    } else {
        Failure::Permanent(message)
    }
}

/// A failure to send a request or read its answer's head: never reaching the endpoint
/// (no address, a refused connection, a connect timeout) is worth retrying and was not
/// paid; a request sent and then timed out or cut off may have been served, so it is
/// billed and not retried.
#[cfg(feature = "http")]
fn sending_failure(error: ureq::Error) -> Failure {
    use std::io::ErrorKind;
    use ureq::Timeout;
    let never_sent = match &error {
        ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => true,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => true,
        ureq::Error::Io(e) => matches!(
            e.kind(),
            ErrorKind::ConnectionRefused | ErrorKind::AddrNotAvailable | ErrorKind::NotFound
        ),
        _ => false,
    };
    if never_sent {
        Failure::Transient {
            message: error.to_string(),
            retry_after: None,
        }
    } else {
        Failure::Billed(format!(
            "{error}; the request was sent, so it may have been billed"
        ))
    }
}

/// A `Retry-After` header's wait in seconds: a finite, non-negative number (an HTTP
/// date or anything else is ignored, and the backoff decides).
pub(crate) fn retry_after_seconds(header: &str) -> Option<f64> {
    header
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
}
