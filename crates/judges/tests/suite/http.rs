//! The HTTP judge against a local OpenAI-compatible stand-in server: prompts filled
//! from items, scores parsed from replies, transient failures retried, the
//! concurrency limit held, failures recorded in the ledger, and a rerun served from
//! the ledger without a single request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use verdict_judges::{
    estimate, ConfiguredPool, EstimateSettings, JudgeError, JudgesConfig, Ledger, LedgerEntry,
    LedgeredPool, Method, Norm,
};

/// What the stand-in server saw.
#[derive(Default)]
struct Seen {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    flaky_failures: AtomicUsize,
    bodies: Mutex<Vec<serde_json::Value>>,
    idempotency_keys: Mutex<Vec<String>>,
}

/// Serves chat completions on a free local port. The reply depends on the user
/// message: "good" → "Score: 8", "flaky" → HTTP 503 the first two times, then "7",
/// "garbage" → no number, "huge" → 42, "slow" → waits 3 s, "nan" → "NaN", "down" →
/// HTTP 500 always, "echo" → HTTP 400 repeating the request's Authorization header,
/// "bigbody" → a 2 MiB reply, "binary" → a reply that is not UTF-8, "straddle" → HTTP
/// 400 whose body puts the key across the 200th character, "retry-after=V" → HTTP 429
/// with `Retry-After: V`; without the bearer token "sekrit" → HTTP 401. Every request
/// takes 50 ms, so concurrent calls overlap.
fn serve() -> (String, Arc<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    let seen = Arc::new(Seen::default());
    let state = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = Arc::clone(&state);
            std::thread::spawn(move || answer(stream, &seen));
        }
    });
    (url, seen)
}

fn answer(mut stream: std::net::TcpStream, seen: &Seen) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let (mut length, mut authorised) = (0usize, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
        if lower.trim() == "authorization: bearer sekrit" {
            authorised = true;
        }
        if let Some(key) = lower.strip_prefix("idempotency-key:") {
            seen.idempotency_keys
                .lock()
                .unwrap()
                .push(key.trim().to_string());
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    seen.requests.fetch_add(1, Ordering::SeqCst);
    let now = seen.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    seen.most_in_flight.fetch_max(now, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(50));
    let user = body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .get("content")
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    seen.bodies.lock().unwrap().push(body);
    let raw: Option<(u16, Vec<u8>, String)> = if !authorised {
        None
    } else if user.contains("echo") {
        Some((
            400,
            b"bad request; you sent Authorization: Bearer sekrit".to_vec(),
            String::new(),
        ))
    } else if user.contains("straddle") {
        // The key starts at the 198th character: a cut at 200 keeps "se".
        let mut body = vec![b'x'; 197];
        body.extend_from_slice(b"sekrit");
        Some((400, body, String::new()))
    } else if let Some(at) = user.find("retry-after=") {
        let value: String = user[at + 12..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '.')
            .collect();
        Some((429, Vec::new(), format!("Retry-After: {value}\r\n")))
    } else if user.contains("bigbody") {
        Some((200, vec![b' '; 2 << 20], String::new()))
    } else if user.contains("binary") {
        Some((200, vec![0xff, 0xfe, b'7', 0xc3], String::new()))
    } else {
        None
    };
    if let Some((status, bytes, headers)) = raw {
        seen.in_flight.fetch_sub(1, Ordering::SeqCst);
        let _ = write!(
            stream,
            "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            bytes.len()
        );
        let _ = stream.write_all(&bytes);
        return;
    }
    let (status, content) = if !authorised {
        (401, "")
    } else if user.contains("flaky") && seen.flaky_failures.fetch_add(1, Ordering::SeqCst) < 2 {
        (503, "")
    } else if user.contains("good") {
        (200, "Score: 8")
    } else if user.contains("flaky") {
        (200, "7")
    } else if user.contains("huge") {
        (200, "42")
    } else if user.contains("nan") {
        (200, "score: NaN")
    } else if user.contains("down") {
        (500, "")
    } else if user.contains("slow") {
        std::thread::sleep(Duration::from_secs(3));
        (200, "5")
    } else {
        (200, "I cannot grade this.")
    };
    seen.in_flight.fetch_sub(1, Ordering::SeqCst);
    let reply =
        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
            .to_string();
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
        reply.len()
    );
}

