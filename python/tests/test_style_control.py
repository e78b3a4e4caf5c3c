"""Style control from Python: the same board as ``verdict rank --style-control`` for a
path or a pandas frame (LMArena's dict-valued markdown counts summed), and arena-rank
0.1.1's optimum (tests/golden/style_control_golden.csv) to 1e-6."""

from __future__ import annotations

import csv
import json

import pandas as pd

import verdict_arena as verdict
from _support import ROOT, cli_json, without_notes

GOLDEN = ROOT / "tests" / "golden"
LOG = GOLDEN / "style_control_log.csv"


def _arena_rank(setting: str) -> dict:
    with open(GOLDEN / "style_control_golden.csv") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {r["parameter"]: float(r["estimate"]) for r in rows if r["setting"] == setting}


def _numbers(report: dict) -> dict:
    return {k: v for k, v in without_notes(report).items() if k != "source"}


def test_style_control_reaches_arena_ranks_optimum() -> None:
    report = verdict.rank(str(LOG), style_control=True, bootstrap=0, as_frame=False)
    golden = _arena_rank("mle")
    for c in report["coefficients"]:
        assert abs(c["estimate"] - golden[c["name"]]) < 1e-6
    # Scores are 400/ln 10 · beta + 1000 with beta centred, as arena-rank's are.
    for m in report["models"]:
        beta = (m["score"] - 1000.0) * 2.302585092994046 / 400.0
        assert abs(beta - golden[m["name"]]) < 1e-6
    frame = verdict.rank(str(LOG), style_control=True, bootstrap=0)
    assert frame["rank_change"].sum() == 0


def test_a_frame_with_dict_counts_gives_the_command_lines_board() -> None:
    frame = pd.read_csv(LOG)
    # LMArena's dumps store markdown counts per kind; the style feature adds them up.
    frame["header_count_a"] = [json.dumps({"h1": 0, "h2": int(n)}) for n in frame["header_count_a"]]
    settings = dict(style_control=True, bootstrap=100, seed=5, as_frame=False)
    from_frame = verdict.rank(frame, **settings)
    args = ("--style-control", "--bootstrap", "100", "--seed", "5")
    assert _numbers(from_frame) == _numbers(cli_json("rank", str(LOG), *args))
    penalized = verdict.rank(frame, style_control=True, covariate_penalty=1.0,
                             pair_weights=50, bootstrap=0, as_frame=False)
    golden = _arena_rank("arena_rank_defaults")
    for c in penalized["coefficients"]:
        assert abs(c["estimate"] - golden[c["name"]]) < 1e-6


def test_conv_metadata_structs_as_lmarena_publishes_them() -> None:
    # LMArena's Parquet dumps nest the per-side counts in a `conv_metadata` struct,
    # markdown counts as structs per kind; pyarrow makes the same of nested dicts.
    flat = pd.read_csv(LOG)
    counts = ["sum_assistant_a_tokens", "sum_assistant_b_tokens", "list_count_a", "list_count_b"]
    split = ["header_count_a", "header_count_b", "bold_count_a", "bold_count_b"]
    nested = flat[["model_a", "model_b", "winner"]].copy()
    nested["conv_metadata"] = [
        {
            **{c: int(row[c]) for c in counts},
            **{c: {"h1": int(row[c]) // 2, "h2": int(row[c]) - int(row[c]) // 2} for c in split},
        }
        for _, row in flat.iterrows()
    ]
    settings = dict(style_control=True, ci="sandwich", as_frame=False)
    from_nested = verdict.rank(nested, **settings)
    from_flat = verdict.rank(flat, **settings)
    assert _numbers(from_nested) == _numbers(from_flat)
