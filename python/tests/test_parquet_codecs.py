"""Parquet as the engines users run write it: every codec pyarrow and polars offer
(Spark and Hive tables use the same ones) reads to the board of the raw log, from
Python and from the command line alike."""

from __future__ import annotations

import json

import polars as pl
import pyarrow.parquet as pq
import pytest

import verdict_arena as verdict
from _support import GENAI, cli_json

SETTINGS = dict(bootstrap=50, seed=3, skip_self_battles=True, as_frame=False)
FLAGS = ("--bootstrap", "50", "--seed", "3", "--skip-self-battles")


def _numbers(report: dict) -> dict:
    """The report without the source's label."""
    return {k: v for k, v in report.items() if k != "source"}


def _log():
    rows = json.loads(GENAI.read_text())
    return pl.DataFrame(
        {k: [row[k] for row in rows] for k in ("model_a", "model_b", "winner")}
    )


@pytest.fixture(scope="module")
def raw_board() -> dict:
    """The raw log's board from the module and from the command line."""
    return {
        "module": _numbers(verdict.rank(str(GENAI), "bt", **SETTINGS)),
        "cli": _numbers(cli_json("rank", str(GENAI), *FLAGS)),
    }


def _assert_codec(path, expected: str, raw_board: dict) -> None:
    written = pq.ParquetFile(path).metadata.row_group(0).column(0).compression
    assert written == expected, f"{path.name} was written with {written}"
    assert _numbers(verdict.rank(str(path), "bt", **SETTINGS)) == raw_board["module"]
    assert _numbers(cli_json("rank", str(path), *FLAGS)) == raw_board["cli"]


@pytest.mark.parametrize(
    "codec, expected",
    [("none", "UNCOMPRESSED"), ("snappy", "SNAPPY"), ("gzip", "GZIP"), ("brotli", "BROTLI"),
     ("zstd", "ZSTD"), ("lz4", "LZ4")],
)
def test_pyarrow_parquet_in_every_codec_reads_to_the_raw_board(tmp_path, codec, expected, raw_board) -> None:
    path = tmp_path / f"battles-{codec}.parquet"
    pq.write_table(_log().to_arrow(), path, compression=codec)
    _assert_codec(path, expected, raw_board)


@pytest.mark.parametrize("codec", ["uncompressed", "snappy", "gzip", "brotli", "zstd", "lz4"])
def test_polars_parquet_in_every_codec_reads_to_the_raw_board(tmp_path, codec, raw_board) -> None:
    path = tmp_path / f"battles-{codec}.parquet"
    _log().write_parquet(path, compression=codec)
    _assert_codec(path, codec.upper(), raw_board)
