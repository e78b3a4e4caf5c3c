"""NashEval from Python: :func:`simulate` and :class:`Simulation` (worlds with exact
truth), :class:`NashEval` (fit, predict, payoffs, save, load) and :func:`evaluate`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any, Mapping, Optional, Sequence

from . import _native
from .errors import InputError, OutputExistsError, SettingError
from ._rank import _costs


class Simulation:
    """A simulation directory written by :func:`simulate` or ``verdict simulate``:
    training ``contexts`` and ``feedback``, ``test_contexts``, the exact truth, and a
    ``manifest`` (dict). Tables load as pandas frames on first use."""

    def __init__(self, directory: "os.PathLike[str] | str", _owned: Any = None):
        self.directory = os.fspath(directory)
        self._owned = _owned  # a temporary directory kept alive with the object
        manifest = os.path.join(self.directory, "manifest.json")
        if not os.path.isfile(manifest):
            raise InputError(
                f"{self.directory}: not a simulation directory (no manifest.json); "
                "write one with verdict_arena.simulate or verdict simulate"
            )
        with open(manifest, encoding="utf-8") as f:
            self.manifest = json.load(f)

    @classmethod
    def open(cls, directory: "os.PathLike[str] | str") -> "Simulation":
        """Opens a simulation directory."""
        return cls(directory)

    def path(self, name: str) -> str:
        """The path of file ``name`` of the simulation (``contexts.parquet``, ...)."""
        return os.path.join(self.directory, name)

    def _table(self, name: str):
        import pandas as pd

        return pd.read_parquet(self.path(name))

    @property
    def contexts(self):
        """Training contexts: ``context_id`` and features."""
        return self._table("contexts.parquet")

    @property
    def feedback(self):
        """Training feedback: ``context_id, menu, modality, response``."""
        return self._table("feedback.parquet")

    @property
    def battles(self):
        """The arena world's training log in the LMArena schema (``model_a, model_b,
        winner`` and the context columns); None for other worlds."""
        return self._table("battles.parquet") if os.path.exists(self.path("battles.parquet")) else None

    @property
    def test_contexts(self):
        """Test contexts, scored against the truth by :func:`evaluate`."""
        return self._table("test_contexts.parquet")

    def write(self, directory: "os.PathLike[str] | str") -> "Simulation":
        """Copies the simulation to the new directory ``directory`` (an existing one
        is refused, never overwritten) and returns it opened there."""
        target = os.fspath(directory)
        if os.path.exists(target):
            raise OutputExistsError(f"{target} exists; give a new directory")
        shutil.copytree(self.directory, target)
        return Simulation(target)

    def __repr__(self) -> str:
        m = self.manifest
        return (
            f"Simulation({self.directory!r}: {m.get('contexts')} contexts, "
            f"{m.get('test_contexts')} test contexts, {len(m.get('agents', []))} agents)"
        )


def simulate(
    out: "Optional[os.PathLike[str] | str]" = None,
    *,
    world: str = "appendix-g",
    feedback: Optional[str] = None,
    voters: Optional[int] = None,
    agents: Optional[int] = None,
    contexts: int = 20_000,
    test_contexts: int = 4096,
    seed: int = 70,
    rho: float = 0.0,
    propensity_range: Optional[tuple] = None,
    selection_slope: Optional[float] = None,
    popularity_exponent: Optional[float] = None,
    tie_rate: Optional[float] = None,
    preference_scale: Optional[float] = None,
    cycle_strength: Optional[float] = None,
    group_rotation: Optional[float] = None,
    group_balance: Optional[float] = None,
    no_training_truth: bool = False,
) -> Simulation:
    """A world with exact ground truth, as ``verdict simulate``: Appendix G of the
    NashEval paper (``world="appendix-g"``: 5 agents, ``feedback`` pairwise, ranking
    or winner, 1–5 ``voters``) or an arena-shaped world (``world="arena"``: ``agents``
    agents, one popularity-skewed pair per context). Written to the new directory
    ``out``, or to a temporary one kept while the returned :class:`Simulation` lives.
    ``rho`` regularizes the true equilibria (0: maximal lotteries; give a fit's ``rho``
    to score it against equilibria regularized alike). Each world's own settings
    default to its own values when ``None`` (Appendix G: ``feedback="pairwise"``, 3
    ``voters``, ``propensity_range=(0.25, 0.75)``, ``selection_slope`` η = 2 of Eq. 63;
    the arena: 16 ``agents``, ``popularity_exponent`` 1, ``selection_slope`` 1,
    ``tie_rate`` 0.3, ``preference_scale``, ``cycle_strength``, ``group_rotation`` (each
    voter group's own rotated order of three styles: cycles only from mixing groups),
    ``group_balance`` (0 to 1: how even the groups' mix is), and
    ``no_training_truth=True`` to leave out the training contexts' truth); a setting of
    the other world is refused, as ``verdict simulate`` refuses it.
    """
    owned = None
    if out is None:
        owned = tempfile.TemporaryDirectory(prefix="verdict-simulation-")
        out = os.path.join(owned.name, "simulation")
    settings = dict(
        world=world, feedback=feedback, voters=voters, agents=agents,
        contexts=contexts, test_contexts=test_contexts, seed=seed, rho=rho,
        propensity_range=None if propensity_range is None else [float(x) for x in propensity_range],
        selection_slope=selection_slope, popularity_exponent=popularity_exponent,
        tie_rate=tie_rate, preference_scale=preference_scale, cycle_strength=cycle_strength,
        group_rotation=group_rotation, group_balance=group_balance,
        no_training_truth=bool(no_training_truth),
    )
    _native.simulate(json.dumps(settings), os.fspath(out))
    return Simulation(out, _owned=owned)


# The settings of ``verdict fit`` a NashEval holds, by the library's names: each goes
# to the library as it is, which checks it and names it when it does not fit.
_FIT_SETTINGS = (
    "variant", "policy", "backbone", "rho", "folds", "seed", "budget", "tune",
    "nuisance_design", "allow_unobserved", "text_dim", "categorical", "method",
    "groups_by", "robust_radius", "unobserved", "completion_rank", "outcome_backbone", "propensity_backbone",
    "payoff_backbone", "linear_penalty", "payoff_regression", "aggregator",
    "propensity_floor", "propensity_floor_share", "network_init", "hidden",
    "learning_rate", "weight_decay", "batch_size", "max_epochs", "patience",
    "surface_rank", "rank_criterion", "normalize_embeddings", "soft_budget", "price", "surcharge", "width",
)


def embed(texts: Any, encoder: "os.PathLike[str] | str", *, text_col: Optional[str] = None,
          normalize: bool = False):
    """The embeddings of ``texts`` by a static text encoder, as ``verdict embed`` and a
    model fitted with ``encoder=`` compute them: a numpy array of shape ``(texts,
    dimension)``. ``texts``: a list of strings, or a pandas frame with ``text_col``.
    ``encoder``: a directory holding one ``*.safetensors`` token-embedding table and its
    tokenizer JSON (``bash scripts/setup.sh`` makes ``encoders/wordllama-l2-supercat``
    from the ``wordllama`` wheel); each text is the mean of its tokens' rows, scaled to
    unit length when ``normalize``."""
    import numpy as np

    if text_col is not None:
        texts = texts[text_col]
    texts = [str(t) for t in texts]
    dim, values = _native.embed(texts, os.fspath(encoder), normalize)
    return np.asarray(values, dtype=float).reshape(len(texts), dim)


def _with_embeddings(contexts: Any, embeddings: Any, column: str) -> Any:
    """``contexts`` (a frame) with the rows of the 2-D array ``embeddings`` as the
    list column ``column``, which the library reads as one feature per dimension
    (and checks: a NaN names its row). A frame column of arrays needs no help."""
    if embeddings is None:
        return contexts
    import numpy as np
    import pandas as pd

    array = np.asarray(embeddings, dtype=float)
    if array.ndim != 2:
        raise InputError(
            f"embeddings: a 2-D array (one row per context) is needed, not a {array.ndim}-D one"
        )
    if not isinstance(contexts, pd.DataFrame):
        raise InputError(
            "embeddings: pass the contexts as a pandas frame to add them, or store "
            "them in the contexts file as a list column"
        )
    if len(array) != len(contexts):
        raise InputError(
            f"embeddings: {len(array)} rows for {len(contexts)} contexts; give one row per context, in the frame's order"
        )
    if column in contexts.columns:
        raise InputError(f"embeddings: the contexts already have a column {column!r}; name another with embeddings_col")
    return contexts.assign(**{column: list(array)})


class NashEval:
    """NashEval (context-dependent equilibrium evaluation), scikit-learn style: the
    settings of ``verdict fit``, :meth:`fit` on a contextual log, then per-context
    equilibria from :meth:`predict`.

    ``variant``: ``"auto"`` (plug-in or debiased, whichever has the lower
    cross-validated doubly-robust risk), ``"debiased"`` (pseudo-outcomes of Eq. 42),
    ``"plugin"``; ``policy``: ``"network"`` (the gap-loss MLP of Appendix I.2) or
    ``"solver"`` (the regularized equilibrium of ``Â(x)`` per context, Appendix B.6);
    ``backbone``: ``"gbdt"`` (LightGBM) or ``"linear"``; ``rho``: entropy
    regularization (Eq. 74); ``folds`` of cross-fitting; ``costs`` (agent → cost)
    with ``budget``; ``tune`` runs the learner searches; ``nuisance_design``:
    ``"auto"``, ``"structured"``, ``"pooled"`` or ``"per-menu"``; ``allow_unobserved`` extrapolates pairs that never
    met. ``text_col``/``text_dim``/``categorical`` set how contexts become features;
    ``encoder`` (a text encoder directory, see :func:`embed`) embeds ``text_col``
    instead of hashing it, scaled to unit length with ``normalize_embeddings``.
    ``method``: ``"nasheval"``, or one of the paper's per-context baselines on the
    surface it uses (Appendix I.3): ``"bt-plugin"``, ``"bt-debiased"``, ``"borda"``,
    ``"bt-reg"``, ``"bt-cost"`` (needs ``costs`` and ``budget``); or a global one,
    one lottery for every context from the training verdicts: ``"lottery"`` (Eq. 78),
    ``"robust-lottery"`` (Eq. 79–81, over the values of the categorical context column
    ``groups_by``, radius ``robust_radius`` or Eq. 80's), ``"pluralistic"`` (Eq. 82–84,
    the top three of the pluralistic leaderboard); a baseline sets the variant and the
    policy itself. ``unobserved`` says how the global lottery fills pairs never
    compared (``"refuse"``, ``"ties"``, ``"bradley-terry"``, ``"low-rank"`` with
    ``completion_rank`` cyclic components, or ``"core"``), as :func:`rank` does.

    Every other setting of ``verdict fit``, by the flag's name: ``catalogue`` (the
    menus, lists of agent names), ``truth`` (a :class:`Simulation` or its directory,
    for ``variant="oracle"``), ``outcome_backbone``, ``propensity_backbone`` and
    ``payoff_backbone`` (each model's family; ``backbone`` by default),
    ``linear_penalty``, ``payoff_regression`` (``"shared"``, ``"per-pair"`` or
    ``"structured"``),
    ``aggregator`` (``"mean"`` or ``"cubic:ALPHA"``), ``propensity_floor`` and
    ``propensity_floor_share``, ``soft_budget`` (a soft budget B on the expected cost,
    NashEval Eq. 53: the marginal price rises from ``price`` to ``price + surcharge``
    over a transition of ``width`` as the expected cost crosses B), and the policy network's
    ``network_init``, ``hidden``, ``learning_rate``, ``weight_decay``,
    ``batch_size``, ``max_epochs`` and ``patience``; ``surface_rank``, the cyclic
    rank of the structured surfaces (``nuisance_design="structured"``,
    ``payoff_regression="structured"``; chosen when ``None`` by ``rank_criterion``:
    ``"exploitability"``, each rank's policy's held-out exploitability against the
    doubly-robust pseudo-outcomes, the simplest within one standard error of the
    lowest, or ``"log-loss"``, the verdicts' held-out log loss).

    Contexts may carry embeddings: a frame column of arrays, a list column of a
    Parquet or Arrow file, or ``embeddings=`` (a 2-D array, one row per context) in
    :meth:`fit`, :meth:`predict` and :meth:`payoffs`.
    """

    def __init__(
        self,
        variant: str = "auto",
        policy: str = "network",
        backbone: str = "gbdt",
        rho: float = 0.001,
        folds: int = 5,
        seed: int = 0,
        *,
        costs: Optional[Mapping[str, float]] = None,
        budget: Optional[float] = None,
        tune: bool = False,
        nuisance_design: str = "auto",
        allow_unobserved: bool = False,
        text_col: Optional[str] = None,
        text_dim: int = 64,
        encoder: Optional["os.PathLike[str] | str"] = None,
        normalize_embeddings: bool = False,
        categorical: str = "onehot",
        method: str = "nasheval",
        groups_by: Optional[str] = None,
        robust_radius: Optional[float] = None,
        unobserved: str = "refuse",
        completion_rank: int = 1,
        catalogue: Optional[Sequence[Sequence[str]]] = None,
        truth: Optional["Simulation | os.PathLike[str] | str"] = None,
        outcome_backbone: Optional[str] = None,
        propensity_backbone: Optional[str] = None,
        payoff_backbone: Optional[str] = None,
        linear_penalty: float = 1.0,
        payoff_regression: str = "shared",
        aggregator: str = "mean",
        propensity_floor: float = 0.01,
        propensity_floor_share: float = 0.0,
        soft_budget: Optional[float] = None,
        price: float = 0.0,
        surcharge: float = 1.0,
        width: float = 0.01,
        network_init: str = "solver",
        hidden: int = 64,
        learning_rate: float = 1e-3,
        weight_decay: float = 1e-5,
        batch_size: int = 256,
        max_epochs: int = 500,
        patience: int = 30,
        surface_rank: Optional[int] = None,
        rank_criterion: str = "exploitability",
    ):
        self.surface_rank = surface_rank
        self.rank_criterion = rank_criterion
        self.catalogue = catalogue
        self.truth = truth
        self.outcome_backbone = outcome_backbone
        self.propensity_backbone = propensity_backbone
        self.payoff_backbone = payoff_backbone
        self.linear_penalty = linear_penalty
        self.payoff_regression = payoff_regression
        self.aggregator = aggregator
        self.propensity_floor = propensity_floor
        self.propensity_floor_share = propensity_floor_share
        self.soft_budget = soft_budget
        self.price = price
        self.surcharge = surcharge
        self.width = width
        self.network_init = network_init
        self.hidden = hidden
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.method = method
        self.groups_by = groups_by
        self.robust_radius = robust_radius
        self.unobserved = unobserved
        self.completion_rank = completion_rank
        self.variant = variant
        self.policy = policy
        self.backbone = backbone
        self.rho = rho
        self.folds = folds
        self.seed = seed
        self.costs = costs
        self.budget = budget
        self.tune = tune
        self.nuisance_design = nuisance_design
        self.allow_unobserved = allow_unobserved
        self.text_col = text_col
        self.text_dim = text_dim
        self.encoder = encoder
        self.normalize_embeddings = normalize_embeddings
        self.categorical = categorical
        self.model_ = None

    def fit(
        self,
        contexts: Any = None,
        feedback: Any = None,
        *,
        battles: Any = None,
        context_cols: Sequence[str] = (),
        text_col: Optional[str] = None,
        propensity_col: Optional[str] = None,
        embeddings: Any = None,
        embeddings_col: str = "embedding",
    ) -> "NashEval":
        """Fits on a contexts table (``context_id`` and features) with a feedback table
        (``context_id, menu, modality, response``), or on a battle log (``battles=``)
        whose ``context_cols`` make the context. Paths or frames. ``embeddings``:
        a 2-D array, one row per context of the ``contexts`` frame, added as the
        list column ``embeddings_col`` (features ``embedding_0``, ...).
        ``propensity_col``: a feedback column holding the probability each row's menu
        was offered with (the ``propensity`` of a ``verdict serve`` decision log); the
        fit divides by those instead of learning the propensities. Returns self.
        Ctrl-C stops waiting at once (``KeyboardInterrupt``); the abandoned fit
        finishes unobserved and nothing is written."""
        settings = {name: getattr(self, name) for name in _FIT_SETTINGS}
        settings.update(
            context_cols=list(context_cols),
            text_col=text_col if text_col is not None else self.text_col,
            propensity_col=propensity_col,
            costs=_costs(self.costs),
            encoder=None if self.encoder is None else os.fspath(self.encoder),
            catalogue=None if self.catalogue is None else [list(menu) for menu in self.catalogue],
        )
        truth = None if self.truth is None else os.fspath(getattr(self.truth, "directory", self.truth))
        contexts = _with_embeddings(contexts, embeddings, embeddings_col)
        self.model_ = _native.fit(
            json.dumps(settings), contexts=contexts, feedback=feedback, battles=battles, truth=truth
        )
        return self

    def _model(self):
        if self.model_ is None:
            raise RuntimeError("this NashEval is not fitted; call fit() or NashEval.load()")
        return self.model_

    @property
    def agents(self) -> list:
        """Agent names, the column order of every prediction."""
        return self._model().agents

    @property
    def summary(self) -> dict:
        """The fit's summary: chosen surface, held-out risks, gaps, stage times."""
        return json.loads(self._model().summary_json())

    @property
    def global_policy(self) -> Optional[dict]:
        """For a global baseline (``method="lottery"``, ``"robust-lottery"``,
        ``"pluralistic"``): its one lottery (``probabilities``, in :attr:`agents` order)
        and ``detail`` (the robust lottery's groups, weights and radius; the
        pluralistic leaderboard's ``ranking`` as agent indices, checkpoints and prefix
        stability). ``None`` otherwise."""
        return json.loads(self._model().global_json())

    def _encoder(self, encoder: Any) -> Optional[str]:
        chosen = encoder if encoder is not None else self.encoder
        return None if chosen is None else os.fspath(chosen)

    def predict(self, contexts: Any, *, embeddings: Any = None, embeddings_col: str = "embedding",
                encoder: Any = None):
        """Each context's equilibrium over agents and its winner set (agents with
        probability above the support threshold), as ``verdict predict``: a pandas
        DataFrame indexed by ``context_id`` with one column per agent and ``winners``
        (a list). ``contexts``: a path or a frame with the training features
        (``embeddings`` as in :meth:`fit`). ``encoder``: the directory of the encoder
        a model fitted with one embeds its text column with (by default the one this
        object was made with)."""
        import pandas as pd

        contexts = _with_embeddings(contexts, embeddings, embeddings_col)
        ids, agents, probabilities, winners, _ = self._model().predict(
            contexts, False, self._encoder(encoder)
        )
        import numpy as np

        frame = pd.DataFrame(
            np.asarray(probabilities).reshape(len(ids), len(agents)),
            index=pd.Index(ids, name="context_id"),
            columns=agents,
        )
        frame["winners"] = winners
        return frame

    def payoffs(self, contexts: Any, *, embeddings: Any = None, embeddings_col: str = "embedding",
                encoder: Any = None):
        """Each context's predicted payoff matrix ``Â(x)``: a numpy array of shape
        ``(contexts, agents, agents)`` (rows: the agent played; entries in [-1, 1])."""
        import numpy as np

        contexts = _with_embeddings(contexts, embeddings, embeddings_col)
        ids, agents, _, _, payoffs = self._model().predict(contexts, True, self._encoder(encoder))
        return np.asarray(payoffs).reshape(len(ids), len(agents), len(agents))

    def _repr_html_(self) -> Optional[str]:
        """In a notebook a fitted model shows as its page (what :func:`report` draws),
        in a frame of its own so that the page's style stays inside it."""
        if self.model_ is None:
            return None
        from ._report import framed, report

        return framed(report(self, title="NashEval model"), "NashEval model")

    def save(self, path: "os.PathLike[str] | str", *, force: bool = False) -> None:
        """Writes the model file: the same bytes ``verdict fit`` writes for the same
        log and settings; ``verdict predict`` reads it. An existing file that verdict
        did not write is refused and left as it was, unless ``force``."""
        self._model().save(os.fspath(path), force)

    @classmethod
    def load(cls, path: "os.PathLike[str] | str") -> "NashEval":
        """Reads a model file written by :meth:`save` or ``verdict fit``."""
        model = cls()
        model.model_ = _native.Model.load(os.fspath(path))
        return model


def evaluate(model: NashEval, simulation: "Simulation | os.PathLike[str] | str") -> dict:
    """A fitted model scored on a simulation's test contexts against the exact truth,
    as ``verdict evaluate``: ``exploitability`` (mean over contexts of
    ``max_j (A(x) π(x))_j``, NashEval Eq. 69), ``support_f1`` (winner set against the
    true support, Eq. 70), ``game_value`` (Eq. 71), ``payoff_rmse`` (the surface's
    root mean squared error against ``A(x)``), with ``contexts`` and
    ``condorcet_contexts`` (true games with a Condorcet winner)."""
    directory = simulation.directory if isinstance(simulation, Simulation) else os.fspath(simulation)
    return json.loads(model._model().evaluate_json(directory))
