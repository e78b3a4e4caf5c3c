//! `verdict report RESULT... --out FILE`: saved results drawn again. A result alone
//! gives the very page its command's `--report` draws (compared byte for byte where
//! the title is the same); several give one page with a part each; anything else is
//! refused by name, with no page written and no file of the user's touched.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{failure, succeed, write};

/// Rock–paper–scissors as a payoff matrix: a cycle with no winner.
const ROCK_PAPER_SCISSORS: &str = ",r,p,s\nr,0,-1,1\np,1,0,-1\ns,-1,1,0\n";

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Saves what `args` prints to `dir/name`; returns the path.
fn save(dir: &Path, name: &str, args: &[&str]) -> String {
    write(dir, name, &succeed(args))
}

/// Every `data-label="…" data-value="…"` pair and heatmap cell of a page: what its
/// bars and heatmaps show, whatever the order they are drawn in.
fn drawn_values(html: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for marker in ["data-label=\"", "data-row=\""] {
        for piece in html.split(marker).skip(1) {
            let end = piece.find("data-value=\"").unwrap();
            let value_end = end + 12 + piece[end + 12..].find('"').unwrap();
            found.insert(piece[..value_end].to_string());
        }
    }
    found
}

#[test]
fn a_saved_board_gives_the_page_rank_draws() {
    let dir = tempfile::tempdir().unwrap();
    let log = examples().join("tutorial-arena.csv");
    let log = log.to_str().unwrap();
    let direct = dir.path().join("direct.html");
    succeed(&[
        "rank",
        log,
        "--method",
        "all",
        "--report",
        direct.to_str().unwrap(),
    ]);
    let saved = save(
        dir.path(),
        "all.json",
        &[
            "rank", log, "--method", "all", "--matrix", "--format", "json",
        ],
    );
    let page = dir.path().join("page.html");
    let said = succeed(&["report", &saved, "--out", page.to_str().unwrap()]);
    assert!(
        said.contains("page.html"),
        "it says where the page is: {said}"
    );
    assert_eq!(read(&page), read(&direct));
    // P(A beats D) = 0.978 at the MLE is on it (the tutorial prints 0.977, its iterate 20;
    // the MLE's 0.9776 is from scripts/goldens/tutorial_mle.py).
    assert!(read(&page).contains("data-row=\"A\" data-col=\"D\" data-value=\"0.978\""));

    // Saved without --matrix: the boards, and no heatmaps.
    let bare = save(dir.path(), "bt.json", &["rank", log, "--format", "json"]);
    succeed(&["report", &bare, "--out", page.to_str().unwrap()]);
    let html = read(&page);
    assert!(html.contains("<svg class=\"leaderboard\"") && !html.contains("class=\"heatmap"));
}

#[test]
fn a_saved_game_draws_its_cycle_when_it_kept_the_payoffs() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "rps.csv", ROCK_PAPER_SCISSORS);
    let direct = dir.path().join("direct.html");
    succeed(&["game", &csv, "--report", direct.to_str().unwrap()]);
    let with = save(
        dir.path(),
        "with.json",
        &["game", &csv, "--format", "json", "--payoffs"],
    );
    let without = save(
        dir.path(),
        "without.json",
        &["game", &csv, "--format", "json"],
    );
    let without_json: serde_json::Value = serde_json::from_str(&read(Path::new(&without))).unwrap();
    assert!(
        without_json.get("payoffs").is_none(),
        "printed only on request"
    );
    let page = dir.path().join("page.html");
    succeed(&["report", &with, "--out", page.to_str().unwrap()]);
    let body = |html: &str| html[html.find("<body>").unwrap()..].replace("with.json", "rps.csv");
    assert_eq!(body(&read(&page)), body(&read(&direct)));
    assert_eq!(read(&page).matches("class=\"beats\"").count(), 3);
    succeed(&["report", &without, "--out", page.to_str().unwrap()]);
    let html = read(&page);
    assert!(html.contains("--payoffs") && !html.contains("class=\"beats\""));
}

#[test]
fn a_saved_experiment_and_a_ledger_give_their_pages() {
    let dir = tempfile::tempdir().unwrap();
    let bench = [
        "bench",
        "judges",
        "--items",
        "6",
        "--judges",
        "3",
        "--budgets",
        "200,400",
        "--reps",
        "3",
    ];
    let direct = dir.path().join("direct.html");
    let mut with_page = bench.to_vec();
    with_page.extend(["--report", direct.to_str().unwrap()]);
    succeed(&with_page);
    let mut as_json = bench.to_vec();
    as_json.extend(["--format", "json"]);
    let saved = save(dir.path(), "bench.json", &as_json);
    let page = dir.path().join("page.html");
    succeed(&["report", &saved, "--out", page.to_str().unwrap()]);
    assert_eq!(read(&page), read(&direct));

    // A judging run: the ledger's page shows what the run's own page shows.
    let items: String = (1..=5)
        .map(|i| format!("{{\"id\": \"q{i}\", \"truth\": 0.{}}}\n", i + 2))
        .collect();
    let items = write(dir.path(), "items.jsonl", &items);
    let judges = write(
        dir.path(),
        "judges.toml",
        "range = 1.0\n[[judge]]\nname = \"cheap\"\ncost = 0.2\nsimulate = 0.05\n\n[[judge]]\nname = \"sharp\"\ncost = 1.0\nsimulate = 0.005\n",
    );
    let ledger = dir.path().join("spend.jsonl");
    let run_page = dir.path().join("run.html");
    succeed(&[
        "--quiet",
        "judge",
        "--items",
        &items,
        "--judges",
        &judges,
        "--budget",
        "20",
        "--ledger",
        ledger.to_str().unwrap(),
        "--out",
        dir.path().join("scores.csv").to_str().unwrap(),
        "--report",
        run_page.to_str().unwrap(),
    ]);
    let from_ledger = dir.path().join("ledger.html");
    succeed(&[
        "report",
        ledger.to_str().unwrap(),
        "--out",
        from_ledger.to_str().unwrap(),
    ]);
    let (run, again) = (read(&run_page), read(&from_ledger));
    assert!(again.contains("est-ivwe with budget 20") && again.contains("5 of them called"));
    assert_eq!(drawn_values(&again), drawn_values(&run));
    assert!(!drawn_values(&run).is_empty());
}

