//! The output policy, flag by flag: every file the command line writes at a path the
//! user named — `--out`, `--plot`, `--report`, model files — refuses a user's file
//! there (exit 2, the file named with the fix, left byte-identical), replaces its own
//! earlier output, and replaces a user's file only with `--force`; a link is never
//! written through unasked; a run killed mid-write leaves the old file or the new one.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{small_simulation, verdict, write};

const USERS_BYTES: &[u8] = b"a file the user made, not verdict\n";

fn tutorial_log() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/tutorial-arena.csv")
        .display()
        .to_string()
}

/// The arguments of a run writing its output to the path given.
type ArgsFor = Box<dyn Fn(&str) -> Vec<String>>;

/// One output flag: the arguments of a run writing `file`.
struct Case {
    name: &'static str,
    file: &'static str,
    args: ArgsFor,
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}

/// Runs `args`, returning (exit code, stderr).
fn run(args: &[String]) -> (Option<i32>, String) {
    let output = verdict(args);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn with_force(args: &[String]) -> Vec<String> {
    let mut forced = vec!["--force".to_string()];
    forced.extend_from_slice(args);
    forced
}

/// The four promises for one case, at `path` in a fresh directory below `inputs`, the
/// directory every input of the case is in — and a fifth: what is written names no
/// input, and not itself, by a path through `inputs` (a page or a result names a file
/// by its base name).
fn holds_the_policy(case: &Case, dir: &Path, inputs: &Path) {
    let path = dir.join(case.file);
    let shown = path.display().to_string();
    let args = (case.args)(&shown);
    // A user's file is refused, named, and left byte-identical.
    std::fs::write(&path, USERS_BYTES).unwrap();
    let (code, stderr) = run(&args);
    assert_eq!(
        code,
        Some(2),
        "{}: a user's file was not refused: {stderr}",
        case.name
    );
    assert!(stderr.contains(case.file), "{}: {stderr}", case.name);
    assert!(
        stderr.contains("not written by verdict"),
        "{}: {stderr}",
        case.name
    );
    assert!(stderr.contains("--force"), "{}: {stderr}", case.name);
    assert_eq!(std::fs::read(&path).unwrap(), USERS_BYTES, "{}", case.name);
    // Without the file the run writes it, and replaces its own output when rerun.
    std::fs::remove_file(&path).unwrap();
    let (code, stderr) = run(&args);
    assert_eq!(code, Some(0), "{}: {stderr}", case.name);
    assert!(path.exists(), "{}: nothing written", case.name);
    let written = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    assert!(
        !written.contains(&inputs.display().to_string()),
        "{}: the output names a directory above its inputs",
        case.name
    );
    let (code, stderr) = run(&args);
    assert_eq!(
        code,
        Some(0),
        "{}: its own output was refused: {stderr}",
        case.name
    );
    // --force replaces a user's file.
    std::fs::write(&path, USERS_BYTES).unwrap();
    let (code, stderr) = run(&with_force(&args));
    assert_eq!(code, Some(0), "{}: --force failed: {stderr}", case.name);
    assert_ne!(std::fs::read(&path).unwrap(), USERS_BYTES, "{}", case.name);
}

#[test]
fn every_output_flag_refuses_a_users_file_replaces_its_own_and_yields_to_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = tutorial_log();
    let matrix = write(d, "rps.csv", ",R,P,S\nR,0,-1,1\nP,1,0,-1\nS,-1,1,0\n");
    let saved = d.join("saved-board.json").display().to_string();
    common::succeed(&["rank", &log, "--format", "json", "--out", &saved]);
    let judged = write(
        d,
        "judged.csv",
        "model_a,model_b,winner,judge,prompt\nA,B,model_a,u,p\nB,A,model_a,u,p\nA,C,tie,v,p\n",
    );
    let judge = judge_setup(d);
    let sim = small_simulation(d);
    let contexts = format!("{sim}/contexts.parquet");
    let feedback = format!("{sim}/feedback.parquet");
    let test_contexts = format!("{sim}/test_contexts.parquet");
    let model = d.join("model.json").display().to_string();
    common::succeed(&common::linear_fit_args(
        &contexts,
        &feedback,
        "nasheval",
        &model,
        &[],
    ));
    // Each builder gives the arguments of one command: `before`, then the output's
    // path.
    let command = |before: Vec<String>| -> ArgsFor {
        Box::new(move |out: &str| {
            let mut args = before.clone();
            args.push(out.to_string());
            args
        })
    };
    let rank = |flag: &str| {
        command(strings(&[
            "--quiet",
            "rank",
            &log,
            "--bootstrap",
            "20",
            flag,
        ]))
    };
    let judge_with = |ledger: &str, flags: &[&str]| {
        let mut before = judge.clone();
        before.extend(strings(&[
            "--ledger",
            &d.join(ledger).display().to_string(),
        ]));
        before.extend(strings(flags));
        command(before)
    };
    let scores = d.join("report-scores.csv").display().to_string();
    let fit_with = |flags: &[&str]| {
        let mut before = strings(&common::linear_fit_args(
            &contexts,
            &feedback,
            "nasheval",
            "",
            &[],
        ));
        // Without its `--out` and empty path: the case names the model file.
        before.truncate(before.len() - 2);
        before.extend(strings(flags));
        command(before)
    };
    let fit_model = d.join("fit-report-model.json").display().to_string();
    let predict = |format: &str| {
        command(strings(&[
            "predict",
            &model,
            "--contexts",
            &test_contexts,
            "--format",
            format,
            "--out",
        ]))
    };
    let rq1 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/results")
        .join(RQ1_RESULTS)
        .display()
        .to_string();
    // The judging experiment, as small as it runs, with its output flag.
    let bench_judges = |flag: &str| {
        command(strings(&[
            "bench",
            "judges",
            "--items",
            "20",
            "--judges",
            "2",
            "--budgets",
            "200,400",
            "--reps",
            "2",
            flag,
        ]))
    };
    // The cost and routing sweeps of the simulator, as small as they run.
    let bench_sweep = |which: &str| {
        command(strings(&[
            "--quiet",
            "bench",
            which,
            "--contexts",
            "300",
            "--test-contexts",
            "50",
            "--seeds",
            "70",
            "--plot",
        ]))
    };
    let case = |name, file, args| Case { name, file, args };
    let cases = vec![
        case("rank --out", "board.csv", rank("--out")),
        case("rank --plot svg", "board.svg", rank("--plot")),
        case("rank --plot png", "board.png", rank("--plot")),
        case("rank --report", "board.html", rank("--report")),
        case("rank --save-counts", "state.csv", rank("--save-counts")),
        case(
            "rank --dropped",
            "dropped.csv",
            command(strings(&[
                "--quiet",
                "rank",
                &judged,
                "--judge-col",
                "judge",
                "--prompt-col",
                "prompt",
                "--collapse-duplicates",
                "--dropped",
            ])),
        ),
        case(
            "game --report",
            "game.html",
            command(strings(&["game", &matrix, "--report"])),
        ),
        case(
            "report --out",
            "saved.html",
            command(strings(&["report", &saved, "--out"])),
        ),
        case(
            "judge --out",
            "scores.csv",
            judge_with("ledger-out.jsonl", &["--out"]),
        ),
        case(
            "judge --report",
            "run.html",
            judge_with("ledger-report.jsonl", &["--out", &scores, "--report"]),
        ),
        case("bench judges --plot", "curves.svg", bench_judges("--plot")),
        case(
            "bench arena --out",
            "arena.csv",
            command(strings(&[
                "bench",
                "arena",
                "--models",
                "5",
                "--battles",
                "200",
                "--out",
            ])),
        ),
        case(
            "fit --out (the model file)",
            "fitted.json",
            fit_with(&["--out"]),
        ),
        case(
            "fit --report",
            "fit.html",
            fit_with(&["--out", &fit_model, "--report"]),
        ),
        case("predict --out csv", "predictions.csv", predict("csv")),
        case(
            "predict --out parquet",
            "predictions.parquet",
            predict("parquet"),
        ),
        case(
            "evaluate --report",
            "evaluate.html",
            command(strings(&["evaluate", &model, "--truth", &sim, "--report"])),
        ),
        case(
            "bench summary --plot",
            "rq1.svg",
            command(strings(&["bench", "summary", &rq1, "--plot"])),
        ),
        case(
            "bench judges --report",
            "judges.html",
            bench_judges("--report"),
        ),
        case("bench cost --plot", "cost.svg", bench_sweep("cost")),
        case("bench route --plot", "route.svg", bench_sweep("route")),
        // `demo --out` follows the same policy through the same writer; the demo's own
        // test (cli.rs) checks that it refuses a user's page and replaces its own,
        // without running the whole tour three more times here.
    ];
    for case in &cases {
        let case_dir = d.join(case.name.replace([' ', '-', '(', ')'], "_"));
        std::fs::create_dir(&case_dir).unwrap();
        holds_the_policy(case, &case_dir, d);
    }
}

