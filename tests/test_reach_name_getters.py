"""A patch framework's base class that hands back the class a subclass names in a string
(`return getattr(target_module, self.target_class, None)`), with the base in one module and the
subclasses in another: the class fetched is typed as the target class the string names, and the
functions installed on it have `self` typed as its instance (synthetic before/after pairs)."""

from __future__ import annotations

from tests.rule_cases import Case, describe, findings_of, line_of, raised_by

BEFORE = """
    class Coordinator:
        def __init__(self, caching):
            self.caching = caching
            self.managers = []

    class Pool:
        def __init__(self, caching):
            self.caching = caching
    """
AFTER = """
    class Coordinator:
        def __init__(self, caching):
            self.managers = []

    class Pool:
        def __init__(self, caching):
            self.caching = caching
    """

# the framework: nothing here imports or names the target; the getter reads the subclass's string
BASE = """
    import importlib
    import types


    class BasePatch:
        target_module = None
        target_class = None

        def _get_target_class(self, target_module: types.ModuleType):
            if self.target_class is None:
                raise ValueError("no target_class")
            return getattr(target_module, self.target_class, None)

        @classmethod
        def target_of(cls, target_module):
            return getattr(target_module, cls.target_class)

        def run(self):
            return self.apply(importlib.import_module(self.target_module))


    class VersionedPatch(BasePatch):
        since = "1.0"
    """

PATCHES = """
    import types

    from app.framework import VersionedPatch


    class CoordinatorPatch(VersionedPatch):
        target_module = "gizmo.pool"
        target_class = "Coordinator"

        def apply(self, mod: types.ModuleType) -> bool:
            Coordinator = self._get_target_class(mod)
            if Coordinator is None:
                return False
            original_init = Coordinator.__init__

            def _patched_init(self, *args, **kwargs):
                original_init(self, *args, **kwargs)
                self._setup()

            def _setup(self):
                enabled = getattr(self, "caching", False)
                self.pool_size = len(self.managers)
                return enabled

            def _report(self):
                return self.caching

            Coordinator._setup = _setup
            setattr(Coordinator, "report", _report)
            Coordinator.__init__ = _patched_init
            return True


    class PoolByClassPatch(VersionedPatch):
        target_module = "gizmo.pool"
        target_class = "Coordinator"

        @classmethod
        def apply(cls, mod: types.ModuleType) -> bool:
            Target = cls.target_of(mod)

            def _peek(self):
                return getattr(self, "caching", None)

            Target.peek = _peek
            return True
    """


def _case(patches: str = PATCHES, base: str = BASE) -> Case:
    return Case("name-getter", {"gizmo/pool.py": BEFORE}, {"gizmo/pool.py": AFTER},
                {"app/framework.py": base, "app/patches.py": patches}, [])


def _at(found, rule_id: str, line: int):
    return [f for f in found if f.rule_id == rule_id and f.consumer_site.line == line]


def test_class_named_by_a_subclass_string_through_a_base_getter_in_another_module(tmp_path):
    """`self._get_target_class(mod)` is BasePatch's getter (two modules away, through
    VersionedPatch) reading `target_class = "Coordinator"` set on the subclass: the function
    installed as `Coordinator._setup` reads `caching`, which the target's Coordinator no longer
    sets. The soft read is risky, the hard read in the function installed with setattr breaks,
    and `managers`, still set, is no finding."""
    found = findings_of(tmp_path, _case())
    soft = _at(found, "DRIFT065", line_of(PATCHES, 'getattr(self, "caching", False)'))
    assert len(soft) == 1, describe(found)
    assert soft[0].severity.value == "risky" and soft[0].symbol == "gizmo.pool.Coordinator.caching"
    hard = [f for f in found if f.consumer_site.line == line_of(PATCHES, "return self.caching")]
    assert hard and hard[0].severity.value == "breaking" and hard[0].symbol == "gizmo.pool.Coordinator.caching", \
        describe(found)
    assert not [f for f in found if f.consumer_site.line == line_of(PATCHES, "len(self.managers)")], describe(found)
    # what Python does on the target: the patch applies, the default silently wins, the hard read raises
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.patches", "CoordinatorPatch().run() or __import__('sys').exit(1)") is None
    assert "has no attribute 'caching'" in (raised_by(
        roots, "app.patches", "(CoordinatorPatch().run(), __import__('gizmo.pool', fromlist=['x']).Coordinator(True)"
                              ".report())") or "")


def test_classmethod_getter_reads_the_string_through_cls(tmp_path):
    """`cls.target_of(mod)` in a classmethod, the getter reading `cls.target_class`: the same
    typing, so `getattr(self, "caching", None)` in the installed `peek` is reported."""
    found = findings_of(tmp_path, _case())
    assert len(_at(found, "DRIFT065", line_of(PATCHES, 'getattr(self, "caching", None)'))) == 1, describe(found)


def test_the_string_decides_the_class(tmp_path):
    """The same patches naming `Pool` (which still sets `caching`): nothing is reported, so the
    type really comes from the subclass's string, not from the method's name."""
    found = findings_of(tmp_path, _case(PATCHES.replace('target_class = "Coordinator"', 'target_class = "Pool"')))
    assert not [f for f in found if "caching" in (f.symbol or "")], describe(found)


def test_a_method_that_is_no_name_getter_types_nothing(tmp_path):
    """A base method of the same name that returns something else (a cache lookup): the call is
    not a class the subclass names, so nothing is claimed about the installed functions."""
    base = BASE.replace("return getattr(target_module, self.target_class, None)",
                        "return self.cache[target_module]")
    found = findings_of(tmp_path, _case(base=base))
    lines = {line_of(PATCHES, 'getattr(self, "caching", False)'), line_of(PATCHES, "return self.caching")}
    assert not [f for f in found if f.consumer_site.line in lines], describe(found)
    # the classmethod getter is untouched: its installed function is still checked
    assert _at(found, "DRIFT065", line_of(PATCHES, 'getattr(self, "caching", None)'))


def test_a_classmethod_call_of_an_instance_getter_types_nothing(tmp_path):
    """`cls._get_target_class(mod)` where the getter is an instance method: `mod` would land in
    `self`, so the call is not typed as the named class."""
    patches = PATCHES.replace("Target = cls.target_of(mod)", "Target = cls._get_target_class(mod)")
    found = findings_of(tmp_path, _case(patches))
    assert not _at(found, "DRIFT065", line_of(PATCHES, 'getattr(self, "caching", None)')), describe(found)


def test_module_by_keyword_and_name_by_module_constant(tmp_path):
    """`self._get_target_class(target_module=mod)` with `target_class = COORDINATOR` (a module
    constant holding the name): the same class, so the same soft read is reported."""
    patches = PATCHES.replace("self._get_target_class(mod)", "self._get_target_class(target_module=mod)") \
        .replace('target_class = "Coordinator"', "target_class = COORDINATOR", 1) \
        .replace("from app.framework import VersionedPatch", 'from app.framework import VersionedPatch\n\n'
                 '    COORDINATOR = "Coordinator"')
    found = findings_of(tmp_path, _case(patches))
    assert len(_at(found, "DRIFT065", line_of(patches, 'getattr(self, "caching", False)'))) == 1, describe(found)
