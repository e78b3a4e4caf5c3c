"""Judges under a budget (Est-IVWE): :func:`judge` with judges from a TOML
configuration or Python callables (:class:`Judge`), through a spend ledger; and
:func:`oracle_allocation` (Theorem 3.2)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import _native
from .errors import InputError


def Judge(
    name: str,
    score: Callable[[Any], Optional[float]],
    cost: float,
    *,
    idempotent: bool = False,
    family: Optional[str] = None,
):
    """A judge that is a Python callable: ``score(item) -> float`` in ``[0, range]``
    for one item (the item as given to :func:`judge`: a dict), at ``cost`` per call.
    ``family`` (e.g. the model's maker): judges of one family may share their mistakes
    on an item (the result's ``shared_errors``); by default a judge is its own family.

    Returning ``None`` reports a failed call: not charged, asked again (three times in
    all). Raising stops the run: the exception propagates once the ledger is settled;
    the call cut off is charged when the run resumes (it may have been paid) unless
    ``idempotent=True`` says asking again costs nothing extra.
    """
    return _native.CallableJudge(name, score, float(cost), idempotent=idempotent, family=family)


@dataclass(frozen=True)
class JudgeResult:
    """A judging run: ``scores`` (a pandas Series by item id), ``intervals`` (a frame
    by item id: ``score``, ``std_error``, ``low``, ``high`` at confidence ``level``),
    ``mean`` (the mean over items with its interval: a dict ``score``, ``std_error``,
    ``low``, ``high``), ``estimated_error`` (the estimated l_p error of the scores),
    ``target_reached`` (with a target error), ``gold`` (with gold labels: the PPI++
    corrected mean, each judge's bias and Krippendorff's alpha, as a dict),
    ``shared_errors`` (the judges' shared mistakes: each judge's family and call
    variance, the item bias's ``bias_sd`` and ``family_correlation``, the panel's
    ``panel_effective_judges``, and per item the bias-aware score and interval that
    cover the true score, with its ``effective_judges``; ``identified`` false with a
    ``note`` when the calls cannot tell the bias), ``spent``
    (never above the budget), successful ``calls``, calls ``replayed`` from the ledger
    and ``made`` now, ``exploration`` (Phase-I calls per pair) and the ``ledger``'s
    path. :func:`report` draws the run's page from its ledger; in a notebook the
    result shows that page."""

    scores: Any
    spent: float
    calls: int
    replayed: int
    made: int
    exploration: Optional[int]
    ledger: Optional[str] = None
    intervals: Any = None
    mean: Optional[dict] = None
    level: float = 0.95
    estimated_error: Optional[float] = None
    target_reached: Optional[bool] = None
    gold: Optional[dict] = None
    shared_errors: Optional[dict] = None

    def _repr_html_(self) -> Optional[str]:
        if self.ledger is None:
            return None
        from ._report import framed, report

        return framed(report(self.ledger, title="Judging run"), "Judging run")


def _items(items: Any) -> list:
    if isinstance(items, (str, os.PathLike)):
        with open(items, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    if hasattr(items, "to_dicts"):  # polars
        return items.to_dicts()
    if hasattr(items, "to_dict") and hasattr(items, "columns"):  # pandas
        return items.to_dict("records")
    return list(items)


def _progress(progress: Any, budget: float):
    """``(report, close)``: what receives each paid call's price, and what ends the
    display."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm

        bar = tqdm(total=budget, desc="budget spent", unit="")
        return bar.update, bar.close
    except ImportError:
        import sys

        spent = [0.0]

        def report(cost: float) -> None:
            spent[0] += cost
            sys.stderr.write(f"\rbudget spent {spent[0]:.4g} of {budget:.4g}")

        return report, lambda: sys.stderr.write("\n")


def _run(items, judges, budget, ledger, progress, **settings) -> dict:
    """One ledgered run of the native module: the parsed result with the calls
    replayed and made."""
    objects = _items(items)
    if isinstance(judges, (str, os.PathLike)):
        judges = os.fspath(judges)
    else:
        judges = list(judges)
    gold = settings.pop("gold", None)
    if gold is not None and not isinstance(gold, (str, os.PathLike)):
        pairs = gold.items() if hasattr(gold, "items") else gold
        gold = [(str(i), float(s)) for i, s in pairs]
    elif gold is not None:
        gold = os.fspath(gold)
    report, close = _progress(progress, float(budget))
    try:
        answer = _native.judge(
            json.dumps(dict(settings, budget=float(budget))),
            json.dumps(objects), objects, judges,
            ledger=os.fspath(ledger), progress=report, gold=gold,
        )
    finally:
        close()
    return {"result": json.loads(answer["result"]), "replayed": answer["replayed"], "made": answer["made"]}


def judge(
    items: Any,
    judges: Union[str, "os.PathLike[str]", Sequence[Any]],
    *,
    budget: float,
    ledger: Union[str, "os.PathLike[str]"],
    p: Union[float, str] = 2,
    method: str = "est-ivwe",
    delta: float = 0.05,
    n0: Optional[int] = None,
    tau: Optional[float] = None,
    seed: int = 0,
    range: float = 1.0,
    progress: Union[bool, Callable[[float], Any]] = False,
    level: float = 0.95,
    target_error: Optional[float] = None,
    gold: Any = None,
) -> JudgeResult:
    """Scores ``items`` with several judges of different cost and noise under
    ``budget``, as ``verdict judge``: every call is written to the spend ledger at
    ``ledger`` before and after it is made, so a run that stops (an exception, Ctrl-C)
    resumes from it when called again with the same arguments — no call is paid twice
    and the budget is never exceeded.

    ``items``: dicts with an ``"id"`` (a list, a pandas or polars frame, or a JSON
    Lines path). ``judges``: the path of a TOML configuration (``verdict judge
    --judges``), or a list of :func:`Judge` (Python callables; ``range`` is their score
    range). ``method``: ``"est-ivwe"`` (Algorithm 1, the default), ``"adaptive"``,
    ``"est-ivwe-gaussian"`` (Appendix G.1), ``"uniform"`` or ``"est-ivwe-shared"`` (for
    judges that share their mistakes: the allocation and the bias-aware scores of
    docs/judges.md, with the judges' families); the estimate is the
    inverse-variance weighted mean ``ŝ_k = Σ_j (N_kj / σ̂²_kj) m_kj / Σ_j N_kj / σ̂²_kj``
    (the GLS score for ``"est-ivwe-shared"``).
    ``p``: the error norm the allocation targets (a number >= 1 or ``"inf"``).
    ``level``: the confidence level of the intervals (``Var(ŝ_k) = Σ a² σ̂² / n`` given
    the allocation, Student-t at Welch–Satterthwaite degrees of freedom; see
    docs/judges.md). ``target_error``: stop once the estimated l_p error ``||se||_p`` is at most
    this, ``budget`` being a cap. ``gold``: gold labels for some items (a CSV path with
    ``id,score``, a dict or Series by id, or ``(id, score)`` pairs), checked before any
    call: the result's ``gold`` holds PPI++'s corrected mean (ppi_py's ``ppi_mean_ci``),
    each judge's bias and Krippendorff's alpha.
    ``progress=True`` shows the budget spent (tqdm if installed, else a line on
    standard error); a callable gets each paid call's price. Ctrl-C stops the run
    between calls (``KeyboardInterrupt``) with nothing left in flight.
    """
    import pandas as pd

    answer = _run(
        items, judges, budget, ledger, progress, p=str(p), method=method, delta=delta, n0=n0,
        tau=tau, seed=seed, range=range, level=level, target_error=target_error, gold=gold,
    )
    result = answer["result"]
    index = pd.Index([row["id"] for row in result["items"]], name="id")
    intervals = pd.DataFrame(
        {key: [row[key] for row in result["items"]] for key in ("score", "std_error", "low", "high")},
        index=index,
    )
    return JudgeResult(
        scores=intervals["score"].rename("score"),
        spent=result["spent"],
        calls=result["calls"],
        replayed=answer["replayed"],
        made=answer["made"],
        exploration=result["exploration"],
        ledger=os.fspath(ledger),
        intervals=intervals,
        mean=result["mean"],
        level=result["level"],
        estimated_error=result["estimated_error"],
        target_reached=result["target_reached"],
        gold=result["gold"],
        shared_errors=result["shared_errors"],
    )


def plan_budget(
    items: Any,
    judges: Union[str, "os.PathLike[str]", Sequence[Any]],
    *,
    target_error: float,
    budget: float,
    ledger: Union[str, "os.PathLike[str]"],
    p: Union[float, str] = 2,
    n0: Optional[int] = None,
    seed: int = 0,
    range: float = 1.0,
    progress: Union[bool, Callable[[float], Any]] = False,
) -> dict:
    """The budget a target error needs, as ``verdict judge --plan``: a pilot of ``n0``
    calls of every (item, judge) pair (default: as many as ``budget`` buys), through
    the ledger, then the oracle allocation's rate for the pilot's estimated variances
    (``B = A_p(ω*) / E²``, the budget paper's Theorem 3.2). Returns a dict:
    ``pilot_calls_per_pair``, ``pilot_spent``, ``oracle_after_pilot``, ``oracle_total``
    (the ``budget`` to give Est-IVWE with the same ``n0``), ``uniform_total``,
    ``judge_of_item``."""
    answer = _run(
        items, judges, budget, ledger, progress, p=str(p), method="est-ivwe", n0=n0, seed=seed,
        range=range, target_error=target_error, plan=True,
    )
    return answer["result"]


def ppi_mean(gold: Sequence[float], judged_gold: Sequence[float], judged_rest: Sequence[float], *, level: float = 0.95) -> dict:
    """PPI++'s estimate of the mean gold label (Angelopoulos et al. 2023; ppi_py's
    ``ppi_mean_ci`` with its defaults): gold labels ``gold`` of some items with the
    judged scores of the same items ``judged_gold``, and the judged scores
    ``judged_rest`` of the others. Returns a dict: ``corrected`` (``score``,
    ``std_error``, ``low``, ``high``), ``lambda`` (the power tuning), ``gold_only`` (the
    labels' own mean and interval), ``judged``, ``labelled``, ``unlabelled``."""
    answer = _native.ppi_mean(
        [float(v) for v in gold], [float(v) for v in judged_gold], [float(v) for v in judged_rest], level=level
    )
    return json.loads(answer)


def krippendorff_alpha(ratings: Sequence[Sequence[Optional[float]]]) -> Optional[float]:
    """Krippendorff's alpha for interval data of ``ratings[item][judge]`` (``None``
    or NaN where a judge did not rate an item); ``None`` when nothing is pairable or
    nothing varies."""
    import math

    rows = [[None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in row] for row in ratings]
    return _native.krippendorff_alpha(rows)


def oracle_allocation(variances: Sequence[Sequence[float]], costs: Sequence[float], budget: float, *, p: Union[float, str] = 2) -> dict:
    """The oracle allocation of Theorem 3.2 for known variances ``variances[k][j]``
    (item k, judge j), ``costs[j]`` and ``budget``: each item's judge ``j*(k) =
    argmin_j c_j σ²_kj``, its budget share ``ω_k ∝ (c_j* σ²_kj*)^(p/(p+2))`` and integer
    ``counts[k][j]`` of calls that never cost more than the budget."""
    judge_of, weight, counts = _native.oracle_allocation(
        [[float(v) for v in row] for row in variances], [float(c) for c in costs], float(budget), p=str(p)
    )
    return {"judge": judge_of, "weight": weight, "counts": counts}


def shared_errors(
    items: Sequence[Any],
    judges: Sequence[Any],
    scores: Sequence[float],
    *,
    families: Optional[Mapping[Any, Any]] = None,
    structure: str = "pooled",
) -> dict:
    """The judges' shared mistakes from scores already in hand, one call per position
    (``items[i]`` scored ``scores[i]`` by ``judges[i]``; a judge scoring an item several
    times gives repeated calls): each judge's call variance, the bias at an item no
    repeated call averages away, its correlation between judges of one family
    (``families``: ``{judge: family}``; other judges each their own), and the panel's
    effective number of independent judges (docs/judges.md, "Judges that share their
    mistakes"). ``structure``: ``"pooled"`` (one bias variance and one within-family
    covariance) or ``"per-judge"``. Returns a dict: ``items``, ``judges``, ``families``,
    ``estimate`` (``call_variance``, ``bias_covariance`` row-major, ``score_variance``
    — None when the bias is not identified — ``panel_effective_judges``),
    ``bias_correlation`` and ``shared_items`` (row-major J×J)."""
    pairs = [(str(j), str(f)) for j, f in (families or {}).items()]
    answer = _native.shared_errors(
        [str(i) for i in items], [str(j) for j in judges], [float(s) for s in scores], pairs, structure
    )
    return json.loads(answer)


def ivwe(
    items: Sequence[Any],
    judges: Sequence[Any],
    scores: Sequence[float],
    *,
    variances: Optional[Mapping[Any, float]] = None,
):
    """The inverse-variance weighted estimate of each item from scores already in
    hand, one call per position (``items[i]`` scored ``scores[i]`` by ``judges[i]``; a
    long frame's three columns): ``ŝ_k = Σ_j (N_kj / σ²_kj) m_kj / Σ_j (N_kj / σ²_kj)``
    (multi-judge budget paper, Section 3). ``variances``: per judge (``{judge: σ²}``) or
    per pair (``{(item, judge): σ²}``); by default each pair's sample variance
    (Est-IVWE's plug-in, which needs two differing scores per pair). Returns a pandas
    Series by item, in order of first appearance."""
    import pandas as pd

    items = [str(i) for i in items]
    judges = [str(j) for j in judges]
    matrix = None
    if variances is not None:
        item_order = list(dict.fromkeys(items))
        judge_order = list(dict.fromkeys(judges))
        per_pair = all(isinstance(k, tuple) for k in variances)
        given = {(str(k[0]), str(k[1])) if per_pair else str(k): float(v) for k, v in variances.items()}

        def variance(item, judge):
            key = (item, judge) if per_pair else judge
            if key not in given:
                raise InputError(f"variances: no entry for {key!r}")
            return given[key]

        matrix = [[variance(i, j) for j in judge_order] for i in item_order]
    names, estimates = _native.ivwe(items, judges, [float(s) for s in scores], variances=matrix)
    return pd.Series(estimates, index=pd.Index(names, name="id"), name="score")
