"""Equilibria of payoff matrices: :func:`maximal_lottery`."""

from __future__ import annotations

import json
from typing import Mapping, Optional, Sequence

from . import _native
from ._rank import _costs


def maximal_lottery(
    matrix: Sequence[Sequence[float]],
    names: Optional[Sequence[str]] = None,
    *,
    rho: float = 0.0,
    costs: Optional[Mapping[str, float]] = None,
    budget: Optional[float] = None,
) -> dict:
    """The maximal lottery of a skew-symmetric payoff matrix (``A = -A^T``, entries in
    ``[-1, 1]``; Fishburn 1984): the numbers of ``verdict game --format json``.

    Returns a dict with ``models`` (name and probability, in matrix order), ``gap``
    (the solver's certificate), ``exploitability`` (``max_j (A p)_j``, NashEval
    Eq. 69), ``value`` (Eq. 71), ``unique`` (proved the only equilibrium) and the
    support. ``rho > 0`` regularizes (Eq. 74); ``costs`` (name → cost) with ``budget``
    caps the expected cost. For a battles table use
    ``rank(battles, method="lottery")``.
    """
    rows = [[float(x) for x in row] for row in matrix]
    names = [str(n) for n in names] if names is not None else [str(i) for i in range(len(rows))]
    return json.loads(
        _native.maximal_lottery_json(rows, names, rho=rho, costs=_costs(costs), budget=budget)
    )
