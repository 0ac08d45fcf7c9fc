"""Version tests the consumer writes inside expressions and compound conditions cut the code
they guard on the versions they exclude (`x.gone if version_is("1.0") else 0`,
`if flag and version_is("1.0"):`, a `**kwargs` key set under one), as an `if <version test>:`
statement does; a module-level `SWITCH = False` guards like a test that never holds, and a
function bound onto a target class under such a test is not bound on the excluded side."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, src, write_tree

BEFORE = """
    __version__ = "1.0"

    class Context:
        def __init__(self):
            self.engine = 0
            self.rank = 0

    def get_context() -> Context:
        return Context()

    def start(name, engine=0):
        return name
    """
AFTER = """
    __version__ = "2.0"

    class Context:
        def __init__(self):
            self.rank = 0

    def get_context() -> Context:
        return Context()

    def start(name):
        return name
    """
UTIL = """
    import gizmo
    from packaging.version import Version

    def is_release(v):
        return Version(gizmo.__version__) == Version(v)
    """
MAIN = """
    import os
    import gizmo
    from gizmo import get_context, start
    from app.util import is_release

    FLAG = os.environ.get("FLAG")

    def pick(caches):
        ctx = get_context()
        one = caches[ctx.engine if is_release("1.0") else 0]
        two = is_release("1.0") and ctx.engine
        three = is_release("2.0") or ctx.engine
        if FLAG and is_release("1.0"):
            start("x", engine=ctx.engine)
        if FLAG or not is_release("1.0"):
            pass
        else:
            start("y", engine=1)
        return one, two, three, ctx.engine

    def keywords():
        kw = {"name": "z"}
        if is_release("1.0"):
            kw["engine"] = 0
        return start(**kw)
    """


PATCHES = """
    from gizmo import Context
    from app.util import is_release

    USE_OLD = False


    def _rank_plus_engine(self):
        return self.rank + self.engine


    def _engine_only(self):
        return self.engine


    if is_release("1.0"):
        Context.total = _rank_plus_engine

    if USE_OLD:
        Context.only = _engine_only
    """


def _findings(tmp_path, main=MAIN, patches=PATCHES):
    target = facts_of(write_tree(tmp_path / "after", {"gizmo/__init__.py": AFTER}))
    target["packages"]["gizmo"]["version"] = "2.0"
    baseline = facts_of(write_tree(tmp_path / "before", {"gizmo/__init__.py": BEFORE}))
    baseline["packages"]["gizmo"]["version"] = "1.0"
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/util.py": UTIL, "app/main.py": main,
                                                                "app/patches.py": patches}))
    outcome = check(consumer=cons, target_facts=target, baseline_facts=baseline, target_package="gizmo")
    assert outcome.error is None, outcome.error
    return outcome.report.findings


def test_guarded_operands_are_not_checked_on_the_version_they_exclude(tmp_path):
    # only the unguarded read (and the `or` operand that runs where 2.0 is false: never) remain
    assert_findings(_findings(tmp_path), [("DRIFT060", line_of(MAIN, "return one, two, three, ctx.engine"))])


def test_the_same_code_without_the_tests_is_reported(tmp_path):
    """The cut comes from the version tests, not from the shapes: the same reads with a test
    that holds on the target are all reported."""
    patches = src(PATCHES).replace('is_release("1.0")', 'is_release("2.0")').replace("USE_OLD = False",
                                                                                      "USE_OLD = True")
    main = src(MAIN).replace('is_release("1.0")', 'is_release("2.0")').replace(
        'is_release("2.0") or ctx.engine', 'is_release("1.0") or ctx.engine')
    assert_findings(_findings(tmp_path, main, patches), [
        ("DRIFT060", line_of(main, "one = caches")),
        ("DRIFT060", line_of(main, "two = ")),
        ("DRIFT060", line_of(main, "three = ")),
        ("DRIFT060", line_of(main, 'start("x"')),
        ("DRIFT010", line_of(main, 'start("x"')),
        ("DRIFT010", line_of(main, 'start("y"')),
        ("DRIFT060", line_of(main, "return one, two, three, ctx.engine")),
        ("DRIFT010", line_of(main, 'kw["engine"] = 0')),
        ("DRIFT060", "`Context.engine` no longer exists"),  # in the functions bound onto Context
        ("DRIFT060", "`Context.engine` no longer exists"),
    ])
