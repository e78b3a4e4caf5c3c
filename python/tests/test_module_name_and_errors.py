"""The module is installed and imported as ``verdict_arena`` only (``verdict`` on PyPI is
another project), and each kind of failure raises its class of
``verdict_arena.errors``, which is also the built-in a Python user expects."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

from _support import LOG, ROOT, TUTORIAL


def test_the_module_imports_under_its_own_name_only():
    # A fresh interpreter: nothing this test session imported can answer for it.
    probe = (
        "import importlib.util, sys\n"
        "import verdict_arena\n"
        "assert verdict_arena.rank and verdict_arena.errors.VerdictError\n"
        "assert 'verdict' not in sys.modules, 'importing verdict_arena imported verdict'\n"
        "spec = importlib.util.find_spec('verdict')\n"
        "print(spec.origin if spec else '')\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout.strip()
    # Whatever `verdict` is on this machine (nothing, or the other project), it is not
    # ours: no file of this repository answers to that name.
    assert str(ROOT) not in shown, f"`import verdict` finds this repository: {shown}"
    assert importlib.metadata.distribution("verdict-arena").metadata["Name"] == "verdict-arena"


def test_failures_raise_their_class_and_the_builtin_a_user_expects(tmp_path):
    import verdict_arena as va
    from verdict_arena import errors

    with pytest.raises(errors.MissingFileError, match="no-such-log.csv") as missing:
        va.rank(tmp_path / "no-such-log.csv")
    assert isinstance(missing.value, FileNotFoundError)
    assert isinstance(missing.value, errors.VerdictError)

    with pytest.raises(errors.SettingError, match="method") as setting:
        va.rank(TUTORIAL, method="best")
    assert isinstance(setting.value, ValueError)

    bad = tmp_path / "bad.csv"
    bad.write_text("model_a,model_b,winner\nx,y,model_a\nx,y,sideways\n")
    with pytest.raises(errors.InputError, match="sideways") as data:
        va.rank(bad)
    assert isinstance(data.value, ValueError)

    with pytest.raises(errors.BudgetError, match="too small") as budget:
        va.oracle_allocation([[0.1]], [5.0], 1)
    assert isinstance(budget.value, ValueError)

    page = tmp_path / "page.html"
    page.write_text("<p>mine</p>")
    with pytest.raises(errors.OutputExistsError, match="not written by verdict") as exists:
        va.report(va.rank(LOG, as_frame=False), page)
    assert isinstance(exists.value, FileExistsError)
    assert page.read_text() == "<p>mine</p>"


def test_a_setting_error_names_the_keyword_argument_at_fault():
    # The library names the setting as data (`SettingError.setting`); Python's keyword
    # arguments carry the library's names, so no message is searched for it.
    import verdict_arena as va
    from verdict_arena import errors

    # The settings are read before any table: these files need not exist.
    contexts, feedback = "contexts.csv", "feedback.csv"
    for keywords, setting in [
        ({"variant": "best"}, "variant"),
        ({"aggregator": "cubic:-1"}, "aggregator"),
        ({"hidden": "wide"}, "hidden"),
        ({"soft_budget": "high"}, "soft_budget"),
    ]:
        with pytest.raises(errors.SettingError) as refused:
            va.NashEval(policy="solver", backbone="linear", **keywords).fit(contexts, feedback)
        assert refused.value.setting == setting, (keywords, str(refused.value))
        assert setting in str(refused.value)
    with pytest.raises(errors.MissingFileError) as missing:
        va.rank(ROOT / "no-such-dir" / "x.csv")
    assert missing.value.setting is None
