"""DRIFT129: a new abstract method of a target base whose parameters one method of the
consumer's class already takes under another name (its hook, renamed in the target) is reported
at that method, besides DRIFT071 at the class (synthetic before/after trees)."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

BEFORE = {"gizmo/attn.py": """
    from abc import ABC, abstractmethod


    class Impl(ABC):
        @abstractmethod
        def forward(self, q, cache, meta):
            raise NotImplementedError
    """}
AFTER = {"gizmo/attn.py": """
    from abc import ABC, abstractmethod


    class Impl(ABC):
        @abstractmethod
        def forward_decode(self, q, cache, meta, layer):
            raise NotImplementedError

        @abstractmethod
        def forward_prefill(self, q, out):
            raise NotImplementedError
    """}
# the consumer's own copy of the older base declares the hook its backends implement
CONSUMER = """
    from abc import abstractmethod

    from gizmo.attn import Impl


    class CommonImpl(Impl):
        @abstractmethod
        def _decode(self, q, cache, meta, layer):
            raise NotImplementedError

        def forward(self, q, cache, meta):
            return self._decode(q, cache, meta, None)


    class FastImpl(CommonImpl):
        def _decode(self, q, cache, meta, layer):
            return q

        def _prefill(self, q, out, scale):
            return out
    """


def test_the_method_with_the_new_abstract_methods_parameters_is_the_renamed_hook(tmp_path):
    case = Case("renamed-hook", BEFORE, AFTER, {"app/backend.py": CONSUMER})
    findings = findings_of(tmp_path, case)
    hooks = [f for f in findings if f.rule_id == "DRIFT129"]
    assert [(f.consumer_site.line, f.symbol) for f in hooks] == [
        (line_of(CONSUMER, "def _decode(self, q, cache, meta, layer):", 2), "gizmo.attn.Impl.forward_decode")]
    assert hooks[0].severity.value == "risky"
    assert "rename `_decode` to `forward_decode`" in hooks[0].fix.description
    # `_prefill` takes another parameter list: no match for forward_prefill; the class itself is DRIFT071's
    assert any(f.rule_id == "DRIFT071" and f.consumer_site.line == line_of(CONSUMER, "class FastImpl")
               for f in findings)
    err = raised_by([tmp_path / "after", tmp_path / "consumer"], "app.backend", "FastImpl()")
    assert err is not None and err.startswith("TypeError: Can't instantiate abstract class FastImpl")
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.backend", "FastImpl()") is None


def test_an_abstract_class_carrying_the_old_protocol_is_reported_risky(tmp_path):
    """CommonImpl declares an abstract hook of its own, so it is never built; but it implements
    the baseline's abstract `forward`, which the target dropped for the new methods: the fix goes
    there. An abstract class that adds nothing of the old protocol stays unreported."""
    plain = CONSUMER.replace("        def forward(self, q, cache, meta):\n"
                             "            return self._decode(q, cache, meta, None)\n", "")
    for tree, expected in ((CONSUMER, ["risky"]), (plain, [])):
        case = Case("carried", BEFORE, AFTER, {"app/backend.py": tree})
        found = [f for f in findings_of(tmp_path / str(len(expected)), case)
                 if f.rule_id == "DRIFT071" and f.consumer_site.line == line_of(tree, "class CommonImpl")]
        assert [f.severity.value for f in found] == expected
        if found:
            assert "old protocol's forward" in found[0].title
