"""Side-by-side benchmark of `verdict rank` and the Python tools people use today,
on the same Parquet battle log, in the same run.

    python3 bench/compare_rank.py FILE.parquet [--rounds 1000] [--python-rounds N]

Each tool runs in its own process (peak memory = that process's maximum RSS):
- verdict: `verdict rank FILE --bootstrap 0` (read + one fit) and
  `verdict rank FILE --bootstrap ROUNDS` (read + fit + bootstrap), wall time.
- arena-rank (LMArena's package): PairDataset.from_pandas, BradleyTerry.fit
  (JAX L-BFGS), bootstrap via compute_ratings_and_cis(ci_method="bootstrap").
- evalica: bradley_terry() on the full columns; bootstrap = resample rows with
  replacement and refit (evalica has no count-space bootstrap).
- FastChat count-space approach: deduplicate (model_a, model_b, outcome) rows to
  counts, scipy L-BFGS-B on the weighted BT loss, bootstrap by multinomial
  resampling of the counts, one process per core.
The Python bootstraps are slow, so each runs a few rounds (DEFAULT_ROUNDS, or
--python-rounds) and reports the time per round times ROUNDS ("extrapolated"),
labelled as such; the extrapolation includes each tool's pool start-up once.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = os.environ.get("VERDICT_BIN", os.path.join(HERE, "..", "target", "release", "verdict"))


def read_frame(path):
    import pandas as pd

    return pd.read_parquet(path, columns=["model_a", "model_b", "winner"])


def timed(out, stage, function, *args, **kwargs):
    """Runs function(*args, **kwargs), storing its wall time in out[stage]."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    out[stage] = time.perf_counter() - start
    return result


def tool_arena_rank(path, rounds):
    out = {}
    df = timed(out, "read", read_frame, path)
    return {**out, **arena_rank_on_frame(df, rounds)}


def arena_rank_on_frame(df, rounds):
    """arena-rank's prepare, fit and `rounds`-round bootstrap times on a frame."""
    import multiprocessing as mp

    # arena-rank's bootstrap pool forks a process that already runs JAX's threads and
    # deadlocks on Linux (JAX warns so); spawned workers do not.
    mp.set_start_method("spawn", force=True)
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    out = {}
    t = time.perf_counter()
    dataset = PairDataset.from_pandas(df)
    out["prepare"] = time.perf_counter() - t
    t = time.perf_counter()
    BradleyTerry(n_competitors=len(dataset.competitors)).fit(dataset)
    out["fit"] = time.perf_counter() - t
    t = time.perf_counter()
    BradleyTerry(n_competitors=len(dataset.competitors)).compute_ratings_and_cis(
        dataset, ci_method="bootstrap", num_bootstrap=rounds, n_jobs=os.cpu_count()
    )
    out["bootstrap"] = time.perf_counter() - t
    return out


def tool_evalica(path, rounds):
    out = {}
    df = timed(out, "read", read_frame, path)
    return {**out, **evalica_on_frame(df, rounds)}


def evalica_on_frame(df, rounds):
    """evalica's prepare, fit and `rounds`-round (row-resampling) bootstrap times."""
    import evalica
    import numpy as np

    out = {}
    t = time.perf_counter()
    mapping = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw, "tie (bothbad)": evalica.Winner.Draw}
    winners = df["winner"].map(mapping).tolist()
    xs, ys = df["model_a"].tolist(), df["model_b"].tolist()
    out["prepare"] = time.perf_counter() - t
    t = time.perf_counter()
    evalica.bradley_terry(xs, ys, winners, tolerance=1e-9)
    out["fit"] = time.perf_counter() - t
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    n = len(xs)
    xs_a, ys_a, w_a = np.array(xs, dtype=object), np.array(ys, dtype=object), np.array(winners, dtype=object)
    for _ in range(rounds):
        idx = rng.integers(0, n, n)
        evalica.bradley_terry(xs_a[idx].tolist(), ys_a[idx].tolist(), w_a[idx].tolist(), tolerance=1e-9)
    out["bootstrap"] = time.perf_counter() - t
    return out


def _bt_loss_and_grad(ratings, matchups, outcomes, weights, alpha):
    import numpy as np
    from scipy.special import expit

    diff = alpha * (ratings[matchups[:, 0]] - ratings[matchups[:, 1]])
    p = expit(diff)
    eps = 1e-300
    loss = -((np.log(p + eps) * outcomes + np.log(1.0 - p + eps) * (1.0 - outcomes)) * weights).sum()
    g = -alpha * (outcomes - p) * weights
    grad = np.zeros_like(ratings)
    np.add.at(grad, matchups[:, 0], g)
    np.add.at(grad, matchups[:, 1], -g)
    return loss, grad


def _fit_counts(weights, matchups, outcomes, n_models):
    import numpy as np
    from scipy.optimize import minimize

    result = minimize(
        _bt_loss_and_grad, np.zeros(n_models), args=(matchups, outcomes, weights, np.log(10.0)),
        jac=True, method="L-BFGS-B", options={"maxiter": 100, "gtol": 1e-6},
    )
    return result.x


