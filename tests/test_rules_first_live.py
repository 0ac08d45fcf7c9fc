"""Code first run on the target: a branch whose version test is false on the baseline and true on
the target (the `else` of `vllm_version_is("0.28.0")`, written against vLLM main) is held to the
target alone. A name it reads that the target lacks fails there, although the baseline lacks it
too: nothing ever ran that branch before. A helper of the consumer's that returns one version
test (`def use_legacy(): return vllm_version_is("0.29.0")`) is that test where it is called, and
a local or a `self` attribute bound once to such a test guards the branches that test it. Risky: the branch is the consumer's bet on a release
drift has not read. The same reads outside any version test stay silent (already wrong on the
baseline: not drift), and so do reads on the branch the target shuts."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import assert_findings, consumer_of, facts_of, line_of, raised_by, write_tree

LIB = {
    "gizmo/__init__.py": """
        __version__ = "{v}"
        from gizmo.spec import Spec, Config
        from gizmo.core import start, get_context
        """,
    "gizmo/spec.py": """
        class Config:
            def __init__(self):
                self.dims = 1

        class Spec:
            def __init__(self, config: Config):
                self.num_blocks = 4
                self.config = config

            def make(self, *, mode=0):
                return mode
        """,
    "gizmo/core.py": """
        from gizmo.spec import Config

        class Context:
            def __init__(self):
                self.rank = 0
                self.config = Config()

            def drop(self):
                return 0

        def get_context() -> Context:
            return Context()

        def start(name, *, mode=0):
            return name
        """,
}
UTIL = """
    import gizmo

    def is_release(v):
        if gizmo.__version__ == v:
            return True
        return False


    def use_legacy() -> bool:
        'The old path, until the release has the new one.'
        return is_release("1.0")
    """
MAIN = """
    from gizmo import Spec, Config, start, get_context
    from app.util import is_release, use_legacy


    class MySpec(Spec):
        def blocks(self):
            return self.num_blocks if is_release("1.0") else self.num_chunks

        def dims(self):
            return self.config.dims if is_release("1.0") else self.config.mrope_dims


    def go():
        ctx = get_context()
        if is_release("1.0"):
            ctx.drop()
            start("x", mode=1)
        else:
            ctx.drop_blocks()
            start("x", mode=1, ring=2)
        return ctx.rank


    def splat():
        return start("x", **({} if is_release("1.0") else {"ring": 2}))


    def wrapped():
        ctx = get_context()
        if use_legacy():  # a helper of the consumer's that returns one version test
            return ctx.drop()
        return ctx.drop_all()


    def aliased():
        ctx = get_context()
        fresh = ctx is not None and not use_legacy()  # a local bound once to a test holding a version test
        if fresh:
            ctx.drop_more()
        return ctx.rank


    class Flagged:
        def __init__(self, ctx):
            self.ctx = ctx
            self.fresh_path = ctx is not None and not use_legacy()  # an attribute set once to a version test

        def step(self):
            if self.fresh_path:
                self.ctx.drop_fast()
            if self.fresh_path and self.ctx.rank == 0:
                self.ctx.drop_first()
            return 0


    def flagged():
        return Flagged(get_context()).step()


    class Runner(Spec):
        def go(self):
            if not is_release("1.0"):
                return super().make(ring=3)
            return self.num_chunks  # after the early return: runs on the baseline only

        def later(self):
            return self.num_chunks if is_release("2.0") else super().make(mode=1)
    """
# the same reads on no branch at all: wrong on the baseline already
PLAIN = """
    from gizmo import Spec, start, get_context


    class MySpec(Spec):
        def blocks(self):
            return self.num_chunks


    def go():
        get_context().drop_blocks()
        return start("x", ring=2)
    """


def _lib(v: str) -> dict[str, str]:
    return {k: t.replace("{v}", v) for k, t in LIB.items()}


def _check(tmp_path, main: str, *, target="2.0", baseline="1.0"):
    t = facts_of(write_tree(tmp_path / "after", _lib(target)))
    t["packages"]["gizmo"]["version"] = target
    b = facts_of(write_tree(tmp_path / "before", _lib(baseline)))
    b["packages"]["gizmo"]["version"] = baseline
    cons = consumer_of(write_tree(tmp_path / "consumer", {"app/util.py": UTIL, "app/main.py": main}))
    out = check(consumer=cons, target_facts=t, baseline_facts=b, target_package="gizmo")
    assert out.report is not None, out.error
    return out.report.findings


def test_reads_on_a_branch_first_run_on_the_target_are_held_to_the_target(tmp_path):
    found = _check(tmp_path, MAIN)
    assert_findings(found, [
        ("DRIFT060", line_of(MAIN, "self.num_chunks")),
        ("DRIFT060", line_of(MAIN, "mrope_dims")),
        ("DRIFT060", line_of(MAIN, "ctx.drop_blocks()")),
        ("DRIFT010", line_of(MAIN, 'start("x", mode=1, ring=2)')),
        ("DRIFT010", line_of(MAIN, '{"ring": 2}')),  # a key of the arm the target takes, at the key
        ("DRIFT010", line_of(MAIN, "super().make(ring=3)")),
        ("DRIFT060", line_of(MAIN, "self.num_chunks", 3)),
        ("DRIFT060", line_of(MAIN, "ctx.drop_all()")),  # past `if use_legacy(): return`
        ("DRIFT060", line_of(MAIN, "ctx.drop_more()")),  # under `if fresh:`
        ("DRIFT060", line_of(MAIN, "self.ctx.drop_fast()")),  # under `if self.fresh_path:`
        ("DRIFT060", line_of(MAIN, "self.ctx.drop_first()")),  # under `if self.fresh_path and ...:`  # `is_release("2.0")`: true on the target only
    ])
    assert all(f.severity.value == "risky" for f in found), [(f.rule_id, f.severity) for f in found]
    assert all("first runs there" in f.title for f in found)
    by_line = {f.consumer_site.line: f for f in found}
    assert by_line[line_of(MAIN, "self.num_chunks")].predicted_failure == \
        "AttributeError: 'MySpec' object has no attribute 'num_chunks'"
    # Python says the same, running the branch on the target
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.main", "MySpec(Config()).blocks()") == \
        "AttributeError: 'MySpec' object has no attribute 'num_chunks'"
    assert "unexpected keyword argument 'ring'" in raised_by(roots, "app.main", "splat()")
    assert "unexpected keyword argument 'ring'" in by_line[line_of(MAIN, '{"ring": 2}')].predicted_failure


def test_the_same_reads_off_any_version_test_or_on_the_shut_branch_stay_silent(tmp_path):
    assert_findings(_check(tmp_path / "plain", PLAIN), [])
    # checked against the baseline's own release, the else-branches are the ones shut: nothing first runs
    assert_findings(_check(tmp_path / "same", MAIN, target="1.0", baseline="1.0"), [])