fn config(dir: &Path, url: &str, concurrency: usize) -> JudgesConfig {
    config_with(dir, url, concurrency, "")
}

/// [`config`] with `extra` lines in the `[judge.http]` table.
fn config_with(dir: &Path, url: &str, concurrency: usize, extra: &str) -> JudgesConfig {
    config_timed(dir, url, concurrency, extra, 0.3)
}

/// [`config_with`] whose calls may take `timeout` seconds in all.
fn config_timed(
    dir: &Path,
    url: &str,
    concurrency: usize,
    extra: &str,
    timeout: f64,
) -> JudgesConfig {
    let path = dir.join("judges.toml");
    std::fs::write(
        &path,
        format!(
            r#"range = 10.0
[[judge]]
name = "endpoint"
cost = 1.0
timeout_seconds = {timeout}
[judge.http]
url = "{url}"
model = "grader"
api_key_env = "VERDICT_TEST_KEY"
system = "You grade answers."
prompt = "Answer: {{answer}}. Reply with a score from 0 to 10."
temperature = 0.7
retries = 3
backoff_seconds = 0.01
concurrency = {concurrency}
{extra}
"#
        ),
    )
    .unwrap();
    JudgesConfig::read(&path).unwrap()
}

fn items(answers: &[&str]) -> Vec<serde_json::Value> {
    answers
        .iter()
        .enumerate()
        .map(|(i, a)| serde_json::json!({"id": format!("q{i}"), "answer": a}))
        .collect()
}

fn ledger_entries(path: &Path) -> Vec<LedgerEntry> {
    Ledger::read(path).unwrap().ended().cloned().collect()
}

fn run(
    config: &JudgesConfig,
    answers: &[&str],
    budget: f64,
    ledger: &Path,
) -> Result<Vec<f64>, JudgeError> {
    let items = items(answers);
    let ids = (0..answers.len()).map(|i| format!("q{i}")).collect();
    let mut pool = ConfiguredPool::new(items, config.clone(), 0)?;
    let mut ledgered = LedgeredPool::open(
        &mut pool,
        ids,
        vec!["endpoint".into()],
        serde_json::Map::new(),
        ledger,
    )?;
    let settings = EstimateSettings::new(Norm::P(2.0));
    estimate(&mut ledgered, budget, &Method::Uniform, &settings).map(|e| e.scores)
}

#[test]
fn http_judge_scores_concurrently_within_the_limit_and_resumes_from_the_ledger() {
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    let (url, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &url, 3);
    let ledger = dir.path().join("spend.jsonl");
    // Two items, six calls each; "flaky" fails twice with 503 before answering.
    let scores = run(&config, &["good", "flaky"], 12.0, &ledger).unwrap();
    assert_eq!(scores, vec![8.0, 7.0]);
    let most = seen.most_in_flight.load(Ordering::SeqCst);
    assert!(
        (2..=3).contains(&most),
        "{most} calls in flight at once (limit 3)"
    );
    // The retries are the endpoint's business: 12 recorded calls, 14 requests.
    assert_eq!(seen.requests.load(Ordering::SeqCst), 14);
    // Every request carries its call's idempotency key, and a retry repeats it: 14
    // requests, 12 calls, 12 keys.
    let mut keys = seen.idempotency_keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 14);
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 12);
    let entries = ledger_entries(&ledger);
    assert_eq!(entries.len(), 12);
    assert!(entries.iter().all(|e| e.error.is_none() && e.cost == 1.0));
    let body = &seen.bodies.lock().unwrap()[0];
    assert_eq!(body["model"], "grader");
    assert_eq!(body["temperature"], 0.7);
    assert_eq!(body["messages"][0]["content"], "You grade answers.");
    assert_eq!(
        body["messages"][1]["content"],
        "Answer: good. Reply with a score from 0 to 10."
    );
    // A rerun with the same ledger is served from it: no request at all.
    let again = run(&config, &["good", "flaky"], 12.0, &ledger).unwrap();
    assert_eq!(again, scores);
    assert_eq!(seen.requests.load(Ordering::SeqCst), 14);
}

