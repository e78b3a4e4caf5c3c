"""The maximal lottery of GenAI-Arena's anonymous image-editing battles (the bundled log
of 2024-02-20) from an outside solver, for the golden values the tour prints and its
test checks (crates/cli/tests/suite/cli.rs, `demo_tours_all_three_parts_and_writes_its_page`).

    .venv/bin/python scripts/goldens/genai_lottery.py

The battles: `model_a` contains "_edition", `anony` is true, self-battles dropped. The
margin of j over k is (wins of j - wins of k) / battles of the pair (a tie of either
kind counts for neither), 0 for a pair that never met. The maximal lottery p is the
optimal strategy of the symmetric zero-sum game: p >= 0, sum p = 1, p^T M >= 0, found
with scipy.optimize.linprog (HiGHS); it is unique here (the solver's answer is checked
to be the only one by maximising and minimising each coordinate over the optimal set).
"""

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
from scipy.optimize import linprog

log = json.loads(
    (Path(__file__).resolve().parents[2] / "examples/data/genai-arena-battles-20240220.json").read_text()
)
battles = [
    b
    for b in log
    if "_edition" in b["model_a"] and b["anony"] is True and b["model_a"] != b["model_b"]
]
models = sorted({b["model_a"] for b in battles} | {b["model_b"] for b in battles})
index = {m: i for i, m in enumerate(models)}
k = len(models)
wins = np.zeros((k, k))
played = np.zeros((k, k))
for b in battles:
    a, c = index[b["model_a"]], index[b["model_b"]]
    played[a, c] += 1
    played[c, a] += 1
    if b["winner"] == "model_a":
        wins[a, c] += 1
    elif b["winner"] == "model_b":
        wins[c, a] += 1
margins = np.divide(wins - wins.T, played, out=np.zeros((k, k)), where=played > 0)

# Feasibility of p^T M >= 0 with sum p = 1, p >= 0: the optimal set of a symmetric game.
constraints = dict(A_ub=-margins.T, b_ub=np.zeros(k), A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(0, 1)] * k)
low = [linprog(np.eye(k)[j], **constraints, method="highs").fun for j in range(k)]
high = [-linprog(-np.eye(k)[j], **constraints, method="highs").fun for j in range(k)]
print(f"scipy {version('scipy')}, {len(battles)} battles, {k} models")
for j in np.argsort(high)[::-1]:
    print(f"{models[j]:<40} {max(0.0, high[j]):.4f}  (over the optimal set: {max(0.0, low[j]):.6f} to {max(0.0, high[j]):.6f})")
