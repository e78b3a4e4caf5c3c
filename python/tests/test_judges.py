"""Judges under a budget from Python: the command line's scores for a TOML
configuration; a run of Python-callable judges interrupted by an exception and resumed
from its ledger pays no call twice and never exceeds the budget; the oracle allocation
against a brute-force search; bad input named."""

from __future__ import annotations

import itertools
import json
import random
import time

import pytest

import verdict_arena as verdict
from _support import TWO_JUDGES, cli, ctrl_c_delivered

pd = pytest.importorskip("pandas")

ITEMS = [{"id": f"q{k}", "truth": 0.2 + 0.6 * k / 11} for k in range(12)]
CONFIG = TWO_JUDGES


def test_a_configured_run_gives_the_command_lines_scores(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    config = tmp_path / "judges.toml"
    config.write_text(CONFIG)
    for method in ("adaptive", "est-ivwe", "uniform"):
        out = tmp_path / f"{method}.csv"
        cli(
            "judge", "--items", str(items), "--judges", str(config), "--budget", "300",
            "--ledger", str(tmp_path / f"cli-{method}.jsonl"), "--out", str(out),
            "--method", method, "--seed", "4",
        )
        expected = pd.read_csv(out, dtype={"id": str}).set_index("id")["score"]
        got = verdict.judge(
            ITEMS, config, budget=300, ledger=tmp_path / f"py-{method}.jsonl", method=method, seed=4
        )
        assert got.scores.tolist() == expected.tolist(), method
        assert list(got.scores.index) == list(expected.index)
        assert got.spent <= 300
    # The run's page, from its ledger: as `verdict report` draws it, and in a notebook.
    page = tmp_path / "run.html"
    cli("report", str(tmp_path / "py-uniform.jsonl"), "--out", str(page))
    assert verdict.report(got) == page.read_text()
    assert got.ledger == str(tmp_path / "py-uniform.jsonl")
    assert got._repr_html_().startswith('<iframe srcdoc="')


class Stop(Exception):
    pass


def make_judges(log, raise_after=None):
    """Two callable judges that record every call in `log` and draw their noise from
    the item and the call's number; the first raises `Stop` on call `raise_after`."""

    def judge(name, spread):
        def score(item):
            if raise_after is not None and len(log) == raise_after:
                raise Stop(f"stopped after {raise_after} calls")
            log.append((name, item["id"]))
            rng = random.Random(f"{name}/{item['id']}/{len(log)}")
            return min(1.0, max(0.0, item["truth"] + rng.uniform(-spread, spread)))

        return score

    return [
        verdict.Judge("cheap", judge("cheap", 0.3), 1.0),
        verdict.Judge("sharp", judge("sharp", 0.05), 4.0),
    ]


@pytest.mark.parametrize("method", ["adaptive", "est-ivwe", "uniform"])
def test_an_interrupted_run_resumes_from_its_ledger_without_paying_twice(tmp_path, method):
    budget = 400.0
    ledger = tmp_path / "ledger.jsonl"
    first = []
    with pytest.raises(Stop), pytest.warns(UserWarning, match="recorded in"):
        verdict.judge(ITEMS, make_judges(first, raise_after=25), budget=budget, ledger=ledger, method=method)
    assert len(first) == 25
    second = []
    with pytest.warns(UserWarning, match="charged"):
        resumed = verdict.judge(ITEMS, make_judges(second), budget=budget, ledger=ledger, method=method)
    # The 25 paid calls are replayed, not made again; the one cut off by the
    # exception is charged (it may have been paid) and not asked again.
    assert resumed.replayed == 25
    assert resumed.made == len(second)
    assert resumed.calls == 25 + len(second)
    assert resumed.spent <= budget
    costs = {"cheap": 1.0, "sharp": 4.0}
    paid = sum(costs[name] for name, _ in first + second)
    assert paid <= budget
    # Every call the ledger records as paid was made exactly once across the runs.
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    ends = [e for e in entries if e.get("event") == "end"]
    assert len({e["call"] for e in ends}) == len(ends), "a call settled twice"
    assert sum(1 for e in ends if e["score"] is not None) == len(first) + len(second)
    assert sum(e["cost"] for e in ends) <= budget


def test_a_none_is_a_failed_call_and_a_bad_return_stops_with_type_error(tmp_path):
    calls = []

    def flaky(item):
        calls.append(item["id"])
        return None if len(calls) in (1, 5) else item["truth"]

    result = verdict.judge(ITEMS[:3], [verdict.Judge("flaky", flaky, 1.0)], budget=12, ledger=tmp_path / "a.jsonl", method="uniform")
    # The two failed calls were asked again and not charged.
    assert result.calls == len(calls) - 2 == 12 and result.spent == 12
    with pytest.raises(TypeError, match="number"), pytest.warns(UserWarning, match="recorded in"):
        verdict.judge(ITEMS[:3], [verdict.Judge("words", lambda item: "high", 1.0)], budget=12, ledger=tmp_path / "b.jsonl", method="uniform")


def test_ctrl_c_stops_a_configured_run_between_calls_and_it_resumes(tmp_path):
    import _thread
    import sys
    import threading

    calls = tmp_path / "calls.txt"
    program = (
        "import json, sys; item = json.load(sys.stdin); "
        f"open({str(calls)!r}, 'a').write(item['id'] + '\\n'); print(item['truth'])"
    )
    config = tmp_path / "judges.toml"
    config.write_text(
        f"range = 1.0\n\n[[judge]]\nname = \"program\"\ncost = 1.0\ncommand = {json.dumps([sys.executable, '-c', program])}\n"
    )
    ledger = tmp_path / "ledger.jsonl"
    # Ctrl-C (interrupt_main is what it does) once the first call has been made — an
    # event, not a time: on a busy machine a timer may fire before the first call or
    # after the last. The watcher gives up after 120 s, far past any run.
    stop_watching = threading.Event()

    def interrupt_after_the_first_call() -> None:
        deadline = time.monotonic() + 120
        while not stop_watching.is_set() and time.monotonic() < deadline:
            if calls.exists() and calls.read_text().strip():
                _thread.interrupt_main()
                return
            time.sleep(0.005)

    watcher = threading.Thread(target=interrupt_after_the_first_call)
    with ctrl_c_delivered():
        watcher.start()
        with pytest.raises(KeyboardInterrupt), pytest.warns(UserWarning, match="interrupted"):
            verdict.judge(ITEMS, config, budget=120, ledger=ledger, method="uniform")
    stop_watching.set()
    watcher.join()
    first = calls.read_text().splitlines()
    assert 0 < len(first) < 120
    paid = []
    resumed = verdict.judge(ITEMS, config, budget=120, ledger=ledger, method="uniform", progress=paid.append)
    made = calls.read_text().splitlines()[len(first):]
    # Stopped between calls: nothing in flight, nothing lost, nothing asked twice.
    assert resumed.replayed == len(first) and resumed.made == len(made)
    assert len(first) + len(made) == resumed.calls == 120
    assert sum(paid) == resumed.spent == 120


def test_the_oracle_allocation_is_optimal_among_integer_allocations():
    # Brute force over every integer allocation within the budget: the objective
    # sum_k (1 / sum_j N_kj / sigma2_kj) of Theorem 3.2 for p = 2.
    variances = [[0.04, 0.01], [0.09, 0.005]]
    costs = [1.0, 3.0]
    budget = 14.0
    result = verdict.oracle_allocation(variances, costs, budget)
    assert result["judge"] == [1, 1]  # c_j sigma2: 0.04 vs 0.03, 0.09 vs 0.015
    assert sum(result["weight"]) == pytest.approx(1.0)

    def objective(counts):
        total = 0.0
        for k, row in enumerate(counts):
            precision = sum(n / variances[k][j] for j, n in enumerate(row))
            if precision == 0:
                return float("inf")
            total += 1 / precision
        return total

    best = min(
        (
            [[a, b], [c, d]]
            for a, b, c, d in itertools.product(range(15), range(5), range(15), range(5))
            if (a + c) * costs[0] + (b + d) * costs[1] <= budget
        ),
        key=objective,
    )
    spent = sum(n * costs[j] for row in result["counts"] for j, n in enumerate(row))
    assert spent <= budget
    assert objective(result["counts"]) == pytest.approx(objective(best), rel=1e-12)


def test_bad_input_raises_naming_the_place(tmp_path):
    with pytest.raises(ValueError, match=r"item 2 has no \"id\""):
        verdict.judge([{"id": "a"}, {"name": "b"}], [verdict.Judge("j", lambda i: 0.5, 1.0)], budget=5, ledger=tmp_path / "l.jsonl")
    with pytest.raises(ValueError, match="method"):
        verdict.judge(ITEMS, [verdict.Judge("j", lambda i: 0.5, 1.0)], budget=5, ledger=tmp_path / "l.jsonl", method="best")
    with pytest.raises(ValueError, match="costs 0"):
        verdict.oracle_allocation([[0.1]], [0.0], 10)
    with pytest.raises(ValueError, match="row 1"):
        verdict.oracle_allocation([[0.1, 0.2], [0.1]], [1.0, 2.0], 10)
    with pytest.raises(ValueError, match="too small"):
        verdict.oracle_allocation([[0.1]], [5.0], 1)


def test_ivwe_on_given_scores_is_the_inverse_variance_weighted_mean():
    # Closed form: item a — judge x scores 0.2 and 0.4 (mean 0.3, N 2), judge y 0.6
    # (N 1); with sigma² 0.01 and 0.04 the weights are 200 and 25: 75/225 = 1/3.
    got = verdict.ivwe(["a", "a", "a", "b"], ["x", "x", "y", "y"], [0.2, 0.4, 0.6, 0.9], variances={"x": 0.01, "y": 0.04})
    assert got["a"] == pytest.approx(1 / 3, abs=1e-15) and got["b"] == pytest.approx(0.9)
    per_pair = verdict.ivwe(
        ["a", "a", "a", "b"], ["x", "x", "y", "y"], [0.2, 0.4, 0.6, 0.9],
        variances={("a", "x"): 0.01, ("a", "y"): 0.04, ("b", "x"): 1.0, ("b", "y"): 1.0},
    )
    assert per_pair.tolist() == got.tolist()
    # Sample variances by default: equal spreads and counts give the plain mean.
    estimated = verdict.ivwe(["a"] * 4, ["x", "x", "y", "y"], [0.2, 0.4, 0.5, 0.7])
    assert estimated["a"] == pytest.approx(0.45)
    with pytest.raises(ValueError, match="item 0, judge 1"):
        verdict.ivwe(["a", "a", "a"], ["x", "x", "y"], [0.2, 0.4, 0.6])
    with pytest.raises(ValueError, match="no entry"):
        verdict.ivwe(["a"], ["x"], [0.5], variances={"z": 1.0})


def test_judges_of_one_family_share_their_mistakes_and_the_result_says_so(tmp_path):
    """Callable judges with a bias at each item that their family shares: the result's
    ``shared_errors`` estimates it, and its intervals hold the truth where the
    consensus intervals hold what the judges say."""
    truth = {f"q{k}": 0.2 + 0.6 * (k % 10) / 9 for k in range(60)}
    items = [{"id": key} for key in truth]

    def biased(family: int, name: str):
        def score(item):
            k = int(item["id"][1:])
            bias = 0.1 if (k * (family + 2) // 3 + family) % 2 == 0 else -0.1
            noise = random.Random(f"{name}/{item['id']}/{random.random()}").uniform(-0.03, 0.03)
            return truth[item["id"]] + bias + noise

        return score

    judges = [
        verdict.Judge(f"j{j}", biased(j // 2, f"j{j}"), 1.0, family=f"maker{j // 2}") for j in range(4)
    ]
    got = verdict.judge(items, judges, budget=960, ledger=tmp_path / "run.jsonl", method="uniform")
    shared = got.shared_errors
    assert shared["identified"], shared["note"]
    assert shared["families"] == ["maker0", "maker0", "maker1", "maker1"]
    assert 0.08 < shared["bias_sd"] < 0.12
    assert shared["family_correlation"] > 0.9
    aware = sum(row["low"] <= truth[row["id"]] <= row["high"] for row in shared["items"])
    consensus = sum(
        got.intervals.loc[key, "low"] <= value <= got.intervals.loc[key, "high"] for key, value in truth.items()
    )
    assert aware >= 54 and consensus < aware, (aware, consensus)
    # The allocation that knows the families: every call scored bias-aware.
    shared_run = verdict.judge(items, judges, budget=960, ledger=tmp_path / "shared.jsonl", method="est-ivwe-shared")
    held = sum(
        shared_run.intervals.loc[key, "low"] <= value <= shared_run.intervals.loc[key, "high"]
        for key, value in truth.items()
    )
    assert held >= 54 and shared_run.spent <= 960, held
    # Without a family a judge is its own, by name.
    alone = verdict.judge(
        items, [verdict.Judge(f"j{j}", biased(j // 2, f"j{j}"), 1.0) for j in range(4)],
        budget=960, ledger=tmp_path / "alone.jsonl", method="uniform",
    )
    assert alone.shared_errors["families"] == ["j0", "j1", "j2", "j3"]


def test_shared_errors_of_recorded_calls_recover_the_planted_components():
    """Four judges in two families, three calls each of 300 items: call sd 0.05, a
    family bias of sd 0.1 shared fully within a family — the estimate recovers them."""
    rng = random.Random(3)
    items, judges, scores = [], [], []
    for k in range(300):
        truth = rng.random()
        family_bias = {f: rng.gauss(0, 0.1) for f in "AB"}
        for judge, family in (("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")):
            for _ in range(3):
                items.append(k)
                judges.append(judge)
                scores.append(truth + family_bias[family] + rng.gauss(0, 0.05))
    found = verdict.shared_errors(items, judges, scores, families={"a1": "A", "a2": "A", "b1": "B", "b2": "B"})
    estimate = found["estimate"]
    assert found["judges"] == ["a1", "a2", "b1", "b2"] and found["items"] == 300
    assert all(abs(v - 0.0025) < 0.0004 for v in estimate["call_variance"])
    assert abs(estimate["bias_covariance"][0] - 0.01) < 0.002
    assert found["bias_correlation"][1] > 0.95 and abs(found["bias_correlation"][2]) < 1e-9
    # Two families whose members agree: about two independent judges.
    assert 1.9 < estimate["panel_effective_judges"] < 2.4
    with pytest.raises(verdict.errors.InputError, match="who scored nothing"):
        verdict.shared_errors(items, judges, scores, families={"c1": "C"})
