"""Values the target hands the consumer keep their type where the consumer puts them: a
comprehension's variable is an element of what it iterates, a comprehension that only filters
(`[t for t in c if ...]`) is a container of c's own elements, and what a function stores in a dict
or list it built itself (`d[k] = v`, `xs.append(v)`) is what reading it back gives (`d[k]`,
`d.values()`, `for x in xs`, `xs[0]`), as is an element of a container the consumer annotates
(`specs: dict[str, C]`, `order: list[C]`). A value read through an attribute the consumer first
asked `hasattr` about is a guess that a plainer store replaces. A read of a renamed attribute on such a value is DRIFT060
where Python raises. A container that also received something untyped types nothing. A read in an
assert's message or in a raised exception is risky: that path fails anyway, but the AttributeError
replaces the exception the consumer raises (round 25: Ray built its HTTP error from an `ErrorResponse`
whose fields vLLM moved, and answered 500 instead)."""

from __future__ import annotations

from drift.findings import Severity
from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/kv.py": """
    class Tensor:
        def __init__(self):
            self.size = 1
            self.shared_by = ["a"]


    class Config:
        def __init__(self):
            self.tensors: list[Tensor] = [Tensor()]
    """}
AFTER = {"gizmo/kv.py": """
    class Tensor:
        def __init__(self):
            self.size = 1
            self.layers = ["a"]


    class Config:
        def __init__(self):
            self.tensors: list[Tensor] = [Tensor()]
    """}
CONSUMER = {"app/use.py": """
    from gizmo.kv import Config, Tensor


    def filtered(config: Config):
        kept = [t for t in config.tensors if not any("x" in n for n in t.shared_by)]
        n = len(kept[0].shared_by)
        for t in kept:
            assert len(t.shared_by) == n, f"{len(t.shared_by)} != {n}"
        if not kept:
            raise ValueError(f"no tensor kept of {[t.shared_by for t in config.tensors]}")
        return {t.size for t in config.tensors if t.size}


    def by_name(config: Config):
        specs = {}
        for t in config.tensors:
            if t.size:
                specs["a"] = t
        spec = specs["a"]
        print(spec.shared_by)
        for s in specs.values():
            print(s.shared_by)
        out = []
        for t in config.tensors:
            out.append(t)
        for o in out:
            print(o.shared_by)
        return out[0].shared_by


    def declared(specs: dict[str, Tensor], order: list[Tensor]):
        local: dict[str, Tensor] = {}
        return specs["a"].shared_by, order[0].shared_by, [t.shared_by for t in order], local["a"].size


    def guessed(config: Config):
        by_name = {}
        for t in config.tensors:
            if hasattr(t, "children"):
                by_name["c"] = t.children[0]
            else:
                by_name["t"] = t
        return by_name["t"].shared_by


    def mixed(config: Config):
        specs = {}
        specs["n"] = 1
        for t in config.tensors:
            specs["t"] = t
        return specs["t"].size
    """}


def test_stored_and_filtered_values_keep_their_type(tmp_path):
    src = CONSUMER["app/use.py"]
    every = [f for f in findings_of(tmp_path, Case("stored", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT060"]
    raised = [f for f in every if f.consumer_site.line == line_of(src, "raise ValueError(")]
    assert [f.severity for f in raised] == [Severity.RISKY]
    assert "replaces it" in raised[0].details
    found = [f for f in every if f not in raised]
    expected = {line_of(src, "kept = [t for t in"), line_of(src, "n = len(kept[0].shared_by)"),
                line_of(src, "assert len(t.shared_by) == n"), line_of(src, "print(spec.shared_by)"),
                line_of(src, "print(s.shared_by)"), line_of(src, "print(o.shared_by)"),
                line_of(src, "return out[0].shared_by"), line_of(src, "return specs[\"a\"].shared_by"),
                line_of(src, "return by_name[\"t\"].shared_by")}
    assert {f.consumer_site.line for f in found} == expected, [(f.consumer_site.line, f.title) for f in found]
    assert len(found) == len(expected)  # one per line: `declared` reads the same name three times on its line
    for f in found:
        assert f.severity == Severity.BREAKING
        assert f.predicted_failure == "AttributeError: 'Tensor' object has no attribute 'shared_by'"


def test_python_raises_what_drift_predicts(tmp_path):
    before = write_tree(tmp_path / "before", BEFORE)
    after = write_tree(tmp_path / "after", AFTER)
    app = write_tree(tmp_path / "app", CONSUMER)
    cfg = "__import__('gizmo.kv').kv.Config()"
    for fn in ("filtered", "by_name", "mixed", "guessed"):
        assert raised_by([before, app], "app.use", f"{fn}({cfg})") is None
    for fn in ("filtered", "by_name", "guessed"):
        assert raised_by([after, app], "app.use", f"{fn}({cfg})") == \
            "AttributeError: 'Tensor' object has no attribute 'shared_by'"
    assert raised_by([after, app], "app.use", f"mixed({cfg})") is None
    tensor = "__import__('gizmo.kv').kv.Tensor()"
    assert raised_by([after, app], "app.use", f"declared({{'a': {tensor}}}, [{tensor}])") == \
        "AttributeError: 'Tensor' object has no attribute 'shared_by'"