def tool_fastchat(path, rounds):
    import multiprocessing as mp
    from functools import partial

    import numpy as np
    import pandas as pd

    out = {}
    df = timed(out, "read", read_frame, path)
    t = time.perf_counter()
    n = len(df)
    codes, models = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    schedule = np.ones((n, 3), dtype=np.int32)
    schedule[:, 0], schedule[:, 1] = codes[:n], codes[n:]
    schedule[(df["winner"] == "model_a").to_numpy(), 2] = 2
    schedule[(df["winner"] == "model_b").to_numpy(), 2] = 0
    rows, counts = np.unique(schedule, return_counts=True, axis=0)
    matchups, outcomes = rows[:, :2], rows[:, 2] / 2.0
    counts = counts.astype(np.float64)
    out["prepare"] = time.perf_counter() - t
    t = time.perf_counter()
    _fit_counts(counts, matchups, outcomes, len(models))
    out["fit"] = time.perf_counter() - t
    t = time.perf_counter()
    rng = np.random.default_rng(0)
    draws = rng.multinomial(n, counts / counts.sum(), size=rounds).astype(np.float64)
    fit = partial(_fit_counts, matchups=matchups, outcomes=outcomes, n_models=len(models))
    with mp.Pool(os.cpu_count()) as pool:
        list(pool.imap_unordered(fit, list(draws)))
    out["bootstrap"] = time.perf_counter() - t
    return out


TOOLS = {"arena-rank": tool_arena_rank, "evalica": tool_evalica, "fastchat-counts": tool_fastchat}
# Bootstrap rounds each Python tool runs by default (then extrapolated): enough to
# amortise start-up, few enough to finish in minutes.
DEFAULT_ROUNDS = {"arena-rank": 10, "evalica": 3, "fastchat-counts": 20}


def child(tool, path, rounds):
    timings = TOOLS[tool](path, rounds)
    print(json.dumps(timings))


def run_child(args):
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{args} failed: {proc.stderr[-2000:]}")
    return proc.stdout, wall


def peak_rss_of(args):
    """Runs args under /usr/bin/time -v when present; returns (stdout, wall, peak MiB)."""
    if os.path.exists("/usr/bin/time"):
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{args} failed: {proc.stderr[-2000:]}")
        rss = [l for l in proc.stderr.splitlines() if "Maximum resident set size" in l]
        peak = int(rss[0].split(":")[1]) / 1024 if rss else float("nan")
        return proc.stdout, wall, peak
    out, wall = run_child(args)
    return out, wall, float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--python-rounds", type=int, default=None, help="rounds per Python tool (default: per tool)")
    parser.add_argument("--tools", default="arena-rank,evalica,fastchat-counts")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.file, args.python_rounds)
        return

    results = {}
    _, fit_wall, fit_rss = peak_rss_of([VERDICT, "rank", args.file, "--bootstrap", "0", "--format", "json", "--quiet"])
    _, boot_wall, boot_rss = peak_rss_of([VERDICT, "rank", args.file, "--bootstrap", str(args.rounds), "--format", "json", "--quiet"])
    stages, _ = run_child([VERDICT, "bench", "rank", args.file, "--bootstrap", str(args.rounds), "--format", "json", "--quiet"])
    stages = json.loads(stages)
    results["verdict"] = {
        "read+fit wall": fit_wall, "read+fit+bootstrap wall": boot_wall, "peak MiB": max(fit_rss, boot_rss),
        "fit": stages["seconds"]["fit"], "bootstrap": stages["seconds"]["bootstrap"], "read": stages["seconds"]["read"],
        "bootstrap rounds": args.rounds,
    }
    for tool in [t for t in args.tools.split(",") if t]:
        rounds = args.python_rounds or DEFAULT_ROUNDS[tool]
        out, wall, rss = peak_rss_of([sys.executable, __file__, args.file, "--python-rounds", str(rounds), "--child", tool])
        timings = json.loads(out.strip().splitlines()[-1])
        timings["bootstrap (extrapolated to %d rounds)" % args.rounds] = timings["bootstrap"] / rounds * args.rounds
        timings["process wall"] = wall
        timings["peak MiB"] = rss
        timings["bootstrap rounds run"] = rounds
        results[tool] = timings

    print(json.dumps(results, indent=2))
    v = results["verdict"]
    print(f"\n{'tool':<18}{'read':>9}{'one fit':>10}{'1000-round bootstrap':>24}{'peak MiB':>10}")
    print(f"{'verdict':<18}{v['read']:>9.2f}{v['fit']:>10.3f}{v['bootstrap']:>24.2f}{v['peak MiB']:>10.0f}")
    key = "bootstrap (extrapolated to %d rounds)" % args.rounds
    for tool, t in results.items():
        if tool == "verdict":
            continue
        print(f"{tool:<18}{t['read']:>9.2f}{t['fit']:>10.3f}{t[key]:>24.2f}{t['peak MiB']:>10.0f}")
    others = [t for name, t in results.items() if name != "verdict"]
    if others:
        fastest_fit = min(t["fit"] for t in others)
        fastest_boot = min(t[key] for t in others)
        print(f"\nverdict one fit: {fastest_fit / v['fit']:.1f}x faster than the fastest Python fit")
        print(f"verdict bootstrap: {fastest_boot / v['bootstrap']:.1f}x faster than the fastest Python bootstrap")
        print(f"verdict rank end to end (read, fit, {args.rounds} rounds): {v['read+fit+bootstrap wall']:.2f} s")
        for tool, t in results.items():
            if tool == "verdict":
                continue
            single = t["read"] + t["prepare"] + t["fit"]
            print(
                f"verdict's {args.rounds}-round bootstrap against {tool}'s single fit: "
                f"{v['bootstrap'] / t['fit']:.2f}x its fit call ({t['fit']:.3f} s), "
                f"{v['bootstrap'] / single:.2f}x its read, prepare and fit ({single:.2f} s)"
            )


if __name__ == "__main__":
    main()
