"""verdict: evaluate LLMs and other agents from relative feedback, from Python.

The same engine as the ``verdict`` command line (a Rust library): every function here
gives the numbers the command line prints for the same input and settings.

- :func:`rank` — an arena leaderboard from a battle log (Bradley–Terry, Elo, the
  maximal lottery), as ``verdict rank --format json``.
- :func:`maximal_lottery` — the equilibrium of a payoff matrix, as
  ``verdict game --format json``.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Sequence

from . import _native

__all__ = ["rank", "maximal_lottery"]

_COLUMNS = ("model_a", "model_b", "winner")


def _battle_input(battles: Any, model_a: str, model_b: str, winner: str) -> dict:
    """A path as it is; a pandas or polars frame as CSV text of the LMArena columns."""
    if isinstance(battles, (str, os.PathLike)):
        return {"path": os.fspath(battles)}
    names = {model_a: "model_a", model_b: "model_b", winner: "winner"}
    if hasattr(battles, "to_pandas") and not hasattr(battles, "to_csv"):
        battles = battles.to_pandas()  # polars or pyarrow
    if not hasattr(battles, "to_csv"):
        raise TypeError(
            "battles must be a path or a pandas/polars/pyarrow table, "
            f"not {type(battles).__name__}"
        )
    missing = [c for c in names if c not in battles.columns]
    if missing:
        raise ValueError(
            f"the battles table lacks column(s) {missing} "
            f"(columns present: {list(battles.columns)}); name them with model_a=, model_b=, winner="
        )
    table = battles[list(names)].rename(columns=names)
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    return {"csv": buffer.getvalue().encode()}


def rank(
    battles: Any,
    method: str = "bt",
    *,
    model_a: str = "model_a",
    model_b: str = "model_b",
    winner: str = "winner",
    ties: str = "half",
    bootstrap: int = 1000,
    ci: float = 0.95,
    seed: int = 0,
    allow_unobserved: bool = False,
    as_frame: bool = True,
):
    """A leaderboard from a battle log: the numbers of ``verdict rank --format json``.

    ``battles`` is a path (CSV, JSON Lines, JSON, Parquet) or a pandas/polars/pyarrow
    table with LMArena's columns (``winner`` in ``model_a | model_b | tie |
    tie (bothbad)``). ``method``: ``"bt"`` (Bradley–Terry by maximum likelihood,
    Zermelo 1929; Bradley & Terry 1952), ``"elo"`` (online Elo), ``"lottery"`` (the
    maximal lottery, Fishburn 1984) or ``"all"``. Intervals are percentile bootstrap
    intervals of ``bootstrap`` rounds (0: none) seeded with ``seed``.

    Returns a pandas DataFrame indexed by model, best first (columns ``score``,
    ``ci_low``, ``ci_high``, ``rank``, ``rank_ub``, ``wins``, ``losses``, ``ties``,
    ``battles``, and ``probability`` for the lottery) — or, with ``as_frame=False`` or
    ``method="all"``, the JSON report as a dict. Raises ``ValueError`` naming the file,
    row and column of bad input.
    """
    source = _battle_input(battles, model_a, model_b, winner)
    report = json.loads(
        _native.rank_json(
            **source,
            method=method,
            ties=ties,
            bootstrap=bootstrap,
            ci=ci,
            seed=seed,
            allow_unobserved=allow_unobserved,
        )
    )
    if not as_frame or method == "all":
        return report
    import pandas as pd

    return pd.DataFrame(report["models"]).set_index("name")


def maximal_lottery(
    matrix: Sequence[Sequence[float]], names: Sequence[str] | None = None, *, rho: float = 0.0
) -> dict:
    """The maximal lottery of a skew-symmetric payoff matrix (``A = -A^T``, entries in
    ``[-1, 1]``): the numbers of ``verdict game --format json``.

    Returns a dict with ``models`` (name and probability, in matrix order), ``gap`` (the
    solver's certificate), ``exploitability`` (NashEval Eq. 69), ``value`` (Eq. 71) and
    ``unique`` (proved the only equilibrium). ``rho > 0`` regularizes (Eq. 74).
    """
    rows = [[float(x) for x in row] for row in matrix]
    names = [str(n) for n in names] if names is not None else [str(i) for i in range(len(rows))]
    return json.loads(_native.maximal_lottery_json(rows, names, rho=rho))
