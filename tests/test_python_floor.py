"""The Python versions drift declares, checked statically where the runtime is not on this
machine: the probe runs on the host's interpreter (3.9 and later), drift itself on 3.10 and
later (pyproject's requires-python). vermin reads the syntax and the standard-library names
each file uses and says the oldest Python that has them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("floor,folders", [("3.9", ["probes"]), ("3.10", ["drift", "reports"])])
def test_code_runs_on_the_oldest_python_declared(floor, folders):
    args = [f"-t={floor}-", "--violations", "--no-tips", "--eval-annotations", *[str(REPO / f) for f in folders]]
    code = "import sys, vermin; sys.argv = ['vermin'] + sys.argv[1:]; sys.exit(vermin.main())"
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
