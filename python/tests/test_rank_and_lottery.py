"""The Python module against the command line on the same input (identical numbers),
frame input against file input, the maximal lottery against closed forms and
scipy's linear program, and bad input raising ValueError with the place named."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

import verdict

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOG = ROOT / "examples" / "data" / "llmfao.csv"
TUTORIAL = ROOT / "examples" / "data" / "tutorial-arena.csv"


def cli(*args: str) -> str:
    """The verdict binary built by cargo (VERDICT_BIN, else target/debug/verdict)."""
    binary = os.environ.get("VERDICT_BIN", str(ROOT / "target" / "debug" / "verdict"))
    return subprocess.run(
        [binary, "--quiet", *args], check=True, capture_output=True, text=True
    ).stdout


def without_notes(report: dict) -> dict:
    """The report's numbers: notes name settings the way each face spells them
    (``--allow-unobserved`` on the command line, ``allow_unobserved`` here)."""
    if "leaderboards" in report:
        report = {**report, "leaderboards": [without_notes(b) for b in report["leaderboards"]]}
    return {k: v for k, v in report.items() if k != "notes"}


@pytest.mark.parametrize("method", ["bt", "elo", "lottery", "all"])
@pytest.mark.parametrize("allow_unobserved", [False, True])
def test_rank_gives_the_command_lines_numbers(method, allow_unobserved):
    if method == "lottery" and not allow_unobserved:
        return  # pairs of llmfao never met: refused, see the bad-input test
    flags = ["--allow-unobserved"] if allow_unobserved else []
    expected = json.loads(
        cli("rank", str(LOG), "--method", method, "--bootstrap", "50", "--format", "json", *flags)
    )
    got = verdict.rank(
        LOG, method=method, bootstrap=50, allow_unobserved=allow_unobserved, as_frame=False
    )
    assert without_notes(got) == without_notes(expected)
    assert len(got["notes"]) == len(expected["notes"])
    assert not any("--" in note for note in got["notes"]), got["notes"]


def test_a_frame_ranks_as_its_file():
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(TUTORIAL)
    from_file = verdict.rank(TUTORIAL, bootstrap=100, seed=3)
    from_frame = verdict.rank(frame, bootstrap=100, seed=3)
    assert list(from_frame.index) == list(from_file.index)
    assert from_frame["score"].tolist() == from_file["score"].tolist()
    assert from_frame["ci_low"].tolist() == from_file["ci_low"].tolist()
    renamed = frame.rename(columns={"model_a": "a", "model_b": "b", "winner": "w"})
    again = verdict.rank(renamed, model_a="a", model_b="b", winner="w", bootstrap=100, seed=3)
    assert again["score"].tolist() == from_file["score"].tolist()


def test_rock_paper_scissors_is_uniform_and_a_dominated_agent_gets_nothing():
    # Closed form: the unique maximal lottery of RPS with a fourth agent every one of
    # them beats puts 1/3 on each of the three and 0 on the fourth.
    matrix = [
        [0, -1, 1, 0.5],
        [1, 0, -1, 0.5],
        [-1, 1, 0, 0.5],
        [-0.5, -0.5, -0.5, 0],
    ]
    result = verdict.maximal_lottery(matrix, ["rock", "paper", "scissors", "well"])
    probabilities = {m["name"]: m["probability"] for m in result["models"]}
    for name in ("rock", "paper", "scissors"):
        assert probabilities[name] == pytest.approx(1 / 3, abs=1e-9)
    assert probabilities["well"] == pytest.approx(0, abs=1e-9)
    assert result["exploitability"] < 1e-9
    assert result["unique"]


def test_the_lottery_matches_scipys_linear_program():
    np = pytest.importorskip("numpy")
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(7)
    upper = np.triu(rng.uniform(-1, 1, size=(7, 7)), 1)
    matrix = upper - upper.T
    # max v s.t. (A^T pi)_k >= v, sum pi = 1, pi >= 0: variables (pi, v), minimise -v.
    k = matrix.shape[0]
    solved = optimize.linprog(
        c=np.r_[np.zeros(k), -1.0],
        A_ub=np.c_[-matrix.T, np.ones(k)],
        b_ub=np.zeros(k),
        A_eq=np.r_[np.ones(k), 0.0].reshape(1, -1),
        b_eq=[1.0],
        bounds=[(0, None)] * k + [(None, None)],
        method="highs",
    )
    ours = verdict.maximal_lottery(matrix.tolist())
    assert ours["unique"], "a random game's equilibrium is unique almost surely"
    probabilities = [m["probability"] for m in ours["models"]]
    assert probabilities == pytest.approx(solved.x[:k].tolist(), abs=1e-6)


def test_bad_input_raises_value_error_naming_the_place(tmp_path):
    bad = tmp_path / "battles.csv"
    bad.write_text("model_a,model_b,winner\na,b,model_a\nb,c,banana\n")
    with pytest.raises(ValueError, match=r"battles.csv:3.*winner.*banana"):
        verdict.rank(bad)
    with pytest.raises(ValueError, match="never met.*allow_unobserved"):
        verdict.rank(LOG, method="lottery")
    with pytest.raises(ValueError, match="method"):
        verdict.rank(TUTORIAL, method="glicko")
    with pytest.raises(ValueError, match="skew"):
        verdict.maximal_lottery([[0, 1], [1, 0]], ["a", "b"])
