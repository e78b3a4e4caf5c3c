"""What the Python tests share: the repository's bundled data and the command line
that cargo built, whose JSON the module must reproduce."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"
LOG = DATA / "llmfao.csv"
TUTORIAL = DATA / "tutorial-arena.csv"
GENAI = DATA / "genai-arena-battles-20240220.json"


def cli(*args: str) -> str:
    """Standard output of the verdict binary built by cargo (VERDICT_BIN, else
    target/debug/verdict)."""
    binary = os.environ.get("VERDICT_BIN", str(ROOT / "target" / "debug" / "verdict"))
    return subprocess.run(
        [binary, "--quiet", *args], check=True, capture_output=True, text=True
    ).stdout


def cli_json(*args: str):
    return json.loads(cli(*args, "--format", "json"))


def without_notes(report: dict) -> dict:
    """The report's numbers: notes name settings the way each face spells them
    (``--allow-unobserved`` on the command line, ``allow_unobserved`` here)."""
    if "leaderboards" in report:
        report = {**report, "leaderboards": [without_notes(b) for b in report["leaderboards"]]}
    return {k: v for k, v in report.items() if k != "notes"}


@contextlib.contextmanager
def ctrl_c_delivered():
    """Python's own SIGINT handler for the duration, so that ``_thread.interrupt_main``
    acts as Ctrl-C does. A test runner started in the background by a shell without
    job control inherits SIGINT ignored, and Python then installs no handler, so the
    simulated Ctrl-C would silently do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def saved_results(directory: pathlib.Path) -> list[pathlib.Path]:
    """One saved result of each kind `verdict report` draws without NashEval: a board
    with its matrices, a game with its payoffs, a judges experiment and a judge run's
    ledger (simulated judges)."""
    def save(name: str, *args: str) -> pathlib.Path:
        path = directory / name
        path.write_text(cli(*args))
        return path

    matrix = directory / "rps.csv"
    matrix.write_text(",r,p,s\nr,0,-1,1\np,1,0,-1\ns,-1,1,0\n")
    items = directory / "items.jsonl"
    items.write_text("".join(f'{{"id": "q{i}", "truth": 0.{i + 2}}}\n' for i in range(1, 6)))
    judges = directory / "judges.toml"
    judges.write_text('range = 1.0\n[[judge]]\nname = "cheap"\ncost = 0.2\nsimulate = 0.05\n'
                      '[[judge]]\nname = "sharp"\ncost = 1.0\nsimulate = 0.005\n')
    ledger = directory / "spend.jsonl"
    cli("judge", "--items", str(items), "--judges", str(judges), "--budget", "20",
        "--ledger", str(ledger), "--out", str(directory / "scores.csv"))
    return [
        save("board.json", "rank", str(TUTORIAL), "--method", "all", "--matrix",
             "--format", "json"),
        save("game.json", "game", str(matrix), "--payoffs", "--format", "json"),
        save("bench.json", "bench", "judges", "--items", "6", "--judges", "3",
             "--budgets", "200,400", "--reps", "3", "--format", "json"),
        ledger,
    ]


# Two simulated judges for judging runs: a cheap noisy one and a dear sharp one.
TWO_JUDGES = """
range = 1.0

[[judge]]
name = "cheap"
cost = 1.0
simulate = 0.03

[[judge]]
name = "sharp"
cost = 4.0
simulate = 0.002
"""
