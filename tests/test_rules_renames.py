"""Renames from the baseline's deprecation code (probes/deprecations.py, rules/renames.py): the
probe reads the shim, the rules offer the successor, the planner writes it, and the patched
consumer really runs on the target (its calls are executed, not compared with a string)."""

from __future__ import annotations

import ast

from drift.probes.deprecations import deprecations

from drift.findings import SAFE, UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by, src, write_tree

BEFORE = """
    import warnings


    class Outputs:
        def __init__(self, regex=""):
            self.regex = regex


    class Guided(Outputs):
        def __init__(self, regex=""):
            warnings.warn("Guided is deprecated. Please use Outputs instead.", DeprecationWarning)
            super().__init__(regex)


    class Sampling:
        def __init__(self, n=1, outputs=None, guided=None, quiet=None, verbose=False):
            if guided is not None:
                warnings.warn("guided is deprecated; use outputs instead", DeprecationWarning)
                outputs = guided
            if quiet is not None:
                warnings.warn(f"quiet is deprecated and will go in {2}. Use verbose instead.")
                verbose = not quiet
            self.n, self.outputs, self.verbose = n, outputs, verbose


    class Config:
        def __init__(self, enable_sp=False):
            self.enable_sp = enable_sp

        @property
        def sequence_parallel(self):
            warnings.warn("sequence_parallel is deprecated, use `enable_sp`", DeprecationWarning)
            return self.enable_sp
    """
AFTER = """
    class Outputs:
        def __init__(self, regex=""):
            self.regex = regex


    class Sampling:
        def __init__(self, n=1, outputs=None, verbose=False):
            self.n, self.outputs, self.verbose = n, outputs, verbose


    class Config:
        def __init__(self, enable_sp=False):
            self.enable_sp = enable_sp
    """
CONSUMER = """
    from gizmo.params import Config, Guided, Sampling


    def make(regex):
        cfg = Config(enable_sp=True)
        on = cfg.sequence_parallel
        return Sampling(n=1, guided=Guided(regex=regex), verbose=True), on


    def loud():
        return Sampling(quiet=False)


    def from_dict(regex):
        kwargs = {"n": 2, "guided": Guided(regex)}
        return Sampling(**kwargs)


    def set_only(regex, n=None):
        kwargs = {"n": n, "guided": Guided(regex)}
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        return Sampling(**kwargs)
    """


def test_the_probe_records_each_shim_with_its_conversion():
    got = {(r["owner"], r["old"], r["new"], r["via"], r["convert"]) for r in deprecations(ast.parse(src(BEFORE)))}
    assert got == {
        ("", "Guided", "Outputs", "name", None),
        ("Sampling", "guided", "outputs", "keyword", None),
        ("Sampling", "quiet", "verbose", "keyword", "not"),
        ("Config", "sequence_parallel", "enable_sp", "attribute", None),
    }
    # a warning that names a successor the code never hands the value to is no rename
    assert deprecations(ast.parse(src("""
        import warnings
        def f(a=None, b=None):
            if a is not None:
                warnings.warn("a is deprecated, use b instead")
            return b
        """))) == []


def test_successors_are_offered_written_and_run_on_the_target(tmp_path):
    case = Case("renames", {"gizmo/params.py": BEFORE}, {"gizmo/params.py": AFTER}, {"app/main.py": CONSUMER})
    findings = findings_of(tmp_path, case)
    by = {(f.rule_id, f.fix.codemod, f.fix.tier) for f in findings}
    assert ("DRIFT001", "rename_import", SAFE) in by
    assert ("DRIFT060", "rename_attribute", SAFE) in by
    kw = sorted((f.consumer_site.line, f.fix.args["old"], f.fix.tier) for f in findings if f.rule_id == "DRIFT010")
    assert kw == [(7, "guided", SAFE), (11, "quiet", UNSAFE), (15, "guided", SAFE)]
    quiet = next(f for f in findings if f.rule_id == "DRIFT010" and f.fix.args["old"] == "quiet")
    assert "pass `verbose=not False` instead of `quiet=False`" in quiet.fix.description
    assert "gizmo/params.py:" in quiet.fix.description  # the shim's own line is the evidence

    path = "app/main.py"
    files = {path: (tmp_path / "consumer" / path).read_bytes()}
    safe = plan(files, findings)
    text = safe.changes[0].after.decode()
    assert "from gizmo.params import Config, Outputs, Sampling" in text
    assert "on = cfg.enable_sp" in text and 'guided=Outputs(regex=regex)' not in text
    assert 'Sampling(n=1, outputs=Outputs(regex=regex), verbose=True)' in text
    assert 'Sampling(quiet=False)' in text  # held back: the shim converts the value, so unsafe
    assert '{"n": 2, "outputs": Outputs(regex)}' in text
    # a key the solved model follows through a comprehension to Sampling(**...) (DRIFT017)
    keyed = only(findings, "DRIFT017")
    assert (keyed.fix.codemod, keyed.fix.tier) == ("rename_keyword", SAFE)
    assert '{"n": n, "outputs": Outputs(regex)}' in text
    full = plan(files, findings, unsafe_fixes=True).changes[0].after.decode()
    assert "Sampling(verbose=not False)" in full
    assert plan({path: full.encode()}, findings, unsafe_fixes=True).empty  # a second run changes nothing

    # the patched consumer runs on the target and means what it meant on the baseline
    patched = write_tree(tmp_path / "patched", {path: full})
    roots = [tmp_path / "after", patched]
    assert raised_by(roots, "app.main", "make('x')") is None
    assert raised_by(roots, "app.main", "from_dict('y')") is None
    assert raised_by(roots, "app.main", "loud()") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "make('x')") is not None
    import importlib
    import sys
    sys.path[:0] = [str(r) for r in roots]
    try:
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]
        main = importlib.import_module("app.main")
        params, on = main.make("x")
        assert (params.outputs.regex, params.verbose, on) == ("x", True, True)
        assert main.from_dict("y").outputs.regex == "y"
        assert main.set_only("z").outputs.regex == "z"
        assert main.loud().verbose is True  # quiet=False meant verbose on the baseline
    finally:
        del sys.path[:2]
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]


PASS_THROUGH = """
    from gizmo.params import Sampling


    class MySampling(Sampling):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)


    def build(g):
        return MySampling(n=3, guided=g)
    """


def test_a_keyword_through_a_pass_through_init_is_renamed(tmp_path):
    """DRIFT015: `guided=` reaches Sampling.__init__ through the consumer's own **kwargs."""
    case = Case("through", {"gizmo/params.py": BEFORE}, {"gizmo/params.py": AFTER}, {"app/main.py": PASS_THROUGH})
    f = only(findings_of(tmp_path, case), "DRIFT015")
    assert (f.fix.codemod, f.fix.tier) == ("rename_keyword", SAFE)
    path = "app/main.py"
    fixed = plan({path: (tmp_path / "consumer" / path).read_bytes()}, [f]).changes[0].after.decode()
    assert "return MySampling(n=3, outputs=g)" in fixed
    roots = [tmp_path / "after", write_tree(tmp_path / "patched", {path: fixed})]
    assert raised_by(roots, "app.main", "build(1)") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "build(1)").startswith("TypeError")
