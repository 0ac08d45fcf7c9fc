"""`drift diff` freezes its two snapshots for the cyclic GC while it runs (they live until exit in
the CLI); a caller that runs it in-process (a test, a notebook, a service) gets the collector back
as it was: with objects left frozen, every later `gc_paused` pays gc.get_freeze_count()'s walk over
them, and a long process slowed to a crawl."""

from __future__ import annotations

import gc

from drift.commands.diff import run_diff
from tests.rule_cases import write_tree

OLD = {"gizmo/__init__.py": "", "gizmo/core.py": "def f(a, b):\n    return a\n\nclass C:\n    x = 1\n"}
NEW = {"gizmo/__init__.py": "", "gizmo/core.py": "def f(a):\n    return a\n"}


def test_a_diff_leaves_no_object_frozen(tmp_path):
    assert gc.get_freeze_count() == 0
    outcome = run_diff(str(write_tree(tmp_path / "old", OLD)), str(write_tree(tmp_path / "new", NEW)),
                       package="gizmo", cache_dir=str(tmp_path / "cache"))
    assert outcome.error is None and outcome.result is not None
    assert gc.get_freeze_count() == 0


def test_a_callers_own_frozen_objects_stay_frozen(tmp_path):
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        run_diff(str(write_tree(tmp_path / "old", OLD)), str(write_tree(tmp_path / "new", NEW)),
                 package="gizmo", cache_dir=str(tmp_path / "cache"))
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
