"""Type stubs of the native half of the module (built from crates/python). The public
API is the package ``verdict_arena``; these are its building blocks."""

from typing import Any, Optional, Sequence

# Every request's settings go over as a settings document: a JSON object of the
# library's setting names (verdict::settings), read and checked by the library.

def default_documents() -> str: ...
def rank_json(settings: str, battles: Any) -> str: ...
def battle_counts(
    settings: str, battles: Any
) -> tuple[list[str], list[str], list[int], list[int], list[int]]: ...
def bradley_terry(
    settings: str, xs: Sequence[str], ys: Sequence[str], winners: Sequence[str]
) -> dict[str, Any]: ...
def elo(
    settings: str, xs: Sequence[str], ys: Sequence[str], winners: Sequence[str]
) -> tuple[list[str], list[float]]: ...
def maximal_lottery_json(
    settings: str, matrix: Sequence[Sequence[float]], names: Sequence[str]
) -> str: ...
def simulate(settings: str, out: str) -> tuple[int, int, int]: ...
def fit(
    settings: str,
    *,
    contexts: Any = None,
    feedback: Any = None,
    battles: Any = None,
    truth: Optional[str] = None,
) -> Model: ...
def embed(texts: Sequence[str], encoder: str, normalize: bool = False) -> tuple[int, list[float]]: ...

def ope_json(
    decisions: Any,
    outcomes: Any,
    policies: Sequence[Any],
    *,
    against: Any = None,
    request_col: str = "request_id",
    outcome_col: str = "outcome",
    cost_col: Optional[str] = None,
    costs: Optional[Sequence[tuple[str, float]]] = None,
    encoder: Optional[str] = None,
    floor: float = 0.01,
    folds: int = 5,
) -> tuple[str, str]: ...

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
        self, contexts: Any, payoffs: bool = False, encoder: Optional[str] = None
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
    settings: str,
    items: str,
    objects: Sequence[Any],
    judges: Any,
    *,
    ledger: str,
    progress: Optional[Any] = None,
    gold: Any = None,
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
