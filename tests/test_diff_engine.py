"""drift.analysis.diff on synthetic before/after packages, parsed by the real probe (probes.ast_facts)."""

from __future__ import annotations

import textwrap

import pytest

from drift.analysis.diff import ChangeKind, diff_facts, parse_kind
from drift.analysis.diff.annotations import field_default, normalise

ast_facts = pytest.importorskip("drift.probes.ast_facts")

K = ChangeKind


def facts_of(sources: dict[str, str], *, top: str = "pkg", version: str = "1") -> dict:
    """A facts document for `{module name: source}` (module `pkg` is the package __init__)."""
    modules = {}
    for name, source in sources.items():
        is_pkg = name == top or name.endswith(".__init__")
        name = name.removesuffix(".__init__")
        path = name.replace(".", "/") + ("/__init__.py" if is_pkg else ".py")
        modules[name] = ast_facts.module_facts(
            textwrap.dedent(source).encode(), module=name, path=path
        )
    modules.setdefault(top, ast_facts.module_facts(b"", module=top, path=f"{top}/__init__.py"))
    return {"schema": 1, "packages": {top: {"name": top, "version": version, "modules": modules, "errors": []}}}


def diff(old: dict[str, str], new: dict[str, str], **kw):
    result, error = diff_facts(facts_of(old, version="1"), facts_of(new, version="2"), **kw)
    assert error is None, error
    return list(result.changes)


def kinds(changes) -> list[ChangeKind]:
    return sorted({c.kind for c in changes}, key=list(ChangeKind).index)


def one(changes, kind: ChangeKind):
    hits = [c for c in changes if c.kind is kind]
    assert len(hits) == 1, (kind, [(c.kind.name, c.dotted, c.detail) for c in changes])
    return hits[0]


SIGNATURE_CASES = [
    ("def f(a, b): ...", "def f(a): ...", [K.PARAM_REMOVED]),
    ("def f(a, b): ...", "def f(a, c): ...", [K.PARAM_RENAMED]),
    ("def f(a, b=1): ...", "def f(a, *, b=1): ...", [K.PARAM_KIND_CHANGED]),
    ("def f(a): ...", "def f(a, b): ...", [K.PARAM_REQUIRED_ADDED]),
    ("def f(a): ...", "def f(a, b=2): ...", [K.PARAM_ADDED]),
    ("def f(a, b=1): ...", "def f(a, b): ...", [K.PARAM_DEFAULT_REMOVED]),
    ("def f(a, b=1): ...", "def f(a, b=2): ...", [K.PARAM_DEFAULT_CHANGED]),
    ("def f(a, b=1): ...", "def f(a, b=field(default=1)): ...", []),
    ("def f(a, b): ...", "def f(b, a): ...", [K.PARAM_REORDERED]),
    ("def f(a) -> int: ...", "def f(a) -> str: ...", [K.RETURN_CHANGED]),
    ("def f(a) -> Optional[int]: ...", "def f(a) -> int | None: ...", []),
    ("def f(a) -> List['X']: ...", "def f(a) -> list[X]: ...", []),
    ("def f(a): ...", "def f(a) -> int: ...", []),  # adding an annotation changes nothing
    ("def f(a, *args): ...", "def f(a, *rest): ...", []),
    ("def f(a, **kw): ...", "def f(a): ...", [K.PARAM_REMOVED]),
    ("def f(a, b): ...", "def f(a, b): ...", []),
]


@pytest.mark.parametrize("before, after, expected", SIGNATURE_CASES)
def test_function_signature_changes(before, after, expected):
    changes = diff({"pkg.m": before}, {"pkg.m": after})
    assert kinds(changes) == expected
    for change in changes:
        assert change.module == "pkg.m" and change.symbol == "f"
        assert change.old[0].path == "pkg/m.py" and change.old[0].line == 1
        assert change.new[0].path == "pkg/m.py"


def test_removed_parameter_absorbed_by_kwargs_is_said():
    change = one(diff({"pkg.m": "def f(a, b): ..."}, {"pkg.m": "def f(a, **kw): ..."}), K.PARAM_REMOVED)
    assert "b" in change.detail and "**kwargs" in change.detail


def test_rename_detail_names_both_and_position():
    change = one(diff({"pkg.m": "def f(a, b): ..."}, {"pkg.m": "def f(a, c): ..."}), K.PARAM_RENAMED)
    assert change.detail == "b -> c (position 1)"


def test_methods_compared_and_removed_method_found_in_base():
    old = {"pkg.m": """
        class Base:
            pass
        class A(Base):
            def run(self, x): ...
            def stop(self): ...
    """}
    new = {"pkg.m": """
        class Base:
            def run(self, x, y): ...
        class A(Base):
            pass
    """}
    changes = diff(old, new)
    required = one(changes, K.PARAM_REQUIRED_ADDED)
    assert required.symbol == "A.run" and required.new[0].line == 3  # the inherited definition
    removed = one(changes, K.SYMBOL_REMOVED)
    assert removed.symbol == "A.stop" and removed.old[0].line == 6