#[test]
fn several_results_make_one_page_with_a_part_each() {
    let dir = tempfile::tempdir().unwrap();
    let log = examples().join("tutorial-arena.csv");
    let board = save(
        dir.path(),
        "board.json",
        &[
            "rank",
            log.to_str().unwrap(),
            "--format",
            "json",
            "--matrix",
        ],
    );
    let csv = write(dir.path(), "rps.csv", ROCK_PAPER_SCISSORS);
    let game = save(
        dir.path(),
        "game.json",
        &["game", &csv, "--format", "json", "--payoffs"],
    );
    let page = dir.path().join("both.html");
    succeed(&[
        "report",
        &board,
        &game,
        "--out",
        page.to_str().unwrap(),
        "--title",
        "Two results",
    ]);
    let html = read(&page);
    assert!(html.contains("<title>Two results</title>"));
    assert!(html.contains("<li><a href=\"#result-1\">Leaderboard: "));
    assert!(html.contains("<li><a href=\"#result-2\">Equilibrium of a payoff matrix: "));
    assert!(html.contains("data-row=\"A\" data-col=\"D\" data-value=\"0.978\""));
    assert_eq!(html.matches("class=\"beats\"").count(), 3);
    for external in ["http://", "https://", "src=", "<script"] {
        assert!(!html.contains(external), "the page refers to {external}");
    }
}

/// Anything but a saved result is refused naming the file; no page is written, and a
/// file verdict did not write is never overwritten (the results themselves included).
#[test]
fn what_is_not_a_result_is_refused_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let out = page.to_str().unwrap();
    let log = examples().join("tutorial-arena.csv");
    let log = log.to_str().unwrap();
    let board = save(
        dir.path(),
        "board.json",
        &["rank", log, "--format", "json", "--matrix"],
    );

    let other = write(dir.path(), "other.json", "{\"a\": 1}");
    for input in [&other, log] {
        let message = failure(&["report", input, "--out", out]);
        assert!(
            message.contains(input) && message.contains("not a result verdict saved"),
            "{message}"
        );
    }
    let empty_file = write(dir.path(), "empty-file.json", "");
    assert!(failure(&["report", &empty_file, "--out", out]).contains("empty"));
    // Good files before a bad one write nothing either.
    failure(&["report", &board, &other, "--out", out]);
    assert!(!page.exists());
    let fit_printout = write(
        dir.path(),
        "fit.json",
        "{\"model\": \"m.json\", \"seconds\": 1.0, \"summary\": {}}",
    );
    assert!(failure(&["report", &fit_printout, "--out", out]).contains("m.json"));
    let rows_only = write(dir.path(), "rows.json", "{\"rows\": []}");
    assert!(failure(&["report", &rows_only, "--out", out]).contains("settings"));

    // Damaged results of a known kind say what is wrong instead of drawing garbage.
    let mut damaged: serde_json::Value = serde_json::from_str(&read(Path::new(&board))).unwrap();
    damaged["matrices"]["wins"].as_array_mut().unwrap().pop();
    let damaged = write(dir.path(), "damaged.json", &damaged.to_string());
    assert!(failure(&["report", &damaged, "--out", out]).contains("4 × 4"));
    let empty = write(
        dir.path(),
        "empty.json",
        "{\"method\": \"all\", \"leaderboards\": []}",
    );
    assert!(failure(&["report", &empty, "--out", out]).contains("no leaderboard"));
    let game = write(
        dir.path(),
        "game.json",
        "{\"models\": [{\"name\": \"a\", \"probability\": 1.0}], \"gap\": 0, \"exploitability\": 0, \"value\": 0, \"unique\": true, \"payoffs\": [[0, 1]]}",
    );
    assert!(failure(&["report", &game, "--out", out]).contains("1 × 1"));
    assert!(!page.exists());

    // The page never goes over the result it draws, nor over a file verdict did not
    // write.
    let before = read(Path::new(&board));
    let message = failure(&["report", &board, "--out", &board]);
    assert!(message.contains("also an input") && message.contains("--out"));
    assert_eq!(read(Path::new(&board)), before);
    let copy = write(dir.path(), "copy.json", &before);
    let message = failure(&["report", &board, "--out", &copy]);
    assert!(message.contains("not written by verdict") && message.contains("--out"));
    assert_eq!(read(Path::new(&copy)), before);
    // Its own earlier page it replaces.
    succeed(&["report", &board, "--out", out]);
    succeed(&["report", &board, "--out", out]);
    // --report on a command keeps the same promise, before any work.
    let notes = write(dir.path(), "notes.html", "<p>mine</p>");
    let message = failure(&["rank", log, "--report", &notes]);
    assert!(message.contains("not written by verdict") && message.contains("--report"));
    assert_eq!(read(Path::new(&notes)), "<p>mine</p>");
}
