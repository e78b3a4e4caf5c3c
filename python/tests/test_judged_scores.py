"""Judged scores a user can act on, from Python: PPI++'s corrected mean against
ppi_py, Krippendorff's alpha against the krippendorff package, and a run's intervals,
target error, plan and gold report equal to the command line's for the same run."""

from __future__ import annotations

import json

import pytest

import verdict_arena as verdict
from _support import TWO_JUDGES, cli

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
ppi_py = pytest.importorskip("ppi_py")
krippendorff = pytest.importorskip("krippendorff")

ITEMS = [{"id": f"q{k}", "truth": 0.15 + 0.7 * k / 29} for k in range(30)]
CONFIG = TWO_JUDGES


@pytest.mark.parametrize("seed, slope", [(0, 0.9), (1, -0.4), (2, 1.6)])
def test_ppi_mean_matches_ppi_py(seed, slope):
    # Power tuning inside (0, 1), clipped at 0 (judges anti-correlated with the
    # labels) and at 1 (judges that over-react).
    rng = np.random.default_rng(seed)
    n, big_n = 40, 500
    truth = rng.beta(2, 3, size=n + big_n)
    judged = np.clip(0.1 + slope * truth + rng.normal(0, 0.08, size=n + big_n), 0, 1)
    gold, judged_gold, judged_rest = truth[:n], judged[:n], judged[n:]
    ours = verdict.ppi_mean(gold, judged_gold, judged_rest, level=0.95)
    # ppi_py 0.2.3, defaults (lam=None, clipped power tuning), alpha = 1 - level.
    point = ppi_py.ppi_mean_pointestimate(gold, judged_gold, judged_rest)
    low, high = ppi_py.ppi_mean_ci(gold, judged_gold, judged_rest, alpha=0.05)
    assert abs(ours["corrected"]["score"] - float(np.squeeze(point))) < 1e-9
    assert abs(ours["corrected"]["low"] - float(np.squeeze(low))) < 1e-9
    assert abs(ours["corrected"]["high"] - float(np.squeeze(high))) < 1e-9
    # lam = 0 is the classical interval of the labels alone.
    low0, high0 = ppi_py.ppi_mean_ci(gold, judged_gold, judged_rest, alpha=0.05, lam=0)
    assert abs(ours["gold_only"]["low"] - float(np.squeeze(low0))) < 1e-9
    assert abs(ours["gold_only"]["high"] - float(np.squeeze(high0))) < 1e-9
    assert 0.0 <= ours["lambda"] <= 1.0


def test_krippendorff_alpha_matches_the_krippendorff_package():
    rng = np.random.default_rng(7)
    for trial in range(5):
        items, judges = 25, 4
        truth = rng.uniform(0, 1, size=items)
        ratings = truth[:, None] + rng.normal(0, 0.1 + 0.1 * trial, size=(items, judges))
        missing = rng.uniform(size=(items, judges)) < 0.25
        ratings[missing] = np.nan
        ours = verdict.krippendorff_alpha(ratings.tolist())
        # krippendorff 0.9.0: reliability data are judges × items, NaN where missing.
        theirs = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")
        assert abs(ours - theirs) < 1e-9, trial


def _files(tmp_path, gold_ids):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    config = tmp_path / "judges.toml"
    config.write_text(CONFIG)
    gold = tmp_path / "gold.csv"
    gold.write_text(
        "id,score\n" + "".join(f"q{k},{ITEMS[k]['truth']}\n" for k in gold_ids)
    )
    return items, config, gold


def test_intervals_target_and_gold_are_the_command_lines(tmp_path):
    items, config, gold = _files(tmp_path, range(0, 30, 3))
    out = tmp_path / "cli.json"
    cli(
        "judge", "--items", str(items), "--judges", str(config), "--budget", "3000",
        "--ledger", str(tmp_path / "cli.jsonl"), "--out", str(out), "--format", "json",
        "--method", "adaptive", "--seed", "4", "--target-error", "0.15", "--gold", str(gold),
    )
    expected = json.loads(out.read_text())
    got = verdict.judge(
        ITEMS, config, budget=3000, ledger=tmp_path / "py.jsonl", method="adaptive", seed=4,
        target_error=0.15, gold=gold,
    )
    assert got.intervals["low"].tolist() == [row["low"] for row in expected["items"]]
    assert got.intervals["high"].tolist() == [row["high"] for row in expected["items"]]
    assert got.mean == expected["mean"]
    assert got.gold == expected["gold"]
    assert got.target_reached is True and got.estimated_error <= 0.15
    assert got.spent < 3000
    assert (got.intervals["low"] <= got.scores).all() and (got.scores <= got.intervals["high"]).all()
    # The gold report's correction is ppi_py's on the run's own scores.
    labelled = [f"q{k}" for k in range(0, 30, 3)]
    scores = got.scores
    truth = {item["id"]: item["truth"] for item in ITEMS}
    point = ppi_py.ppi_mean_pointestimate(
        np.array([truth[i] for i in labelled]),
        scores[labelled].to_numpy(),
        scores.drop(labelled).to_numpy(),
    )
    assert abs(got.gold["mean"]["corrected"]["score"] - float(np.squeeze(point))) < 1e-9
    # Labels given as a dict are the same labels.
    again = verdict.judge(
        ITEMS, config, budget=3000, ledger=tmp_path / "py.jsonl", method="adaptive", seed=4,
        target_error=0.15, gold={i: truth[i] for i in labelled},
    )
    assert again.gold == got.gold and again.made == 0


def test_a_plan_is_the_command_lines_and_a_bad_gold_file_costs_nothing(tmp_path):
    items, config, gold = _files(tmp_path, [1, 2])
    out = tmp_path / "plan.json"
    cli(
        "judge", "--items", str(items), "--judges", str(config), "--budget", "600",
        "--ledger", str(tmp_path / "cli-plan.jsonl"), "--out", str(out), "--format", "json",
        "--plan", "--target-error", "0.02", "--n0", "3",
    )
    plan = verdict.plan_budget(
        ITEMS, config, target_error=0.02, budget=600, n0=3, ledger=tmp_path / "py-plan.jsonl"
    )
    assert plan == json.loads(out.read_text())
    assert plan["pilot_calls_per_pair"] == 3 and plan["pilot_spent"] == 3 * 30 * 5.0
    assert plan["oracle_total"] > plan["pilot_spent"]
    # A label for an item that does not exist: refused before any call is paid.
    gold.write_text("id,score\nq1,0.5\nnot-an-item,0.4\n")
    ledger = tmp_path / "refused.jsonl"
    with pytest.raises(ValueError, match=r"gold.csv:3: id \"not-an-item\" is not one of the items"):
        verdict.judge(ITEMS, config, budget=300, ledger=ledger, gold=gold)
    assert not ledger.exists()
    # So is a confidence level outside (0, 1).
    with pytest.raises(ValueError, match=r"confidence level 1.5 must be in \(0, 1\)"):
        verdict.judge(ITEMS, config, budget=300, ledger=ledger, level=1.5)
    assert not ledger.exists()
