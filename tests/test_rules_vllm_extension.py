"""VLLM004: a class named in `worker_extension_cls` defining a name vLLM's worker class now has.

vLLM asserts, before appending the extension to the worker's bases, that the worker has none of
the extension's names; the synthetic worker wrapper below does what vLLM's `init_worker` does, so
the predicted AssertionError is checked against what Python raises.
"""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by

WRAPPER = """
    import importlib

    from vllm.v1.worker.gpu_worker import Worker


    def init_worker(extension):
        module, _, name = extension.rpartition(".")
        ext = getattr(importlib.import_module(module), name)
        for attr in dir(ext):
            if attr.startswith("__"):
                continue
            assert not hasattr(Worker, attr), (
                f"Worker class {Worker} already has an attribute {attr}, which conflicts with the worker"
                f" extension class {ext}."
            )
        Worker.__bases__ = Worker.__bases__ + (ext,)
        return Worker()
    """
LLM = """
    class LLM:
        def __init__(self, model, **kwargs):
            self.model = model
            self.kwargs = kwargs
    """
BEFORE = {
    "vllm/__init__.py": "from vllm.entrypoints.llm import LLM\n",
    "vllm/entrypoints/llm.py": LLM,
    "vllm/v1/worker/worker_base.py": WRAPPER,
    "vllm/v1/worker/gpu_worker.py": """
        class WorkerBase:
            pass

        class Worker(WorkerBase):
            def load_model(self):
                return None
        """,
}
AFTER = {
    **BEFORE,
    "vllm/v1/worker/gpu_worker.py": """
        class WorkerBase:
            pass

        class Worker(WorkerBase):
            def load_model(self):
                return None

            def update_weights(self, update_info: dict):
                raise RuntimeError("Weight transfer not configured")
        """,
}
EXTENSION = """
    import vllm


    class Sync:
        def update_weights(self, model_path):
            return model_path

        def report(self):
            return vllm.LLM
    """
ENGINE = """
    from vllm import LLM


    def engine():
        return LLM(model="m", worker_extension_cls="app.ext.Sync")
    """


