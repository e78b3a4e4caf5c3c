"""verdict_arena: evaluate LLMs and other agents from relative feedback, from Python.

The same engine as the ``verdict`` command line (a Rust library): every function here
gives the numbers the command line prints for the same input and settings, and long
calls release the interpreter.

- :func:`rank` — an arena leaderboard from a battle log (Bradley–Terry, Elo, the
  maximal lottery), as ``verdict rank --format json``.
- :func:`bradley_terry`, :func:`elo` — the same fits on parallel arrays (the calling
  convention of evalica and choix).
- :func:`maximal_lottery` — the equilibrium of a payoff matrix, as
  ``verdict game --format json``.
- :func:`simulate`, :class:`Simulation` — worlds with exact truth, as
  ``verdict simulate``.
- :class:`NashEval`, :func:`evaluate` — context-dependent equilibria fitted on
  contextual feedback, as ``verdict fit``, ``predict`` and ``evaluate``.
- :func:`judge`, :class:`Judge`, :func:`oracle_allocation`, :func:`ivwe` — scores from several LLM
  judges under a budget (Est-IVWE), with intervals, a target error and gold labels,
  through a spend ledger, as ``verdict judge``; :func:`plan_budget` (``--plan``),
  :func:`ppi_mean` and :func:`krippendorff_alpha`.
- :func:`ope`, :class:`OpeResult` — candidate routers scored on a decision log
  (IPS, SNIPS, doubly robust, duels, costs), as ``verdict ope``.
- :func:`battle_counts`, :func:`fold_counts`, :class:`BatchPredictor` — the map side
  of leaderboards and predictions on Spark, Ray or any engine that hands over Arrow
  batches (``docs/scale-out.md``).
- :func:`report` — results drawn as one self-contained HTML page, as ``verdict report``.
- :mod:`verdict_arena.errors` — the exception classes, one per kind of failure.
"""

from __future__ import annotations

from . import errors
from ._game import maximal_lottery
from ._judges import (
    Judge,
    JudgeResult,
    ivwe,
    judge,
    krippendorff_alpha,
    oracle_allocation,
    plan_budget,
    ppi_mean,
    shared_errors,
)
from ._nasheval import NashEval, Simulation, embed, evaluate, simulate
from ._ope import OpeResult, ope
from ._rank import BradleyTerryResult, EloResult, bradley_terry, elo, rank
from ._report import report
from ._scale_out import SPARK_COUNTS_SCHEMA, BatchPredictor, battle_counts, counts_schema, fold_counts

__all__ = [
    "errors",
    "rank",
    "bradley_terry",
    "elo",
    "BradleyTerryResult",
    "EloResult",
    "maximal_lottery",
    "simulate",
    "Simulation",
    "NashEval",
    "embed",
    "evaluate",
    "ope",
    "OpeResult",
    "judge",
    "Judge",
    "JudgeResult",
    "oracle_allocation",
    "ivwe",
    "plan_budget",
    "ppi_mean",
    "shared_errors",
    "krippendorff_alpha",
    "report",
    "battle_counts",
    "fold_counts",
    "counts_schema",
    "SPARK_COUNTS_SCHEMA",
    "BatchPredictor",
]
