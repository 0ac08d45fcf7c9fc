"""Target names a consumer module hands on to the package's others (probes/reexports.py).

`compat.py` imports vLLM's names (inside `try/except ImportError`, as plugins do) and the rest of
the package imports them from there: those modules never name the target, yet their uses are
uses of the target's objects. drift reads them again with the names resolved, reports each use
where Python fails (the error checked by running the code), and does not report the hand-on
import itself (the import from the target, in compat.py, is where a gone name fails). The usage
cache answers a second scan with the same records, and drops them when compat stops handing
the name on.
"""

from __future__ import annotations

import os

from drift.consumer.usage import collect_usage
from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by, src, write_tree

BEFORE = {
    "gizmo/x.py": """
        class Runner:
            def __init__(self):
                self.size = 1

            def run(self, a):
                return a


        def helper(a):
            return Runner()
        """,
}
AFTER = {
    "gizmo/x.py": """
        class Runner:
            def __init__(self):
                self.width = 1

            def run(self, a, b):
                return a


        def helper(a, b):
            return Runner()
        """,
}
COMPAT = """
    try:
        from gizmo.x import Runner, helper as make_runner
    except ImportError:
        Runner = make_runner = None
    """
USE = """
    from .compat import Runner, make_runner


    def go():
        r = Runner()
        r.run(1)
        return r.size


    def build():
        return make_runner(1)
    """


def test_uses_of_names_a_package_module_hands_on_are_the_targets(tmp_path):
    consumer = {"app/compat.py": COMPAT, "app/use.py": USE}
    found = findings_of(tmp_path, Case("reexports", BEFORE, AFTER, consumer))
    assert_findings(found, [("DRIFT011", line_of(USE, "r.run(1)")),
                            ("DRIFT060", line_of(USE, "return r.size")),
                            ("DRIFT011", line_of(USE, "make_runner(1)"))])
    after, before = [tmp_path / "after", tmp_path / "consumer"], [tmp_path / "before", tmp_path / "consumer"]
    run = next(f for f in found if f.consumer_site.line == line_of(USE, "r.run(1)"))
    assert raised_by(after, "app.use", "go()") == run.predicted_failure
    helper = next(f for f in found if f.consumer_site.line == line_of(USE, "make_runner(1)"))
    assert raised_by(after, "app.use", "build()") == helper.predicted_failure
    assert raised_by(before, "app.use", "(go(), build())") is None


def test_the_usage_cache_keeps_and_drops_the_second_read(tmp_path):
    root = write_tree(tmp_path / "consumer", {"app/compat.py": COMPAT, "app/use.py": USE})
    cache = str(tmp_path / "cache")

    def use_record():
        mods = collect_usage(root, ["app"], ["gizmo"], cache_dir=cache)
        return next((m for m in mods if m["path"] == "app/use.py"), None)

    first = use_record()
    assert first is not None and any(u["path"][0] == "sym:gizmo.x.Runner" for u in first["uses"])
    assert not first["imports"]  # the hand-on import is compat.py's, not reported here
    assert use_record() == first  # warm: the cached record
    compat = root / "app" / "compat.py"
    compat.write_text(src("""
        Runner = None
        make_runner = None
        """))
    os.utime(compat, (1, 1))
    assert use_record() is None  # compat no longer hands a target name on: nothing of the target here
