"""`drift check DIR --fix`: the fixes written into a source checkout, through the real CLI.

A synthetic library moves `cdiv` (same API) and drops `size=` from `make`; the consumer's tree
is fixed in place, re-checked, and left without `__pycache__`; a second run changes nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.rule_cases import src, write_tree

BEFORE = {
    "gizmo/__init__.py": "",
    "gizmo/utils/__init__.py": """
        def cdiv(a, b):
            return -(a // -b)

        def make(a, size=1):
            return [a] * size
        """,
}
AFTER = {
    "gizmo/__init__.py": "",
    "gizmo/utils/__init__.py": """
        def make(a):
            return [a]
        """,
    "gizmo/utils/math_utils.py": """
        def cdiv(a, b):
            return -(a // -b)
        """,
}
CONSUMER = {
    "app/__init__.py": "",
    "app/main.py": """
        from gizmo.utils import cdiv, make


        def pages(n):
            return cdiv(n, 16)


        def build():
            return make(1, size=2)
        """,
}


def drift(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "drift.cli", *argv], capture_output=True, text=True, timeout=300)


def _trees(tmp_path: Path) -> tuple[Path, list[str]]:
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    consumer = write_tree(tmp_path / "consumer", CONSUMER)
    return consumer, ["-t", str(after), "-b", str(before), "--package", "gizmo"]


def test_fix_writes_safe_fixes_rechecks_and_leaves_no_pycache(tmp_path):
    consumer, args = _trees(tmp_path)
    main = consumer / "app" / "main.py"
    res = drift("check", str(consumer), *args, "--fix")
    assert res.returncode == 1, res.stderr  # the dropped `size=2` is unsafe: still breaking
    text = main.read_text()
    assert "from gizmo.utils import make\nfrom gizmo.utils.math_utils import cdiv\n" in text
    assert "make(1, size=2)" in text
    assert "not applied (unsafe, --unsafe-fixes applies it): app/main.py:" in res.stderr
    assert "breaking 2 -> 1" in res.stderr
    assert not list(consumer.rglob("__pycache__"))
    again = drift("check", str(consumer), *args, "--fix")
    assert "nothing to change" in again.stderr and main.read_text() == text

    res = drift("check", str(consumer), *args, "--fix", "--unsafe-fixes")
    assert res.returncode == 0, res.stderr
    assert "return make(1)" in main.read_text()
    assert not list(consumer.rglob("__pycache__"))


def test_add_todo_marks_what_is_left(tmp_path):
    consumer, args = _trees(tmp_path)
    res = drift("check", str(consumer), *args, "--fix", "--add-todo")
    assert res.returncode == 1, res.stderr
    text = (consumer / "app" / "main.py").read_text()
    assert "    # TODO(drift): DRIFT010 drop `size=2` from the call" in text
    assert text.index("# TODO(drift)") < text.index("return make(1, size=2)")


def test_fix_needs_a_source_tree(tmp_path):
    res = drift("check", "speculators==0.3.0", "-t", "vllm==0.16.0", "--fix")
    assert res.returncode == 2
    assert res.stderr.startswith("drift: error: --fix edits a source checkout") and "Traceback" not in res.stderr
    res = drift("check", str(tmp_path), "-t", "vllm==0.16.0", "--unsafe-fixes")
    assert res.returncode == 2 and "go with --fix" in res.stderr
