"""A fitted NashEval model applied to a table of contexts (prompts) on Spark: each
partition predicted where it lives by ``mapInArrow``, the model (and its text
encoder) read once per worker process — the rows ``verdict predict`` writes.

    python examples/scale_out/spark_predict.py MODEL CONTEXTS OUT [--encoder DIR]

CONTEXTS is Parquet (a file or directory) with ``context_id`` and the model's
features (its text column, if it was fitted with an encoder); OUT is a Parquet
directory, one file per partition.
"""

from __future__ import annotations

import argparse

import verdict_arena as verdict
from spark_leaderboard import local_session


def predict(contexts, model: str, encoder: str | None = None):
    """The DataFrame of predictions: ``context_id``, one probability per agent,
    ``winners``."""
    predictor = verdict.BatchPredictor(model, encoder=encoder)
    return contexts.mapInArrow(predictor.map, predictor.spark_schema())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("contexts")
    parser.add_argument("out")
    parser.add_argument("--encoder")
    args = parser.parse_args()
    spark = local_session()
    try:
        predict(spark.read.parquet(args.contexts), args.model, args.encoder).write.parquet(args.out)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
