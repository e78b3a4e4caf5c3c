"""Off-policy evaluation from Python: ``ope`` gives the JSON ``verdict ope`` prints
for the same files, frames score like paths, a fixed agent's IPS value equals numpy's
mean of ``1[a_i = A] r_i / mu_i`` (Horvitz & Thompson's estimator written out here),
and bad input raises the library's error naming the row."""

import json

import numpy as np
import pandas as pd
import pytest

import verdict_arena as va
from _support import cli_json


def _log(tmp_path):
    """A decision table of 500 requests over three agents (logger probabilities per
    row, the routed agent, its propensity, a feature) and 0/1 outcomes, as files and
    frames."""
    rng = np.random.default_rng(7)
    n, agents = 500, ["a", "b", "c"]
    x = rng.uniform(-1, 1, size=n)
    logits = np.column_stack([x, -x, np.zeros(n)])
    mu = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    mu = 0.8 * mu + 0.2 / 3
    chosen = np.array([rng.choice(3, p=row) for row in mu])
    truth = np.column_stack([0.5 + 0.3 * x, 0.5 - 0.3 * x, np.full(n, 0.45)])
    outcome = (rng.uniform(size=n) < truth[np.arange(n), chosen]).astype(float)
    decisions = pd.DataFrame({
        "request_id": [f"r{i}" for i in range(n)],
        "chosen": [agents[c] for c in chosen],
        "propensity": mu[np.arange(n), chosen],
        **{f"routed:{a}": mu[:, j] for j, a in enumerate(agents)},
        "x": x,
    })
    outcomes = pd.DataFrame({"request_id": decisions["request_id"], "outcome": outcome})
    decisions_path, outcomes_path = tmp_path / "decisions.csv", tmp_path / "outcomes.csv"
    decisions.to_csv(decisions_path, index=False, float_format="%.17g")
    outcomes.to_csv(outcomes_path, index=False)
    return decisions, outcomes, decisions_path, outcomes_path, chosen, mu, outcome


def test_ope_gives_what_the_command_line_prints(tmp_path):
    _, _, decisions_path, outcomes_path, _, _, _ = _log(tmp_path)
    prices = tmp_path / "prices.csv"
    prices.write_text("model,cost\na,1\nb,2\nc,4\n")
    ours = va.ope(decisions_path, outcomes_path, ["logged", "agent:a", "agent:c"],
                  costs={"a": 1, "b": 2, "c": 4})
    theirs = cli_json("ope", "--decisions", str(decisions_path), "--outcomes",
                      str(outcomes_path), "--policy", "logged", "--policy", "agent:a",
                      "--policy", "agent:c", "--costs", str(prices))
    assert ours.report == theirs
    assert ours.candidates[1]["cost"]["estimate"] == 1.0
    frame = ours.to_frame()
    assert list(frame["policy"]) == ["logged", "agent:a", "agent:c"]
    assert 'class="candidates"' in ours.html and 'class="plane"' in ours.html
    page = tmp_path / "ope.html"
    ours.write_report(page)
    assert page.read_text() == ours.html


def test_frames_score_like_paths_and_ips_equals_numpys(tmp_path):
    decisions, outcomes, decisions_path, outcomes_path, chosen, mu, outcome = _log(tmp_path)
    from_frames = va.ope(decisions, outcomes, ["agent:b", "logged"])
    from_paths = va.ope(decisions_path, outcomes_path, ["agent:b", "logged"])
    for ours, theirs in zip(from_frames.candidates, from_paths.candidates):
        for estimator in ("ips", "snips", "dr"):
            assert ours[estimator]["estimate"] == pytest.approx(
                theirs[estimator]["estimate"], abs=1e-12)
    n = len(chosen)
    w = (chosen == 1) / mu[np.arange(n), chosen]
    terms = w * outcome
    ips = from_frames.candidates[0]["ips"]
    assert ips["estimate"] == pytest.approx(terms.mean(), abs=1e-12)
    assert ips["std_error"] == pytest.approx(terms.std(ddof=1) / np.sqrt(n), abs=1e-12)
    # The logging policy's IPS value is the mean outcome: every weight is 1.
    assert from_frames.candidates[1]["ips"]["estimate"] == pytest.approx(outcome.mean(), abs=1e-12)


def test_bad_input_raises_naming_the_row(tmp_path):
    decisions, outcomes, _, _, _, _, _ = _log(tmp_path)
    bad = decisions.copy()
    bad.loc[3, "propensity"] = 0.0
    with pytest.raises(va.errors.VerdictError, match="propensity 0 is not a probability"):
        va.ope(bad, outcomes, ["agent:a"])
    stranger = pd.concat([outcomes, pd.DataFrame({"request_id": ["nowhere"], "outcome": [1.0]})])
    with pytest.raises(va.errors.VerdictError, match="has an outcome but no decision"):
        va.ope(decisions, stranger, ["agent:a"])
    unfitted = va.NashEval()
    with pytest.raises(va.errors.InputError, match="not fitted"):
        va.ope(decisions, outcomes, [unfitted])
