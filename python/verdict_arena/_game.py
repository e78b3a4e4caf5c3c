"""Equilibria of payoff matrices: :func:`maximal_lottery`."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence

from . import _native
from ._rank import _costs, rank


def _is_table(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike)) or hasattr(value, "__arrow_c_stream__")


def maximal_lottery(
    matrix: Any,
    names: Optional[Sequence[str]] = None,
    *,
    rho: float = 0.0,
    costs: Optional[Mapping[str, float]] = None,
    budget: Optional[float] = None,
    **battles: Any,
) -> dict:
    """The maximal lottery of a skew-symmetric payoff matrix (``A = -A^T``, entries in
    ``[-1, 1]``; Fishburn 1984): the numbers of ``verdict game --format json``.

    Returns a dict with ``models`` (name and probability, in matrix order), ``gap``
    (the solver's certificate), ``exploitability`` (``max_j (A p)_j``, NashEval
    Eq. 69), ``value`` (Eq. 71), ``unique`` (proved the only equilibrium) and the
    support. ``rho > 0`` regularizes (Eq. 74); ``costs`` (name → cost) with ``budget``
    caps the expected cost.

    Given a battle log instead (a path or a frame, as :func:`rank` takes, with its
    keyword arguments such as ``allow_unobserved``), the game is the log's margin
    matrix (NashEval Eq. 78) and the dict holds ``models``, ``gap``,
    ``exploitability``, ``unique``, ``support``, ``condorcet_winner`` and ``status``.
    """
    if _is_table(matrix):
        report = rank(matrix, "lottery", rho=rho, costs=costs, budget=budget, as_frame=False, **battles)
        summary = report["lottery"]
        return {
            "models": [{"name": m["name"], "probability": m["probability"]} for m in report["models"]],
            **{k: summary[k] for k in ("gap", "exploitability", "unique", "support", "condorcet_winner", "status")},
        }
    rows = [[float(x) for x in row] for row in matrix]
    names = [str(n) for n in names] if names is not None else [str(i) for i in range(len(rows))]
    return json.loads(
        _native.maximal_lottery_json(
            json.dumps(dict(rho=rho, costs=_costs(costs), budget=budget)), rows, names
        )
    )
