"""DRIFT076: the class a consumer patches is no longer the one the target builds by default, on
synthetic trees whose worker picks between two runner classes of the same name by an
environment variable (baseline) or a config property (target). Which class the synthetic worker
really builds with nothing configured is checked by running it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.rule_cases import Case, findings_of, line_of, only, write_tree

ENVS = """
    import os

    environment_variables = {
        "GIZMO_USE_V2": lambda: bool(int(os.getenv("GIZMO_USE_V2", "{default}"))),
        "GIZMO_LOG": lambda: os.getenv("GIZMO_LOG", "info").lower(),
    }


    def __getattr__(name):
        return environment_variables[name]()
    """
RUNNERS = {
    "gizmo/runner.py": """
        class Runner:
            def __init__(self, config):
                self.config = config

            def load(self):
                return "v1"
        """,
    "gizmo/fast/runner.py": """
        class Runner:
            def __init__(self, config):
                self.config = config

            def load(self):
                return "v2"
        """,
}
CONFIG = """
    from gizmo import envs


    class Config:
        features: tuple = ()
        fixed_v2: bool = {fixed}

        @property
        def use_v2(self) -> bool:
            if "lora" in self.features:
                return False
            return True

        @property
        def pinned(self) -> bool:
            return {fixed}
    """
WORKER_ENV = """
    from gizmo import envs
    from gizmo.config import Config


    class Worker:
        def __init__(self, config: Config):
            self.config = config
            self.use_v2 = envs.GIZMO_USE_V2

        def init(self):
            if self.use_v2:
                from gizmo.fast.runner import Runner as RunnerV2

                self.runner = RunnerV2(self.config)
            else:
                from gizmo.runner import Runner

                self.runner = Runner(self.config)
            return self.runner
    """
WORKER_CONFIG = WORKER_ENV.replace("self.use_v2 = envs.GIZMO_USE_V2", "self.use_v2 = config.{attr}")
WORKER_PLAIN = """
    from gizmo.config import Config
    from gizmo.runner import Runner


    class Worker:
        def __init__(self, config: Config):
            self.config = config

        def init(self):
            self.runner: Runner = Runner(self.config)
            return self.runner
    """
PATCH = """
    from gizmo.runner import Runner

    _orig_load = Runner.load


    def load(self):
        return "patched " + _orig_load(self)


    Runner.load = load
    """


def tree(worker: str, *, env_default: str = "0", fixed: str = "False") -> dict[str, str]:
    return {**RUNNERS, "gizmo/envs.py": ENVS.replace("{default}", env_default),
            "gizmo/config.py": CONFIG.replace("{fixed}", fixed), "gizmo/worker.py": worker}


def built_by_default(tmp_path, side: str) -> str:
    """What the synthetic worker really builds with nothing configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIZMO_")}
    env["PYTHONPATH"] = str(tmp_path / side)
    code = ("from gizmo.worker import Worker; from gizmo.config import Config; "
            "r = Worker(Config()).init(); print(type(r).__module__)")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()


def drift076(found):
    return [f for f in found if f.rule_id == "DRIFT076"]


def test_env_var_choice_becomes_a_config_property(tmp_path):
    case = Case("env-to-property", tree(WORKER_ENV), tree(WORKER_CONFIG.replace("{attr}", "use_v2")),
                {"app/patch.py": PATCH})
    found = findings_of(tmp_path, case)
    f = only(found, "DRIFT076")
    assert f.severity.value == "risky"
    assert f.consumer_site.path == "app/patch.py" and f.consumer_site.line == line_of(PATCH, "Runner.load = load")
    assert f.symbol == "gizmo.runner.Runner"
    assert "gizmo.fast.runner.Runner" in f.title and "self.use_v2" in f.title
    after_worker = WORKER_CONFIG.replace("{attr}", "use_v2")
    assert [(e.path, e.line) for e in f.target_evidence] == [
        ("gizmo/worker.py", line_of(after_worker, "if self.use_v2:")),
        ("gizmo/worker.py", line_of(after_worker, "RunnerV2(self.config)")),
        ("gizmo/config.py", line_of(CONFIG, "def use_v2"))]
    assert [(e.path, e.line) for e in f.baseline_evidence] == [
        ("gizmo/worker.py", line_of(WORKER_ENV, "if self.use_v2:")),
        ("gizmo/envs.py", line_of(ENVS, '"GIZMO_USE_V2"'))]
    assert "= False" in f.details
    # what the synthetic code does: the baseline builds the patched class, the target the other
    assert built_by_default(tmp_path, "before") == "gizmo.runner"
    assert built_by_default(tmp_path, "after") == "gizmo.fast.runner"


