//! Judges from a configuration file: programs run per call, OpenAI-compatible HTTP
//! endpoints (module `http`, `[judge.http]` tables), pools of recorded scores and
//! simulated judges for rehearsals, each with its price, behind the same
//! [`JudgePool`] as the simulator.
//!
//! ```toml
//! range = 1.0                      # scores lie in [0, range]
//!
//! [[judge]]
//! name = "small"
//! cost = 0.1
//! command = ["python3", "judge.py", "--model", "small"]  # item JSON on stdin, score on stdout
//! timeout_seconds = 60
//!
//! [[judge]]
//! name = "large"
//! cost = 1.0
//! replay = "large-scores.csv"      # recorded scores: columns item, score (with replacement)
//! family = "maker-a"                # judges of one family may share their mistakes
//!
//! [[judge]]
//! name = "rehearsal"
//! cost = 0.5
//! simulate = 0.02                  # Beta scores around each item's "truth", this variance
//! ```

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use rand::Rng;
use rand_distr::{Beta, Distribution};

use crate::http::{clip, HttpConfig, HttpJudge};
use crate::judge::{beta_with, one_by_one, one_call, PairStreams};
use crate::ledger_file::BILLED_PREFIX;
use crate::spend::in_range;
use crate::{duplicate_judge, first_duplicate, JudgeError, JudgePool};

/// The configuration file.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgesConfig {
    /// Score range R.
    pub range: f64,
    /// The judges, in order.
    #[serde(rename = "judge")]
    pub judges: Vec<JudgeConfig>,
}

/// One judge.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    /// Name (in the ledger and reports).
    pub name: String,
    /// Price per call.
    pub cost: f64,
    /// Program and arguments: gets the item as JSON on stdin, prints a score.
    pub command: Option<Vec<String>>,
    /// Seconds a call may take, writing the item and reading the score included
    /// (default 60, at most a week).
    pub timeout_seconds: Option<f64>,
    /// The judge (a command or an HTTP endpoint) honours the call's idempotency key —
    /// `VERDICT_CALL_KEY` in a command's environment, the `Idempotency-Key` header of
    /// an HTTP request — and never charges twice for one key. A call in flight when a
    /// run stopped is then asked again on resume instead of being charged as lost.
    #[serde(default)]
    pub idempotent: bool,
    /// CSV of recorded scores (columns `item`, `score`), sampled with replacement.
    pub replay: Option<PathBuf>,
    /// A simulated judge for rehearsals: Beta-distributed scores with mean the item's
    /// `truth` field and this variance (capped at 90% of the largest possible).
    pub simulate: Option<f64>,
    /// An OpenAI-compatible chat-completions endpoint (module `http`).
    pub http: Option<HttpConfig>,
    /// The judge's family (e.g. its model's maker): judges of one family may share
    /// their mistakes on an item (module `shared_errors`); by default a judge is its
    /// own family. Reports only: it changes no call.
    pub family: Option<String>,
}

