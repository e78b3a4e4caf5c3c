"""verdict's Python module against the Python tools, in one process, on the same
frame: `verdict.rank` from a pandas and from a polars frame (the conversion through
the Arrow C stream included) against `evalica.bradley_terry` and arena-rank, one fit
and a 1000-round bootstrap; and the command line on the file for the same work.

    python3 bench/compare_python.py FILE.parquet [--rounds 1000] [--repeats 3]

The frames are read once, before any timing (every tool starts from the same frame).
The slow Python bootstraps run a few rounds and are extrapolated to ROUNDS (labelled
so), as in bench/compare_rank.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_rank import VERDICT, arena_rank_on_frame, evalica_on_frame  # noqa: E402


def median_seconds(function, repeats):
    """Median wall time of `repeats` calls of `function`."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli_seconds(path, rounds, repeats):
    args = [VERDICT, "rank", path, "--bootstrap", str(rounds), "--format", "json", "--quiet"]
    return median_seconds(lambda: subprocess.run(args, check=True, capture_output=True), repeats)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--evalica-rounds", type=int, default=3)
    parser.add_argument("--arena-rank-rounds", type=int, default=10)
    args = parser.parse_args()

    import pandas as pd
    import polars as pl

    import verdict_arena as verdict

    columns = ["model_a", "model_b", "winner"]
    frames = {"pandas": pd.read_parquet(args.file, columns=columns), "polars": pl.read_parquet(args.file, columns=columns)}
    results = {"battles": len(frames["pandas"]), "rounds": args.rounds, "repeats": args.repeats}
    results["verdict CLI (file)"] = {
        "one fit": cli_seconds(args.file, 0, args.repeats),
        "bootstrap": cli_seconds(args.file, args.rounds, args.repeats),
    }
    for name, frame in frames.items():
        results[f"verdict.rank ({name} frame)"] = {
            "one fit": median_seconds(lambda: verdict.rank(frame, bootstrap=0), args.repeats),
            "bootstrap": median_seconds(lambda: verdict.rank(frame, bootstrap=args.rounds), args.repeats),
        }
    for name, run, rounds in (
        ("evalica", evalica_on_frame, args.evalica_rounds),
        ("arena-rank", arena_rank_on_frame, args.arena_rank_rounds),
    ):
        t = run(frames["pandas"], rounds)
        results[name] = {
            "one fit": t["prepare"] + t["fit"],
            "fit alone": t["fit"],
            "bootstrap": t["prepare"] + t["fit"] + t["bootstrap"] / rounds * args.rounds,
            "bootstrap rounds run": rounds,
        }
    print(json.dumps(results, indent=2))
    cli = results["verdict CLI (file)"]
    print(f"\n{'':<30}{'one fit (s)':>14}{f'{args.rounds}-round bootstrap (s)':>28}")
    for name, t in results.items():
        if isinstance(t, dict):
            print(f"{name:<30}{t['one fit']:>14.3f}{t['bootstrap']:>28.2f}")
    python_tools = [results["evalica"], results["arena-rank"]]
    for name in ("pandas", "polars"):
        ours = results[f"verdict.rank ({name} frame)"]
        print(
            f"\n{name}: {ours['one fit'] / cli['one fit']:.2f}x / {ours['bootstrap'] / cli['bootstrap']:.2f}x the CLI's time;"
            f" {min(t['one fit'] for t in python_tools) / ours['one fit']:.0f}x / "
            f"{min(t['bootstrap'] for t in python_tools) / ours['bootstrap']:.0f}x faster than the fastest Python tool"
        )


if __name__ == "__main__":
    main()