def test_class_bases_and_kind():
    old = {"pkg.m": "class A(X, Y): ...\nclass X: ...\nclass Y: ..."}
    new = {"pkg.m": "class A(X): ...\nclass X: ...\nclass Y: ..."}
    change = one(diff(old, new), K.BASE_CHANGED)
    assert change.detail == "(X, Y) -> (X)"
    # module-qualified vs bare spelling of the same base is not a change
    assert diff({"pkg.m": "import abc\nclass A(abc.ABC): ..."}, {"pkg.m": "from abc import ABC\nclass A(ABC): ..."}) == []


def test_dataclass_fields():
    old = {"pkg.m": """
        from dataclasses import dataclass, field
        @dataclass
        class C:
            a: int
            gone: int = 0
            flag: bool | None = None
            size: int = field(default=4)
    """}
    new = {"pkg.m": """
        from dataclasses import dataclass, field, InitVar
        from pydantic import Field
        @dataclass
        class C:
            a: int
            is_enc: InitVar[bool]
            new_req: str
            flag: bool = True
            size: int = Field(default=4, ge=0)
            opt: int = 1
    """}
    changes = diff(old, new)
    added = sorted(c.detail for c in changes if c.kind is K.FIELD_REQUIRED_ADDED)
    assert added == ["InitVar is_enc: InitVar[bool]", "new_req: str"]
    assert one(changes, K.FIELD_REMOVED).detail == "gone"
    default = one(changes, K.FIELD_DEFAULT_CHANGED)
    assert default.detail == "flag: None -> True"
    assert default.old[0].line == 7 and default.new[0].line == 9


def test_module_removed_added_and_symbol_moved_prefers_same_kind():
    old = {"pkg.old": "class Widget: ...\ndef helper(): ...", "pkg.core": "def keep(): ...\ndef lost(): ..."}
    new = {
        "pkg.new.widgets": "class Widget: ...",
        "pkg.other": "def Widget(): ...",
        "pkg.core": "def keep(): ...",
    }
    changes = diff(old, new)
    assert {c.module for c in changes if c.kind is K.MODULE_REMOVED} == {"pkg.old"}
    assert {c.module for c in changes if c.kind is K.MODULE_ADDED} == {"pkg.new.widgets", "pkg.other"}
    moved = one(changes, K.SYMBOL_MOVED)
    assert moved.symbol == "Widget" and "pkg.new.widgets" in moved.detail
    assert moved.new[0].path == "pkg/new/widgets.py" and moved.new[0].line == 1
    removed = one(changes, K.SYMBOL_REMOVED)
    assert removed.dotted == "pkg.core.lost"


def test_reexported_symbol_is_resolved_and_compared_where_defined():
    old = {"pkg.api": "def call(a, b): ..."}
    new = {"pkg.api": "from pkg._impl import call", "pkg._impl": "def call(a): ..."}
    changes = diff(old, new)
    change = one(changes, K.PARAM_REMOVED)
    assert change.dotted == "pkg.api.call"
    assert change.new[0].path == "pkg/_impl.py"
    assert not any(c.kind in (K.SYMBOL_REMOVED, K.SYMBOL_MOVED) for c in changes)


def test_package_reexport_removed():
    old = {"pkg": "from pkg.core import Thing", "pkg.core": "class Thing: ..."}
    new = {"pkg": "", "pkg.core": "class Thing: ..."}
    change = one(diff(old, new), K.SYMBOL_MOVED)  # gone from the facade, defined elsewhere
    assert change.dotted == "pkg.Thing"
    assert change.detail == "class Thing is no longer re-exported here; it is defined in pkg.core"


TWO_PHASE_OLD = """
class Runner:
    def __init__(self):
        self.state = None

    def execute(self, batch) -> Out:
        out = compute(batch)
        return out
"""

TWO_PHASE_NEW = """
class Runner:
    def __init__(self):
        self.state = None

    def execute(self, batch) -> Out | None:
        if self.state is not None:
            raise RuntimeError("sample() must be called after execute()")
        self.state = compute(batch)
        return None

    def sample(self):
        if self.state is None:
            return None
        out = self.state
        self.state = None
        return out
"""


def test_two_phase_protocol_with_evidence():
    changes = diff({"pkg.r": TWO_PHASE_OLD}, {"pkg.r": TWO_PHASE_NEW})
    change = one(changes, K.TWO_PHASE_PROTOCOL)
    assert change.symbol == "Runner.execute"
    assert change.detail == "two-phase protocol: execute now returns None and hands state to sample via self.state"
    notes = {(e.line, e.note) for e in change.new}
    assert (10, "return None") in notes
    assert (9, "sets self.state") in notes
    assert (13, "sample reads self.state") in notes and (15, "sample reads self.state") in notes
    assert (16, "sample resets self.state") in notes
    assert change.old[0].line == 6
    raised = one(changes, K.STATE_RAISE_ADDED)
    assert raised.new[0].line == 8 and "self.state is not None" in raised.detail
    assert not any(c.kind is K.RETURNS_NONE for c in changes)


