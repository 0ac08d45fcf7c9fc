"""A consumer that asks a target callable's own signature before calling it is judged on the
side of the test the target takes (drift/analysis/signature_tests.py over probes/ir.py `sigtest`):
`if "vocab_size" in inspect.signature(load).parameters: ... else: kwargs["padding"] = ...` writes
the older keyword only where the callable lacks the new one, so on a target that has it the
`else` never runs and is silent. A dict pruned in place through the signature (`for k in list(d):
if k not in params: del d[k]`) never hands the callable a key it does not take. Each case runs
the consumer on both releases (tests/rule_cases.py `raised_by`) to show the silence is right,
and a case where the test does not hold on the target keeps its finding."""

from __future__ import annotations

from tests.rule_cases import Case, assert_findings, findings_of, line_of, raised_by

BEFORE = {
    "gizmo/lora.py": """
        class LoRAModel:
            @classmethod
            def from_tensors(cls, tensors, padding=0, modules=None):
                return cls()

            @classmethod
            def from_checkpoint(cls, path, padding=0, modules=None):
                return cls()
        """,
    "gizmo/config.py": """
        class CompileConfig:
            def __init__(self, level=0, use_inductor=False, backend="eager"):
                self.level = level
        """,
}
AFTER = {
    "gizmo/lora.py": """
        class LoRAModel:
            @classmethod
            def from_tensors(cls, tensors, vocab_size=0):
                return cls()

            @classmethod
            def from_checkpoint(cls, path, vocab_size=0):
                return cls()
        """,
    "gizmo/config.py": """
        class CompileConfig:
            def __init__(self, level=0, backend="eager"):
                self.level = level
        """,
}
CONSUMER = """
    import inspect

    from gizmo.config import CompileConfig
    from gizmo.lora import LoRAModel


    class Manager:
        def __init__(self, model_cls=LoRAModel):
            self._model_cls = model_cls

        def load(self, tensors, path, size):
            kwargs = {}
            if tensors is not None:
                load_method = self._model_cls.from_tensors
                kwargs["tensors"] = tensors
            else:
                load_method = self._model_cls.from_checkpoint
                kwargs["path"] = path
            sig = inspect.signature(load_method)
            if "vocab_size" in sig.parameters:
                kwargs["vocab_size"] = size
            else:
                kwargs["padding"] = size
                kwargs["modules"] = []
            return load_method(**kwargs)


    def compile_config(level):
        flags = dict(level=level, use_inductor=True, backend="inductor")
        good_keys = inspect.signature(CompileConfig).parameters.keys()
        for key in list(flags.keys()):
            if key not in good_keys:
                del flags[key]
        return CompileConfig(**flags)


    def unpruned(level):
        flags = dict(level=level, use_inductor=True)
        return CompileConfig(**flags)
    """


def test_the_side_of_a_signature_test_the_target_never_takes_is_silent(tmp_path):
    found = findings_of(tmp_path, Case("sigtest", BEFORE, AFTER, {"app/manager.py": CONSUMER}))
    # only the call that never asked the signature breaks
    assert_findings(found, [("DRIFT010", line_of(CONSUMER, "flags = dict(level=level, use_inductor=True)"))])
    after = [tmp_path / "after", tmp_path / "consumer"]
    for call in ("Manager().load([1], None, 3)", "Manager().load(None, 'p', 3)", "compile_config(3)"):
        assert raised_by(after, "app.manager", call) is None
    assert raised_by(after, "app.manager", "unpruned(3)") is not None
    before = [tmp_path / "before", tmp_path / "consumer"]
    assert raised_by(before, "app.manager", "(Manager().load([1], None, 3), compile_config(3), unpruned(3))") is None


def test_the_side_the_target_takes_keeps_its_finding(tmp_path):
    """A target whose callables take neither name (`padding` renamed `pad`): the test is false
    there, the `else` runs, and its `padding=` is a keyword the target no longer takes."""
    renamed = {**BEFORE, "gizmo/lora.py": BEFORE["gizmo/lora.py"].replace("padding=0", "pad=0")}
    found = findings_of(tmp_path, Case("sigtest_b", BEFORE, renamed, {"app/manager.py": CONSUMER}))
    first, last = line_of(CONSUMER, 'kwargs["padding"] = size'), line_of(CONSUMER, 'kwargs["modules"] = []')
    kept = [f for f in found if first <= f.consumer_site.line <= last]
    assert kept and all("padding" in f.title for f in kept)
    after = [tmp_path / "after", tmp_path / "consumer"]
    assert "padding" in (raised_by(after, "app.manager", "Manager().load([1], None, 3)") or "")


FIELDS_BEFORE = {
    "gizmo/args.py": """
        from dataclasses import dataclass


        @dataclass
        class EngineArgs:
            model: str = "m"
            old_flag: bool = False
        """,
}
FIELDS_AFTER = {
    "gizmo/args.py": """
        from dataclasses import dataclass


        @dataclass
        class EngineArgs:
            model: str = "m"
        """,
}
FIELDS_CONSUMER = """
    from gizmo.args import EngineArgs


    def make(flag):
        kwargs = {"model": "x"}
        if "old_flag" in EngineArgs.__dataclass_fields__:
            kwargs["old_flag"] = flag
        return EngineArgs(**kwargs)
    """


def test_a_test_on_the_dataclass_fields_is_a_test_on_its_signature(tmp_path):
    """`if "f" in C.__dataclass_fields__:` asks what C's generated `__init__` takes: on a target
    without the field the branch never runs, so its key is silent."""
    found = findings_of(tmp_path, Case("fieldtest", FIELDS_BEFORE, FIELDS_AFTER, {"app/make.py": FIELDS_CONSUMER}))
    assert_findings(found, [])
    for side in ("before", "after"):
        assert raised_by([tmp_path / side, tmp_path / "consumer"], "app.make", "make(True)") is None
