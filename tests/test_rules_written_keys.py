"""Keys a helper writes into the dict its caller hands it (`config.setdefault("swap_space", 4)`,
`config["k"] = v`), carried back through its return onto `self` and splatted into a target
constructor (`EngineArgs(model=..., **self._config)`): DRIFT017 where the target no longer takes the
keyword. A key popped (or deleted) from the dict before it is handed on never reaches the call."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of, raised_by, write_tree

BEFORE = {"gizmo/__init__.py": "", "gizmo/args.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str
        swap_space: int = 4
        block_size: int = 16
        enable_lora: bool = False
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/args.py": """
    from dataclasses import dataclass


    @dataclass
    class EngineArgs:
        model: str
        enable_lora: bool = False
    """}
CONSUMER = {"app/__init__.py": "", "app/core.py": """
    from gizmo.args import EngineArgs


    class Model:
        def __init__(self, model_config=None):
            self._model_config = model_config

        def load(self):
            self._model_config = self._sanitize(self._model_config)
            self._model_config.pop("reasoning", None)
            return EngineArgs(model="m", **self._model_config)

        def _sanitize(self, model_config):
            if model_config is None:
                model_config = {}
            model_config.setdefault("swap_space", 4)
            model_config["enable_lora"] = True
            model_config.setdefault("reasoning", False)
            return model_config


    def build(block):
        config = {}
        config["block_size"] = block
        del config["block_size"]
        return EngineArgs(model="m", **config)
    """}


def test_keys_a_helper_writes_into_a_dict_reach_the_splatted_call(tmp_path):
    src = CONSUMER["app/core.py"]
    found = [f for f in findings_of(tmp_path, Case("keys", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT017"]
    assert [f.consumer_site.line for f in found] == [line_of(src, 'model_config.setdefault("swap_space", 4)')], \
        [f.title for f in found]
    assert "swap_space" in found[0].title
    app = write_tree(tmp_path / "run_app", CONSUMER)
    failure = raised_by([write_tree(tmp_path / "run_after", AFTER), app], "app.core", "Model().load()")
    assert failure is not None and failure.startswith("TypeError") and "'swap_space'" in failure
    before = write_tree(tmp_path / "run_before", BEFORE)
    assert raised_by([before, app], "app.core", "Model().load()") is None
    assert raised_by([write_tree(tmp_path / "run_after2", AFTER), app], "app.core", "build(8)") is None
