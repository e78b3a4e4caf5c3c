//! What the `verdict serve` tests stand on: the real server as a child process on a
//! free loopback port, an HTTP client, a fake OpenAI-compatible upstream, and a model
//! fitted once for all of them.
#![allow(dead_code)] // each test uses its own subset

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{linear_fit_args, small_simulation, succeed};

/// A running `verdict serve`, stopped when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The decision log, when the server keeps one.
    pub decisions: Option<PathBuf>,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `verdict serve model --listen 127.0.0.1:0 extra…` with the variables
    /// `env` set, and waits for it to say where it listens.
    pub fn start(model: &Path, extra: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_with_file_limit(model, extra, env, None)
    }

    /// [`Server::start`] with the size of any file the server writes limited to
    /// `kilobytes` (the shell's `ulimit -f`, with SIGXFSZ ignored so that a write past
    /// it fails with EFBIG, as on a full disk, instead of killing the process).
    pub fn start_with_file_limit(
        model: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
        kilobytes: Option<u64>,
    ) -> Self {
        let mut command = match kilobytes {
            None => Command::new(env!("CARGO_BIN_EXE_verdict")),
            Some(size) => {
                let mut shell = Command::new("bash");
                shell.args([
                    "-c",
                    &format!("trap '' XFSZ; ulimit -f {size}; exec \"$0\" \"$@\""),
                    env!("CARGO_BIN_EXE_verdict"),
                ]);
                shell
            }
        };
        let mut child = command
            .arg("serve")
            .arg(model)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the verdict binary runs");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            sink.lock().unwrap().push_str(&text);
        });
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut line = || match lines.next() {
            Some(Ok(line)) => line,
            _ => {
                let _ = child.wait();
                thread::sleep(Duration::from_millis(100));
                panic!("verdict serve did not start: {}", stderr.lock().unwrap());
            }
        };
        let first = line();
        let base = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_string();
        let decisions = extra.contains(&"--decisions").then(|| {
            let second = line();
            PathBuf::from(
                second
                    .strip_prefix("decisions to ")
                    .expect("the decision log"),
            )
        });
        Self {
            child,
            base,
            decisions,
            stderr,
        }
    }

    /// [`Server::start`] routing to the upstreams of `upstreams` (a file
    /// [`FakeUpstream::upstreams_file`] wrote), their key variable set to `key`.
    pub fn routing(model: &Path, upstreams: &Path, extra: &[&str], key: &str) -> Self {
        let mut args = vec!["--upstreams", upstreams.to_str().unwrap()];
        args.extend_from_slice(extra);
        Self::start(model, &args, &[("FAKE_UPSTREAM_KEY", key)])
    }

    /// `POST` `body` to `path` of this server (`/v1/route`, say), with a fresh client.
    pub fn post(&self, path: &str, body: &Value) -> Reply {
        post(
            &client(),
            &format!("{}{path}", self.base),
            &body.to_string(),
            None,
        )
    }

    /// The model `/v1/route` with the `argmax` rule routes `context` to.
    pub fn argmax_model(&self, context: &Value) -> String {
        let routed = post(
            &client(),
            &format!("{}/v1/route", self.base),
            &json!({"context": context, "rule": "argmax"}).to_string(),
            None,
        )
        .json();
        routed["model"].as_str().unwrap().to_string()
    }

    /// `host:port`.
    pub fn address(&self) -> String {
        self.base.trim_start_matches("http://").to_string()
    }

    /// The process id, for signals.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server (SIGTERM, then waits) and returns what it wrote to stderr.
    pub fn stop(mut self) -> String {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        thread::sleep(Duration::from_millis(50));
        let text = self.stderr.lock().unwrap().clone();
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply: status, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Checks that the request was refused with `status` and a message containing
    /// `naming`.
    pub fn assert_refused(&self, status: u16, naming: &str) {
        assert_eq!(self.status, status, "{}", self.body);
        assert!(
            self.body.contains(naming),
            "{naming:?} not in {}",
            self.body
        );
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// An HTTP client that reports every status instead of failing on errors.
pub fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn reply(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut response = response.expect("the server answers");
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    Reply {
        status: response.status().as_u16(),
        headers,
        body: response.body_mut().read_to_string().unwrap_or_default(),
    }
}

/// `POST base + path` with `body`, optionally with a bearer token.
pub fn post(agent: &ureq::Agent, url: &str, body: &str, token: Option<&str>) -> Reply {
    let mut request = agent.post(url).header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", &format!("Bearer {token}"));
    }
    reply(request.send(body))
}

/// `GET url`, optionally with a bearer token.
pub fn get(agent: &ureq::Agent, url: &str, token: Option<&str>) -> Reply {
    let mut request = agent.get(url);
    if let Some(token) = token {
        request = request.header("authorization", &format!("Bearer {token}"));
    }
    reply(request.call())
}

/// One exchange over a raw connection: writes `request` and reads until the server
/// closes or `wait` passes; what came back (empty when the server closed at once).
pub fn raw_exchange(address: &str, request: &[u8], wait: Duration) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// A fitted model shared by the tests: the small simulation, linear backbone, three
/// folds (agents `agent_1` … `agent_5`, features `x1` … `x5`).
pub struct Fitted {
    /// Keeps the files while the tests run.
    _dir: tempfile::TempDir,
    pub model: PathBuf,
    /// The same world fitted with another seed: same agents and features, another
    /// model.
    pub other_model: PathBuf,
    pub agents: Vec<String>,
}

impl Fitted {
    /// `pi(x)` of a route answer, in agent order.
    pub fn probabilities(&self, answer: &Value) -> Vec<f64> {
        self.agents
            .iter()
            .map(|a| answer["probabilities"][a].as_f64().unwrap())
            .collect()
    }
}

/// The JSON object `base` with the fields of the object `extra` added, as text.
pub fn with_fields(mut base: Value, extra: Value) -> String {
    let Value::Object(extra) = extra else {
        panic!("extra fields must be an object: {extra}");
    };
    base.as_object_mut().unwrap().extend(extra);
    base.to_string()
}

pub fn fitted() -> &'static Fitted {
    static FITTED: OnceLock<Fitted> = OnceLock::new();
    FITTED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let sim = small_simulation(dir.path());
        let contexts = format!("{sim}/contexts.parquet");
        let feedback = format!("{sim}/feedback.parquet");
        let model = dir.path().join("model.json");
        let other_model = dir.path().join("other.json");
        let model_text = model.display().to_string();
        let other_text = other_model.display().to_string();
        succeed(&linear_fit_args(
            &contexts,
            &feedback,
            "nasheval",
            &model_text,
            &[],
        ));
        succeed(&linear_fit_args(
            &contexts,
            &feedback,
            "nasheval",
            &other_text,
            &["--seed", "2"],
        ));
        Fitted {
            _dir: dir,
            model,
            other_model,
            agents: (1..=5).map(|a| format!("agent_{a}")).collect(),
        }
    })
}

