"""A class whose metaclass defines `__getattribute__` (or `__getattr__`) answers every class-level
lookup itself: vLLM 0.11.1 kept `_Backend` as a deprecated alias of `AttentionBackendEnum` through
`class _Backend(metaclass=_BackendMeta)`, whose `__getattribute__` forwards each name, so
`_Backend.FLASH_ATTN` still works (paddlex 3.3.12: four false breaking findings). A class without
such a metaclass still reports a member it lost."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {"gizmo/backends.py": """
    import enum


    class Backend(enum.Enum):
        FLASH_ATTN = 1
        SDPA = 2


    class Plain:
        GONE = 1
    """}
AFTER = {"gizmo/backends.py": """
    import enum


    class BackendEnum(enum.Enum):
        FLASH_ATTN = 1
        SDPA = 2


    class _BackendMeta(type):
        def __getattribute__(cls, name):
            if name in ("__class__", "__mro__", "__name__"):
                return type.__getattribute__(cls, name)
            return getattr(BackendEnum, name)


    class Backend(metaclass=_BackendMeta):
        pass


    class Plain:
        KEPT = 1
    """}
CONSUMER = """
    from gizmo.backends import Backend, Plain


    def choose():
        return Backend.FLASH_ATTN, Plain.GONE
    """


def test_members_read_through_a_forwarding_metaclass_are_not_missing(tmp_path):
    found = findings_of(tmp_path, Case("meta", BEFORE, AFTER, {"app/__init__.py": "", "app/m.py": CONSUMER}))
    assert_findings(found, [("DRIFT060", "Plain.GONE` no longer exists")])
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.m", "__import__('app.m').m.choose()") == \
        "AttributeError: type object 'Plain' has no attribute 'GONE'"