/// The committed RQ1 results file (`bench nasheval --out`).
const RQ1_RESULTS: &str = "rq1-2026-12-02.jsonl";

/// `verdict judge` on six items with a free command judge: the arguments before
/// `--ledger` and `--out`.
fn judge_setup(dir: &Path) -> Vec<String> {
    let items: String = (1..=6)
        .map(|i| format!("{{\"id\": \"q{i}\", \"truth\": 0.{}}}\n", i + 2))
        .collect();
    std::fs::write(dir.join("items.jsonl"), items).unwrap();
    let config = "range = 1.0\n\n[[judge]]\nname = \"echo\"\ncost = 0.5\ncommand = [\"sed\", \"-n\", \"s/.*\\\"truth\\\": *\\\\([0-9.]*\\\\).*/\\\\1/p\"]\nidempotent = true\n";
    std::fs::write(dir.join("judges.toml"), config).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    strings(&[
        "--quiet",
        "judge",
        "--items",
        &path("items.jsonl"),
        "--judges",
        &path("judges.toml"),
        "--budget",
        "12",
        "--method",
        "uniform",
    ])
}

/// A link given as an output is refused, naming where it points, and the file it
/// points to is left as it was; with `--force` that file is written and the link kept.
#[cfg(unix)]
#[test]
fn a_link_given_as_an_output_is_refused_and_force_writes_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("elsewhere.csv");
    std::fs::write(&real, USERS_BYTES).unwrap();
    let link = dir.path().join("board.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let link_shown = link.display().to_string();
    let log = tutorial_log();
    let args = strings(&[
        "--quiet",
        "rank",
        &log,
        "--bootstrap",
        "0",
        "--out",
        &link_shown,
    ]);
    let (code, stderr) = run(&args);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert!(stderr.contains("elsewhere.csv"), "{stderr}");
    assert_eq!(std::fs::read(&real).unwrap(), USERS_BYTES);
    let (code, stderr) = run(&with_force(&args));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("rank"));
}