def test_env_default_flips_under_the_same_test(tmp_path):
    case = Case("env-flip", tree(WORKER_ENV), tree(WORKER_ENV, env_default="1"), {"app/patch.py": PATCH})
    f = only(findings_of(tmp_path, case), "DRIFT076")
    assert f.title.startswith("patches `Runner.load`, but by default the target's `Worker.init` now builds "
                              "`gizmo.fast.runner.Runner`")
    assert "= True" in f.title
    assert built_by_default(tmp_path, "after") == "gizmo.fast.runner"


def test_new_choice_whose_default_still_builds_the_patched_class(tmp_path):
    # the baseline built Runner unconditionally; the target adds a V2 behind a variable that defaults to off
    case = Case("new-choice-off", tree(WORKER_PLAIN), tree(WORKER_ENV), {"app/patch.py": PATCH})
    assert drift076(findings_of(tmp_path, case)) == []
    assert built_by_default(tmp_path, "after") == "gizmo.runner"


def test_new_choice_that_defaults_on_is_reported_against_an_unconditional_baseline(tmp_path):
    case = Case("new-choice-on", tree(WORKER_PLAIN), tree(WORKER_ENV, env_default="1"), {"app/patch.py": PATCH})
    f = only(findings_of(tmp_path, case), "DRIFT076")
    assert "unconditionally" in f.details
    assert f.baseline_evidence[0].line == line_of(WORKER_PLAIN, "self.runner: Runner = Runner(self.config)")


def test_config_field_and_literal_property_are_evaluated(tmp_path):
    for attr, fixed, expected in (("fixed_v2", "False", 0), ("pinned", "False", 0), ("fixed_v2", "True", 1),
                                  ("pinned", "True", 1)):
        root = tmp_path / f"{attr}-{fixed}"
        case = Case("config", tree(WORKER_ENV), tree(WORKER_CONFIG.replace("{attr}", attr), fixed=fixed),
                    {"app/patch.py": PATCH})
        got = drift076(findings_of(root, case))
        assert len(got) == expected, (attr, fixed, [g.title for g in got])
        if got:
            assert "by default the target's" in got[0].title
        write_tree(root, {})
        assert built_by_default(root, "after") == ("gizmo.fast.runner" if expected else "gizmo.runner")


def test_unchanged_choice_and_unpatched_class_are_quiet(tmp_path):
    same = Case("same", tree(WORKER_ENV), tree(WORKER_ENV), {"app/patch.py": PATCH})
    assert drift076(findings_of(tmp_path / "same", same)) == []
    other = Case("unpatched", tree(WORKER_ENV), tree(WORKER_CONFIG.replace("{attr}", "use_v2")),
                 {"app/patch.py": PATCH.replace("gizmo.runner", "gizmo.config").replace("Runner", "Config")})
    assert drift076(findings_of(tmp_path / "unpatched", other)) == []


def test_a_data_dependent_branch_is_not_a_setting(tmp_path):
    # a local test (`if window is not None`) picks a class for some inputs only: not reported
    worker = WORKER_PLAIN.replace("""            self.runner: Runner = Runner(self.config)""", """            window = getattr(self.config, "window", None)
            if window is not None:
                from gizmo.fast.runner import Runner as Windowed

                self.runner = Windowed(self.config)
            else:
                self.runner = Runner(self.config)""")
    case = Case("data", tree(WORKER_PLAIN), tree(worker), {"app/patch.py": PATCH})
    assert drift076(findings_of(tmp_path, case)) == []
