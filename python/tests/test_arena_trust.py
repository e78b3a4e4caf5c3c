"""Weights, fragility and warm refits from Python: ``rank(frame, weight_col=...)`` gives arena-rank
0.1.1's weighted Bradley–Terry and sandwich (tests/golden/weighted_bt_llmfao_golden.csv,
made by tests/golden/make_weighted_bt_golden.py) on LLMFAO weighted 1 / max(n_pair, 5),
the same numbers as ``verdict rank --weight-col``, and refuses a negative weight;
``fragility=True`` gives ``verdict rank --fragility``'s counts; a frame of new
battles with ``warm=`` a state from ``verdict rank --save-counts`` ranks like the whole
log; vote hygiene on a frame collapses repeated battles back to the board of the
log without them."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

import verdict_arena as verdict
from _support import LOG, ROOT, cli_json, without_notes

GOLDEN = ROOT / "tests" / "golden" / "weighted_bt_llmfao_golden.csv"


def _weighted_llmfao() -> pd.DataFrame:
    frame = pd.read_csv(LOG)
    pair = frame.apply(lambda r: tuple(sorted((r["left"], r["right"]))), axis=1)
    frame["w"] = 1.0 / pair.map(pair.value_counts()).clip(lower=5)
    return frame


def test_weighted_sandwich_matches_arena_rank() -> None:
    board = verdict.rank(_weighted_llmfao(), weight_col="w", ci="sandwich")
    with open(GOLDEN) as f:
        golden = list(csv.DictReader(line for line in f if not line.startswith("#")))
    assert len(golden) == len(board)
    for row in golden:
        ours = board.loc[row["model"]]
        assert abs(ours["score"] - float(row["rating"])) < 1e-5
        width = float(row["rating_upper"]) - float(row["rating_lower"])
        assert abs((ours["ci_high"] - ours["ci_low"]) / width - 1.0) < 1e-4


def test_weights_give_the_command_lines_numbers(tmp_path) -> None:
    frame = _weighted_llmfao()
    path = tmp_path / "weighted.csv"
    frame.to_csv(path, index=False)
    ours = verdict.rank(frame, weight_col="w", bootstrap=50, as_frame=False)
    theirs = cli_json("rank", str(path), "--weight-col", "w", "--bootstrap", "50")
    ours.pop("source"), theirs.pop("source")
    assert without_notes(ours) == without_notes(theirs)


def test_a_negative_weight_is_refused_at_its_row() -> None:
    frame = _weighted_llmfao()
    frame.loc[7, "w"] = -0.5
    with pytest.raises(ValueError, match="negative weight"):
        verdict.rank(frame, weight_col="w")


def test_fragility_gives_the_command_lines_numbers() -> None:
    ours = verdict.rank(str(LOG), fragility=True, bootstrap=0, as_frame=False)
    theirs = cli_json("rank", str(LOG), "--fragility", "--bootstrap", "0")
    assert without_notes(ours) == without_notes(theirs)
    assert ours["top_flip"]["battles"] >= 1
    frame = verdict.rank(str(LOG), fragility=True, bootstrap=0)
    assert frame["flip"].iloc[0] == ours["models"][0]["flip"]["battles"]
    assert frame["flip_first_order"].iloc[0] == ours["models"][0]["flip"]["approximate"]


def test_a_warm_refit_from_a_frame_equals_the_full_fit(tmp_path) -> None:
    frame = pd.read_csv(LOG)
    old, new = frame.iloc[:5000], frame.iloc[5000:]
    old_path, state = tmp_path / "old.csv", tmp_path / "state.csv"
    old.to_csv(old_path, index=False)
    cli_json("rank", str(old_path), "--bootstrap", "0", "--save-counts", str(state))
    warm = verdict.rank(new, warm=str(state), bootstrap=30, as_frame=False)
    full = verdict.rank(str(LOG), bootstrap=30, as_frame=False)
    assert warm["battles"] == full["battles"] == len(frame)
    for w, f in zip(warm["models"], full["models"]):
        assert w["name"] == f["name"]
        for key in ("score", "ci_low", "ci_high"):
            assert abs(w[key] - f[key]) < 1e-9


def test_vote_hygiene_from_a_frame() -> None:
    frame = pd.read_csv(LOG)
    repeats = frame.head(40).copy()
    doubled = pd.concat([frame, repeats], ignore_index=True)
    report = verdict.rank(
        doubled,
        judge_col="worker",
        prompt_col="prompt",
        collapse_duplicates=True,
        bootstrap=0,
        as_frame=False,
    )
    assert any("40 duplicates" in note for note in report["notes"])
    plain = verdict.rank(frame, bootstrap=0, as_frame=False)
    for ours, theirs in zip(report["models"], plain["models"]):
        assert ours["name"] == theirs["name"]
        assert abs(ours["score"] - theirs["score"]) < 1e-9
    with pytest.raises(ValueError, match="time_col"):
        verdict.rank(frame, judge_col="worker", max_votes_per_judge_day=5)


def test_both_bad_gives_the_command_lines_numbers() -> None:
    log = ROOT / "examples" / "data" / "genai-arena-battles-20240220.json"
    ours = verdict.rank(str(log), both_bad="bad", skip_self_battles=True)
    theirs = cli_json("rank", str(log), "--both-bad", "bad", "--skip-self-battles")
    assert list(ours.index) == [m["name"] for m in theirs["models"]]
    for m in theirs["models"]:
        assert ours.loc[m["name"], "usable"] == m["usable"]
        assert ours.loc[m["name"], "score"] == m["score"]
