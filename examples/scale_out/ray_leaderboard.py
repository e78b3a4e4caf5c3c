"""A leaderboard from a battle log on Ray Data: each block folded to pair counts by
verdict where it lives (``map_batches`` on Arrow batches), the counts merged, and
ranked — the raw log's numbers, bootstrap included.

    python examples/scale_out/ray_leaderboard.py LOG [--bootstrap N]

LOG is a Parquet file or directory. A local Ray here (``ray.init``); on a cluster the
same code runs after ``ray.init(address=...)``.
"""

from __future__ import annotations

import argparse
import json
import sys

import verdict_arena as verdict


def local_ray(cores: int = 2) -> None:
    """Ray on this machine only: loopback, no dashboard, quiet workers."""
    import ray

    if not ray.is_initialized():
        ray.init(
            num_cpus=cores,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
    import ray.data

    ray.data.DataContext.get_current().enable_progress_bars = False


def counts(dataset, **reading):
    """Each block's battles folded to counts (``batch_size=None``: one call per block),
    gathered to the driver as one Arrow table of at most K(K-1)/2 rows per block."""
    import pyarrow as pa
    import ray

    def fold(batch):
        return verdict.battle_counts(batch, **reading)

    folded = dataset.map_batches(fold, batch_format="pyarrow", batch_size=None)
    return pa.concat_tables(ray.get(folded.to_arrow_refs()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--method", default="bt")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    local_ray()
    import ray.data

    table = counts(ray.data.read_parquet(args.log), skip_self_battles=True)
    board = verdict.rank(table, args.method, bootstrap=args.bootstrap, seed=args.seed, as_frame=False)
    json.dump(board, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