/// Whether `name` is a staging file of a CSV output (`.verdict-…csv`), not the
/// directory's output manifest (`.verdict-outputs.json`) or its lock.
fn is_staging_csv(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with(".verdict-") && !name.starts_with(".verdict-outputs") && name.ends_with(".csv")
}

/// The largest staging file beside `out`, in bytes (0 when there is none).
fn staged_bytes(out: &Path) -> u64 {
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|entry| is_staging_csv(&entry.file_name()))
        .filter_map(|entry| entry.metadata().ok())
        .map(|m| m.len())
        .max()
        .unwrap_or(0)
}

/// Whether the output no longer holds `old`, by its length (what a writer that writes
/// the file in place shows).
fn output_changed(out: &Path, old: &[u8]) -> bool {
    std::fs::metadata(out).map_or(true, |m| m.len() != old.len() as u64)
}

/// Removes the staging files earlier killed runs left (verdict's own, by their name).
fn remove_staging_files(directory: &Path) {
    for entry in std::fs::read_dir(directory).unwrap().flatten() {
        if is_staging_csv(&entry.file_name()) {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
}

/// Spawns `verdict args` and waits, polling without a sleep (a write lasts
/// milliseconds), until `sign` holds; the instant it was seen, or `None` when the run
/// ended first.
fn spawn_until(
    args: &[String],
    sign: &dyn Fn() -> bool,
) -> (std::process::Child, Option<std::time::Instant>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    loop {
        if sign() {
            return (child, Some(std::time::Instant::now()));
        }
        if child.try_wait().unwrap().is_some() {
            return (child, None);
        }
    }
}

/// Runs are killed with SIGKILL at instants drawn over the write itself, in two
/// phases measured on a calibration run: from the first sign of the write (a staging
/// file with bytes, or the output changed) to the run's end, and from the moment the
/// new bytes are all staged (or the output changed) to the run's end — the publishing
/// step, which a uniform draw over a long write would rarely hit. The kills land
/// mid-write, not merely mid-run (counted: the run was still going), and the output is
/// then the old file or the new one, whole. Checked against a broken writer that
/// stages the file but publishes it by truncating the output and rewriting it in
/// 8 KiB chunks in place of the rename: it left a torn file and failed (a publish by
/// `std::fs::copy` did not: one `copy_file_range` call is not cut by SIGKILL).
#[test]
fn sigkill_mid_write_leaves_the_old_output_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("arena.csv");
    let shown = out.display().to_string();
    let arena_to = |seed: &str, out: &str| -> Vec<String> {
        strings(&[
            "bench",
            "arena",
            "--models",
            "50",
            "--battles",
            "200000",
            "--seed",
            seed,
            "--out",
            out,
        ])
    };
    let arena = |seed: &str| arena_to(seed, &shown);
    common::succeed(&arena("1"));
    let old = std::fs::read(&out).unwrap();
    // The output seed 2 gives, written elsewhere.
    let newer = dir.path().join("newer");
    std::fs::create_dir(&newer).unwrap();
    let new_path: PathBuf = newer.join("arena.csv");
    common::succeed(&arena_to("2", &new_path.display().to_string()));
    let new = std::fs::read(&new_path).unwrap();
    assert_ne!(
        old.len(),
        new.len(),
        "the two outputs must differ in length"
    );
    let begun = || staged_bytes(&out) > 0 || output_changed(&out, &old);
    let staged = || staged_bytes(&out) == new.len() as u64 || output_changed(&out, &old);
    let phases: [&dyn Fn() -> bool; 2] = [&begun, &staged];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for sign in phases {
        // How long the phase lasts on this machine: from its sign to the run's end.
        let (mut child, seen) = spawn_until(&arena("2"), sign);
        child.wait().unwrap();
        let window = seen
            .expect("the phase was never seen")
            .elapsed()
            .as_micros() as u64;
        assert_eq!(std::fs::read(&out).unwrap(), new);
        common::succeed(&arena("1"));
        let mut mid_write = 0;
        for _ in 0..100 {
            if mid_write >= 25 {
                break;
            }
            remove_staging_files(dir.path());
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (mut child, seen) = spawn_until(&arena("2"), sign);
            if let Some(seen) = seen {
                let at = std::time::Duration::from_micros(state % window.max(1));
                while seen.elapsed() < at && child.try_wait().unwrap().is_none() {}
                if child.try_wait().unwrap().is_none() {
                    mid_write += 1;
                }
            }
            let _ = child.kill();
            child.wait().unwrap();
            let now = std::fs::read(&out).unwrap();
            assert!(now == old || now == new, "a torn file after a kill");
            if now == new {
                // Back to the old output, written by verdict, for the next round.
                common::succeed(&arena("1"));
            }
        }
        assert!(mid_write >= 25, "only {mid_write} kills landed mid-write");
    }
}
