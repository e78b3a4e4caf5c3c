"""The example script runs from a clean interpreter and prints what it promises."""

from __future__ import annotations

import subprocess
import sys

from _support import ROOT


def test_the_quickstart_runs():
    printed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "quickstart.py")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "imagenhub_PlayGroundV2_generation" in printed
    assert "'rock': 0.333, 'paper': 0.333, 'scissors': 0.333, 'weak': 0.0" in printed
    assert "500 test contexts: exploitability" in printed
