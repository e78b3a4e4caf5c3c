"""`verdict.report` from Python: the page `verdict report` draws for the same saved
result, from a path or from the dict a function returned; several results on one
page; what is not a result refused naming it; no file of the user's overwritten."""

from __future__ import annotations

import json

import pytest

import verdict_arena as verdict
from _support import TUTORIAL, cli, saved_results


def test_a_path_gives_the_page_the_command_line_draws(tmp_path) -> None:
    for result in saved_results(tmp_path):
        page = tmp_path / "cli.html"
        cli("report", str(result), "--out", str(page))
        assert verdict.report(result) == page.read_text(), result.name


def test_a_board_dict_gives_the_page_of_its_json(tmp_path) -> None:
    board = verdict.rank(TUTORIAL, "bt", as_frame=False)
    saved = tmp_path / "board.json"
    saved.write_text(cli("rank", str(TUTORIAL), "--format", "json"))
    page = tmp_path / "cli.html"
    cli("report", str(saved), "--out", str(page))
    assert verdict.report(board) == page.read_text()
    lottery = verdict.maximal_lottery([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], ["r", "p", "s"])
    both = verdict.report([board, lottery], title="Two")
    assert '<a href="#result-1">Leaderboard: result 1</a>' in both
    assert '<a href="#result-2">Equilibrium of a payoff matrix: result 2</a>' in both


def test_what_is_not_a_result_is_refused_and_nothing_is_overwritten(tmp_path) -> None:
    with pytest.raises(ValueError, match="result 1: not a result verdict saved"):
        verdict.report({"a": 1})
    with pytest.raises(TypeError, match="result 2"):
        verdict.report([verdict.rank(TUTORIAL, "bt", as_frame=False), 42])
    with pytest.raises(ValueError, match="at least one"):
        verdict.report([])
    mine = tmp_path / "mine.html"
    mine.write_text("<p>my notes</p>")
    with pytest.raises(FileExistsError, match="not written by verdict"):
        verdict.report(verdict.rank(TUTORIAL, "bt", as_frame=False), mine)
    assert mine.read_text() == "<p>my notes</p>"
    assert json.loads(cli("rank", str(TUTORIAL), "--format", "json"))["method"] == "bradley-terry"
