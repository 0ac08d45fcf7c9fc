"""A member the target's base class lost, read on a value typed as that base, where the
consumer's own subclasses of it define the member: a platform plugin hands its own backends
around annotated as the target's base (`backend: AttentionBackend`), so the read fails only where
the value is the target's class. DRIFT060 says so as risky, naming the classes; without such a
subclass it stays breaking (drift/analysis/rules/reach.py `_defined_below`)."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, line_of, write_tree

OLD = """
    class Backend:
        @staticmethod
        def cache_shape(n):
            return (n,)

        @staticmethod
        def name():
            return "base"
    """
NEW = """
    class Backend:
        @staticmethod
        def name():
            return "base"
    """
USE = """
    from gizmo.backend import Backend


    def shape_for(backend: Backend, n):
        return backend.cache_shape(n)
    """
OWN = """
    from gizmo.backend import Backend


    class DeviceBackend(Backend):
        @staticmethod
        def cache_shape(n):
            return (2, n)
    """


def _drift060(tmp_path, files):
    b = facts_of(write_tree(tmp_path / "b", {"gizmo/backend.py": OLD}))
    a = facts_of(write_tree(tmp_path / "a", {"gizmo/backend.py": NEW}))
    cons = consumer_of(write_tree(tmp_path / "c", files))
    report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
    assert report is not None
    return [f for f in report.findings if f.rule_id == "DRIFT060"]


def test_a_lost_base_member_the_consumers_subclasses_define_is_risky_with_their_names(tmp_path):
    found = _drift060(tmp_path, {"app/__init__.py": "", "app/use.py": USE, "app/own.py": OWN})
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [(line_of(USE, "cache_shape"), "risky")]
    assert "`DeviceBackend`" in found[0].details


def test_without_such_a_subclass_it_stays_breaking(tmp_path):
    found = _drift060(tmp_path, {"app/__init__.py": "", "app/use.py": USE})
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [(line_of(USE, "cache_shape"), "breaking")]


META_OLD = """
    from dataclasses import dataclass


    @dataclass
    class Metadata:
        seq_lens: list
        computed: list
    """
META_NEW = """
    from dataclasses import dataclass


    @dataclass
    class Metadata:
        seq_lens: list
    """
META_USE = """
    from gizmo.backend import Metadata


    def computed_of(meta: Metadata):
        return meta.computed
    """
META_OWN = """
    from dataclasses import dataclass

    from gizmo.backend import Metadata


    @dataclass
    class DeviceMetadata(Metadata):
        computed: list = None
    """


def test_a_field_the_consumers_dataclass_subclass_declares_counts_as_defined_below(tmp_path):
    """The member may be a field the consumer's own dataclass subclass declares (vllm-ascend's
    `AscendCommonAttentionMetadata` re-declaring `num_computed_tokens_cpu`), not only a method."""
    b = facts_of(write_tree(tmp_path / "b", {"gizmo/backend.py": META_OLD}))
    a = facts_of(write_tree(tmp_path / "a", {"gizmo/backend.py": META_NEW}))
    for label, files, severity in (("own", {"app/use.py": META_USE, "app/own.py": META_OWN}, "risky"),
                                   ("none", {"app/use.py": META_USE}, "breaking")):
        cons = consumer_of(write_tree(tmp_path / label, dict(files, **{"app/__init__.py": ""})))
        report = check(consumer=cons, target_facts=a, baseline_facts=b, target_package="gizmo").report
        found = [f for f in report.findings if f.rule_id == "DRIFT060"]
        assert [(f.consumer_site.line, f.severity.value) for f in found] == \
            [(line_of(META_USE, "meta.computed"), severity)], label
