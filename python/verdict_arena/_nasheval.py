"""NashEval from Python: :func:`simulate` and :class:`Simulation` (worlds with exact
truth), :class:`NashEval` (fit, predict, payoffs, save, load) and :func:`evaluate`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any, Mapping, Optional, Sequence

from . import _native
from .errors import InputError, OutputExistsError
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
    feedback: str = "pairwise",
    voters: int = 3,
    agents: int = 16,
    contexts: int = 20_000,
    test_contexts: int = 4096,
    seed: int = 70,
    rho: float = 0.0,
) -> Simulation:
    """A world with exact ground truth, as ``verdict simulate``: Appendix G of the
    NashEval paper (``world="appendix-g"``: 5 agents, ``feedback`` pairwise, ranking
    or winner, 1–5 ``voters``) or an arena-shaped world (``world="arena"``: ``agents``
    agents, one popularity-skewed pair per context). Written to the new directory
    ``out``, or to a temporary one kept while the returned :class:`Simulation` lives.
    ``rho`` regularizes the true equilibria (0: maximal lotteries; give a fit's ``rho``
    to score it against equilibria regularized alike).
    """
    owned = None
    if out is None:
        owned = tempfile.TemporaryDirectory(prefix="verdict-simulation-")
        out = os.path.join(owned.name, "simulation")
    _native.simulate(
        os.fspath(out), world=world, feedback=feedback, voters=voters, agents=agents,
        contexts=contexts, test_contexts=test_contexts, seed=seed, rho=rho,
    )
    return Simulation(out, _owned=owned)


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
    ``"auto"``, ``"pooled"`` or ``"per-menu"``; ``allow_unobserved`` extrapolates pairs that never
    met. ``text_col``/``text_dim``/``categorical`` set how contexts become features.
    ``method``: ``"nasheval"``, or one of the paper's per-context baselines on the
    surface it uses (Appendix I.3): ``"bt-plugin"``, ``"bt-debiased"``, ``"borda"``,
    ``"bt-reg"``, ``"bt-cost"`` (needs ``costs`` and ``budget``); or a global one,
    one lottery for every context from the training verdicts: ``"lottery"`` (Eq. 78),
    ``"robust-lottery"`` (Eq. 79–81, over the values of the categorical context column
    ``groups_by``, radius ``robust_radius`` or Eq. 80's), ``"pluralistic"`` (Eq. 82–84,
    the top three of the pluralistic leaderboard); a baseline sets the variant and the
    policy itself.
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
        categorical: str = "onehot",
        method: str = "nasheval",
        groups_by: Optional[str] = None,
        robust_radius: Optional[float] = None,
    ):
        self.method = method
        self.groups_by = groups_by
        self.robust_radius = robust_radius
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
        self.categorical = categorical
        self.model_ = None

    def fit(
        self,
        contexts: Any = None,
        feedback: Any = None,
        *,
        battles: Any = None,
        context_columns: Sequence[str] = (),
        text_col: Optional[str] = None,
    ) -> "NashEval":
        """Fits on a contexts table (``context_id`` and features) with a feedback table
        (``context_id, menu, modality, response``), or on a battle log (``battles=``)
        whose ``context_columns`` make the context. Paths or frames. Returns self.
        Ctrl-C stops waiting at once (``KeyboardInterrupt``); the abandoned fit
        finishes unobserved and nothing is written."""
        self.model_ = _native.fit(
            contexts=contexts,
            feedback=feedback,
            battles=battles,
            context_columns=list(context_columns),
            text_col=text_col if text_col is not None else self.text_col,
            text_dim=self.text_dim,
            categorical=self.categorical,
            method=self.method,
            variant=self.variant,
            policy=self.policy,
            backbone=self.backbone,
            rho=self.rho,
            folds=self.folds,
            seed=self.seed,
            costs=_costs(self.costs),
            budget=self.budget,
            tune=self.tune,
            nuisance_design=self.nuisance_design,
            allow_unobserved=self.allow_unobserved,
            groups_by=self.groups_by,
            robust_radius=self.robust_radius,
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

    def predict(self, contexts: Any):
        """Each context's equilibrium over agents and its winner set (agents with
        probability above the support threshold), as ``verdict predict``: a pandas
        DataFrame indexed by ``context_id`` with one column per agent and ``winners``
        (a list). ``contexts``: a path or a frame with the training features."""
        import pandas as pd

        ids, agents, probabilities, winners, _ = self._model().predict(contexts, False)
        import numpy as np

        frame = pd.DataFrame(
            np.asarray(probabilities).reshape(len(ids), len(agents)),
            index=pd.Index(ids, name="context_id"),
            columns=agents,
        )
        frame["winners"] = winners
        return frame

    def payoffs(self, contexts: Any):
        """Each context's predicted payoff matrix ``Â(x)``: a numpy array of shape
        ``(contexts, agents, agents)`` (rows: the agent played; entries in [-1, 1])."""
        import numpy as np

        ids, agents, _, _, payoffs = self._model().predict(contexts, True)
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