impl JudgesConfig {
    /// Reads and checks a TOML configuration; relative replay paths are taken from the
    /// file's directory.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] naming the file and what to fix.
    pub fn read(path: &Path) -> Result<Self, JudgeError> {
        let fail = |m: String| JudgeError::Setting(format!("{}: {m}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        let mut config: Self = toml::from_str(&text).map_err(|e| fail(e.to_string()))?;
        if !(config.range.is_finite() && config.range > 0.0) {
            return Err(fail(format!("range = {} must be positive", config.range)));
        }
        if config.judges.is_empty() {
            return Err(fail("no [[judge]] tables; add at least one judge".into()));
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let names: Vec<String> = config.judges.iter().map(|j| j.name.clone()).collect();
        if let Some(twice) = first_duplicate(&names) {
            return Err(fail(duplicate_judge(twice)));
        }
        for judge in &mut config.judges {
            let name = &judge.name;
            if let Some(t) = judge.timeout_seconds {
                if !(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_SECONDS) {
                    return Err(fail(format!(
                        "judge {name:?}: timeout_seconds = {t} must be a number of seconds in (0, {MAX_TIMEOUT_SECONDS}]"
                    )));
                }
            }
            if !(judge.cost.is_finite() && judge.cost > 0.0) {
                return Err(fail(format!(
                    "judge {name:?}: cost {} must be positive",
                    judge.cost
                )));
            }
            match (&judge.command, &mut judge.replay, judge.simulate, &judge.http) {
                (Some(c), None, None, None) if !c.is_empty() => {}
                (None, Some(replay), None, None) if !judge.idempotent => {
                    *replay = base.join(&*replay)
                }
                (None, None, Some(v), None) if v > 0.0 && v.is_finite() && !judge.idempotent => {}
                (None, None, None, Some(_)) => {}
                _ => {
                    return Err(fail(format!(
                        "judge {name:?}: give exactly one of command = [\"program\", ...], replay = \"file.csv\", simulate = VARIANCE (> 0) or a [judge.http] table (idempotent = true only for a command or an HTTP judge)"
                    )))
                }
            }
        }
        Ok(config)
    }
}

/// The longest `timeout_seconds` accepted: a week.
pub const MAX_TIMEOUT_SECONDS: f64 = 604_800.0;

/// A pool built from a [`JudgesConfig`] over a list of items (JSON objects with an
/// `id`).
pub struct ConfiguredPool {
    items: Vec<serde_json::Value>,
    ids: Vec<String>,
    config: JudgesConfig,
    costs: Vec<f64>,
    recorded: Vec<HashMap<String, Vec<f64>>>,
    simulated: Vec<Option<Vec<Beta<f64>>>>,
    http: Vec<Option<HttpJudge>>,
    streams: PairStreams,
    /// Idempotency keys of the next calls, in order (see [`JudgePool::label_calls`]).
    keys: std::collections::VecDeque<String>,
}

/// Each item's `"id"` (a string, or a number as written), in order: what a ledger
/// and the output key items by.
///
/// # Errors
/// [`JudgeError::Setting`] for an item without an id, or an id given twice.
pub fn item_ids(items: &[serde_json::Value]) -> Result<Vec<String>, JudgeError> {
    let mut ids: Vec<String> = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashSet::new();
    for (line, item) in items.iter().enumerate() {
        let id = match item.get("id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            _ => {
                return Err(JudgeError::Setting(format!(
                    "item {} has no \"id\" (string or number); every item needs one",
                    line + 1
                )))
            }
        };
        if !seen.insert(id.clone()) {
            return Err(JudgeError::Setting(format!("item id {id:?} appears twice")));
        }
        ids.push(id);
    }
    Ok(ids)
}

impl ConfiguredPool {
    /// The pool; replay files are read now.
    ///
    /// # Errors
    /// [`JudgeError::Setting`] for items without an id, duplicate ids, unreadable or
    /// malformed replay files, a replay file without scores for some item, or an HTTP
    /// judge whose key is unset or whose prompt names a field some item lacks.
    pub fn new(
        items: Vec<serde_json::Value>,
        config: JudgesConfig,
        seed: u64,
    ) -> Result<Self, JudgeError> {
        let ids = item_ids(&items)?;
        let recorded = config
            .judges
            .iter()
            .map(|j| match &j.replay {
                Some(path) => read_replay(path, &ids),
                None => Ok(HashMap::new()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let simulated = config
            .judges
            .iter()
            .map(|j| {
                j.simulate
                    .map(|v| simulated_scores(&items, &ids, v, config.range))
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let http = config
            .judges
            .iter()
            .map(|j| {
                j.http
                    .clone()
                    .map(|h| http_judge(h, j, &items, &ids))
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let costs = config.judges.iter().map(|j| j.cost).collect();
        let streams = PairStreams::new(seed, ids.len() * config.judges.len());
        Ok(Self {
            items,
            ids,
            config,
            costs,
            recorded,
            simulated,
            http,
            streams,
            keys: std::collections::VecDeque::new(),
        })
    }

    /// Item ids, in order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Judge names, in order.
    pub fn judge_names(&self) -> Vec<String> {
        self.config.judges.iter().map(|j| j.name.clone()).collect()
    }

    /// Each judge's family, in order: its `family`, else its own name.
    pub fn judge_families(&self) -> Vec<String> {
        self.config
            .judges
            .iter()
            .map(|j| j.family.clone().unwrap_or_else(|| j.name.clone()))
            .collect()
    }

    fn run_command(
        &self,
        item: usize,
        judge: usize,
        argv: &[String],
        key: Option<&str>,
    ) -> Result<f64, String> {
        let timeout =
            Duration::from_secs_f64(self.config.judges[judge].timeout_seconds.unwrap_or(60.0));
        let input = serde_json::to_vec(&self.items[item]).expect("items serialise");
        let output = run_with_timeout(argv, &input, key, timeout)?;
        output
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|score| score.is_finite())
            .ok_or_else(|| format!("printed {:?}, not a finite number", clip(output.trim())))
    }
}

/// The most bytes a command judge may print: a score is a few characters. More is
/// refused (and the program killed) rather than held in memory, as for HTTP replies.
const COMMAND_OUTPUT_LIMIT: u64 = 1 << 20;

/// Runs `argv` with `input` on its stdin and `key` as `VERDICT_CALL_KEY`, and returns
/// what it printed. One deadline, `timeout`, covers the whole exchange — writing the
/// input (a judge that never reads its stdin cannot hold the run), the run and reading
/// the output, including output held open by a child it left in the background. The
/// program runs in a process group of its own, and the whole group is killed when the
/// program ends or the deadline passes, so nothing it started outlives the call. Output
/// past [`COMMAND_OUTPUT_LIMIT`] ends the call.
fn run_with_timeout(
    argv: &[String],
    input: &[u8],
    key: Option<&str>,
    timeout: Duration,
) -> Result<String, String> {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    if let Some(key) = key {
        command.env("VERDICT_CALL_KEY", key);
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", argv[0]))?;
    // The pipes are served by threads of their own, not joined: a pipe held open by
    // something the program started cannot hold the call past its deadline.
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let (sender, printed) = std::sync::mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let read = stdout.take(COMMAND_OUTPUT_LIMIT + 1).read_to_end(&mut text);
            let _ = sender.send(read.map(|_| text));
        });
    }
    let timed_out = || format!("timed out after {} s", timeout.as_secs_f64());
    let status = match child.wait_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Some(status)) => Ok(status),
        Ok(None) => Err(timed_out()),
        Err(e) => Err(e.to_string()),
    };
    kill_group(&mut child);
    let status = status?;
    let printed = printed
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .map_err(|_| timed_out())?
        .map_err(|e| format!("cannot read what {:?} printed: {e}", argv[0]))?;
    if printed.len() as u64 > COMMAND_OUTPUT_LIMIT {
        return Err(format!(
            "printed over {} MiB; a score is a short text",
            COMMAND_OUTPUT_LIMIT >> 20
        ));
    }
    if !status.success() {
        return Err(format!("{:?} exited with {status}", argv[0]));
    }
    String::from_utf8(printed).map_err(|_| "printed something that is not UTF-8 text".into())
}

/// Kills `child` and everything left in its process group, and reaps it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The group is the child's own (process_group(0)); its id is the child's pid.
        let group = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl JudgePool for ConfiguredPool {
    fn items(&self) -> usize {
        self.ids.len()
    }

    fn costs(&self) -> &[f64] {
        &self.costs
    }

    fn range(&self) -> f64 {
        self.config.range
    }

    fn skip(&mut self, item: usize, judge: usize) {
        self.streams.skip(item * self.costs.len() + judge);
    }

    /// The items as given and, per judge, what it asks and how: program, endpoint,
    /// model, prompts, sampling settings, score pattern, recorded scores, simulated
    /// variance — not its price or name (the ledger compares those itself) nor its
    /// retries, timeout or concurrency (they change no answer).
    fn content_digest(&self) -> Option<String> {
        let judges: Vec<serde_json::Value> = self
            .config
            .judges
            .iter()
            .zip(&self.recorded)
            .map(|(judge, recorded)| {
                let recorded: std::collections::BTreeMap<_, _> = recorded.iter().collect();
                serde_json::json!({
                    "command": judge.command,
                    "recorded": recorded,
                    "simulate": judge.simulate,
                    "http": judge.http.as_ref().map(|h| serde_json::json!({
                        "url": h.url,
                        "model": h.model,
                        "prompt": h.prompt,
                        "system": h.system,
                        "temperature": h.temperature,
                        "max_tokens": h.max_tokens,
                        "score_regex": h.score_regex,
                    })),
                })
            })
            .collect();
        let identity = serde_json::json!({"items": self.items, "judges": judges});
        Some(crate::ledger_file::sha256_hex(
            identity.to_string().as_bytes(),
        ))
    }

    fn repeatable(&self, judge: usize) -> bool {
        let config = &self.config.judges[judge];
        config.idempotent || config.replay.is_some() || config.simulate.is_some()
    }

    fn label_calls(&mut self, keys: &[String]) {
        self.keys = keys.iter().cloned().collect();
    }

    fn concurrency(&self, judge: usize) -> u64 {
        self.http[judge].as_ref().map_or(1, HttpJudge::concurrency)
    }

    fn score_pair(
        &mut self,
        item: usize,
        judge: usize,
        count: u64,
        take: &mut dyn FnMut(Result<f64, JudgeError>) -> Result<(), JudgeError>,
    ) -> Result<(), JudgeError> {
        let Some(http) = &self.http[judge] else {
            return one_by_one(self, item, judge, count, take);
        };
        let body = http
            .request(&self.items[item])
            .map_err(JudgeError::Setting)?;
        let keys: Vec<String> = self.keys.drain(..).collect();
        let (cost, range) = (self.costs[judge], self.config.range);
        // A call the endpoint served is paid for whatever it said.
        let billed = |reason: String| JudgeError::Lost {
            item,
            judge,
            cost,
            message: format!("{BILLED_PREFIX}: {reason}"),
        };
        http.call_many(&body, count, &keys, &mut |outcome| {
            take(match outcome {
                Ok(score) => in_range(item, judge, score, range).map_err(|e| billed(e.to_string())),
                Err(failure) if failure.billed => Err(billed(failure.message)),
                Err(failure) => Err(JudgeError::Call {
                    item,
                    judge,
                    message: failure.message,
                }),
            })
        })
    }

    fn score(&mut self, item: usize, judge: usize) -> Result<f64, JudgeError> {
        if self.http[judge].is_some() {
            return one_call(self, item, judge);
        }
        let pair = item * self.costs.len() + judge;
        let mut rng = self.streams.next(pair);
        let result = match (&self.config.judges[judge].command, &self.simulated[judge]) {
            (Some(argv), _) => {
                let key = self.keys.pop_front();
                self.run_command(item, judge, &argv.clone(), key.as_deref())
            }
            (None, Some(laws)) => Ok(self.config.range * laws[item].sample(&mut rng)),
            (None, None) => {
                let scores = &self.recorded[judge][&self.ids[item]];
                Ok(scores[rng.random_range(0..scores.len())])
            }
        };
        result.map_err(|message| JudgeError::Call {
            item,
            judge,
            message,
        })
    }
}

/// The HTTP judge of `config`, with its prompt checked against every item.
fn http_judge(
    http: HttpConfig,
    config: &JudgeConfig,
    items: &[serde_json::Value],
    ids: &[String],
) -> Result<HttpJudge, JudgeError> {
    let fail = |m: String| JudgeError::Setting(format!("judge {:?}: {m}", config.name));
    let judge = HttpJudge::new(http, config.timeout_seconds.unwrap_or(60.0)).map_err(fail)?;
    for (item, id) in items.iter().zip(ids) {
        judge
            .request(item)
            .map_err(|m| fail(format!("item {id:?}: {m}")))?;
    }
    Ok(judge)
}

/// Beta laws with mean `truth / R` and the given variance (capped at 90% of the
/// largest a law on `[0, R]` with that mean can have), one per item.
fn simulated_scores(
    items: &[serde_json::Value],
    ids: &[String],
    variance: f64,
    range: f64,
) -> Result<Vec<Beta<f64>>, JudgeError> {
    items
        .iter()
        .zip(ids)
        .map(|(item, id)| {
            let truth = item.get("truth").and_then(serde_json::Value::as_f64);
            let m = match truth {
                Some(t) if t > 0.0 && t < range => t / range,
                _ => {
                    return Err(JudgeError::Setting(format!(
                        "item {id:?}: a simulated judge needs a numeric \"truth\" strictly inside (0, {range})"
                    )))
                }
            };
            let v = (variance / (range * range)).min(0.9 * m * (1.0 - m));
            beta_with(m, v).map_err(|e| JudgeError::Setting(format!("item {id:?}: {e}")))
        })
        .collect()
}

/// Recorded scores per item id from a CSV with `item` and `score` columns.
fn read_replay(path: &Path, ids: &[String]) -> Result<HashMap<String, Vec<f64>>, JudgeError> {
    let fail = |m: String| JudgeError::Setting(format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| fail(format!("no {name:?} column (header: {header:?})")))
    };
    let (item_column, score_column) = (column("item")?, column("score")?);
    let mut scores: HashMap<String, Vec<f64>> = HashMap::new();
    for (row, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let get = |c: usize| fields.get(c).copied().unwrap_or("");
        let score: f64 = get(score_column)
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite())
            .ok_or_else(|| {
                fail(format!(
                    "row {}: score {:?} is not a number",
                    row + 2,
                    get(score_column)
                ))
            })?;
        scores
            .entry(get(item_column).to_string())
            .or_default()
            .push(score);
    }
    if let Some(missing) = ids.iter().find(|id| !scores.contains_key(*id)) {
        return Err(fail(format!("no recorded score for item {missing:?}")));
    }
    Ok(scores)
}
