"""A model the target's loader returns (`get_model(...) -> nn.Module`) is typed by the target's
protocols of torch modules: `self.model.compute_logits(h, None)` is held to
`VllmModelForTextGeneration.compute_logits`, which vLLM 0.11 narrowed to `(hidden_states)` (and
every model with it). vllm-ascend 0.10.2rc1's runner and eagle proposer made that call six times;
drift knew nothing of `self.model`. Risky: the loader builds whichever class the checkpoint names,
and a consumer that registers its own models (SGLang 0.3 loaded its own through vLLM's `get_model`)
gets their methods. The fix is the target's own: its runner stopped passing the trailing `None`,
so the consumer's `None` goes too.
"""

from __future__ import annotations

from drift.findings import SAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, line_of, src

PROTOCOLS_BEFORE = """
    from typing import Protocol


    class VllmModel(Protocol):
        def __init__(self, *, vllm_config, prefix=""):
            ...

        def forward(self, input_ids, positions, kv_caches):
            ...


    class SupportsPP(Protocol):
        def forward(self, *, intermediate_tensors):
            ...


    class VllmModelForTextGeneration(VllmModel, Protocol):
        def compute_logits(self, hidden_states, sampling_metadata):
            ...
    """
PROTOCOLS_AFTER = PROTOCOLS_BEFORE.replace("def compute_logits(self, hidden_states, sampling_metadata):",
                                           "def compute_logits(self, hidden_states):").replace(
    "def forward(self, input_ids, positions, kv_caches):", "def forward(self, input_ids, positions):")
LOADER = """
    from torch import nn


    def get_model(*, config) -> nn.Module:
        return build(config)
    """
RUNNER_BEFORE = """
    from gizmo.loader import get_model


    class Runner:
        def load(self, config):
            self.model = get_model(config=config)

        def step(self, hidden_states):
            return self.model.compute_logits(hidden_states, None)
    """
RUNNER_AFTER = RUNNER_BEFORE.replace("compute_logits(hidden_states, None)", "compute_logits(hidden_states)")
BEFORE = {"gizmo/interfaces_base.py": PROTOCOLS_BEFORE, "gizmo/loader.py": LOADER, "gizmo/runner.py": RUNNER_BEFORE}
AFTER = {"gizmo/interfaces_base.py": PROTOCOLS_AFTER, "gizmo/loader.py": LOADER, "gizmo/runner.py": RUNNER_AFTER}

CONSUMER = """
    from torch import nn

    from gizmo.loader import get_model


    class NPURunner:
        def load_model(self, config):
            self.model = get_model(config=config)

        def execute(self, sample_hidden_states):
            logits = self.model.compute_logits(sample_hidden_states, None)
            return logits

        def run(self, ids, pos, caches):
            return self.model(input_ids=ids, positions=pos, kv_caches=caches)


    def any_layer(layer: nn.Module, h):
        return layer.compute_logits(h, None)
    """


def _case(consumer: str) -> Case:
    return Case("model-protocols", BEFORE, AFTER, {"app/__init__.py": "", "app/runner.py": consumer})


def test_the_loaded_model_is_held_to_the_protocol_that_declares_the_method(tmp_path):
    findings = [f for f in findings_of(tmp_path, _case(CONSUMER)) if "compute_logits" in f.title]
    text = src(CONSUMER)
    # the loaded model's call, not the one on a parameter annotated nn.Module (any layer at all)
    (f,) = findings
    # risky: the loader builds the class the checkpoint names, and a consumer may register its own
    assert f.severity.value == "risky" and "the protocol vLLM's models implement" in f.details
    assert f.consumer_site.line == line_of(text, "self.model.compute_logits")
    assert "VllmModelForTextGeneration.compute_logits" in f.title
    assert f.fix.codemod == "drop_argument" and f.fix.tier == SAFE
    after = plan({"app/runner.py": text.encode()}, [f]).changes[0].after.decode()
    assert "logits = self.model.compute_logits(sample_hidden_states)\n" in after
    assert "layer.compute_logits(h, None)" in after
    assert plan({"app/runner.py": after.encode()}, [f]).empty


def test_calling_the_loaded_model_is_held_to_the_model_protocols_forward(tmp_path):
    """`SupportsPP` declares a `forward` too, but no `__init__`: a protocol of one capability, not
    of what the loader builds; the model's `forward` is `VllmModel`'s. Risky: a model whose own
    `forward` takes `**kwargs` still accepts what the protocol dropped."""
    (f,) = [f for f in findings_of(tmp_path, _case(CONSUMER)) if "kv_caches" in f.title]
    assert f.rule_id == "DRIFT010" and f.severity.value == "risky"
    assert "`VllmModel.forward` no longer accepts `kv_caches=`" in f.title
    assert f.consumer_site.line == line_of(src(CONSUMER), "self.model(input_ids=ids")
    assert "the model the target's loader returned" in f.details
