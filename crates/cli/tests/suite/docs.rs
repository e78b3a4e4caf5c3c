//! Every command in the docs runs: each fenced `sh` block of the README,
//! CONTRIBUTING and `docs/*.md` is run by bash (`-euo pipefail`) with this build's
//! `verdict` first on the `PATH`, in a scratch directory per page where `examples/`,
//! `tests/`, `sql/` and `encoders/` are the repository's — so the blocks of a page run
//! in order and a later one reads what an earlier one wrote, and nothing lands in the
//! checkout.
//!
//! Two kinds of block are read differently, by the word after `sh`:
//! - `sh setup`: set-up and cargo commands (they are what runs this test); the test
//!   checks such a block holds nothing else, so no `verdict` command escapes it.
//! - `sh server`: a server the page's later blocks talk to; it is started in the
//!   background on a free loopback port (`--listen` added), the page's `8750` is read
//!   as that port, and the server is stopped when the page ends.
//!
//! A block that names `encoders/` needs the encoder `scripts/setup.sh` makes; without
//! it the block is skipped, saying so. `python` blocks run in
//! `python/tests/test_docs.py`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// The longest a block may run (the slowest, a default NashEval fit in a test build,
/// takes about ten seconds).
const BLOCK_DEADLINE: Duration = Duration::from_secs(600);

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fenced `sh` block: the words after `sh`, its text and where it starts.
struct Block {
    kind: String,
    text: String,
    line: usize,
}

/// The `sh` blocks of a Markdown page, in order.
fn sh_blocks(page: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in page.lines().enumerate() {
        match &mut open {
            Some(block) if line.trim_end() == "```" => {
                blocks.push(std::mem::replace(block, placeholder()));
                open = None;
            }
            Some(block) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            None => {
                if let Some(info) = line.strip_prefix("```sh") {
                    open = Some(Block {
                        kind: info.trim().to_owned(),
                        text: String::new(),
                        line: n + 1,
                    });
                }
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    blocks
}

fn placeholder() -> Block {
    Block {
        kind: String::new(),
        text: String::new(),
        line: 0,
    }
}

/// A scratch directory shaped like the repository's root for the blocks.
struct Scratch {
    dir: tempfile::TempDir,
    path_variable: String,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repository = repository().canonicalize().unwrap();
        for shared in ["examples", "tests", "sql", "encoders"] {
            let source = repository.join(shared);
            if source.exists() {
                std::os::unix::fs::symlink(&source, dir.path().join(shared)).unwrap();
            }
        }
        let bin = dir.path().join(".bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_verdict"), bin.join("verdict")).unwrap();
        let path_variable = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Self { dir, path_variable }
    }

    fn command(&self, script: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .args(["-euo", "pipefail", "-c", script])
            .current_dir(self.dir.path())
            .env("PATH", &self.path_variable);
        command
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The server a page started, stopped with the page.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs every `sh` block of `page` (a path from the repository's root); returns how
/// many ran.
fn run_page(page: &str) -> usize {
    let text = std::fs::read_to_string(repository().join(page)).unwrap();
    let scratch = Scratch::new();
    let port = free_port().to_string();
    let has_encoder = repository().join("encoders/wordllama-l2-supercat").exists();
    let mut server: Option<Server> = None;
    let mut ran = 0;
    for block in sh_blocks(&text) {
        let place = format!("{page}:{}", block.line);
        let script = block.text.replace("8750", &port);
        match block.kind.as_str() {
            "setup" => {
                for line in block.text.lines().map(str::trim) {
                    assert!(
                        line.is_empty()
                            || line.starts_with('#')
                            || line.starts_with("cargo ")
                            || line.starts_with("bash scripts/"),
                        "{place}: a `sh setup` block holds only set-up and cargo commands, not {line:?}"
                    );
                }
                continue;
            }
            "server" => {
                server = Some(start_server(&scratch, &script, &port, &place));
                continue;
            }
            "" => {}
            other => panic!("{place}: unknown block kind `sh {other}` (setup or server)"),
        }
        if script.contains("encoders/") && !has_encoder {
            eprintln!(
                "SKIPPED: {place}: the text encoder is absent (bash scripts/setup.sh makes it)"
            );
            continue;
        }
        run_block(&scratch, &script, &place);
        ran += 1;
    }
    drop(server);
    ran
}

/// Runs one block to its end, failing the test with its output when it fails.
fn run_block(scratch: &Scratch, script: &str, place: &str) {
    let log = scratch.path().join(".block-output");
    let file = std::fs::File::create(&log).unwrap();
    let mut child = scratch
        .command(script)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    let status = match child.wait_timeout(BLOCK_DEADLINE).unwrap() {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{place}: the block ran past {BLOCK_DEADLINE:?}");
        }
    };
    assert!(
        status.success(),
        "{place}: the block failed ({status}):\n{script}\n--- its output ---\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// Starts the server block on `port` and waits for its `listening on` line.
fn start_server(scratch: &Scratch, script: &str, port: &str, place: &str) -> Server {
    let command = format!("exec {} --listen 127.0.0.1:{port}", script.trim());
    let mut child = scratch
        .command(&command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.contains("listening on"),
        "{place}: the server did not start: {first:?}"
    );
    Server(child)
}

/// Each page has its test; this one checks no page under `docs/` is left out.
#[test]
fn every_page_of_the_docs_has_its_test() {
    let tested = [
        "architecture.md",
        "guarantees.md",
        "judges.md",
        "leaderboards.md",
        "nasheval.md",
        "python.md",
        "references.md",
        "scale-out.md",
        "serving.md",
    ];
    let mut pages: Vec<String> = std::fs::read_dir(repository().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .collect();
    pages.sort();
    assert_eq!(pages, tested, "a page of docs/ without its test below");
    // The pages without commands say so by having none (scale-out.md's recipes are
    // files that python/tests/test_scale_out.py runs).
    for page in [
        "architecture.md",
        "guarantees.md",
        "python.md",
        "references.md",
        "scale-out.md",
    ] {
        assert_eq!(run_page(&format!("docs/{page}")), 0, "{page}");
    }
}

#[test]
fn the_readme_commands_run() {
    assert!(run_page("README.md") >= 4);
}

#[test]
fn the_contributing_commands_are_set_up_commands() {
    assert_eq!(run_page("CONTRIBUTING.md"), 0);
}

#[test]
fn the_leaderboard_commands_run() {
    assert!(run_page("docs/leaderboards.md") >= 6);
}

#[test]
fn the_judging_commands_run() {
    assert!(run_page("docs/judges.md") >= 3);
}

#[test]
fn the_nasheval_commands_run() {
    assert!(run_page("docs/nasheval.md") >= 3);
}

#[test]
fn the_serving_commands_run_against_a_real_server() {
    assert!(run_page("docs/serving.md") >= 3);
}
