"""A consumer module serving a name from its `__getattr__`, declared for type checkers only
(`if TYPE_CHECKING: current: Plat`), in a module that never names the target: the probe records the
declared type as what the name holds (probes/ir.py `_served_names`), the solver keeps the one
consumer class whose object a module-level name holds (`module_objects`), so `current.blocks_cls()`
is that class's method, which returns a target class, and the keywords of the call of that class
value are checked against the target's `__init__` (DRIFT010). Held to what the synthetic code raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BLOCKS_BEFORE = """
    class Blocks:
        def __init__(self, sizes, kernel_sizes=None):
            self.sizes = sizes


    def describe(blocks):
        return repr(blocks.sizes)
    """
BLOCKS_AFTER = """
    class Blocks:
        def __init__(self, sizes):
            self.sizes = sizes


    def describe(blocks):
        return repr(blocks.sizes)
    """
PLATFORMS = """
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from app.platforms.interface import Plat

        current: Plat


    def __getattr__(name):
        if name == "current":
            from app.platforms.interface import Plat
            return Plat()
        raise AttributeError(name)
    """
INTERFACE = """
    class Plat:
        def blocks_cls(self) -> type:
            from gizmo.blocks import Blocks
            return Blocks
    """
RUN = """
    from app.platforms import current
    from gizmo.blocks import describe


    def build():
        cls = current.blocks_cls()
        blocks = cls(sizes=[1], kernel_sizes=[2])
        return describe(blocks)
    """


def _case(platforms: str, expected) -> Case:
    return Case("served-name", before={"gizmo/blocks.py": BLOCKS_BEFORE}, after={"gizmo/blocks.py": BLOCKS_AFTER},
                consumer={"app/platforms/__init__.py": platforms, "app/platforms/interface.py": INTERFACE,
                          "app/run.py": RUN}, expected=expected)


def test_a_name_a_module_getattr_serves_is_typed_by_its_declaration(tmp_path):
    case = _case(PLATFORMS, [("DRIFT010", line_of(RUN, "kernel_sizes="))])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.run", "build()") == \
        "TypeError: Blocks.__init__() got an unexpected keyword argument 'kernel_sizes'"


def test_a_declaration_without_a_module_getattr_types_nothing(tmp_path):
    # the name is declared for type checkers and never bound: importing it fails, whatever its type says
    # (the module names the target here, so it is read whatever it defines)
    plain = PLATFORMS.split("def __getattr__")[0].replace("from typing import TYPE_CHECKING",
                                                         "from typing import TYPE_CHECKING\n\n    import gizmo")
    case = _case(plain, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
