"""A consumer subclass of a target class whose MRO holds a mixin from a module that never names the
target (probes/mro_bases.py): the probe reads that module's class outline, so the MRO is fully
known and a `self.<name>` the target removed is claimed (DRIFT060), and left alone where the mixin,
or a base of the mixin two unread modules up, sets the name or answers any name (`__getattr__`).
Each prediction is held to what the synthetic code raises."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, only, raised_by

RUNNER_BEFORE = """
    class Runner:
        def __init__(self):
            self.ready = False
            self.steps = 0


    def tick(runner):
        runner.steps += 1
    """
RUNNER_AFTER = """
    class Runner:
        def __init__(self):
            self.steps = 0


    def tick(runner):
        runner.steps += 1
    """
OWN = """
    from gizmo.runner import Runner


    class OwnRunner(Runner):
        def start(self):
            return self.steps
    """
SUB = """
    from app.own import OwnRunner
    from app.tools.mixin import Tracing
    from gizmo.runner import tick


    class TracedRunner(OwnRunner, Tracing):
        def poll(self):
            tick(self)
            return self.ready
    """
MIXIN = """
    from app.tools.core import Core


    class Tracing(Core):
        def trace(self):
            self.traced = True
    """
CORE = """
    class Core:
        def setup(self):
            self.level = 1
    """


def _case(mixin: str = MIXIN, core: str = CORE, expected=()) -> Case:
    return Case("mixin-from-unread-module",
                before={"gizmo/runner.py": RUNNER_BEFORE}, after={"gizmo/runner.py": RUNNER_AFTER},
                consumer={"app/own.py": OWN, "app/sub.py": SUB, "app/tools/mixin.py": mixin, "app/tools/core.py": core},
                expected=list(expected))


def _raised(tmp_path):
    return raised_by([tmp_path / "after", tmp_path / "consumer"], "app.sub", "TracedRunner().poll()")


def test_a_mixin_in_a_module_that_never_names_the_target_leaves_the_mro_fully_known(tmp_path):
    case = _case(expected=[("DRIFT060", line_of(SUB, "self.ready"))])
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    f = only(findings, "DRIFT060")
    assert f.consumer_site.path == "app/sub.py"
    assert _raised(tmp_path) == "AttributeError: 'TracedRunner' object has no attribute 'ready'"


def test_a_mixin_that_sets_the_name_itself_is_silent(tmp_path):
    mixin = MIXIN.replace("self.traced = True", "self.ready = True")
    case = _case(mixin=mixin)
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_a_base_of_the_mixin_two_unread_modules_up_that_sets_the_name_is_silent(tmp_path):
    case = _case(core=CORE.replace("self.level = 1", "self.ready = True"))
    assert_findings(findings_of(tmp_path, case), case.expected)


def test_a_mixin_base_answering_any_name_is_silent(tmp_path):
    core = CORE + """
        def __getattr__(self, name):
            return None
    """
    case = _case(core=core)
    assert_findings(findings_of(tmp_path, case), case.expected)
    assert _raised(tmp_path) is None


def test_a_base_two_bases_share_answers_for_both(tmp_path):
    # class TracedRunner(OwnRunner, Tracing, Core) with Tracing(Core): Core is reached twice (a diamond)
    sub = SUB.replace("from app.tools.mixin import Tracing", "from app.tools.core import Core\n    from app.tools.mixin import Tracing") \
        .replace("(OwnRunner, Tracing)", "(OwnRunner, Tracing, Core)")
    case = _case(expected=[("DRIFT060", line_of(sub, "self.ready"))])
    case.consumer["app/sub.py"] = sub
    findings = findings_of(tmp_path, case)
    assert_findings(findings, case.expected)
    assert _raised(tmp_path) == "AttributeError: 'TracedRunner' object has no attribute 'ready'"
