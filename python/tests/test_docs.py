"""Every ``python`` block of docs/python.md runs, in order, from a clean interpreter in
a scratch directory where ``examples/`` is the repository's (the blocks of the page
share one interpreter, so a later block may use what an earlier one made)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from _support import ROOT


def python_blocks(page: str) -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def test_every_python_block_of_the_python_page_runs(tmp_path):
    blocks = python_blocks("docs/python.md")
    assert len(blocks) >= 2, "the page's examples were not found"
    os.symlink(ROOT / "examples", tmp_path / "examples")
    script = "\n".join(blocks)
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, f"docs/python.md failed:\n{run.stderr[-3000:]}"
    # What the blocks print: the predictions' frame, the evaluation and the judged mean.
    assert "exploitability" in run.stdout
    assert "std_error" in run.stdout
