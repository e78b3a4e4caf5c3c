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
/// "bigbody" → a 2 MiB reply, "binary" → a reply that is not UTF-8; without the bearer
/// token "sekrit" → HTTP 401. Every request takes 50 ms, so concurrent calls overlap.
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
    let raw: Option<(u16, Vec<u8>)> = if !authorised {
        None
    } else if user.contains("echo") {
        Some((
            400,
            b"bad request; you sent Authorization: Bearer sekrit".to_vec(),
        ))
    } else if user.contains("bigbody") {
        Some((200, vec![b' '; 2 << 20]))
    } else if user.contains("binary") {
        Some((200, vec![0xff, 0xfe, b'7', 0xc3]))
    } else {
        None
    };
    if let Some((status, bytes)) = raw {
        seen.in_flight.fetch_sub(1, Ordering::SeqCst);
        let _ = write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
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
    let path = dir.join("judges.toml");
    std::fs::write(
        &path,
        format!(
            r#"range = 10.0
[[judge]]
name = "endpoint"
cost = 1.0
timeout_seconds = 0.3
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
        assert!(matches!(err, JudgeError::Call { .. }), "{err}");
        assert!(message.contains(expected), "{answer}: {err}");
        // The good item's calls are charged; the failures are recorded at no cost.
        let entries = ledger_entries(&ledger);
        let paid: f64 = entries.iter().map(|e| e.cost).sum();
        assert_eq!(paid, 2.0, "{answer}");
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
    for (answer, config, expected) in [
        ("nan", &config, "not a finite number"),
        ("down", &plain, "http 500"),
        ("bigbody", &plain, "over 1 mib"),
        ("binary", &plain, "not utf-8"),
        ("echo", &plain, "http 400"),
    ] {
        let ledger = dir.path().join(format!("{answer}.jsonl"));
        let err = run(config, &[answer], 4.0, &ledger).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, JudgeError::Call { .. }), "{answer}: {err}");
        assert!(message.to_lowercase().contains(expected), "{answer}: {err}");
        assert!(
            !message.contains("sekrit"),
            "{answer}: the key leaked: {message}"
        );
        let text = std::fs::read_to_string(&ledger).unwrap();
        assert!(
            !text.contains("sekrit"),
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