/// A reply the endpoint served — one without a number, one out of range, one that came
/// after the call's timeout — may have been billed: it is charged at the judge's price
/// and recorded, never a score, and the run stops once the budget is spent on them.
#[test]
fn garbage_out_of_range_and_slow_replies_fail_without_losing_the_ledger() {
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    let (url, _seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &url, 2);
    for (answer, expected) in [
        ("garbage", "no score in the reply"),
        ("huge", "outside"),
        ("slow", "timeout"),
    ] {
        let ledger = dir.path().join(format!("{answer}.jsonl"));
        let err = run(&config, &["good", answer], 4.0, &ledger).unwrap_err();
        let message = err.to_string().to_lowercase();
        assert!(
            matches!(err, JudgeError::Lost { cost: 1.0, .. }),
            "{answer}: {err}"
        );
        assert!(message.contains(expected), "{answer}: {err}");
        assert!(message.contains("billed"), "{answer}: {err}");
        // The good item's calls and the served failures are charged, within budget.
        let entries = ledger_entries(&ledger);
        let paid: f64 = entries.iter().map(|e| e.cost).sum();
        assert_eq!(paid, 4.0, "{answer}");
        assert!(entries
            .iter()
            .filter(|e| e.item == "q1")
            .all(|e| e.cost == 1.0 && e.is_charged_failure()));
        assert!(entries
            .iter()
            .filter(|e| e.item == "q1")
            .all(|e| e.error.is_some()));
        assert!(entries.iter().any(|e| e.item == "q1"));
    }
}

