"""verdict from Python in one page: rank the bundled arena log, solve a maximal
lottery, fit NashEval on a small simulation and score it against the exact truth.

    pip install .            # at the repository root
    python examples/python/quickstart.py
"""

import pathlib
import tempfile

import pandas as pd

import verdict_arena as va

pd.set_option("display.width", 120)

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"

# 1. An arena leaderboard from a battle log (a path, or a pandas/polars/pyarrow frame).
battles = pd.read_json(DATA / "genai-arena-battles-20240220.json")
board = va.rank(battles, filter={"anony": True}, bootstrap=200, seed=1)
print("GenAI-Arena, anonymous battles, Bradley–Terry with 95% bootstrap intervals:")
print(board[["score", "ci_low", "ci_high", "rank", "battles"]].head(5).round(1), "\n")

# 2. The maximal lottery of a cyclic game: rock, paper, scissors and a weak fourth.
game = [[0, -1, 1, 0.5], [1, 0, -1, 0.5], [-1, 1, 0, 0.5], [-0.5, -0.5, -0.5, 0]]
lottery = va.maximal_lottery(game, ["rock", "paper", "scissors", "weak"])
print("maximal lottery:", {m["name"]: round(m["probability"], 3) for m in lottery["models"]})
print(f"exploitability {lottery['exploitability']:.2e}, unique {lottery['unique']}\n")

# 3. NashEval: a world with exact truth, a fit, predictions and the evaluation.
with tempfile.TemporaryDirectory() as scratch:
    sim = va.simulate(pathlib.Path(scratch) / "sim", contexts=3000, test_contexts=500, rho=0.001)
    model = va.NashEval(policy="solver", folds=3).fit(sim.contexts, sim.feedback)
    print("per-context equilibria (first three test contexts):")
    print(model.predict(sim.test_contexts).head(3).round(3), "\n")
    score = va.evaluate(model, sim)
    print(
        f"{score['contexts']} test contexts: exploitability {score['exploitability']:.4f}, "
        f"support F1 {score['support_f1']:.3f}, game value {score['game_value']:+.4f}"
    )
