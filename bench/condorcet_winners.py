"""How often a fitted NashEval surface names the true Condorcet winner.

    python bench/condorcet_winners.py MODEL SIMULATION_DIR [--verdict target/release/verdict]

Reads the model's payoff surface at the simulation's test contexts (`verdict predict
--payoff`) and the true payoffs (`test_truth.parquet`), and prints how many test games
have a Condorcet winner (an agent beating every other: A_jk > 0 for all k != j) in the
truth, how many in the fitted surface, and in how many the two name the same agent.
Needs pyarrow (in the set-up script's .venv).
"""
import argparse
import json
import subprocess

import pyarrow.parquet as pq


def condorcet_winner(matrix, agents):
    """The agent whose row is positive off the diagonal, or None."""
    k = len(agents)
    for j in range(k):
        if all(l == j or matrix[j][l] > 0 for l in range(k)):
            return agents[j]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("simulation")
    parser.add_argument("--verdict", default="target/release/verdict")
    args = parser.parse_args()
    predicted = json.loads(
        subprocess.run(
            [args.verdict, "predict", args.model, "--contexts",
             f"{args.simulation}/test_contexts.parquet", "--payoff", "--quiet"],
            capture_output=True, text=True, check=True,
        ).stdout
    )
    truth_agents = json.load(open(f"{args.simulation}/manifest.json"))["agents"]
    truth = pq.read_table(f"{args.simulation}/test_truth.parquet").to_pydict()
    k = len(truth_agents)
    in_truth = in_surface = same = 0
    for row, context, flat in zip(predicted, truth["context_id"], truth["payoff"]):
        assert row["context_id"] == context, "test contexts out of order"
        # The surface's rows follow the model's agent order, the equilibrium's keys.
        surface = condorcet_winner(row["payoff"], list(row["equilibrium"]))
        true = condorcet_winner([flat[j * k:(j + 1) * k] for j in range(k)], truth_agents)
        in_truth += true is not None
        in_surface += surface is not None
        same += surface is not None and surface == true
    print(f"{len(predicted)} test contexts: a true Condorcet winner in {in_truth}; "
          f"the surface has one in {in_surface}, the true one in {same}")


if __name__ == "__main__":
    main()