/// `n` contexts of the model's five features, drawn with seed `seed`, each with a
/// `context_id`.
pub fn contexts(n: usize, seed: u64) -> Vec<Value> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let mut context = serde_json::Map::new();
            context.insert("context_id".into(), json!(format!("c{i}")));
            for d in 1..=5 {
                context.insert(format!("x{d}"), json!(rng.random_range(-2.0..2.0)));
            }
            Value::Object(context)
        })
        .collect()
}

/// What the fake upstream saw of one request.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The path: `/AGENT/chat/completions`.
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

/// A fake OpenAI-compatible upstream on a free loopback port: every agent's base URL
/// is `http://ADDR/AGENT`. Agents in `failing` answer 500; a streamed request gets
/// three server-sent events, the second only after `proceed` is told (or 20 s).
/// Agents in `garbled` answer 200 with a body that is not JSON; agents in `stalling`
/// send a 200 head and then nothing for 30 s (then close). A user message naming
/// "echo 401", "echo 200" or "echo stream" gets the request's `Authorization` header
/// back: in a 401 error page, in a completion's text, or in a stream's events cut
/// in the middle of the key (written and flushed in two parts).
pub struct FakeUpstream {
    pub address: String,
    pub failing: Arc<Mutex<HashSet<String>>>,
    pub garbled: Arc<Mutex<HashSet<String>>>,
    pub stalling: Arc<Mutex<HashSet<String>>>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub proceed: Mutex<mpsc::Sender<()>>,
}

