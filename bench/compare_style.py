"""Style control at LMArena's scale: `verdict rank --style-control` against arena-rank
0.1.1's ContextualBradleyTerry (the package behind LMArena's board), same log, same run.

    python3 bench/compare_style.py --battles 1000000 --out bench/out/style-1m.parquet \
        [--arena-python PATH_TO_A_PYTHON_WITH_ARENA_RANK]

Writes a generated LMArena-shaped log with the per-side style columns (the generator
of tests/golden/make_style_control_golden.py at a larger size: 64 models with their
own strengths and habits, pairs by popularity, 15% ties, known style effects), then
times, each in its own process (wall time, peak RSS):
- verdict: `verdict rank LOG --style-control --ci sandwich` (read, fit, sandwich) and
  `--bootstrap 100` (read, fit, 100 replicates);
- arena-rank: ContextualPairDataset.from_pandas on the four normalized differences
  (reweighted=False, reg=0: verdict's defaults), ContextualBradleyTerry.fit, the
  sandwich, and a few bootstrap rounds (extrapolated to 100, labelled so).
Prints one JSON line per measurement and the largest difference between the two
fits' coefficients.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = os.environ.get("VERDICT_BIN", os.path.join(HERE, "..", "target", "release", "verdict"))
FEATURES = [
    ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    ("header_count_a", "header_count_b"),
    ("list_count_a", "list_count_b"),
    ("bold_count_a", "bold_count_b"),
]
GAMMA = np.array([1.2, 0.4, 0.25, 0.3])


def generate(battles, path, models=64, seed=7):
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, 0.7, models)
    length = rng.uniform(200, 900, models)
    rates = rng.uniform(0.2, 6.0, (models, 3))
    popularity = (np.arange(models) + 1.0) ** -0.6
    popularity /= popularity.sum()
    a = rng.choice(models, size=battles, p=popularity)
    b = rng.choice(models, size=battles, p=popularity)
    same = a == b
    while same.any():
        b[same] = rng.choice(models, size=same.sum(), p=popularity)
        same = a == b
    columns = {}
    for side, m in (("a", a), ("b", b)):
        counts = [np.floor(rng.lognormal(np.log(length[m]), 0.5))]
        counts += [rng.poisson(rates[m, j]) for j in range(3)]
        for (col_a, col_b), values in zip(FEATURES, counts):
            columns[col_a if side == "a" else col_b] = values.astype(np.int64)
    d = np.stack(
        [
            (columns[ca] - columns[cb]) / (columns[ca] + columns[cb] + 1.0)
            for ca, cb in FEATURES
        ],
        axis=1,
    )
    p = 1.0 / (1.0 + np.exp(-(beta[a] - beta[b] + d @ GAMMA)))
    u = rng.random(battles)
    winner = np.where(u < p, "model_a", "model_b")
    winner[rng.random(battles) < 0.15] = "tie"
    names = np.array([f"model-{m:02d}" for m in range(models)])
    table = pa.table(
        {"model_a": names[a], "model_b": names[b], "winner": winner, **columns}
    )
    pq.write_table(table, path)


ARENA = r"""
import json, sys, time, resource
import numpy as np, pandas as pd
from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry, fit_single_bootstrap_sample
from arena_rank.utils.data_utils import ContextualPairDataset
import jax
path, rounds = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
df = pd.read_parquet(path)
names = []
for name, (ca, cb) in zip(["length", "headers", "lists", "bold"], json.loads(sys.argv[3])):
    df[name] = (df[ca] - df[cb]) / (df[ca] + df[cb] + 1.0)
    names.append(name)
data = ContextualPairDataset.from_pandas(df, feature_cols=names, reweighted=False)
prepared = time.perf_counter()
model = ContextualBradleyTerry(len(data.competitors), len(names), reg=0.0)
model.fit(data)
jax.block_until_ready(model.params)
fitted = time.perf_counter()
model.compute_ratings_and_cis(data, ci_method="sandwich")
sandwiched = time.perf_counter()
keys = jax.random.split(jax.random.PRNGKey(0), rounds)
for key in keys:
    jax.block_until_ready(fit_single_bootstrap_sample(key, model, data))
booted = time.perf_counter()
print(json.dumps({
    "prepare_s": prepared - start, "fit_s": fitted - prepared,
    "sandwich_s": sandwiched - fitted, "bootstrap_round_s": (booted - sandwiched) / rounds,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "coefficients": [float(c) for c in model.params["coeffs"]],
}))
"""


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    peak_kib = int(result.stderr.strip().splitlines()[-1])
    return wall, peak_kib / 1024, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--out", default=os.path.join(HERE, "out", "style-1m.parquet"))
    parser.add_argument("--arena-python", default=sys.executable)
    parser.add_argument("--arena-rounds", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    generate(args.battles, args.out)
    wall, peak, out = timed([VERDICT, "rank", args.out, "--style-control", "--ci", "sandwich",
                             "--format", "json", "--quiet"])
    report = json.loads(out)
    print(json.dumps({"tool": "verdict", "what": "read + fit + sandwich", "wall_s": wall,
                      "peak_mib": peak}))
    wall, peak, _ = timed([VERDICT, "rank", args.out, "--style-control", "--bootstrap", "100",
                           "--format", "json", "--quiet"])
    print(json.dumps({"tool": "verdict", "what": "read + fit + 100 bootstrap rounds",
                      "wall_s": wall, "peak_mib": peak}))
    wall, peak, out = timed([args.arena_python, "-c", ARENA, args.out, str(args.arena_rounds),
                             json.dumps(FEATURES)])
    arena = json.loads(out)
    print(json.dumps({"tool": "arena-rank", "wall_s": wall, "peak_mib": peak, **arena}))
    ours = [c["estimate"] for c in report["coefficients"]]
    print(json.dumps({"max_coefficient_difference": max(
        abs(x - y) for x, y in zip(ours, arena["coefficients"]))}))


if __name__ == "__main__":
    main()
