"""The expected log loss of held-out battles under fitted payoff surfaces.

    python bench/battle_log_loss.py SIMULATION_DIR MODEL... [--verdict target/release/verdict]

For every test context of a `verdict simulate` directory, a battle is a pair drawn
from the true selection `e0(x)` (the arena world's `propensity`, one per menu of the
manifest) and a verdict whose mean is the true payoff `A_jk(x)`. A surface predicts
that `j` wins with probability `p = (1 + Â_jk(x)) / 2`; with ties as half a win (the
label `q` is 1, 0 or 1/2, so its mean is `(1 + A_jk) / 2`), the expected log loss of
the battle is `−[(1 + A)/2 · ln p + (1 − A)/2 · ln(1 − p)]`, exactly, without drawing
battles. Prints the mean over test contexts for each MODEL — a model written by
`verdict fit` (its `Â(x)` from `verdict predict --payoff`), or a `verdict rank
--method bt --format json` board (the global Bradley–Terry model, the same `p` at
every context) — and for the truth itself (the floor: the verdicts' own entropy).
Needs pyarrow (in the set-up script's .venv).
"""
import argparse
import json
import math
import subprocess

import pyarrow.parquet as pq

CLIP = 1e-6


def expected_loss(a_true, a_model):
    """The expected soft-label log loss of one battle (see the module's text)."""
    p = min(max((1 + a_model) / 2, CLIP), 1 - CLIP)
    return -((1 + a_true) / 2 * math.log(p) + (1 - a_true) / 2 * math.log(1 - p))


def surface_of_board(board):
    """`Â_jk` of a global Bradley–Terry board (Elo scale), by agent names."""
    score = {m["name"]: m["score"] for m in board["models"]}
    return lambda x, j, k: 2 / (1 + 10 ** ((score[k] - score[j]) / 400)) - 1


def surface_of_model(path, simulation, verdict):
    """`Â_jk(x)` of a fitted model at the simulation's test contexts, by names."""
    rows = json.loads(
        subprocess.run(
            [verdict, "predict", path, "--contexts", f"{simulation}/test_contexts.parquet",
             "--payoff", "--quiet"],
            capture_output=True, text=True, check=True,
        ).stdout
    )
    tables = []
    for row in rows:
        # The payoff's rows follow the model's agent order, the equilibrium's keys.
        index = {name: i for i, name in enumerate(row["equilibrium"])}
        tables.append((index, row["payoff"]))
    return lambda x, j, k: tables[x][1][tables[x][0][j]][tables[x][0][k]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("simulation")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--verdict", default="target/release/verdict")
    args = parser.parse_args()
    manifest = json.load(open(f"{args.simulation}/manifest.json"))
    agents = manifest["agents"]
    menus = manifest["menus"]
    truth = pq.read_table(f"{args.simulation}/test_truth.parquet").to_pydict()
    k = len(agents)
    position = {name: i for i, name in enumerate(agents)}
    contexts = len(truth["context_id"])

    def true_payoff(x, j, l):
        return truth["payoff"][x][position[j] * k + position[l]]

    surfaces = [("truth", true_payoff)]
    for path in args.models:
        with open(path) as f:
            document = json.load(f)
        if "models" in document and "method" in document:
            surfaces.append((path, surface_of_board(document)))
        else:
            surfaces.append((path, surface_of_model(path, args.simulation, args.verdict)))
    for name, surface in surfaces:
        total = 0.0
        for x in range(contexts):
            for (j, l), e in zip(menus, truth["propensity"][x]):
                total += e * expected_loss(true_payoff(x, j, l), surface(x, j, l))
        print(f"{name}\t{total / contexts:.5f}")


if __name__ == "__main__":
    main()
