"""Maximal lottery of random Gaussian skew-symmetric matrices: verdict against
scipy.optimize.linprog (HiGHS) and pref_voting's maximal_lottery, same matrices,
same run.

    python3 bench/compare_lottery.py [--sizes 10,100,1000] [--seed 0] [--seeds 1]

Matrix: G ~ N(0, 1)^{KxK}, A = (G - G^T) / max|G - G^T| (entries in [-1, 1]; the
lottery does not change under positive scaling). Written to bench/out/lottery-K.csv.
Timings are of the solver call only (median of several runs for small K): verdict via
`verdict bench lottery`, the Python tools in this process. Each answer's
exploitability max_j (A pi)_j is reported beside its time. With --seeds N, N
matrices per size (seeds seed..seed+N-1); the summary shows medians over them. When
verdict proves its lottery unique, every correct solver must return the same point:
the largest difference from scipy's answer is reported as `max_diff_scipy`.
"""
import argparse
import json
import os
import subprocess
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = os.environ.get("VERDICT_BIN", os.path.join(HERE, "..", "target", "release", "verdict"))
REPEATS = {10: 50, 100: 10, 1000: 1}


def matrix(k, seed):
    g = np.random.default_rng(seed + k).normal(size=(k, k))
    a = g - g.T
    return a / np.abs(a).max()


def write_csv(a, path):
    names = [f"a{i}" for i in range(len(a))]
    with open(path, "w") as f:
        f.write("," + ",".join(names) + "\n")
        for name, row in zip(names, a):
            f.write(name + "," + ",".join(repr(float(x)) for x in row) + "\n")


def median_time(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], result


def scipy_lottery(a):
    from scipy.optimize import linprog

    k = len(a)
    # max v s.t. A^T p >= v (column j's payoff), sum p = 1, p >= 0
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((k, 1))])
    a_eq = np.zeros((1, k + 1))
    a_eq[0, :k] = 1.0
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    return res.x[:k]


def pref_voting_lottery(graph, k):
    from pref_voting.probabilistic_methods import maximal_lottery

    probabilities = maximal_lottery(graph)
    return np.array([probabilities[i] for i in range(k)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    from pref_voting.weighted_majority_graphs import MarginGraph

    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    rows = []
    for k in [int(s) for s in args.sizes.split(",")]:
        for seed in range(args.seed, args.seed + args.seeds):
            rows.append(compare(k, seed, MarginGraph))
            print(json.dumps(rows[-1]), flush=True)
    print(f"\n{'K':>6}{'seeds':>7}{'verdict':>12}{'scipy HiGHS':>14}{'pref_voting':>14}{'speed-up vs fastest':>21}")
    for k in sorted({r["K"] for r in rows}):
        group = [r for r in rows if r["K"] == k]
        med = lambda key: float(np.median([r[key] for r in group]))
        fastest = min(med("scipy_highs"), med("pref_voting"))
        print(f"{k:>6}{len(group):>7}{med('verdict'):>12.4g}{med('scipy_highs'):>14.4g}"
              f"{med('pref_voting'):>14.4g}{fastest / med('verdict'):>20.1f}x")


def compare(k, seed, MarginGraph):
    a = matrix(k, seed)
    path = os.path.join(HERE, "out", f"lottery-{k}-{seed}.csv")
    write_csv(a, path)
    repeats = REPEATS.get(k, 1)
    out = subprocess.run([VERDICT, "bench", "lottery", path, "--repeat", str(repeats)],
                         capture_output=True, text=True, check=True).stdout
    verdict = json.loads(out)
    answer = json.loads(subprocess.run([VERDICT, "game", path, "--format", "json"],
                                       capture_output=True, text=True, check=True).stdout)
    p_verdict = np.array([m["probability"] for m in answer["models"]])
    t_scipy, p_scipy = median_time(lambda: scipy_lottery(a), repeats)
    # MarginGraph wants positive margins as edges (a -> b with weight A_ab > 0).
    edges = [(i, j, float(a[i, j])) for i in range(k) for j in range(k) if a[i, j] > 0]
    graph = MarginGraph(list(range(k)), edges)
    t_pv, p_pv = median_time(lambda: pref_voting_lottery(graph, k), repeats)
    expl = lambda p: float(np.max(a @ p))
    return {"K": k, "seed": seed, "verdict": verdict["seconds"], "verdict_gap": verdict["gap"],
            "verdict_unique": verdict["unique"], "verdict_iterations": verdict["iterations"],
            "max_diff_scipy": float(np.max(np.abs(p_verdict - p_scipy))),
            "scipy_highs": t_scipy, "scipy_exploitability": expl(p_scipy),
            "pref_voting": t_pv, "pref_voting_exploitability": expl(p_pv)}

if __name__ == "__main__":
    main()
