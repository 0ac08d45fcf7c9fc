"""DRIFT070 leaves out the target's calls inside classes that only the worker the consumer replaces
builds: a platform that names its own `worker_cls` never gets vLLM's GPU worker, so the model runner
that worker builds (and the calls its methods make on its drafter) never runs for the platform's
proposer. The same proposer without the platform's worker is still held to those calls."""

from __future__ import annotations

from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, line_of, raised_by, write_tree

PLATFORMS = """
    class Platform:
        @classmethod
        def check_and_update_config(cls, vllm_config):
            return None
    """
WORKER_BASE = """
    class WorkerBase:
        def __init__(self, cfg=None):
            self.cfg = cfg
    """
GPU_WORKER = """
    from vllm.v1.worker.gpu_model_runner import GPUModelRunner
    from vllm.v1.worker.worker_base import WorkerBase


    class Worker(WorkerBase):
        def init_device(self, drafter):
            self.model_runner = GPUModelRunner(drafter)
    """


def _runner(call: str) -> str:
    return f"""
        class GPUModelRunner:
            def __init__(self, drafter):
                self.drafter = drafter

            def propose_draft_token_ids(self):
                return {call}
        """


def _proposer(params: str) -> str:
    return f"""
        class EagleProposer:
            def propose({params}):
                return []
        """


BEFORE = {"vllm/platforms.py": PLATFORMS, "vllm/v1/worker/worker_base.py": WORKER_BASE,
          "vllm/v1/worker/gpu_worker.py": GPU_WORKER,
          "vllm/v1/worker/gpu_model_runner.py": _runner("self.drafter.propose(1)"),
          "vllm/v1/spec_decode/eagle.py": _proposer("self, n")}
AFTER = {**BEFORE,
         "vllm/v1/worker/gpu_model_runner.py": _runner("self.drafter.propose(n=1, sampling=None)"),
         "vllm/v1/spec_decode/eagle.py": _proposer("self, n, sampling=None")}
PLATFORM = """
    from vllm.platforms import Platform

    class MyPlatform(Platform):
        @classmethod
        def check_and_update_config(cls, vllm_config):
            vllm_config.parallel_config.worker_cls = "app.worker.MyWorker"
    """
PROPOSER = """
    from vllm.v1.spec_decode.eagle import EagleProposer

    class MyProposer(EagleProposer):
        def propose(self, n):
            return [n]
    """
WORKER = """
    from vllm.v1.worker.worker_base import WorkerBase

    from app.eagle import MyProposer

    class MyWorker(WorkerBase):
        def init_device(self):
            self.proposer = MyProposer()

        def draft(self):
            return self.proposer.propose(1)
    """


def _findings(tmp_path, consumer):
    """The check over installed trees whose sources are at hand (as a release fetched from the index
    is): which modules build a class is read from their text too."""
    facts = {}
    for side, files in (("after", AFTER), ("before", BEFORE)):
        root = write_tree(tmp_path / side, files)
        facts[side] = facts_of(root, "vllm")
        facts[side]["target"] = {"kind": "tree", "root": str(root)}
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer), lib="vllm")
    report = check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                   target_package="vllm").report
    return report.findings


def test_calls_in_a_class_only_the_replaced_worker_builds_are_not_evidence(tmp_path):
    consumer = {"app/platform.py": PLATFORM, "app/worker.py": WORKER, "app/eagle.py": PROPOSER}
    found = _findings(tmp_path, consumer)
    assert not [f for f in found if f.rule_id == "DRIFT070"], [f.title for f in found]
    # what the platform really runs: its own worker and its proposer, which still work
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.worker", "(lambda w: (w.init_device(), w.draft()))(MyWorker())",
                     packages=("vllm", "app")) is None


def test_without_the_platforms_worker_the_runners_call_reaches_the_proposer(tmp_path):
    consumer = {"app/worker.py": WORKER, "app/eagle.py": PROPOSER}
    found = [f for f in _findings(tmp_path, consumer) if f.rule_id == "DRIFT070"]
    assert [f.consumer_site.line for f in found] == [line_of(PROPOSER, "def propose")]
    roots = [tmp_path / "after", tmp_path / "consumer"]
    assert raised_by(roots, "app.eagle", "(lambda w: (w.init_device(MyProposer()), "
                     "w.model_runner.propose_draft_token_ids()))(__import__('vllm.v1.worker.gpu_worker')"
                     ".v1.worker.gpu_worker.Worker())", packages=("vllm", "app")) == found[0].predicted_failure
