#!/usr/bin/env python3
"""Budgeted judging on real repeated judgments, through `verdict judge` and replay judges.

Data: AlpacaEval's AlpacaFarm pairs judged four times (seeds 0-3) by two GPT-4 set-ups
with different prices (`gpt4_b1`, one example per call; `gpt4_b5`, batches of five),
`alpacafarm_repeated_seeds.csv` of the shared AlpacaEval folder (CC BY-NC 4.0; cite
AlpacaEval). Each (pair, judge) becomes a replay judge that draws with replacement from
its four recorded preferences (0 = first output preferred, 1 = second), at the mean
recorded price per call. The paper's HelpSteer2 experiment is built the same way.

Truth per item: the mean of all eight recorded preferences (and, separately, each
judge's own mean of four). Every strategy is run
through the command line (replay judges, a ledger, the CSV output), `--reps` times per
budget with different seeds, and the l2 error against that truth is reported, next to the
distance between the two judges' own recorded means (how much they disagree beyond
noise, which no allocation can remove).

    python3 bench/judges_replay.py [--data DIR] [--budgets 50,100,200,500,1000] [--reps 10]

With --coverage, the items are the pairs whose two judges' recorded means agree (406 of
648: there the budget paper's model — every judge unbiased for one score — holds by
construction, the truth being that common mean), and the script reports how often the
95% intervals of `verdict judge --format json` hold it: over all those items, over the
70 whose truth is not 0 or 1 (where the replayed calls vary), and for the mean over
items.

    python3 bench/judges_replay.py --coverage --budgets 100,300 --reps 200
"""

import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METHODS = ["uniform", "est-ivwe", "est-ivwe-gaussian", "adaptive"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "alpacaeval-judges"))
    parser.add_argument("--budgets", default="50,100,200,500,1000")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--verdict", default=str(ROOT / "target" / "release" / "verdict"))
    parser.add_argument("--coverage", action="store_true",
                        help="coverage of the intervals on the items whose judges agree")
    args = parser.parse_args()
    source = Path(args.data) / "alpacafarm_repeated_seeds.csv"
    if not source.exists():
        sys.exit(f"{source} not found: pass --data with the AlpacaEval judges folder")

    scores = defaultdict(list)  # (pair, judge) -> preferences in {0, 1}
    prices = defaultdict(list)
    for row in csv.DictReader(open(source)):
        scores[(row["pair_id"], row["annotator"])].append(float(row["preference"]) - 1.0)
        prices[row["annotator"]].append(float(row["price_per_example"]))
    judges = sorted(prices)
    pairs = sorted({p for p, _ in scores}, key=int)
    own = {j: {p: statistics.fmean(scores[(p, j)]) for p in pairs} for j in judges}
    if args.coverage:
        pairs = [p for p in pairs if len({own[j][p] for j in judges}) == 1]
    truth = {p: statistics.fmean(s for j in judges for s in scores[(p, j)]) for p in pairs}
    cost = {j: statistics.fmean(prices[j]) for j in judges}
    gap = math.sqrt(sum((own[judges[0]][p] - own[judges[1]][p]) ** 2 for p in pairs))
    print(f"{len(pairs)} items, judges " + ", ".join(f"{j} (cost {cost[j]:.5f})" for j in judges))
    print(f"l2 distance between the two judges' recorded means: {gap:.3f}")
    for j in judges:
        constant = sum(statistics.pvariance(scores[(p, j)]) == 0 for p in pairs)
        print(f"{j}: {constant} of {len(pairs)} items with four equal recorded preferences")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with open(tmp / "items.jsonl", "w") as f:
            for p in pairs:
                f.write(json.dumps({"id": p}) + "\n")
        config = "range = 1.0\n"
        for j in judges:
            with open(tmp / f"{j}.csv", "w") as f:
                f.write("item,score\n")
                for p in pairs:
                    for s in scores[(p, j)]:
                        f.write(f"{p},{s}\n")
            config += f'\n[[judge]]\nname = "{j}"\ncost = {cost[j]}\nreplay = "{j}.csv"\n'
        (tmp / "judges.toml").write_text(config)

        if args.coverage:
            coverage(args, tmp, truth)
            return
        targets = {"the pooled truth": truth, **{f"{j}'s own mean": own[j] for j in judges}}
        errors = {t: defaultdict(list) for t in targets}
        budgets = [float(b) for b in args.budgets.split(",")]
        for budget in budgets:
            for method in METHODS:
                for rep in range(args.reps):
                    estimate = run(args.verdict, tmp, budget, method, rep)
                    if estimate is None:
                        break
                    for name, target in targets.items():
                        errors[name][(budget, method)].append(l2(estimate, target))
        for name in targets:
            print(f"\nl2 error against {name}, {args.reps} runs (mean ± std)")
            print(f"{'budget':>8}" + "".join(f"{m:>22}" for m in METHODS))
            for budget in budgets:
                cells = []
                for method in METHODS:
                    e = errors[name][(budget, method)]
                    cells.append(f"{statistics.fmean(e):.3f} ± {statistics.pstdev(e):.3f}"
                                 if e else "budget too small")
                print(f"{budget:>8g}" + "".join(f"{c:>22}" for c in cells))


def coverage(args, tmp, truth):
    """Share of 95% intervals holding the truth, per budget and method."""
    varied = {p for p, t in truth.items() if 0.0 < t < 1.0}
    true_mean = statistics.fmean(truth.values())
    print(f"{len(truth)} items whose judges agree ({len(varied)} with a truth strictly "
          f"between 0 and 1); {args.reps} runs per cell")
    print(f"{'budget':>8}{'method':>20}{'all items':>12}{'varied items':>14}{'mean':>8}{'spent':>10}")
    for budget in [float(b) for b in args.budgets.split(",")]:
        for method in METHODS:
            held, held_varied, held_mean, spent, runs = 0, 0, 0, 0.0, 0
            for rep in range(args.reps):
                result = run(args.verdict, tmp, budget, method, rep, full=True)
                if result is None:
                    break
                runs += 1
                spent += result["spent"]
                for row in result["items"]:
                    inside = row["low"] <= truth[row["id"]] <= row["high"]
                    held += inside
                    held_varied += inside and row["id"] in varied
                mean = result["mean"]
                held_mean += mean["low"] <= true_mean <= mean["high"]
            if runs == 0:
                print(f"{budget:>8g}{method:>20}  budget too small")
                continue
            print(f"{budget:>8g}{method:>20}{held / (runs * len(truth)):>12.3f}"
                  f"{held_varied / (runs * len(varied)):>14.3f}{held_mean / runs:>8.3f}"
                  f"{spent / runs:>10.2f}")


def run(verdict, tmp, budget, method, seed, full=False):
    """One `verdict judge` run: each item's score, or with `full` the JSON result."""
    ledger, out = tmp / "ledger.jsonl", tmp / "scores.out"
    for path in (ledger, out):
        if path.exists():
            path.unlink()
    command = [verdict, "judge", "--items", str(tmp / "items.jsonl"), "--judges",
               str(tmp / "judges.toml"), "--budget", str(budget), "--ledger", str(ledger),
               "--out", str(out), "--method", method, "--seed", str(seed), "--quiet",
               "--format", "json" if full else "csv"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        if "too small" in result.stderr:
            return None
        sys.exit(result.stderr)
    if full:
        return json.loads(out.read_text())
    return {row["id"]: float(row["score"]) for row in csv.DictReader(open(out))}


def l2(estimate, target):
    return math.sqrt(sum((estimate[p] - target[p]) ** 2 for p in target))


if __name__ == "__main__":
    main()
