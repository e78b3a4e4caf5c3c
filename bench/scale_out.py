"""The scale-out recipes timed on one machine (BENCHMARKS.md, "Beyond one machine"):
each call does one job with one engine and prints what it found, so that a timer of
whole processes measures it, start-up included.

    python bench/scale_out.py counts verdict|duckdb|spark|ray DIR
    python bench/scale_out.py prompts OUT --rows N          # N prompts as Parquet files
    python bench/scale_out.py predict spark|ray MODEL PROMPTS ENCODER

``counts`` folds the Parquet files of DIR (``verdict bench arena`` writes them) to pair
counts and prints the number of pairs and battles: verdict's own streaming reader
(``battle_counts`` on the directory), DuckDB (the shipped query), Spark local
(``mapInArrow`` with verdict's fold) or Ray local (``map_batches``). ``predict``
applies a model to the prompts and prints the number of rows and the first row's
winners (``verdict predict`` is timed as itself).
"""

from __future__ import annotations

import pathlib
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "scale_out"))
sys.path.insert(0, str(ROOT / "python" / "tests"))

import verdict_arena as verdict  # noqa: E402


def counts(engine: str, directory: str) -> pa.Table:
    if engine == "verdict":
        return verdict.battle_counts(directory)
    if engine == "duckdb":
        import duckdb
        import duckdb_leaderboard

        return duckdb_leaderboard.counts(duckdb.connect(), f"{directory}/*.parquet")
    if engine == "spark":
        import spark_leaderboard

        spark = spark_leaderboard.local_session()
        try:
            return spark_leaderboard.counts_by_arrow(spark.read.parquet(f"{directory}/*.parquet"))
        finally:
            spark.stop()
    if engine == "ray":
        import ray.data
        import ray_leaderboard

        ray_leaderboard.local_ray()
        return ray_leaderboard.counts(ray.data.read_parquet(directory))
    raise SystemExit(f"unknown engine {engine!r}")


def prompts(out: str, rows: int) -> None:
    """``rows`` prompts of two topics (math, poetry) as 10 Parquet files."""
    from test_text_encoder import _prompt

    rng = random.Random(11)
    directory = pathlib.Path(out)
    directory.mkdir(parents=True)
    per_file = rows // 10
    for part in range(10):
        start = part * per_file
        ids = [f"p{i:08d}" for i in range(start, start + per_file)]
        texts = [_prompt(i % 2, rng) for i in range(start, start + per_file)]
        pq.write_table(pa.table({"context_id": ids, "prompt": texts}), directory / f"part-{part}.parquet")


def predict(engine: str, model: str, directory: str, encoder: str) -> pa.Table:
    if engine == "spark":
        import spark_leaderboard
        import spark_predict

        spark = spark_leaderboard.local_session()
        try:
            return spark_predict.predict(spark.read.parquet(directory), model, encoder).toArrow()
        finally:
            spark.stop()
    if engine == "ray":
        import ray
        import ray.data
        import ray_leaderboard
        import ray_predict

        ray_leaderboard.local_ray()
        dataset = ray_predict.predict(ray.data.read_parquet(directory), model, encoder, actors=2)
        return pa.concat_tables(ray.get(dataset.to_arrow_refs()))
    raise SystemExit(f"unknown engine {engine!r}")


def main() -> None:
    job = sys.argv[1]
    if job == "counts":
        table = verdict.battle_counts(counts(sys.argv[2], sys.argv[3]))
        battles = sum(pa.compute.sum(table.column(c)).as_py() for c in ("wins_a", "wins_b", "ties"))
        print(f"{table.num_rows} pairs, {battles} battles")
    elif job == "prompts":
        prompts(sys.argv[2], int(sys.argv[sys.argv.index("--rows") + 1]))
    elif job == "predict":
        table = predict(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
        print(f"{table.num_rows} rows; first winners {table.column('winners')[0]}")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
