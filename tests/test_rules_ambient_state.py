"""DRIFT098: a target function the consumer calls now reaches, a call or two down, a getter of
module state that fails unless a context sets it, on synthetic before/after trees; running the
consumer's call on both shows the failure, and a consumer that enters the context is left alone."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

CONTEXT = """
    import contextlib

    _current = None


    @contextlib.contextmanager
    def set_current(value):
        global _current
        old, _current = _current, value
        try:
            yield
        finally:
            _current = old


    def get_current():
        assert _current is not None, "no current settings"
        return _current
    """
BEFORE = """
    class Loader:
        def load(self, path):
            return self.read(path)

        def read(self, path):
            return [path]
    """
AFTER = """
    class Loader:
        def load(self, path):
            return self.read(path)

        def read(self, path):
            return [path] * self.copies()

        def copies(self):
            from gizmo.context import get_current  # a lazy import, as vLLM often writes them

            return get_current()
    """
CALLS_BARE = """
    from gizmo.loader import Loader


    def run():
        return Loader().load("w.bin")
    """
ENTERS_CONTEXT = """
    from gizmo.context import set_current
    from gizmo.loader import Loader


    def run():
        with set_current(2):
            return Loader().load("w.bin")
    """


def _case(consumer: str, expected) -> Case:
    return Case("ambient-state", {"gizmo/context.py": CONTEXT, "gizmo/loader.py": BEFORE},
                {"gizmo/context.py": CONTEXT, "gizmo/loader.py": AFTER}, {"app/main.py": consumer}, expected)


def test_a_call_that_now_needs_a_context_the_consumer_never_enters(tmp_path):
    case = _case(CALLS_BARE, [("DRIFT098", line_of(CALLS_BARE, 'Loader().load("w.bin")'))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    found = only(findings, "DRIFT098")
    assert found.severity.value == "risky"
    assert "get_current()" in found.title and "with set_current(...)" in found.title
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.main", "run()") is None
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "run()") \
        == "AssertionError: no current settings"


def test_a_consumer_entering_the_context_is_left_alone(tmp_path):
    case = _case(ENTERS_CONTEXT, [])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "run()") is None


ABSTRACT_BEFORE = """
    import abc


    class BaseLoader(abc.ABC):
        def load(self, path):
            return self.read(path)

        @abc.abstractmethod
        def read(self, path):
            raise NotImplementedError


    class DiskLoader(BaseLoader):
        def read(self, path):
            return [path]


    def get_loader():
        return DiskLoader()
    """
ABSTRACT_AFTER = """
    import abc

    from gizmo.context import get_current


    class BaseLoader(abc.ABC):
        def load(self, path):
            return self.read(path)

        @abc.abstractmethod
        def read(self, path):
            raise NotImplementedError


    class DiskLoader(BaseLoader):
        def read(self, path):
            return [path] * get_current()


    def get_loader():
        return DiskLoader()
    """
THROUGH_BASE = """
    from gizmo.loader import BaseLoader, get_loader


    def run():
        loader: BaseLoader = get_loader()
        return loader.load("w.bin")
    """


def test_an_abstract_step_reaches_the_getter_in_a_subclass(tmp_path):
    case = Case("ambient-state", {"gizmo/context.py": CONTEXT, "gizmo/loader.py": ABSTRACT_BEFORE},
                {"gizmo/context.py": CONTEXT, "gizmo/loader.py": ABSTRACT_AFTER}, {"app/main.py": THROUGH_BASE},
                [("DRIFT098", line_of(THROUGH_BASE, 'loader.load("w.bin")'))])
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.main", "run()") \
        == "AssertionError: no current settings"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.main", "run()") is None


BUILT_BY_TARGET = """
    from gizmo.loader import Loader


    class MyLoader(Loader):
        def __init__(self):
            self.weights = Loader().load("w.bin")
    """
INITIALISED = CONTEXT.replace("@contextlib.contextmanager\n    ", "")


def test_a_constructor_the_target_runs_for_its_own_subclass_is_left_alone(tmp_path):
    case = _case(BUILT_BY_TARGET, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_state_only_an_initialiser_sets_is_left_alone(tmp_path):
    case = Case("ambient-state", {"gizmo/context.py": INITIALISED, "gizmo/loader.py": BEFORE},
                {"gizmo/context.py": INITIALISED, "gizmo/loader.py": AFTER}, {"app/main.py": CALLS_BARE}, [])
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_a_getter_that_raises_when_unset_and_a_function_switched_to_it(tmp_path):
    """vLLM 0.19's `initialize_model_parallel` switched from `get_current_vllm_config_or_none()` to
    `get_current_vllm_config()`, which raises AssertionError outside `set_current_vllm_config()`
    (an `if ... is None: raise`, not an `assert`); nnsight calls it from its own set-up, outside."""
    context = CONTEXT.replace('''    def get_current():
        assert _current is not None, "no current settings"
        return _current''', '''    def get_current():
        if _current is None:
            raise AssertionError("no current settings")
        return _current


    def get_current_or_none():
        return _current''')
    before = {"gizmo/__init__.py": "", "gizmo/context.py": context, "gizmo/state.py": """
        def initialize(size=1):
            from gizmo.context import get_current_or_none

            config = get_current_or_none()
            return size if config is None else config
        """}
    after = {**before, "gizmo/state.py": """
        def initialize(size=1):
            from gizmo.context import get_current

            config = get_current()
            return size if config is None else config
        """}
    consumer = """
        from gizmo.state import initialize


        def setup():
            return initialize(size=1)
        """
    found = findings_of(tmp_path, Case("raise-getter", before, after, {"app/__init__.py": "", "app/setup.py": consumer}))
    f = only(found, "DRIFT098")
    assert f.consumer_site.line == line_of(consumer, "return initialize(size=1)")
    run = "__import__('app.setup', fromlist=['setup']).setup()"
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "app.setup", run) == "AssertionError: no current settings"
    assert raised_by([tmp_path / "before", tmp_path / "consumer"], "app.setup", run) is None


def test_a_constructor_of_the_consumers_own_class_hierarchy_is_the_consumers_call(tmp_path):
    """nnsight's `VLLM.__init__` (bases: its own `RemoteableMixin` and language-model classes) sets
    up torch.distributed and calls `initialize_model_parallel` itself: no vLLM context is around it.
    Only a class extending the target's (or torch's Module) is built by the target."""
    before = {"gizmo/__init__.py": "", "gizmo/context.py": CONTEXT, "gizmo/loader.py": BEFORE}
    after = {"gizmo/__init__.py": "", "gizmo/context.py": CONTEXT, "gizmo/loader.py": AFTER}
    consumer = """
        from gizmo.loader import Loader


        class Remoteable:
            pass


        class Wrapper(Remoteable):
            def __init__(self):
                self.weights = Loader().load("w.bin")
        """
    found = findings_of(tmp_path, Case("own-ctor", before, after, {"app/__init__.py": "", "app/wrap.py": consumer}))
    assert only(found, "DRIFT098").consumer_site.line == line_of(consumer, 'self.weights = Loader().load("w.bin")')
