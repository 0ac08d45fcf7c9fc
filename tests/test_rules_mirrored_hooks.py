"""DRIFT092 (synthetic before/after pairs): a consumer class that mirrors one of the target's
implementations by name (`MyFlashBackend` beside the target's `FlashBackend`, both implementing
`Backend`) keeps the default of a hook the target's base gained (`supports_fast() -> False`) where
the implementation it mirrors overrides it; the target's selector now rejects a backend answering
the default in that mode. Shown by running the synthetic code on both releases."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BACKEND_BEFORE = """
    class Backend:
        @staticmethod
        def get_name() -> str:
            raise NotImplementedError
    """
BACKEND_AFTER = """
    class Backend:
        @staticmethod
        def get_name() -> str:
            raise NotImplementedError

        @classmethod
        def supports_fast(cls) -> bool:
            return False
    """
FLASH_BEFORE = """
    from gizmo.backend import Backend


    class FlashBackend(Backend):
        @staticmethod
        def get_name() -> str:
            return "FLASH"
    """
FLASH_AFTER = """
    from gizmo.backend import Backend


    class FlashBackend(Backend):
        @staticmethod
        def get_name() -> str:
            return "FLASH"

        @classmethod
        def supports_fast(cls) -> bool:
            return True
    """
SELECTOR_BEFORE = """
    def select(backend, fast=False):
        return backend.get_name()
    """
SELECTOR_AFTER = """
    def select(backend, fast=False):
        if fast and not backend.supports_fast():
            raise ValueError("backend does not support fast mode")
        return backend.get_name()
    """
MINE = """
    from gizmo.backend import Backend


    class MyFlashBackend(Backend):
        @staticmethod
        def get_name() -> str:
            return "MY_FLASH"
    """


def _case(mine=MINE, backend_before=BACKEND_BEFORE):
    lib = {"gizmo/backend.py": backend_before, "gizmo/flash.py": FLASH_BEFORE, "gizmo/selector.py": SELECTOR_BEFORE}
    new = {"gizmo/backend.py": BACKEND_AFTER, "gizmo/flash.py": FLASH_AFTER, "gizmo/selector.py": SELECTOR_AFTER}
    return Case("mirrored-hook", lib, new, {"app/__init__.py": "", "app/mine.py": mine})


def test_a_class_mirroring_an_implementation_keeps_the_new_hooks_default(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT092", line_of(MINE, "class MyFlashBackend"))])
    f = findings[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.backend.Backend.supports_fast"
    assert "`Backend.supports_fast`" in f.title and "`FlashBackend`" in f.title
    assert f.target_evidence[1].symbol == "gizmo.flash.FlashBackend.supports_fast"
    use = "__import__('gizmo.selector').selector.select(MyFlashBackend, fast=True)"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.mine", use) is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.mine", use) == \
        "ValueError: backend does not support fast mode"


def test_a_subclass_of_the_implementation_inherits_its_override(tmp_path):
    mine = MINE.replace("from gizmo.backend import Backend", "from gizmo.flash import FlashBackend").replace(
        "class MyFlashBackend(Backend):", "class MyFlashBackend(FlashBackend):")
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_a_class_that_declares_the_hook_is_silent(tmp_path):
    mine = MINE + """

        @classmethod
        def supports_fast(cls) -> bool:
            return False
    """
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_a_class_named_after_no_implementation_is_silent(tmp_path):
    mine = MINE.replace("MyFlashBackend", "MyBackend")
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_a_hook_the_baseline_already_had_is_silent(tmp_path):
    assert_findings(findings_of(tmp_path, _case(backend_before=BACKEND_AFTER)), [])


def test_a_behaviour_hook_that_declares_no_capability_is_silent(tmp_path):
    # `-> None`: a no-op the implementation fills in (a connector's `on_new_request`), not a flag
    # the target asks before choosing the class
    case = _case()
    case.after["gizmo/backend.py"] = BACKEND_AFTER.replace("def supports_fast(cls) -> bool:\n            return False",
                                                           "def supports_fast(cls) -> None:\n            return None")
    assert "-> None" in case.after["gizmo/backend.py"]
    assert_findings(findings_of(tmp_path, case), [])
