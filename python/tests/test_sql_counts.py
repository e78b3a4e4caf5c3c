"""The scale-out path: a battle log reduced to pair counts by the shipped SQL query on
an in-process engine (DuckDB), and a Hive-partitioned Parquet dataset written by that
engine, give the leaderboard of the raw log — bootstrap intervals included, same seed,
same numbers — from Python and from the command line alike."""

from __future__ import annotations

import json

import duckdb
import pytest

import verdict_arena as verdict
from _support import GENAI, ROOT, cli_json

QUERY = (ROOT / "sql" / "battle_counts.sql").read_text()


def _battles(connection: duckdb.DuckDBPyConnection) -> None:
    connection.execute(f"CREATE VIEW battles AS SELECT * FROM read_json_auto('{GENAI}')")


def _numbers(report: dict) -> dict:
    """The report without the source's label."""
    return {k: v for k, v in report.items() if k != "source"}


@pytest.mark.parametrize("method", ["bt", "lottery"])
def test_sql_counts_rank_as_the_raw_log(method: str) -> None:
    connection = duckdb.connect()
    _battles(connection)
    counts = connection.sql(QUERY).to_arrow_table()
    assert sum(counts.column("unknown").to_pylist()) == 0
    settings = dict(bootstrap=200, seed=9, allow_unobserved=True, as_frame=False)
    from_counts = verdict.rank(counts, method, **settings)
    # The log has a few self-battles, which the query's WHERE drops.
    from_log = verdict.rank(str(GENAI), method, skip_self_battles=True, **settings)
    assert from_log["models"][0]["ci_low"] is not None
    assert _numbers(from_counts) == _numbers(from_log)


def test_cli_reads_counts_and_a_hive_dataset_written_by_duckdb(tmp_path) -> None:
    connection = duckdb.connect()
    _battles(connection)
    counts_file = tmp_path / "counts.csv"
    connection.execute(f"COPY ({QUERY}) TO '{counts_file}' (HEADER)")
    dataset = tmp_path / "battles"
    connection.execute(
        f"COPY (SELECT model_a, model_b, winner, anony FROM battles) TO '{dataset}' "
        "(FORMAT parquet, PARTITION_BY (anony))"
    )
    assert sorted(p.name for p in dataset.iterdir()) == ["anony=false", "anony=true"]
    args = ("--bootstrap", "200", "--seed", "4", "--skip-self-battles")
    from_log = _numbers(cli_json("rank", str(GENAI), *args))
    assert _numbers(cli_json("rank", str(counts_file), *args)) == from_log
    assert _numbers(cli_json("rank", str(dataset), *args)) == from_log
    # The partition column filters as the log's own column does.
    anonymous = _numbers(cli_json("rank", str(GENAI), "--filter", "anony=true", *args))
    from_dataset = _numbers(cli_json("rank", str(dataset), "--filter", "anony=true", *args))
    assert from_dataset == anonymous
    assert json.dumps(from_dataset) != json.dumps(from_log)