def test_returns_none_without_handoff_and_not_when_declared_none():
    old = {"pkg.m": "def f(x) -> int:\n    return x\ndef g(x) -> None:\n    pass"}
    new = {"pkg.m": "def f(x) -> int:\n    log(x)\n    return None\ndef g(x) -> None:\n    return None"}
    change = one(diff(old, new), K.RETURNS_NONE)
    assert change.symbol == "f" and change.new[0].line == 3


def test_return_shape_dependency_and_asserts():
    old = {"pkg.m": """
        def rpc(method, rank=None):
            responses = send(method)
            return responses

        def alloc(request, n):
            return n
    """}
    new = {"pkg.m": """
        def rpc(method, rank=None):
            out_rank = rank
            responses = send(method)
            return responses[0] if out_rank is not None else responses

        def alloc(request, n):
            assert len(request.block_hashes) >= n
            return n
    """}
    changes = diff(old, new)
    shape = one(changes, K.RETURN_SHAPE_DEPENDS)
    assert shape.symbol == "rpc" and "rank" in shape.detail and shape.new[0].line == 5
    asserted = one(changes, K.ARG_ASSERT_ADDED)
    assert asserted.symbol == "alloc" and asserted.detail.startswith("request.block_hashes")


def test_private_flag_and_filters():
    old = {"pkg.m": "def pub(a): ...\ndef _priv(a): ...\nclass K:\n    def _m(self, a): ...",
           "pkg.sub.x": "def f(a): ..."}
    new = {"pkg.m": "def pub(): ...\ndef _priv(): ...\nclass K:\n    def _m(self): ...",
           "pkg.sub.x": "def f(): ..."}
    changes = diff(old, new)
    private = {c.dotted for c in changes if c.private}
    assert private == {"pkg.m._priv", "pkg.m.K._m"}
    public = diff(old, new, public_only=True)
    assert {c.dotted for c in public} == {"pkg.m.pub", "pkg.sub.x.f"}
    assert {c.module for c in diff(old, new, module_prefix="pkg.sub")} == {"pkg.sub.x"}
    assert diff(old, new, module_prefix="pkg.su") == []
    assert diff(old, new, kinds=[K.PARAM_ADDED]) == []


def test_dunder_methods_are_public():
    changes = diff({"pkg.m": "class A:\n    def __init__(self, a): ..."}, {"pkg.m": "class A:\n    def __init__(self): ..."})
    assert one(changes, K.PARAM_REMOVED).private is False


def test_package_selection_errors():
    old, new = facts_of({"pkg.m": ""}), facts_of({"pkg.m": ""})
    result, error = diff_facts(old, new, package="nope")
    assert result is None and "nope" in error
    both = facts_of({"pkg.m": "x = 1"})
    both["packages"]["other"] = facts_of({"other.m": "y = 1"}, top="other")["packages"]["other"]
    result, error = diff_facts(both, new)
    assert result is None and "--package" in error
    result, error = diff_facts({"packages": {}}, new)
    assert result is None and "no package" in error


def test_unparseable_module_is_skipped_not_reported_as_everything_removed():
    old = facts_of({"pkg.m": "def f(a): ..."})
    new = facts_of({"pkg.m": "def f(a:\n"})
    result, error = diff_facts(old, new)
    assert error is None and result.changes == ()


def test_json_document_is_versioned():
    result, _ = diff_facts(facts_of({"pkg.m": "def f(a): ..."}), facts_of({"pkg.m": "def f(): ..."}))
    data = result.to_dict()
    assert data["schema"] == "drift.diff/1"
    assert data["summary"] == {"changes": 1, "breaking": 1, "private": 0, "by_kind": {"PARAM_REMOVED": 1}}
    change = data["changes"][0]
    assert change["message"] == "parameter was removed" and change["old"][0] == {"path": "pkg/m.py", "line": 1, "note": None}


def test_parse_kind_and_normalisers():
    assert parse_kind("param-removed") is K.PARAM_REMOVED
    assert parse_kind("parameter was removed") is K.PARAM_REMOVED
    assert parse_kind("bogus") is None
    assert normalise("Union[int, None]") == normalise("Optional[int]") == normalise("None | int")
    assert normalise("typing.Dict[str, 'X']") == "dict[str, X]"
    assert field_default("Field(default=4, ge=0)") == "4"
    assert field_default("field(default_factory=list)") == "list()"
    assert field_default("Field(..., ge=1)") == "Field(..., ge=1)"
