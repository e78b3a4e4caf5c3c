"""Skips are said, and in CI they fail the run.

Many tests compare verdict with an independent reference library (choix, evalica,
ppi_py, krippendorff, scipy, ...) imported with ``pytest.importorskip``. A missing
library would quietly turn such a check into a skip; the run prints every skip's
reason (``-rs`` in scripts/test-python.sh), and under ``CI`` (set by CI) a run with any
skipped test fails, naming them: CI installs every reference library, so a skip there
means a check did not run.
"""

import os

import pytest

_skipped: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("CI") and _skipped and exitstatus == 0:
        session.exitstatus = 1
        print(
            "\nCI runs every independent check, but these were skipped: "
            + ", ".join(_skipped)
        )
