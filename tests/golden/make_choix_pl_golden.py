"""Produces choix_rankings.csv and choix_pl_golden.csv: an independent Plackett–Luce
maximum-likelihood fit of a random ranking log, computed with the Python library choix.

Run: python3 tests/golden/make_choix_pl_golden.py   (choix 0.4.1, numpy, in this folder)
The log: 10 models with strengths ~ N(0, 1); 1500 rankings, each of a menu of 3 to 5
models drawn uniformly, the ranking drawn from the Plackett–Luce model (best first,
each choice proportional to exp(beta) among the models left), seed 20261201. Written
as the feedback table of a contextual log (context_id, menu, modality, response).
"""
import csv
import json
import pathlib

import choix
import numpy as np

HERE = pathlib.Path(__file__).parent
rng = np.random.default_rng(20261201)
models = [f"model-{i}" for i in range(10)]
beta = rng.normal(size=len(models))
rows, data = [], []
for r in range(1500):
    size = rng.integers(3, 6)
    menu = list(rng.choice(len(models), size=size, replace=False))
    left, ranking = list(menu), []
    while left:
        weights = np.exp(beta[left])
        pick = left[rng.choice(len(left), p=weights / weights.sum())]
        ranking.append(pick)
        left.remove(pick)
    data.append(ranking)
    rows.append((f"c{r}", "|".join(models[m] for m in menu), "ranking",
                 json.dumps([models[m] for m in ranking])))

with open(HERE / "choix_rankings.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["context_id", "menu", "modality", "response"])
    writer.writerows(rows)

ilsr = choix.ilsr_rankings(len(models), data, alpha=0.0, max_iter=100000, tol=1e-14)
mm = choix.mm_rankings(len(models), data, alpha=0.0, max_iter=100000, tol=1e-14)
ilsr, mm = ilsr - ilsr.mean(), mm - mm.mean()
gap = np.max(np.abs(ilsr - mm))
assert gap < 1e-8, gap
with open(HERE / "choix_pl_golden.csv", "w", newline="") as f:
    f.write(f"# choix 0.4.1 ilsr_rankings(alpha=0, tol=1e-14); natural-log strengths centred "
            f"to mean 0; |ilsr_rankings - mm_rankings| = {gap:.2e}\n")
    writer = csv.writer(f)
    writer.writerow(["model", "beta"])
    for name, value in zip(models, ilsr):
        writer.writerow([name, repr(float(value))])
