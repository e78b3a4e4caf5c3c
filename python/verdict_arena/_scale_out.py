"""Beyond one machine: the map side of verdict's work as functions of Arrow batches,
for any engine that runs Python on a batch — Spark's ``mapInArrow``, Ray Data's
``map_batches``, DuckDB, or a loop over Parquet files.

- :func:`battle_counts` folds a battle log (or a partition of one) to its pair counts,
  an Arrow table with :data:`COUNTS_SCHEMA`. Counts tables are mergeable: the rows of
  many, concatenated, read as the counts of the whole log (rows of a pair add up), so
  :func:`rank` on them gives the raw log's leaderboard — bootstrap included.
- :func:`fold_counts` is the same for an iterator of record batches, the shape of a
  ``mapInArrow`` function.
- :class:`BatchPredictor` applies a fitted NashEval model (and its text encoder) to
  batches of contexts, loading the model once per process.

See ``docs/scale-out.md`` for the Spark, Ray and DuckDB recipes.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence, Union

from . import _native
from ._rank import _filters

#: The counts table's columns, as Spark's DDL spells them (``mapInArrow``'s schema).
SPARK_COUNTS_SCHEMA = "model_a string, model_b string, wins_a long, wins_b long, ties long"


def counts_schema():
    """The counts table's Arrow schema: ``model_a, model_b`` (strings), ``wins_a,
    wins_b, ties`` (64-bit integers)."""
    import pyarrow as pa

    return pa.schema(
        [
            ("model_a", pa.string()),
            ("model_b", pa.string()),
            ("wins_a", pa.int64()),
            ("wins_b", pa.int64()),
            ("ties", pa.int64()),
        ]
    )


def battle_counts(
    battles: Any,
    *,
    model_a_col: Optional[str] = None,
    model_b_col: Optional[str] = None,
    winner_col: Optional[str] = None,
    input_format: Optional[str] = None,
    filter: Union[None, Sequence[str], Mapping[str, Any]] = None,
    skip_self_battles: bool = False,
):
    """A battle log's pair counts as a ``pyarrow.Table`` (:func:`counts_schema`): one
    row per pair that met, ``model_a`` before ``model_b`` in name order, the wins of
    each and the ties (``tie`` and ``tie (bothbad)``).

    ``battles``: a path (a file, or a directory or glob of Parquet files: a whole log,
    refused when no battle is left) or a table or batch stream (pyarrow, polars, pandas,
    anything with ``__arrow_c_stream__``: a partition of a log, which folds to an empty
    table when ``filter`` drops every row). It may hold a raw log or counts tables —
    so counts merge by folding their concatenation again. Column names, ``filter`` and
    ``skip_self_battles`` as in :func:`rank`, which reads the result: for
    Bradley–Terry and the lottery, the counts of a log rank as the log does."""
    import pyarrow as pa

    settings = json.dumps(
        dict(
            model_a_col=model_a_col,
            model_b_col=model_b_col,
            winner_col=winner_col,
            input_format=input_format,
            filter=_filters(filter),
            skip_self_battles=skip_self_battles,
        )
    )
    if isinstance(battles, pa.RecordBatch):
        battles = pa.Table.from_batches([battles])
    columns = _native.battle_counts(settings, battles)
    return pa.Table.from_arrays([pa.array(c) for c in columns], schema=counts_schema())


def fold_counts(batches: Iterable[Any], **reading: Any) -> Iterator[Any]:
    """Record batches of a log folded to one counts batch: the function Spark's
    ``df.mapInArrow(fold_counts, SPARK_COUNTS_SCHEMA)`` calls on each partition (the
    batches stream through; memory holds a chunk and the counts). ``reading``: the
    reading settings of :func:`battle_counts`. A partition without battles yields
    nothing."""
    import pyarrow as pa

    batches = iter(batches)
    first = next(batches, None)
    if first is None:
        return
    stream = pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], batches))
    yield from battle_counts(stream, **reading).to_batches()


_LOADED: dict = {}
_LOADING = threading.Lock()


def _load_model(path: str):
    """The model at ``path``, read once per process (and again only when the file
    changes): every task a worker runs shares it."""
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = _native.Model.load(path)
        return _LOADED[key]


def _quoted(name: str) -> str:
    """A column name in Spark's DDL: backquoted, backquotes doubled."""
    return "`" + name.replace("`", "``") + "`"


class BatchPredictor:
    """A fitted NashEval model (a file from ``verdict fit`` or
    :meth:`NashEval.save`) applied to batches of contexts: each batch's rows as
    ``verdict predict`` writes them — ``context_id``, one probability column per agent
    (the context's equilibrium), ``winners`` (the agents above the support threshold).

    The model is read once per process, when the first batch arrives, so the object
    pickles small and a worker that runs many tasks reads it once. ``encoder``: the
    directory of the text encoder the model was fitted with, if any.

    - Ray Data: ``ds.map_batches(BatchPredictor, fn_constructor_args=(model,),
      batch_format="pyarrow", concurrency=N)`` — one instance per actor.
    - Spark: ``df.mapInArrow(predictor.map, predictor.spark_schema())``.
    """

    def __init__(self, model: "os.PathLike[str] | str", encoder: "os.PathLike[str] | str | None" = None):
        self.model = os.fspath(model)
        self.encoder = None if encoder is None else os.fspath(encoder)

    @property
    def agents(self) -> list:
        """The model's agents: the probability columns, in order."""
        return _load_model(self.model).agents

    def schema(self):
        """The output's Arrow schema."""
        import pyarrow as pa

        fields = [("context_id", pa.string())]
        fields += [(agent, pa.float64()) for agent in self.agents]
        fields.append(("winners", pa.list_(pa.string())))
        return pa.schema(fields)

    def spark_schema(self) -> str:
        """The output's schema in Spark's DDL, for ``mapInArrow``."""
        columns = ["context_id string"]
        columns += [f"{_quoted(agent)} double" for agent in self.agents]
        columns.append("winners array<string>")
        return ", ".join(columns)

    def __call__(self, batch: Any):
        """One batch of contexts (a pyarrow table or batch, or any table
        :meth:`NashEval.predict` reads) as a ``pyarrow.Table`` of predictions."""
        import numpy as np
        import pyarrow as pa

        if isinstance(batch, pa.RecordBatch):
            batch = pa.Table.from_batches([batch])
        if getattr(batch, "num_rows", None) == 0:
            return self.schema().empty_table()
        ids, agents, probabilities, winners, _ = _load_model(self.model).predict(
            batch, False, self.encoder
        )
        matrix = np.asarray(probabilities, dtype=np.float64).reshape(len(ids), len(agents))
        arrays = [pa.array(ids, pa.string())]
        arrays += [pa.array(matrix[:, j]) for j in range(len(agents))]
        arrays.append(pa.array(winners, pa.list_(pa.string())))
        return pa.Table.from_arrays(arrays, schema=self.schema())

    def map(self, batches: Iterable[Any]) -> Iterator[Any]:
        """Each batch's predictions as record batches: a ``mapInArrow`` function."""
        for batch in batches:
            if batch.num_rows:
                yield from self(batch).to_batches()
