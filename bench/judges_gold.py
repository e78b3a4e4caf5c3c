#!/usr/bin/env python3
"""Gold labels that correct a cheap judge: PPI++'s mean (verdict.ppi_mean, what
`verdict judge --gold` reports) on real AlpacaEval judgments.

Data: the shared AlpacaEval folder's `alpacaeval_judgments.csv.gz` (CC BY-NC 4.0; cite
AlpacaEval, Li et al. 2023 and Dubois et al. 2024). Items: every (prompt, model output)
against the text_davinci_003 reference judged by both `alpaca_eval_gpt4` (the
leaderboard's judge, $0.022 a judgment: the "gold" here) and `claude` ($0.0075: the
cheap judge). Preferences become 0 (reference preferred), 1 (model preferred), 0.5 (tie).

The estimand is the gold judge's mean preference over all items, known exactly since it
judged them all. Each repetition draws `--labelled` items uniformly as the labelled set
(their gold preference revealed), and estimates the mean from the cheap judge's scores
of all items corrected by those labels; reported over `--reps` repetitions: the bias
and root-mean-square error of the cheap judge's own mean, of the labels alone, and of
PPI++; the coverage and mean width of the two 95% intervals; and the largest difference
from ppi_py's `ppi_mean_ci` (installed with the Python test requirements) on the same
draws.

    python3 bench/judges_gold.py [--data DIR] [--labelled 100,300] [--reps 500] [--seed 0]
"""

import argparse
import csv
import gzip
import math
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import verdict_arena as verdict

ROOT = Path(__file__).resolve().parent.parent
GOLD, CHEAP = "alpaca_eval_gpt4", "claude"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "alpacaeval-judges"))
    parser.add_argument("--labelled", default="100,300")
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    source = Path(args.data) / "alpacaeval_judgments.csv.gz"
    if not source.exists():
        sys.exit(f"{source} not found: pass --data with the AlpacaEval judges folder")
    judged = defaultdict(dict)
    with gzip.open(source, "rt") as f:
        for row in csv.DictReader(f):
            if row["reference_model"].rstrip("*") != "text_davinci_003":
                continue
            try:
                preference = float(row["preference"])
            except ValueError:
                continue
            if 1.0 <= preference <= 2.0 and row["annotator"] in (GOLD, CHEAP):
                key = (row["instruction_id"], row["model"].rstrip("*"), row["output_2_md5"])
                judged[key][row["annotator"]] = preference - 1.0
    items = sorted(k for k, v in judged.items() if GOLD in v and CHEAP in v)
    gold = [judged[k][GOLD] for k in items]
    cheap = [judged[k][CHEAP] for k in items]
    truth = statistics.fmean(gold)
    print(f"{len(items)} items judged by both; gold mean {truth:.4f}, "
          f"cheap judge's mean {statistics.fmean(cheap):.4f}")
    try:
        import numpy as np
        import ppi_py
    except ImportError:
        ppi_py = None
    rng = random.Random(args.seed)
    for n in [int(x) for x in args.labelled.split(",")]:
        errors = defaultdict(list)
        covered = defaultdict(int)
        widths = defaultdict(list)
        lambdas = []
        largest_gap = 0.0
        for _ in range(args.reps):
            labelled = set(rng.sample(range(len(items)), n))
            y = [gold[i] for i in labelled]
            yhat = [cheap[i] for i in labelled]
            rest = [cheap[i] for i in range(len(items)) if i not in labelled]
            result = verdict.ppi_mean(y, yhat, rest, level=0.95)
            lambdas.append(result["lambda"])
            errors["cheap judge's mean"].append(statistics.fmean(cheap) - truth)
            for name, key in (("labels alone", "gold_only"), ("PPI++", "corrected")):
                interval = result[key]
                errors[name].append(interval["score"] - truth)
                covered[name] += interval["low"] <= truth <= interval["high"]
                widths[name].append(interval["high"] - interval["low"])
            if ppi_py is not None:
                low, high = ppi_py.ppi_mean_ci(np.array(y), np.array(yhat), np.array(rest), alpha=0.05)
                gap = max(abs(result["corrected"]["low"] - float(np.squeeze(low))),
                          abs(result["corrected"]["high"] - float(np.squeeze(high))))
                largest_gap = max(largest_gap, gap)
        print(f"\n{n} labelled items, {args.reps} draws (lambda mean {statistics.fmean(lambdas):.3f})")
        print(f"{'estimate':>20}{'bias':>10}{'rmse':>10}{'coverage':>10}{'width':>10}")
        for name, e in errors.items():
            rmse = math.sqrt(statistics.fmean(x * x for x in e))
            share = f"{covered[name] / args.reps:.3f}" if name in covered else "–"
            width = f"{statistics.fmean(widths[name]):.4f}" if name in widths else "–"
            print(f"{name:>20}{statistics.fmean(e):>10.4f}{rmse:>10.4f}{share:>10}{width:>10}")
        if ppi_py is not None:
            print(f"largest difference from ppi_py's interval: {largest_gap:.2e}")


if __name__ == "__main__":
    main()
