"""Produces choix_random_log.csv and choix_golden.csv: an independent Bradley–Terry
maximum-likelihood fit of a random battle log, computed with the Python library choix.

Run: python3 tests/golden/make_choix_golden.py   (choix 0.4.1, numpy, in this folder)
The log: 24 models with strengths ~ N(0, 1), 4000 battles between uniformly drawn
pairs, outcomes drawn from the BT model, no ties (choix has no tie model), seed 20261130.
"""
import csv
import pathlib

import choix
import numpy as np

HERE = pathlib.Path(__file__).parent
rng = np.random.default_rng(20261130)
models = [f"model-{i:02d}" for i in range(24)]
beta = rng.normal(size=len(models))
rows, data = [], []
for _ in range(4000):
    a, b = rng.choice(len(models), size=2, replace=False)
    a_wins = rng.random() < 1.0 / (1.0 + np.exp(beta[b] - beta[a]))
    rows.append((models[a], models[b], "model_a" if a_wins else "model_b"))
    data.append((a, b) if a_wins else (b, a))

with open(HERE / "choix_random_log.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["model_a", "model_b", "winner"])
    writer.writerows(rows)

ilsr = choix.ilsr_pairwise(len(models), data, alpha=0.0, max_iter=100000, tol=1e-14)
newton = choix.opt_pairwise(len(models), data, alpha=0.0, method="Newton-CG", tol=1e-12)
assert np.max(np.abs(ilsr - newton)) < 1e-6, np.max(np.abs(ilsr - newton))
with open(HERE / "choix_golden.csv", "w", newline="") as f:
    f.write(f"# choix {choix.__version__ if hasattr(choix, '__version__') else '0.4.1'} ilsr_pairwise(alpha=0, tol=1e-14); "
            f"params are natural-log strengths centred to mean 0; |ilsr - opt_pairwise Newton-CG| = {np.max(np.abs(ilsr - newton)):.2e}\n")
    writer = csv.writer(f)
    writer.writerow(["model", "beta"])
    for name, value in zip(models, ilsr - ilsr.mean()):
        writer.writerow([name, repr(float(value))])
