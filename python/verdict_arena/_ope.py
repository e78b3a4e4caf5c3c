"""Off-policy evaluation of routers: :func:`ope`."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence

from . import _native
from ._report import framed
from .errors import InputError


class OpeResult:
    """Candidate routers scored on a decision log, as ``verdict ope --format json``.

    ``report``: the whole result as a dict (``rows``, ``duels``, ``agents``,
    ``outcome_model``, ``candidates`` with ``ips``, ``snips``, ``dr`` — each
    ``{estimate, std_error, ci_low, ci_high}`` — ``overlap``, ``cost``,
    ``versus_first`` and ``duel``). ``html``: its report page.
    """

    def __init__(self, report_json: str, page: str):
        self.report: dict = json.loads(report_json)
        self.html: str = page

    @property
    def candidates(self) -> list:
        """The candidates' scores, in the order given."""
        return self.report["candidates"]

    def to_frame(self):
        """One row per candidate: each estimator's estimate and interval, the overlap,
        the expected cost and the paired DR difference from the first (pandas)."""
        import pandas as pd

        rows = []
        for c in self.candidates:
            row = {"policy": c["policy"]}
            for estimator in ("ips", "snips", "dr"):
                for field in ("estimate", "ci_low", "ci_high"):
                    if estimator in c:
                        row[f"{estimator}_{field}"] = c[estimator][field]
            if "overlap" in c:
                row["effective_sample_size"] = c["overlap"]["effective_sample_size"]
                row["max_weight"] = c["overlap"]["max_weight"]
                row["flagged"] = c["overlap"]["flagged"]
            if c.get("cost"):
                row["cost"] = c["cost"]["estimate"]
            if c.get("versus_first"):
                row["dr_minus_first"] = c["versus_first"][1]["estimate"]
            if c.get("duel"):
                row["duel_dr"] = c["duel"]["dr"]["estimate"]
            rows.append(row)
        return pd.DataFrame(rows)

    def write_report(self, path: "os.PathLike[str] | str", *, force: bool = False) -> None:
        """Writes the page (atomically; never over a file verdict did not write unless
        ``force``)."""
        _native.write_page(os.fspath(path), self.html, force)

    def _repr_html_(self) -> str:
        return framed(self.html, "verdict ope")


def _policy(value: Any) -> Any:
    """A candidate as the native call takes it: a spec string, or a fitted model."""
    model = getattr(value, "model_", None)
    if model is not None:
        return model
    if hasattr(value, "fit") and hasattr(value, "predict"):
        raise InputError("this NashEval is not fitted; call fit() first")
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def ope(decisions: Any, outcomes: Any, policies: Sequence[Any], *, against: Any = None,
        request_col: str = "request_id", outcome_col: str = "outcome",
        cost_col: Optional[str] = None, costs: Optional[Mapping[str, float]] = None,
        encoder: "os.PathLike[str] | str | None" = None, floor: float = 0.01,
        folds: int = 5) -> OpeResult:
    """Would another router have done better on the logged traffic? As ``verdict ope``.

    ``decisions``: the JSON Lines ``verdict serve --decisions`` writes (a path), or a
    decision table (a path or a frame) with ``request_col``, ``chosen`` (or ``menu`` as
    ``a|b`` for a duel), ``propensity``, optional ``routed:<agent>`` columns and the
    context columns. ``outcomes``: a path or a frame with ``request_col`` and
    ``outcome_col`` (a score; for a duel the winner's name, ``tie`` or the first's
    score in [0, 1]). ``policies``: ``"agent:NAME"``, ``"logged"``,
    ``"lottery:FILE"``, a model file, or a fitted :class:`NashEval`; differences are
    against the first. ``against``: the duels' opponent (default the logging policy).
    ``costs``: each agent's price, or ``cost_col`` the observed cost of each answer.
    """
    if isinstance(policies, (str, os.PathLike)) or hasattr(policies, "model_"):
        policies = [policies]
    report_json, page = _native.ope_json(
        decisions if not isinstance(decisions, os.PathLike) else os.fspath(decisions),
        outcomes if not isinstance(outcomes, os.PathLike) else os.fspath(outcomes),
        [_policy(p) for p in policies],
        against=None if against is None else _policy(against),
        request_col=request_col,
        outcome_col=outcome_col,
        cost_col=cost_col,
        costs=None if costs is None else [(str(k), float(v)) for k, v in costs.items()],
        encoder=None if encoder is None else os.fspath(encoder),
        floor=floor,
        folds=folds,
    )
    return OpeResult(report_json, page)
