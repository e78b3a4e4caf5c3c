"""Report pages: :func:`report`."""

from __future__ import annotations

import html
import json
import os
from typing import Any, Optional, Sequence

from . import _native
from .errors import InputError


def framed(page: str, title: str) -> str:
    """A page inside a frame of its own, for a notebook's output: the page's style
    stays inside the frame."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" title="{html.escape(title)}" '
            'style="width:100%;height:640px;border:0"></iframe>')


def _saved(index: int, result: Any) -> tuple:
    """A result as the native call takes it: a name, and its bytes or a fitted model."""
    ledger = getattr(result, "ledger", None)
    if isinstance(ledger, str):  # a JudgeResult: its run, from its ledger
        result = ledger
    if isinstance(result, (str, os.PathLike)):
        path = os.fspath(result)
        with open(path, "rb") as file:
            return path, file.read()
    model = getattr(result, "model_", None)
    if model is not None:
        return f"model {index}", model
    if hasattr(result, "fit") and hasattr(result, "predict"):
        raise InputError(f"result {index}: this NashEval is not fitted; call fit() first")
    if isinstance(result, dict):
        return f"result {index}", json.dumps(result).encode()
    raise TypeError(
        f"result {index}: a path, a dict from rank(as_frame=False), maximal_lottery() or "
        f"evaluate(), a fitted NashEval or a judge() result, not {type(result).__name__}"
    )


def report(results: Any, out: "os.PathLike[str] | str | None" = None, *,
           title: Optional[str] = None, force: bool = False) -> str:
    """Saved results drawn as one self-contained HTML page, as ``verdict report``:
    inline CSS and SVG, nothing fetched, readable offline. Returns the page; with
    ``out`` also writes it there (atomically, and never over a file verdict did not
    write unless ``force``). In a notebook, ``IPython.display.HTML(report(...))`` shows it.

    ``results``: one result or a list of them, each a path (the JSON of ``verdict
    rank``, ``game --payoffs`` or ``bench judges`` with ``--format json``, a spend
    ledger, a model file, the JSON of ``verdict evaluate``, a ``verdict bench
    nasheval`` results file), a dict as
    :func:`rank` (``as_frame=False``), :func:`maximal_lottery` or :func:`evaluate`
    return it, a fitted :class:`NashEval`, or what :func:`judge` returns (its run,
    from its ledger). One result gets the page its command
    draws; several get one page with a part each, titled ``title``.
    """
    if isinstance(results, (str, os.PathLike, dict)) or hasattr(results, "model_") or hasattr(
            results, "ledger"):
        results = [results]
    saved = [_saved(i + 1, r) for i, r in enumerate(results)]
    page = _native.report_html(saved, title)
    if out is not None:
        _native.write_page(os.fspath(out), page, force)
    return page
