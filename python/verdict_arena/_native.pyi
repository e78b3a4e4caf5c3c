"""Type stubs of the native half of the module (built from crates/python). The public
API is the package ``verdict_arena``; these are its building blocks."""

from typing import Any, Optional, Sequence

def rank_json(
    battles: Any,
    *,
    method: str = "bt",
    model_a: Optional[str] = None,
    model_b: Optional[str] = None,
    winner: Optional[str] = None,
    ties: str = "half",
    bootstrap: Optional[int] = None,
    ci: float = 0.95,
    sandwich: bool = False,
    seed: int = 0,
    anchor: Optional[tuple[str, float]] = None,
    l2: Optional[float] = None,
    filters: Sequence[str] = ...,
    skip_self_battles: bool = False,
    allow_unobserved: bool = False,
    rho: float = 0.0,
    costs: Optional[Sequence[tuple[str, float]]] = None,
    budget: Optional[float] = None,
    covariates: Sequence[str] = ...,
    style_control: bool = False,
    covariate_penalty: float = 0.0,
    pair_weights: Optional[float] = None,
) -> str: ...
def bradley_terry(
    xs: Sequence[str],
    ys: Sequence[str],
    winners: Sequence[str],
    *,
    ties: str = "half",
    l2: Optional[float] = None,
    solver: str = "newton",
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
) -> dict[str, Any]: ...
def elo(
    xs: Sequence[str],
    ys: Sequence[str],
    winners: Sequence[str],
    *,
    k: float = 32.0,
    initial: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
) -> tuple[list[str], list[float]]: ...
def maximal_lottery_json(
    matrix: Sequence[Sequence[float]],
    names: Sequence[str],
    *,
    rho: float = 0.0,
    costs: Optional[Sequence[tuple[str, float]]] = None,
    budget: Optional[float] = None,
) -> str: ...
def simulate(
    out: str,
    *,
    world: str = "appendix-g",
    feedback: str = "pairwise",
    voters: int = 3,
    agents: int = 16,
    contexts: int = 20000,
    test_contexts: int = 4096,
    seed: int = 70,
    rho: float = 0.0,
) -> tuple[int, int, int]: ...
def fit(
    *,
    contexts: Any = None,
    feedback: Any = None,
    battles: Any = None,
    context_columns: Sequence[str] = ...,
    text_col: Optional[str] = None,
    text_dim: int = 64,
    categorical: str = "onehot",
    catalogue: Optional[Sequence[Sequence[str]]] = None,
    method: str = "nasheval",
    variant: str = "auto",
    truth: Optional[str] = None,
    policy: str = "network",
    backbone: str = "gbdt",
    outcome_backbone: Optional[str] = None,
    propensity_backbone: Optional[str] = None,
    payoff_backbone: Optional[str] = None,
    linear_penalty: float = 1.0,
    payoff_regression: str = "shared",
    aggregator: str = "mean",
    rho: float = 0.001,
    folds: int = 5,
    seed: int = 0,
    costs: Optional[Sequence[tuple[str, float]]] = None,
    budget: Optional[float] = None,
    soft_budget: Optional[tuple[float, float, float, float]] = None,
    tune: bool = False,
    nuisance_design: str = "auto",
    allow_unobserved: bool = False,
    propensity_floor: float = 0.01,
    propensity_floor_share: float = 0.0,
    network_init: str = "solver",
    hidden: int = 64,
    learning_rate: float = 1e-3,
    weight_decay: float = 1e-5,
    batch_size: int = 256,
    max_epochs: int = 500,
    patience: int = 30,
    groups_by: Optional[str] = None,
    robust_radius: Optional[float] = None,
) -> Model: ...

class Model:
    """A fitted NashEval model."""

    @staticmethod
    def load(path: str) -> Model: ...
    def save(self, path: str, force: bool = False) -> None: ...
    def global_json(self) -> str: ...
    @property
    def agents(self) -> list[str]: ...
    def summary_json(self) -> str: ...
    def predict(
        self, contexts: Any, payoffs: bool = False
    ) -> tuple[list[str], list[str], list[float], list[list[str]], Optional[list[float]]]: ...
    def evaluate_json(self, simulation: str) -> str: ...

class CallableJudge:
    """A judge that is a Python callable ``item -> score``."""

    name: str
    score: Any
    cost: float
    idempotent: bool
    def __init__(self, name: str, score: Any, cost: float, *, idempotent: bool = False) -> None: ...

def judge(
    items: Sequence[str],
    objects: Sequence[Any],
    judges: Any,
    *,
    budget: float,
    ledger: str,
    p: str = "2",
    method: str = "adaptive",
    delta: float = 0.05,
    n0: Optional[int] = None,
    tau: Optional[float] = None,
    seed: int = 0,
    range: float = 1.0,
    progress: Optional[Any] = None,
    level: float = 0.95,
    target_error: Optional[float] = None,
    gold: Any = None,
    plan: bool = False,
) -> dict[str, Any]: ...
def oracle_allocation(
    variances: Sequence[Sequence[float]], costs: Sequence[float], budget: float, *, p: str = "2"
) -> tuple[list[int], list[float], list[list[int]]]: ...
def ivwe(
    items: Sequence[str],
    judges: Sequence[str],
    scores: Sequence[float],
    variances: Optional[Sequence[Sequence[float]]] = None,
) -> tuple[list[str], list[float]]: ...

def ppi_mean(
    gold: Sequence[float], judged_gold: Sequence[float], judged_rest: Sequence[float], *, level: float = 0.95
) -> str: ...
def krippendorff_alpha(ratings: Sequence[Sequence[Optional[float]]]) -> Optional[float]: ...

def report_html(results: list[tuple[str, bytes | Model]], title: str | None = None) -> str: ...
def write_page(path: str, page: str, force: bool = False) -> None: ...