impl FakeUpstream {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let failing = Arc::new(Mutex::new(HashSet::new()));
        let garbled = Arc::new(Mutex::new(HashSet::new()));
        let stalling = Arc::new(Mutex::new(HashSet::new()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (proceed, wait) = mpsc::channel::<()>();
        let wait = Arc::new(Mutex::new(wait));
        let (f, g, t, s) = (
            failing.clone(),
            garbled.clone(),
            stalling.clone(),
            seen.clone(),
        );
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (f, g, t, s, w) = (f.clone(), g.clone(), t.clone(), s.clone(), wait.clone());
                thread::spawn(move || answer_upstream(stream, (&f, &g, &t), &s, &w));
            }
        });
        Self {
            address,
            failing,
            garbled,
            stalling,
            seen,
            proceed: Mutex::new(proceed),
        }
    }

    /// An upstreams file naming every agent with costs 1, 2, … and a key variable.
    /// A fake upstream for `agents` with its upstreams file in a fresh directory: the
    /// directory (kept while the test runs), the upstream and the file.
    pub fn with_file(agents: &[String]) -> (tempfile::TempDir, Self, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let upstream = Self::start();
        let file = upstream.upstreams_file(dir.path(), agents);
        (dir, upstream, file)
    }

    pub fn upstreams_file(&self, dir: &Path, agents: &[String]) -> PathBuf {
        let mut text = String::new();
        for (j, agent) in agents.iter().enumerate() {
            text += &format!(
                "[upstream.{agent}]\nbase_url = \"http://{}/{agent}\"\napi_key_env = \"FAKE_UPSTREAM_KEY\"\ncost = {}\nmodel = \"{agent}-2025\"\n\n",
                self.address,
                j + 1
            );
        }
        let path = dir.join("upstreams.toml");
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// Agents a fake upstream treats one way (failing, garbled, stalling).
type AgentSet = Mutex<HashSet<String>>;

/// Reads one request (headers, then a body of `content-length` bytes) and answers it
/// as the fake upstream; the connection is closed after the answer.
fn answer_upstream(
    stream: TcpStream,
    (failing, garbled, stalling): (&AgentSet, &AgentSet, &AgentSet),
    seen: &Mutex<Vec<Seen>>,
    wait: &Mutex<mpsc::Receiver<()>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let (mut length, mut authorization) = (0usize, None);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((&line, ""));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "authorization" => authorization = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let agent = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("")
        .to_string();
    seen.lock().unwrap().push(Seen {
        path: path.clone(),
        authorization: authorization.clone(),
        body: body.clone(),
    });
    let mut out = stream;
    let said = body["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let sent = authorization.unwrap_or_default();
    if said.contains("echo 401") {
        let text =
            json!({"error": {"message": format!("invalid credentials: Authorization: {sent}")}})
                .to_string();
        let _ = write!(
            out,
            "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            text.len()
        );
        return;
    }
    if said.contains("echo stream") && body["stream"] == json!(true) {
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        );
        let event = format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": format!("you sent {sent}")}}]})
        );
        let cut = event
            .find(&sent)
            .map_or(event.len() / 2, |at| at + sent.len() / 2);
        let _ = out.write_all(&event.as_bytes()[..cut]);
        let _ = out.flush();
        thread::sleep(Duration::from_millis(50));
        let _ = out.write_all(&event.as_bytes()[cut..]);
        let _ = out.write_all(b"data: [DONE]\n\n");
        return;
    }
    if stalling.lock().unwrap().contains(&agent) {
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\nconnection: close\r\n\r\n"
        );
        let _ = out.flush();
        thread::sleep(Duration::from_secs(30));
        return;
    }
    if garbled.lock().unwrap().contains(&agent) {
        let text = "upstream says hello, not in JSON";
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            text.len()
        );
        return;
    }
    if failing.lock().unwrap().contains(&agent) {
        let text = "{\"error\":{\"message\":\"overloaded\"}}";
        let _ = write!(
            out,
            "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            text.len()
        );
        return;
    }
    if body["stream"] == json!(true) {
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        );
        let event = |n: usize| {
            format!(
                "data: {}\n\n",
                json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": format!("part {n} from {agent}")}}]})
            )
        };
        let _ = out.write_all(event(1).as_bytes());
        let _ = out.flush();
        let _ = wait.lock().unwrap().recv_timeout(Duration::from_secs(20));
        let _ = out.write_all(event(2).as_bytes());
        let _ = out.write_all(b"data: [DONE]\n\n");
        return;
    }
    let text = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": if said.contains("echo 200") { format!("hello from {agent}; you sent {sent}") } else { format!("hello from {agent}") }}, "finish_reason": "stop"}],
    })
    .to_string();
    // "echo 200" also echoes the key in a header of the reply.
    let echoed = if said.contains("echo 200") {
        format!("x-echo: {sent}\r\n")
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{echoed}content-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
}
