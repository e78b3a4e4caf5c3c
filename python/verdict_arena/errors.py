"""The exceptions verdict_arena raises, one class per kind of failure.

Every class derives from :class:`VerdictError` and from the built-in exception a
Python user would expect, so ``except ValueError`` and ``except FileNotFoundError``
keep working:

- :class:`InputError` (``ValueError``): the data given breaks a rule — a malformed
  row, a missing column, a model battling itself, a damaged ledger or result.
- :class:`SettingError` (``ValueError``): a setting outside its range, or settings
  that cannot work together. ``setting`` names it when the library does.
- :class:`BudgetError` (``ValueError``): a budget too small for what was asked.
- :class:`JudgeCallError` (``RuntimeError``): a judge call failed, or a judge stopped
  the run; the ledger keeps what was paid.
- :class:`MissingFileError` (``FileNotFoundError``): a file to read does not exist.
- :class:`OutputExistsError` (``FileExistsError``): a file verdict did not write
  stands where it would write; nothing was replaced.
- :class:`InternalError` (``RuntimeError``): writing failed, or a computation that
  should not fail did; the message says which.

The message always names the place and the fix, as the command line prints it.
"""

from __future__ import annotations


class VerdictError(Exception):
    """Any failure verdict_arena reports (the base of every class here).

    ``setting`` is the keyword argument at fault when the failure is about one (the
    library names it as data), else ``None``."""

    setting: "str | None" = None


class InputError(VerdictError, ValueError):
    """The data given breaks a rule; the message names the file, row or column."""


class SettingError(VerdictError, ValueError):
    """A setting outside its range, or settings that cannot work together."""


class BudgetError(VerdictError, ValueError):
    """A budget too small for what was asked: nothing was spent."""


class JudgeCallError(VerdictError, RuntimeError):
    """A judge call failed or a judge stopped the run; the ledger keeps what was paid."""


class MissingFileError(VerdictError, FileNotFoundError):
    """A file to read does not exist."""


class OutputExistsError(VerdictError, FileExistsError):
    """A file verdict did not write stands where it would write: nothing was replaced."""


class InternalError(VerdictError, RuntimeError):
    """Writing failed, or a computation that should not fail did."""


__all__ = [
    "VerdictError",
    "InputError",
    "SettingError",
    "BudgetError",
    "JudgeCallError",
    "MissingFileError",
    "OutputExistsError",
    "InternalError",
]
