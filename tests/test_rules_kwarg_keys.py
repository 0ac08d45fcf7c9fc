"""DRIFT146: an override that reads a key out of its `**kwargs` for a parameter the target renamed.

vllm-ascend 0.7.1's `GroupCoordinator` subclass read `kwargs.get("use_tpu_communicator", False)`;
vLLM 0.7.3 renamed the parameter `use_device_communicator`, so the key never arrived and the
default silently won. Synthetic before/after trees of that shape, run for real.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, src

BEFORE = {"gizmo/parallel.py": """
    class GroupCoordinator:
        def __init__(self, ranks, use_tpu_communicator: bool = False, use_cache: bool = True):
            self.ranks = ranks


    def init_group(cls=GroupCoordinator):
        return cls([0], use_tpu_communicator=True, use_cache=True)
    """}
AFTER = {"gizmo/parallel.py": """
    class GroupCoordinator:
        def __init__(self, ranks, use_device_communicator: bool = False, use_cache: bool = True):
            self.ranks = ranks


    def init_group(cls=GroupCoordinator):
        return cls([0], use_device_communicator=True, use_cache=True)
    """}
CONSUMER = """
    from gizmo.parallel import GroupCoordinator


    class NPUGroup(GroupCoordinator):
        def __init__(self, *args, **kwargs):
            self.device = kwargs.get("use_tpu_communicator", False)
            self.cached = kwargs.get("use_cache", True)
            self.mine = kwargs.pop("npu_only", None)
            super().__init__(*args, **kwargs)
    """


def _case(consumer=CONSUMER):
    return Case("kwkeys", BEFORE, AFTER, {"app/__init__.py": "", "app/group.py": consumer})


def test_a_key_the_target_stopped_passing_is_reported_where_it_is_read(tmp_path):
    found = [f for f in findings_of(tmp_path, _case()) if f.rule_id == "DRIFT146"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [
        (line_of(src(CONSUMER), 'kwargs.get("use_tpu_communicator"'), "breaking")]
    f = found[0]
    assert "`use_device_communicator` is new in its place" in f.title
    assert f.fix.description == "read `use_device_communicator` instead of `use_tpu_communicator`"
    # what the target's own caller does with the subclass: the setting is lost, silently
    roots_after = [tmp_path / "after", tmp_path / "consumer"]
    expr = "__import__('gizmo.parallel', fromlist=['x']).init_group(NPUGroup).device"
    assert raised_by(roots_after, "app.group", f"(_ for _ in ()).throw(AssertionError()) if {expr} else None") is None
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.group",
                     f"None if {expr} else (_ for _ in ()).throw(AssertionError())") is None


def test_a_key_the_consumer_passes_itself_still_arrives(tmp_path):
    consumer = CONSUMER + "\n\n    def make():\n        return NPUGroup([0], use_tpu_communicator=True)\n"
    assert [f for f in findings_of(tmp_path, _case(consumer)) if f.rule_id == "DRIFT146"] == []
