"""Leaderboards from battle logs: :func:`rank` (the numbers of ``verdict rank``), and
Bradley–Terry and Elo on parallel arrays (:func:`bradley_terry`, :func:`elo`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

from . import _native
from .errors import InputError


def _filters(filters: Union[None, Sequence[str], Mapping[str, Any]]) -> list:
    """``["anony=true"]`` as it is; ``{"anony": True}`` as ``["anony=true"]``."""
    if filters is None:
        return []
    if isinstance(filters, Mapping):
        return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in filters.items()]
    if isinstance(filters, str):
        return [filters]
    return [str(f) for f in filters]


def _costs(costs: Optional[Mapping[str, float]]) -> Optional[list]:
    return None if costs is None else [(str(k), float(v)) for k, v in costs.items()]


def _is_polars(table: Any) -> bool:
    return type(table).__module__.split(".")[0] == "polars"


def rank(
    battles: Any,
    method: str = "bt",
    *,
    model_a_col: Optional[str] = None,
    model_b_col: Optional[str] = None,
    winner_col: Optional[str] = None,
    input_format: Optional[str] = None,
    ties: str = "half",
    solver: str = "newton",
    tol: float = 1e-12,
    max_iter: Optional[int] = None,
    k: float = 32.0,
    initial: float = 1000.0,
    shuffle_seed: Optional[int] = None,
    order_by: Optional[str] = None,
    mean: float = 1000.0,
    bootstrap: Optional[int] = None,
    ci: Union[float, str] = 0.95,
    seed: int = 0,
    anchor: Optional[tuple] = None,
    l2: Optional[float] = None,
    filter: Union[None, Sequence[str], Mapping[str, Any]] = None,
    skip_self_battles: bool = False,
    group_by: Optional[str] = None,
    robust: bool = False,
    radius: Optional[float] = None,
    weight_col: Optional[str] = None,
    matrix: bool = False,
    warm: Optional[str] = None,
    judge_col: Optional[str] = None,
    time_col: Optional[str] = None,
    prompt_col: Optional[str] = None,
    collapse_duplicates: bool = False,
    max_votes_per_judge_day: Optional[int] = None,
    outlier_alpha: Optional[float] = None,
    allow_unobserved: bool = False,
    unobserved: str = "refuse",
    completion_rank: int = 1,
    rho: float = 0.0,
    costs: Optional[Mapping[str, float]] = None,
    budget: Optional[float] = None,
    soft_budget: Optional[float] = None,
    price: float = 0.0,
    surcharge: float = 1.0,
    width: float = 0.01,
    max_entropy: bool = False,
    covariates: Optional[Sequence[str]] = None,
    style_control: bool = False,
    covariate_penalty: float = 0.0,
    pair_weights: Optional[float] = None,
    alpha: float = 100.0,
    population: int = 50,
    fragility: bool = False,
    both_bad: str = "tie",
    as_frame: bool = True,
):
    """A leaderboard from a battle log: the numbers of ``verdict rank --format json``.

    ``battles`` is a path (CSV, JSON Lines, JSON, Parquet) or a table — pandas, polars,
    pyarrow, anything with ``__arrow_c_stream__``, read through the Arrow C stream
    interface — with LMArena's columns (``winner`` in ``model_a | model_b | tie |
    tie (bothbad)``; other names through ``model_a_col=``, ``model_b_col=``,
    ``winner_col=``; a path's format follows its extension unless ``input_format``
    says ``"csv"``, ``"jsonl"``, ``"json"``, ``"parquet"`` or ``"arrow"``).
    Bradley–Terry and the lottery read only pair counts, so for them ``battles`` may
    also be a counts table (``model_a, model_b, wins_a, wins_b[, ties]``, or
    ``winner`` with ``count``; ``sql/battle_counts.sql`` makes one from a log on any
    SQL engine), with the same numbers as the log it counts, bootstrap included.

    ``method``: ``"bt"`` (Bradley–Terry by maximum likelihood: ``P(i beats j) =
    p_i / (p_i + p_j)``, Bradley & Terry 1952), ``"elo"`` (online Elo, K = 32),
    ``"lottery"`` (the maximal lottery of the margin matrix, Fishburn 1984; NashEval
    Eq. 78), ``"all"``, the social-choice orders of the pairwise margins
    ``"copeland"`` (pairs won minus pairs lost), ``"schulze"`` (Schulze 2011: models
    beaten by strongest path), ``"ranked-pairs"`` (Tideman 1987) and ``"kemeny"``
    (Kemeny–Young, exact up to 20 models), ``"nash-averaging"`` (Balduzzi et al. 2018:
    the maximum-entropy equilibrium of the log-odds game, with ``probability`` and
    ``nash_average``), ``"alpha-rank"`` (Omidshafiei et al. 2019: the stationary mass
    of the evolutionary chain on the win rates, selection intensity ``alpha`` and
    population ``population``, OpenSpiel's defaults), or ``"plackett-luce"`` (Plackett–Luce by maximum likelihood
    on rankings: ``battles`` is then a feedback table with ``menu``, ``modality`` and
    ``response`` columns, as NashEval reads; tied or unordered blocks through
    Breslow's approximation). ``ties``: ``"half"``, ``"drop"`` or ``"davidson"``;
    Bradley–Terry's ``solver`` (``"newton"`` or ``"mm"``, Zermelo's iteration) stops
    when the gradient's largest entry is at most ``tol`` times the battles, or after
    ``max_iter`` iterations (100 for Newton, 100,000 for MM when ``None``); scores put
    their mean at ``mean`` unless ``anchor`` pins one. Elo: K-factor ``k``, start
    ``initial``, battles replayed in the log's order, sorted by ``order_by``, or in a
    permutation seeded with ``shuffle_seed``. ``matrix=True`` adds the win and
    predicted win-probability matrices to the report.
    Intervals: percentile bootstrap of ``bootstrap`` rounds seeded with ``seed`` (0:
    none; Bradley–Terry and Elo default to 1000, the lottery is bootstrapped only when
    ``bootstrap`` is given) at level ``ci``; ``ci="sandwich"`` gives sandwich normal
    intervals (95 %) instead (``"sandwich:0.9"`` at another level). With bootstrap intervals Elo's ``score`` is the median of
    the replicates (FastChat's convention; ``point`` in the report says so), and the
    lottery gains ``support_share``, the share of replicates keeping a model in the
    winner set. ``anchor=(model, rating)`` pins one model's score; ``l2`` is the ridge
    weight in log10-strength units (GenAI-Arena uses 0.5). ``filters``: rows kept,
    as ``["anony=true", "language!=English", "model_a~gpt"]`` or ``{"anony": True}``
    (``filter``, ``--filter`` on the command line);
    ``skip_self_battles`` drops rows where a model meets itself (otherwise an error).
    ``weight_col`` names a column of per-battle weights (finite, non-negative; e.g.
    inverse-propensity weights): Bradley–Terry and the lottery then maximise the
    weighted likelihood ``sum_r w_r l_r``, the sandwich uses ``sum_r w_r^2 s_r s_r^T``
    and the bootstrap resamples battles (arena-rank's weighted Bradley–Terry); Elo and
    the robust lottery take none. ``warm`` names a saved counts state (a counts table,
    such as ``verdict rank --save-counts`` writes) whose battles are added to
    ``battles``: a log that only grows is refitted from yesterday's counts and today's
    battles with the whole log's numbers.
    Vote hygiene before the fit (each step's count in the report's ``notes``):
    ``collapse_duplicates=True`` keeps the first battle of each judge (``judge_col``),
    prompt (``prompt_col``, text or hash) and pair; ``max_votes_per_judge_day=N`` the
    first N of each judge per UTC day of ``time_col`` (seconds since 1970 or a
    ``YYYY-MM-DD`` date); ``outlier_alpha=a`` drops every battle of judges whose votes
    are implausible against the other judges' on the same pairs (per-vote p-values as
    e-values, flagged when their running product reaches judges / a; the Chatbot Arena
    paper's test). ``fragility=True`` (Bradley–Terry) adds ``flip``: the
    fewest battles found whose removal puts the next model level with or above each
    one — proposed by the influence function (Broderick et al.'s AMIP), confirmed by an
    exact refit, an upper bound on the true fewest — and the report's ``top_flip`` for
    the top model's most fragile challenger. ``both_bad``: ``"tie"`` (LMArena's
    boards), ``"drop"`` or ``"bad"`` — "both bad" as an outcome of its own in the
    grounded Rao–Kupper model of Prompt-to-Leaderboard (``P(i wins) = pi_i / (pi_i +
    theta pi_j + 1)``, ``P(both bad) = 1 / (1 + pi_i + pi_j)``, ties the rest), whose
    ground scores 1000 and whose ``usable`` column is ``pi_i / (1 + pi_i)``, with
    sandwich intervals (Bradley–Terry only).
    The lottery takes ``rho`` (entropy regularization, Eq. 74), ``costs`` (model →
    cost), ``budget`` (a cap on expected cost) or ``soft_budget`` (NashEval Eq. 53:
    the marginal price rises from ``price`` to ``price + surcharge`` over ``width`` as
    the expected cost crosses it), and ``max_entropy`` (of several maximal
    lotteries, the one of maximum entropy instead of minimum norm); ``robust=True``
    the lottery robust to the mix of the ``group_by`` column's groups (NashEval Eq.
    79–81, total-variation ``radius``, Eq. 80's by default). Pairs of models that never met:
    ``unobserved`` is ``"refuse"`` (stop and name the options), ``"bradley-terry"``
    (margins Bradley–Terry predicts), ``"low-rank"`` (Bradley–Terry plus
    ``completion_rank`` cyclic components), ``"core"`` (the lottery of a core of models
    whose pairs all met) or ``"ties"`` (margin 0; ``allow_unobserved=True`` says the
    same); the report's ``lottery.unobserved_diagnosis`` names the members of the winner
    set whose place rests on those pairs.

    Bradley–Terry with covariates (LMArena's "style control"): ``covariates`` names
    numeric columns, one value per battle signed from ``model_a``'s side;
    ``style_control=True`` builds LMArena's style features from the per-side columns
    present (``sum_assistant_a_tokens``/``sum_assistant_b_tokens``,
    ``header_count_a``/``_b``, ``list_count_a``/``_b``, ``bold_count_a``/``_b``, as columns
    or inside LMArena's ``conv_metadata`` dicts/structs; numbers or dicts of counts,
    summed) as ``(a - b) / (a + b + 1)``; ``"outer.field"`` in ``covariates`` reads a
    field of a nested column. Covariates are standardized;
    ``score`` is the model's rating with every covariate at its mean, ``rank_change`` its
    places gained against the plain board, and the report's ``coefficients`` the
    log-odds per standard deviation with their intervals. ``covariate_penalty`` is
    arena-rank's ``reg`` (``reg/2·‖θ‖²`` on the mean log-loss; 0, the default, is the
    maximum-likelihood estimate; arena-rank uses 1), ``pair_weights`` its minimum pair
    count for weights ``1/max(n_pair, m)`` (arena-rank uses 50).

    Returns a DataFrame indexed by model, best first (``score``, ``ci_low``,
    ``ci_high``, ``rank``, ``rank_ub``, ``wins``, ``losses``, ``ties``, ``battles``;
    ``probability``, ``exploitability`` and, bootstrapped, ``support_share`` for the
    lottery; ``flip`` and ``flip_first_order`` with ``fragility``) — polars when ``battles`` was polars — or the JSON
    report as a dict with ``as_frame=False`` or ``method="all"``. Raises ``SettingError`` or ``InputError`` (both ``ValueError``)
    naming the file (or table), row and column of bad input.
    """
    report = json.loads(
        _native.rank_json(
            json.dumps(
                dict(
                    method=method,
                    model_a_col=model_a_col,
                    model_b_col=model_b_col,
                    winner_col=winner_col,
                    input_format=input_format,
                    ties=ties,
                    solver=solver,
                    tol=float(tol),
                    max_iter=max_iter,
                    k=float(k),
                    initial=float(initial),
                    shuffle_seed=shuffle_seed,
                    order_by=order_by,
                    mean=float(mean),
                    bootstrap=bootstrap,
                    ci=ci if isinstance(ci, str) else float(ci),
                    seed=seed,
                    anchor=None if anchor is None else (str(anchor[0]), float(anchor[1])),
                    l2=l2,
                    filter=_filters(filter),
                    skip_self_battles=skip_self_battles,
                    group_by=group_by,
                    robust=bool(robust),
                    radius=radius,
                    matrix=bool(matrix),
                    weight_col=weight_col,
                    warm=None if warm is None else str(warm),
                    judge_col=judge_col,
                    time_col=time_col,
                    prompt_col=prompt_col,
                    collapse_duplicates=bool(collapse_duplicates),
                    max_votes_per_judge_day=max_votes_per_judge_day,
                    outlier_alpha=None if outlier_alpha is None else float(outlier_alpha),
                    allow_unobserved=allow_unobserved,
                    unobserved=unobserved,
                    completion_rank=int(completion_rank),
                    rho=rho,
                    costs=_costs(costs),
                    budget=budget,
                    soft_budget=soft_budget,
                    price=float(price),
                    surcharge=float(surcharge),
                    width=float(width),
                    max_entropy=bool(max_entropy),
                    covariates=[] if covariates is None else [str(c) for c in covariates],
                    style_control=style_control,
                    covariate_penalty=float(covariate_penalty),
                    pair_weights=pair_weights,
                    alpha=float(alpha),
                    population=int(population),
                    fragility=bool(fragility),
                    both_bad=both_bad,
                )
            ),
            battles,
        )
    )
    if not as_frame or method == "all":
        return report
    rows = [_flat_flip(m) for m in report["models"]]
    if _is_polars(battles):
        import polars as pl

        return pl.DataFrame(rows)
    import pandas as pd

    return pd.DataFrame(rows).set_index("name")


def _flat_flip(standing: dict) -> dict:
    """A standing with its ``flip`` as two columns: ``flip`` (the battles a refit
    confirms, None when no removal flips) and ``flip_first_order`` (the AMIP count)."""
    if "flip" not in standing:
        return standing
    flip = standing["flip"]
    return {**standing, "flip": flip["battles"], "flip_first_order": flip["approximate"]}


_EVALICA_WINNERS = {"X": "model_a", "Y": "model_b", "Draw": "tie"}
_NUMBER_WINNERS = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}


def _winner_labels(winners: Sequence[Any]) -> list:
    """Outcome labels from labels (``model_a``, ``b``, ``tie``, ...), scores of the
    first model (1, 0, 0.5) or evalica's ``Winner.X | Y | Draw``."""
    labels = []
    for i, w in enumerate(winners):
        if isinstance(w, str):
            labels.append(w)
        elif type(w).__name__ == "Winner" and getattr(w, "name", None) in _EVALICA_WINNERS:
            labels.append(_EVALICA_WINNERS[w.name])
        else:
            try:
                labels.append(_NUMBER_WINNERS[float(w)])
            except (KeyError, TypeError, ValueError):
                raise InputError(
                    f"winners[{i}]: {w!r} is no outcome; use model_a | model_b | tie | "
                    "tie (bothbad), a score of the first model (1, 0, 0.5) or evalica's Winner"
                ) from None
    return labels


def _names(values: Sequence[Any]) -> list:
    return [str(v) for v in values]


@dataclass(frozen=True)
class BradleyTerryResult:
    """A Bradley–Terry fit: ``scores`` (log-strengths ``ln p_i``, mean zero, a pandas
    Series by model), ``strengths`` (``p_i``, summing to one), ``iterations``,
    ``gradient_norm`` (``‖∇f‖∞`` at the result), ``converged``, ``log_likelihood`` and
    Davidson's ``theta`` (None for other tie models)."""

    scores: Any
    strengths: Any
    iterations: int
    gradient_norm: float
    converged: bool
    log_likelihood: float
    theta: Optional[float]


def bradley_terry(
    xs: Sequence[Any],
    ys: Sequence[Any],
    winners: Sequence[Any],
    *,
    ties: str = "half",
    l2: Optional[float] = None,
    solver: str = "newton",
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
) -> BradleyTerryResult:
    """Bradley–Terry by maximum likelihood on battles given as arrays — ``xs[i]``
    against ``ys[i]`` with outcome ``winners[i]`` (labels, 1/0/0.5, or evalica's
    ``Winner``) — the calling convention of ``evalica.bradley_terry`` and ``choix``.

    ``P(i beats j) = p_i / (p_i + p_j)`` (Bradley & Terry 1952), solved by Newton's
    method (``solver="newton"``) or Zermelo's MM iteration (``"mm"``, Hunter 2004).
    Where the MLE does not exist and no ``l2`` is given, a weak Gaussian prior keeps
    the scores finite (the fit's ``regularization`` says so on the command line).
    """
    import pandas as pd

    settings = dict(ties=ties, l2=l2, solver=solver, tol=tol, max_iter=max_iter)
    fit = _native.bradley_terry(
        # A setting left at None takes the library's default.
        json.dumps({name: value for name, value in settings.items() if value is not None}),
        _names(xs), _names(ys), _winner_labels(winners),
    )
    names = fit["names"]
    return BradleyTerryResult(
        scores=pd.Series(fit["log_strengths"], index=names, name="score"),
        strengths=pd.Series(fit["strengths"], index=names, name="strength"),
        iterations=fit["iterations"],
        gradient_norm=fit["gradient_norm"],
        converged=fit["converged"],
        log_likelihood=fit["log_likelihood"],
        theta=fit["theta"],
    )


@dataclass(frozen=True)
class EloResult:
    """Online Elo ratings: ``scores`` (a pandas Series by model, in order of first
    appearance) and the ``battles`` replayed."""

    scores: Any
    battles: int


def elo(
    xs: Sequence[Any],
    ys: Sequence[Any],
    winners: Sequence[Any],
    *,
    k: float = 32.0,
    initial: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
) -> EloResult:
    """Online Elo over battles given as arrays, in array order (Elo 1978): after each
    battle ``r_a += k (S_a - E_a)`` with ``E_a = 1 / (1 + base^((r_b - r_a) / scale))``
    and ``S_a`` 1, 0 or 1/2. The same arguments as :func:`bradley_terry`; the defaults
    are the command line's (``k=32``; evalica's is 4)."""
    import pandas as pd

    labels = _winner_labels(winners)
    names, ratings = _native.elo(
        json.dumps(dict(k=k, initial=initial, base=base, scale=scale)), _names(xs), _names(ys), labels
    )
    return EloResult(scores=pd.Series(ratings, index=names, name="score"), battles=len(labels))
