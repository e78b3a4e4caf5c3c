"""Bradley–Terry and Elo on parallel arrays against the command line, choix and
evalica on the bundled LLMFAO log (evalica's own benchmark data)."""

from __future__ import annotations

import math

import pytest

import verdict_arena as verdict
from _support import LOG, cli_json

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def llmfao():
    # Columns left, right and winner in {left, right, tie}.
    return pd.read_csv(LOG)


def test_bradley_terry_gives_the_command_lines_scores(llmfao):
    # verdict rank reports 400·log10(p_i) + 1000 (mean 1000); the arrays give ln p_i.
    report = cli_json("rank", str(LOG), "--bootstrap", "0")
    fit = verdict.bradley_terry(llmfao.left, llmfao.right, llmfao.winner)
    assert fit.converged and fit.gradient_norm < 1e-8
    assert abs(fit.scores.mean()) < 1e-12
    for model in report["models"]:
        rating = 1000 + 400 * fit.scores[model["name"]] / math.log(10)
        assert rating == pytest.approx(model["score"], abs=1e-9)
    assert fit.strengths.sum() == pytest.approx(1.0)


def test_bradley_terry_matches_evalica(llmfao):
    evalica = pytest.importorskip("evalica")
    code = {"left": evalica.Winner.X, "right": evalica.Winner.Y, "tie": evalica.Winner.Draw}
    winners = [code[w] for w in llmfao.winner]
    # evalica's MM iteration, run to a tight tolerance; its scores are p_i unnormalised.
    theirs = evalica.bradley_terry(
        llmfao.left, llmfao.right, winners, tolerance=1e-12, limit=100_000
    ).scores
    # Both faces take evalica's Winner values as they are.
    ours = verdict.bradley_terry(llmfao.left, llmfao.right, winners).strengths
    theirs = theirs / theirs.sum()
    assert ours.reindex(theirs.index).tolist() == pytest.approx(theirs.tolist(), abs=1e-10)


def test_bradley_terry_matches_choix_on_decisive_battles(llmfao):
    choix = pytest.importorskip("choix")
    decisive = llmfao[llmfao.winner != "tie"]
    names = sorted(set(decisive.left) | set(decisive.right))
    index = {n: i for i, n in enumerate(names)}
    pairs = [
        (index[a], index[b]) if w == "left" else (index[b], index[a])
        for a, b, w in zip(decisive.left, decisive.right, decisive.winner)
    ]
    # choix's ILSR (Maystre & Grossglauser 2015): log-strengths with mean zero.
    theirs = choix.ilsr_pairwise(len(names), pairs, tol=1e-14, max_iter=10_000)
    fit = verdict.bradley_terry(decisive.left, decisive.right, decisive.winner, ties="drop")
    assert fit.scores.reindex(names).tolist() == pytest.approx(theirs.tolist(), abs=1e-7)


def test_elo_matches_evalica_and_the_command_line(llmfao):
    evalica = pytest.importorskip("evalica")
    code = {"left": evalica.Winner.X, "right": evalica.Winner.Y, "tie": evalica.Winner.Draw}
    theirs = evalica.elo(llmfao.left, llmfao.right, [code[w] for w in llmfao.winner], k=4.0).scores
    ours = verdict.elo(llmfao.left, llmfao.right, llmfao.winner, k=4.0).scores
    assert ours.reindex(theirs.index).tolist() == pytest.approx(theirs.tolist(), abs=1e-9)
    report = cli_json("rank", str(LOG), "--method", "elo", "--k", "4", "--bootstrap", "0")
    for model in report["models"]:
        assert ours[model["name"]] == pytest.approx(model["score"], abs=1e-9)


def test_outcomes_may_be_scores_of_the_first_model():
    labels = verdict.bradley_terry(["a", "b", "c", "a"], ["b", "c", "a", "c"], ["model_a", "model_b", "tie", "left"])
    numbers = verdict.bradley_terry(["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, 0, 0.5, 1.0])
    assert labels.scores.tolist() == numbers.scores.tolist()


def test_bad_arrays_raise_value_error_naming_the_position():
    with pytest.raises(ValueError, match=r"winners\[1\]"):
        verdict.bradley_terry(["a", "b"], ["b", "c"], ["model_a", "banana"])
    with pytest.raises(ValueError, match=r"winners\[0\]"):
        verdict.elo(["a"], ["b"], [0.7])
    with pytest.raises(ValueError, match="same length"):
        verdict.bradley_terry(["a", "b"], ["b"], ["model_a", "tie"])
    with pytest.raises(ValueError, match="battle 0"):
        verdict.elo(["a"], ["a"], ["tie"])
