"""A leaderboard from a battle log on Spark: each partition folded to pair counts where
it lives, the counts merged, and ranked by verdict — the raw log's numbers, bootstrap
included. Two ways to the counts: the shipped SQL query (any Spark, no Python on the
workers) or ``mapInArrow`` with verdict's fold (the reading verdict does: its column
names, filters and refusals).

    python examples/scale_out/spark_leaderboard.py LOG [--by sql|arrow] [--bootstrap N]

LOG is a Parquet file or directory (a Hive-partitioned dataset too) or a JSON log.
Local mode here; on a cluster the same code runs with the session of ``spark-submit``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

import verdict_arena as verdict

QUERY = (pathlib.Path(__file__).resolve().parents[2] / "sql" / "battle_counts.sql").read_text()


def local_session(cores: int = 2):
    """A Spark session on this machine only (loopback, no web UI), whose Python
    workers run this interpreter (so they import the same verdict_arena)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("verdict")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", str(cores))
        .getOrCreate()
    )


def read_log(spark, path: str):
    """A battle log as a DataFrame: Parquet (file, directory, Hive partitions) or JSON."""
    if path.endswith(".json") or path.endswith(".jsonl"):
        return spark.read.option("multiLine", path.endswith(".json")).json(path)
    return spark.read.parquet(path)


def counts_by_sql(spark, battles):
    """The counts by ``sql/battle_counts.sql``: a GROUP BY Spark runs as partial
    aggregates per partition merged after one shuffle of K(K-1) rows per partition.
    Self-battles are dropped by its WHERE; labels it does not know are counted in
    ``unknown``, which must be 0."""
    battles.createOrReplaceTempView("battles")
    counts = spark.sql(QUERY)
    unknown = counts.agg({"unknown": "sum"}).collect()[0][0]
    if unknown:
        raise ValueError(f"{unknown} battles have a winner label verdict does not know")
    return counts.drop("unknown").toArrow()


def counts_by_arrow(battles, **reading):
    """The counts by ``mapInArrow``: each partition's Arrow batches folded to a counts
    batch by verdict on the worker, the batches collected to the driver (K(K-1)/2 rows
    per partition at most)."""

    def fold(batches):
        return verdict.fold_counts(batches, **reading)

    return battles.mapInArrow(fold, verdict.SPARK_COUNTS_SCHEMA).toArrow()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--by", choices=["sql", "arrow"], default="arrow")
    parser.add_argument("--method", default="bt")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spark = local_session()
    try:
        battles = read_log(spark, args.log)
        if args.by == "sql":
            counts = counts_by_sql(spark, battles)
        else:
            counts = counts_by_arrow(battles, skip_self_battles=True)
    finally:
        spark.stop()
    board = verdict.rank(counts, args.method, bootstrap=args.bootstrap, seed=args.seed, as_frame=False)
    json.dump(board, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