/// The guarantee on HTTP judges: a reply that is not a score — NaN, a 500 every time,
/// a huge body, bytes that are not UTF-8, an error page — is a failed call recorded
/// with its reason, never a score; and the API key never reaches an error, the ledger
/// or anything made from them, even when the server echoes it back.
#[test]
fn http_judge_answers_that_are_not_scores_fail_and_the_key_never_leaks() {
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    let (url, _seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    // A pattern that takes any word after "score:", so "NaN" reaches the number parser.
    let config = config_with(dir.path(), &url, 2, r#"score_regex = 'score: (\S+)'"#);
    let plain = config_with(dir.path(), &url, 2, "");
    // (answer, settings, reason, whether the endpoint served the call and so billed it)
    for (answer, config, expected, billed) in [
        ("nan", &config, "not a finite number", true),
        ("down", &plain, "http 500", false),
        ("bigbody", &plain, "over 1 mib", true),
        ("binary", &plain, "not utf-8", true),
        ("echo", &plain, "http 400", false),
        ("straddle", &plain, "http 400", false),
    ] {
        let ledger = dir.path().join(format!("{answer}.jsonl"));
        let err = run(config, &[answer], 4.0, &ledger).unwrap_err();
        let message = err.to_string();
        if billed {
            assert!(matches!(err, JudgeError::Lost { .. }), "{answer}: {err}");
        } else {
            assert!(matches!(err, JudgeError::Call { .. }), "{answer}: {err}");
        }
        assert!(message.to_lowercase().contains(expected), "{answer}: {err}");
        // Not even a part of it: a reply is redacted before it is cut for a message.
        assert!(
            !message.contains("sekrit") && !message.contains("xse"),
            "{answer}: the key leaked: {message}"
        );
        let text = std::fs::read_to_string(&ledger).unwrap();
        assert!(
            !text.contains("sekrit") && !text.contains("xse"),
            "{answer}: the key is in the ledger"
        );
        let entries = ledger_entries(&ledger);
        assert!(!entries.is_empty(), "{answer}: no call recorded");
        assert!(
            entries
                .iter()
                .all(|e| e.error.is_some() && e.score.is_none()),
            "{answer}: a failure became a score"
        );
    }
    // The echo's reason is kept, the key replaced.
    let text = std::fs::read_to_string(dir.path().join("echo.jsonl")).unwrap();
    assert!(text.contains("Bearer [API key]"), "{text}");
}

#[test]
fn bad_http_settings_are_clear_errors() {
    let (url, _seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path(), &url, 2);
    // A prompt field the item lacks, named with the item.
    let no_field = vec![serde_json::json!({"id": "x", "question": "?"})];
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    let err = ConfiguredPool::new(no_field, config.clone(), 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("\"answer\""), "{err}");
    assert!(err.to_string().contains("\"x\""), "{err}");
    // An unset key variable.
    config.judges[0].http.as_mut().unwrap().api_key_env = Some("VERDICT_TEST_UNSET".into());
    let err = ConfiguredPool::new(items(&["good"]), config.clone(), 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("VERDICT_TEST_UNSET"), "{err}");
    // Without the key the endpoint answers 401: a permanent failure, not retried.
    config.judges[0].http.as_mut().unwrap().api_key_env = None;
    let ledger = dir.path().join("unauthorised.jsonl");
    let err = run(&config, &["good"], 2.0, &ledger).unwrap_err();
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    // A malformed score pattern.
    config.judges[0].http.as_mut().unwrap().score_regex = Some("(".into());
    let err = ConfiguredPool::new(items(&["good"]), config, 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("score_regex"), "{err}");
}

/// Calls the endpoint served without a score are paid for: with budget 1 at price 1,
/// two runs on one ledger make one request in all (the second is served from the
/// ledger), and the ledger says 1 was spent. Before, each such call was recorded at
/// cost 0 and asked again with a new key: 18 requests answered for a ledger of 0.
#[test]
fn http_calls_answered_without_a_score_are_charged_and_never_asked_again() {
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    for answer in ["garbage", "slow"] {
        let (url, seen) = serve();
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path(), &url, 1);
        let ledger = dir.path().join("spend.jsonl");
        for _ in 0..2 {
            let err = run(&config, &[answer], 1.0, &ledger).unwrap_err();
            assert!(matches!(err, JudgeError::Lost { .. }), "{answer}: {err}");
        }
        assert_eq!(seen.requests.load(Ordering::SeqCst), 1, "{answer}");
        assert_eq!(Ledger::read(&ledger).unwrap().spent(), 1.0, "{answer}");
    }
}

/// `Retry-After` values that are not a wait (negative, NaN, infinite, 1e30) are
/// ignored for the configured backoff instead of panicking; one that would pass the
/// call's deadline (3600 s with timeout_seconds = 5) ends the call at once instead of
/// sleeping an hour. The deadline leaves the four attempts of a call room on a loaded
/// machine; the bound below is generous: the call ends in well under a second, an
/// hour's sleep would not.
#[test]
fn retry_after_never_panics_nor_passes_the_call_s_deadline() {
    std::env::set_var("VERDICT_TEST_KEY", "sekrit");
    let (url, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let config = config_timed(dir.path(), &url, 1, "", 5.0);
    for value in ["-1", "NaN", "inf", "1e30"] {
        let ledger = dir.path().join(format!("{value}.jsonl"));
        let before = seen.requests.load(Ordering::SeqCst);
        let err = run(&config, &[&format!("retry-after={value}")], 1.0, &ledger).unwrap_err();
        assert!(err.to_string().contains("HTTP 429"), "{value}: {err}");
        // Asked again after the backoff: every attempt of every round reached it.
        assert!(seen.requests.load(Ordering::SeqCst) - before > 1, "{value}");
    }
    let started = std::time::Instant::now();
    let ledger = dir.path().join("hour.jsonl");
    let err = run(&config, &["retry-after=3600"], 1.0, &ledger).unwrap_err();
    assert!(err.to_string().contains("timeout_seconds"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(60), "{err}");
    // A negative backoff is refused when the judges are read.
    let path = dir.path().join("judges.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("backoff_seconds = 0.01", "backoff_seconds = -1");
    std::fs::write(&path, text).unwrap();
    let config = JudgesConfig::read(&path).unwrap();
    let err = ConfiguredPool::new(items(&["good"]), config, 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("backoff_seconds = -1"), "{err}");
}
