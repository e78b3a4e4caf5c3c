"""A fitted NashEval model applied to a table of contexts (prompts) on Ray Data: a
pool of actors, each reading the model (and its text encoder) once, predicting Arrow
batches — the rows ``verdict predict`` writes.

    python examples/scale_out/ray_predict.py MODEL CONTEXTS OUT [--encoder DIR]

CONTEXTS is Parquet with ``context_id`` and the model's features; OUT is a Parquet
directory.
"""

from __future__ import annotations

import argparse

import verdict_arena as verdict
from ray_leaderboard import local_ray


def predict(dataset, model: str, encoder: str | None = None, actors: int = 1):
    """The dataset of predictions: ``context_id``, one probability per agent,
    ``winners``; a pool of ``actors`` workers, each holding one copy of the model.
    Each actor asks for half a core: Ray Data keeps some of the cluster for reading
    and writing, and a pool that asks for every core waits for them forever."""
    import ray.data

    return dataset.map_batches(
        verdict.BatchPredictor,
        fn_constructor_args=(model,),
        fn_constructor_kwargs={"encoder": encoder},
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=actors),
        num_cpus=0.5,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("contexts")
    parser.add_argument("out")
    parser.add_argument("--encoder")
    parser.add_argument("--actors", type=int, default=2)
    args = parser.parse_args()
    local_ray()
    import ray.data

    predict(ray.data.read_parquet(args.contexts), args.model, args.encoder, args.actors).write_parquet(args.out)


if __name__ == "__main__":
    main()
