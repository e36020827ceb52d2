"""Docs/Python.md's notebook example runs as written (with the tool this build made on PATH) and
says what the scene holds: the talker at −40°."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import REPOSITORY


def test_the_notebook_example_runs(tool, tmp_path):
    text = (REPOSITORY / "Docs" / "Python.md").read_text()
    section = text[text.index("### A trace in a notebook"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    environment = dict(os.environ, PATH=os.path.dirname(tool) + os.pathsep + os.environ.get("PATH", ""))
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "scene.png").stat().st_size > 10_000
    median = float(re.search(r"median bearing 0.5–3.5 s: ([+-][0-9.]+)°", result.stdout).group(1))
    assert abs(median - (-40)) <= 3, result.stdout


