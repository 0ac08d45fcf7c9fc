"""VLLM003: a worker class the consumer names to vLLM (`worker_cls`) against what vLLM dispatches
to every worker by name (`collective_rpc("method", args=(...))`).

No call in either source names the consumer's class: vLLM imports it from a string and runs
methods on it by name. A method vLLM newly dispatches that the class lacks is reported at the
class (risky: vLLM decides when it dispatches it), one whose parameters no longer take the
dispatch's arguments at the method (breaking). Both are checked against what Python raises when
the synthetic executor really dispatches them.
"""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BASE = """
    class WorkerBase:
        def __init__(self, cfg):
            self.cfg = cfg

        def load_model(self):
            return None
    """
PLATFORMS = """
    class Platform:
        @classmethod
        def check_and_update_config(cls, vllm_config):
            return None
    """
BEFORE = {
    "vllm/platforms.py": PLATFORMS,
    "vllm/worker_base.py": BASE,
    "vllm/executor.py": """
        class Executor:
            def __init__(self, workers):
                self.workers = workers

            def collective_rpc(self, method, args=(), kwargs=None):
                return [getattr(w, method)(*args, **(kwargs or {})) for w in self.workers]

            def profile(self, is_start=True):
                self.collective_rpc("profile", args=(is_start,))

            def load(self):
                self.collective_rpc("load_model")
        """,
}
AFTER = {
    "vllm/platforms.py": PLATFORMS,
    "vllm/worker_base.py": BASE,
    "vllm/executor.py": """
        class Executor:
            def __init__(self, workers):
                self.workers = workers

            def collective_rpc(self, method, args=(), kwargs=None):
                return [getattr(w, method)(*args, **(kwargs or {})) for w in self.workers]

            def profile(self, is_start=True, prefix=None):
                self.collective_rpc("profile", args=(is_start, prefix))

            def load(self):
                self.collective_rpc("load_model")

            def reset(self):
                self.collective_rpc("reset_encoder_cache")
        """,
}
PLATFORM = """
    from vllm.platforms import Platform

    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, vllm_config):
            parallel_config = vllm_config.parallel_config
            if parallel_config.worker_cls == "auto":
                parallel_config.worker_cls = "app.worker.MyWorker"
    """
WORKER = """
    from vllm.worker_base import WorkerBase

    class MyWorker(WorkerBase):
        def load_model(self):
            return 1

        def profile(self, is_start=True):
            return is_start
    """


def _run(tmp_path, consumer):
    return findings_of(tmp_path, Case("rpc", BEFORE, AFTER, consumer), lib="vllm")


def test_a_worker_named_by_string_is_held_to_what_vllm_dispatches_by_name(tmp_path):
    found = _run(tmp_path, {"app/platform.py": PLATFORM, "app/worker.py": WORKER})
    assert_findings(found, [("VLLM003", line_of(WORKER, "class MyWorker")),
                            ("VLLM003", line_of(WORKER, "def profile"))])
    missing = next(f for f in found if f.consumer_site.line == line_of(WORKER, "class MyWorker"))
    assert missing.severity.value == "risky" and "reset_encoder_cache" in missing.title
    profile = next(f for f in found if f.consumer_site.line == line_of(WORKER, "def profile"))
    assert profile.severity.value == "breaking"
    roots = [tmp_path / "after", tmp_path / "consumer"]
    run = "__import__('vllm.executor').executor.Executor([MyWorker(None)])"
    assert raised_by(roots, "app.worker", f"{run}.reset()") == missing.predicted_failure.split(" (")[0]
    assert raised_by(roots, "app.worker", f"{run}.profile()").startswith("TypeError: MyWorker.profile() takes")
    assert profile.predicted_failure.startswith("TypeError: MyWorker.profile() takes")
    assert raised_by(roots, "app.worker", f"{run}.load()") is None


def test_a_worker_nothing_names_is_not_held_to_the_dispatches(tmp_path):
    platform = PLATFORM.replace('"app.worker.MyWorker"', '"vllm.worker.Worker"')
    assert_findings(_run(tmp_path, {"app/platform.py": platform, "app/worker.py": WORKER}), [])


def test_a_worker_that_has_the_methods_is_silent(tmp_path):
    worker = WORKER.replace("def profile(self, is_start=True):", "def profile(self, is_start=True, prefix=None):") + """
        def reset_encoder_cache(self):
            return None
    """
    assert_findings(_run(tmp_path, {"app/platform.py": PLATFORM, "app/worker.py": worker}), [])
