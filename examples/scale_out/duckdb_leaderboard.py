"""A leaderboard from a battle log too big for memory on one big machine: DuckDB runs
the shipped counts query over the Parquet files (all cores, out of core), verdict ranks
the counts — the raw log's numbers, bootstrap included.

    python examples/scale_out/duckdb_leaderboard.py 'logs/*.parquet' [--bootstrap N]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import duckdb

import verdict_arena as verdict

QUERY = (pathlib.Path(__file__).resolve().parents[2] / "sql" / "battle_counts.sql").read_text()


def counts(connection, log: str):
    """The counts of the Parquet files ``log`` names (a file, or a glob), by the
    shipped query; labels it does not know are counted in ``unknown``, which must be 0."""
    escaped = log.replace("'", "''")
    connection.execute(
        f"CREATE OR REPLACE VIEW battles AS SELECT * FROM read_parquet('{escaped}', hive_partitioning = true)"
    )
    table = connection.sql(QUERY).to_arrow_table()
    unknown = sum(table.column("unknown").to_pylist())
    if unknown:
        raise ValueError(f"{unknown} battles have a winner label verdict does not know")
    return table.drop(["unknown"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--method", default="bt")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = counts(duckdb.connect(), args.log)
    board = verdict.rank(table, args.method, bootstrap=args.bootstrap, seed=args.seed, as_frame=False)
    json.dump(board, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