def test_an_extension_method_the_worker_now_defines_is_reported_at_the_method(tmp_path):
    consumer = {"app/ext.py": EXTENSION, "app/engine.py": ENGINE}
    found = [f for f in findings_of(tmp_path, Case("ext", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004"]
    assert [(f.consumer_site.path, f.consumer_site.line) for f in found] == \
        [("app/ext.py", line_of(EXTENSION, "def update_weights"))]
    f = found[0]
    assert f.severity.value == "breaking" and f.symbol == "vllm.v1.worker.gpu_worker.Worker.update_weights"
    before = [tmp_path / "before", tmp_path / "consumer"]
    after = [tmp_path / "after", tmp_path / "consumer"]
    build = ("vllm.v1.worker.worker_base", "init_worker('app.ext.Sync')")
    assert raised_by(before, *build, packages=("vllm", "app")) is None
    raised = raised_by(after, *build, packages=("vllm", "app"))
    assert raised == f.predicted_failure


def test_a_class_not_named_as_an_extension_is_not_judged(tmp_path):
    consumer = {"app/ext.py": EXTENSION, "app/engine.py": ENGINE.replace('worker_extension_cls="app.ext.Sync"', "")}
    assert not [f for f in findings_of(tmp_path, Case("plain", BEFORE, AFTER, consumer), lib="vllm")
                if f.rule_id == "VLLM004"]


CONFIG = """
    from dataclasses import dataclass


    @dataclass
    class RolloutConfig:
        model: str = "m"
        worker_extension_cls: str = (
            "app.ext.Sync"
        )
    """
SERVER = """
    from vllm import LLM

    from app.config import RolloutConfig


    def engine(cfg: RolloutConfig):
        return LLM(model=cfg.model, **{"worker_extension_cls": cfg.worker_extension_cls})


    def update(engine, path):
        return engine.collective_rpc("update_weights", args=(path,))
    """


def test_a_config_fields_default_names_the_extension_and_its_dispatch_by_name_is_reported(tmp_path):
    """The class is named only as the default of a config dataclass's field (in a module that never
    imports vLLM); the consumer's own `collective_rpc("update_weights")` now reaches vLLM's method."""
    consumer = {"app/ext.py": EXTENSION, "app/config.py": CONFIG, "app/server.py": SERVER}
    found = [f for f in findings_of(tmp_path, Case("cfg", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004"]
    assert sorted((f.consumer_site.path, f.consumer_site.line, f.severity.value) for f in found) == [
        ("app/ext.py", line_of(EXTENSION, "def update_weights"), "breaking"),
        ("app/server.py", line_of(SERVER, "collective_rpc"), "risky")]


# the extension's dotted name chosen from a table by a key known only at run time, then set on the
# engine's arguments: every class the table names may be the one vLLM mixes into its worker
TABLE = """
    from vllm import LLM

    EXTENSIONS = {
        "sync": "app.ext.Sync",
        "other": "app.ext.Other",
    }


    def engine(args, mode):
        args.worker_extension_cls = EXTENSIONS[mode]
        return LLM(model="m", worker_extension_cls=args.worker_extension_cls)
    """
OTHER_EXT = EXTENSION + """

    class Other:
        def update_weights(self, path):
            return path

        def load_more(self):
            return None
    """


def test_an_extension_chosen_from_a_table_by_a_run_time_key_is_judged(tmp_path):
    consumer = {"app/ext.py": OTHER_EXT, "app/engine.py": TABLE}
    found = [f for f in findings_of(tmp_path, Case("table", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004"]
    assert sorted((f.consumer_site.path, f.consumer_site.line) for f in found) == \
        [("app/ext.py", line_of(OTHER_EXT, "def update_weights", 1)), ("app/ext.py", line_of(OTHER_EXT, "def update_weights", 2))]
    after = [tmp_path / "after", tmp_path / "consumer"]
    for f, name in zip(sorted(found, key=lambda f: f.consumer_site.line), ("Sync", "Other")):
        assert raised_by(after, "vllm.v1.worker.worker_base", f"init_worker('app.ext.{name}')",
                         packages=("vllm", "app")) == f.predicted_failure


# the clashing method lives on a consumer mixin of two extensions; one extension is named through a
# module that only re-imports it (an alias kept for old configs), the other by its own module's name
MIXIN = """
    from vllm import LLM


    class ReloadMixin:
        def update_weights(self, model_path):
            return model_path

        def engine_class(self):
            return LLM
    """
MIXED = """
    import vllm

    from app.mixin import ReloadMixin

    SYNC_CLS = f"{__name__}.Sync"


    class Sync(ReloadMixin):
        def report(self):
            return vllm.LLM


    class Legacy(ReloadMixin):
        pass
    """
ALIAS = """
    from app.mixed import Legacy  # kept so old configs naming app.compat.Legacy still load
    """
LAUNCHES = """
    import asyncio

    from vllm import LLM

    from app.mixed import SYNC_CLS


    def engine():
        return LLM(model="m", worker_extension_cls=SYNC_CLS)


    def legacy_engine():
        return LLM(model="m", worker_extension_cls="app.compat.Legacy")


    async def update(engine, path):
        return await asyncio.to_thread(
            engine.collective_rpc,
            "update_weights",
            args=(path,),
        )
    """


def test_a_clash_inherited_from_a_consumer_mixin_is_reported_once_at_the_mixin(tmp_path):
    """vLLM's assertion walks `dir(extension)`: a mixin's method clashes as the extension's own
    does. The mixin is reported once for both extensions, and the dispatch through
    `asyncio.to_thread(engine.collective_rpc, "update_weights")` at the line of the name."""
    consumer = {"app/mixin.py": MIXIN, "app/mixed.py": MIXED, "app/compat.py": ALIAS, "app/launch.py": LAUNCHES}
    found = [f for f in findings_of(tmp_path, Case("mixin", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004"]
    assert sorted((f.consumer_site.path, f.consumer_site.line, f.severity.value) for f in found) == [
        ("app/launch.py", line_of(LAUNCHES, '"update_weights"'), "risky"),
        ("app/mixin.py", line_of(MIXIN, "def update_weights"), "breaking")]
    after = [tmp_path / "after", tmp_path / "consumer"]
    breaking = next(f for f in found if f.severity.value == "breaking")
    for named in ("app.mixed.Sync", "app.compat.Legacy"):
        raised = raised_by(after, "vllm.v1.worker.worker_base", f"init_worker({named!r})", packages=("vllm", "app"))
        assert raised is not None and "already has an attribute update_weights" in raised
    assert raised_by(after, "vllm.v1.worker.worker_base", "init_worker('app.compat.Legacy')",
                     packages=("vllm", "app")) == breaking.predicted_failure


def test_a_dotted_name_through_a_re_export_alone_names_the_defining_class(tmp_path):
    """Only the alias is named: the class it re-imports (and its mixin) is what vLLM mixes in."""
    launch = LAUNCHES.replace("worker_extension_cls=SYNC_CLS", 'model_impl="auto"')
    consumer = {"app/mixin.py": MIXIN, "app/mixed.py": MIXED, "app/compat.py": ALIAS, "app/launch.py": launch}
    found = [f for f in findings_of(tmp_path, Case("alias", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004" and f.severity.value == "breaking"]
    assert [(f.consumer_site.path, f.consumer_site.line) for f in found] == [("app/mixin.py", line_of(MIXIN, "def update_weights"))]
    assert "app.mixed.Legacy" in found[0].predicted_failure
    none = launch.replace("app.compat.Legacy", "app.compat.Missing")
    consumer["app/launch.py"] = none
    assert not [f for f in findings_of(tmp_path / "none", Case("none", BEFORE, AFTER, consumer), lib="vllm")
                if f.rule_id == "VLLM004"]


# a remote client of a vLLM server: the method goes by name in the body POSTed to the RPC route
CLIENT = """
    # drives a vllm server over HTTP


    class Client:
        async def _call_all(self, endpoint, body):
            return [endpoint, body]

        async def update(self, path):
            return await self._call_all(
                "/collective_rpc",
                {
                    "method": "update_weights",
                    "args": [path],
                },
            )

        async def other(self):
            return await self._call_all("/collective_rpc", {"method": "report"})

        async def pause(self):
            return await self._call_all("/pause", {"method": "update_weights"})
    """


def test_a_method_named_in_a_body_sent_to_the_rpc_route_is_a_dispatch_by_name(tmp_path):
    consumer = {"app/mixin.py": MIXIN, "app/mixed.py": MIXED, "app/launch.py": LAUNCHES.replace(
        'worker_extension_cls="app.compat.Legacy"', 'model_impl="auto"'), "app/client.py": CLIENT}
    found = [f for f in findings_of(tmp_path, Case("http", BEFORE, AFTER, consumer), lib="vllm")
             if f.rule_id == "VLLM004" and f.consumer_site.path == "app/client.py"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == \
        [(line_of(CLIENT, '"method": "update_weights"'), "risky")]
