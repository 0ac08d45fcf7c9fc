"""A target object reached through the consumer's own plumbing (synthetic before/after trees): a
helper's `return cfg, cls` (annotated `-> tuple[Any, type]`), unpacked by its caller, handed to a
static method whose parameter says only `Any`, copied there with `copy.deepcopy`, then read.
(The module names the target elsewhere, as a consumer module that reaches it does.) Each step keeps the object's class, so the attribute the target dropped is reported where it is
read (DRIFT060), and running the code on both releases raises there."""

from __future__ import annotations

from pathlib import Path

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

CONFIG_BEFORE = """
    class Transfer:
        def __init__(self):
            self.role = "producer"
            self.ip = "127.0.0.1"


    class Config:
        def __init__(self):
            self.transfer = Transfer()


    class Args:
        def create(self) -> Config:
            return Config()
    """
CONFIG_AFTER = """
    class Transfer:
        def __init__(self):
            self.role = "producer"


    class Config:
        def __init__(self):
            self.transfer = Transfer()


    class Args:
        def create(self) -> Config:
            return Config()
    """
BUILD = """
    from typing import Any

    from gizmo.config import Config


    def build(name) -> tuple[Any, type]:
        made = Config()
        return made, dict
    """
RUN = """
    import copy
    from typing import Any

    from app.build import build
    from gizmo.config import Transfer


    class Runner:
        @staticmethod
        def prepare(cfg: Any, n: int):
            mine = copy.deepcopy(cfg)
            transfer = mine.transfer
            return transfer.role, transfer.ip

        def go(self):
            cfg, kind = build("m")
            return self.prepare(cfg, 1)


    def main():
        return Runner().go()


    def fresh():
        return Transfer().role
    """


BUILD_INHERITED = """
    from typing import Any

    from gizmo.config import Args


    class MyArgs(Args):
        def extra(self):
            return 1


    def build(name) -> tuple[Any, type]:
        made = MyArgs().create()
        return made, dict
    """


def _case(build: str = BUILD) -> Case:
    return Case("tuples", {"gizmo/config.py": CONFIG_BEFORE}, {"gizmo/config.py": CONFIG_AFTER},
                {"app/build.py": build, "app/run.py": RUN})


def test_a_target_object_through_a_tuple_return_deepcopy_and_an_any_parameter_is_typed(tmp_path: Path):
    found = findings_of(tmp_path, _case())
    assert_findings(found, [("DRIFT060", line_of(RUN, "transfer.ip"))])
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("before"), "app.run", "main()") is None
    assert raised_by(roots("after"), "app.run", "main()").startswith("AttributeError")


def test_a_method_a_consumer_subclass_inherits_from_its_target_base_gives_the_targets_value(tmp_path: Path):
    """`MyArgs().create()` where MyArgs(Args) defines no `create`: the target's method runs."""
    found = findings_of(tmp_path, _case(BUILD_INHERITED))
    assert_findings(found, [("DRIFT060", line_of(RUN, "transfer.ip"))])
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.run", "main()").startswith("AttributeError")
