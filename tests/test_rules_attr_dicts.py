"""Keys a class writes into a dict it keeps on `self`, splatted into a target call
(`LLM(**self.model_args)`): each key written literally anywhere in the class reaches the callee,
so one the end of the target's `**kwargs` forward no longer accepts is DRIFT015 at the key's
line. The dict stays open (`.update(kwargs)`), so no "now requires" finding comes of it; a key
some method pops may not reach the call and is silent."""

from __future__ import annotations

import ast

from drift.probes.attr_dicts import attribute_dicts
from tests.rule_cases import Case, findings_of, line_of, src

BEFORE = {"gizmo/__init__.py": "from gizmo.engine import Engine\n", "gizmo/engine.py": """
    class EngineArgs:
        def __init__(self, model, old_flag=False, swap=4, popped=None):
            self.model = model


    class Engine:
        def __init__(self, model, **kwargs):
            self.args = EngineArgs(model=model, **kwargs)
    """}
AFTER = {"gizmo/__init__.py": "from gizmo.engine import Engine\n", "gizmo/engine.py": """
    class EngineArgs:
        def __init__(self, model, swap=4, needed=None):
            self.model = model


    class Engine:
        def __init__(self, model, **kwargs):
            self.args = EngineArgs(model=model, **kwargs)
    """}
CONSUMER = {"app/__init__.py": "", "app/runner.py": """
    from gizmo import Engine


    class Runner:
        def __init__(self, model, parallel, **kwargs):
            self.engine_args = {"model": model, "swap": 8}
            self.engine_args.update(kwargs)
            if parallel:
                self.engine_args["old_flag"] = True
            self.engine_args["popped"] = 1

        def start(self):
            self.engine_args.pop("popped", None)
            return Engine(**self.engine_args)
    """}


def test_a_key_written_into_a_self_dict_reaches_the_forward(tmp_path):
    code = CONSUMER["app/runner.py"]
    found = [f for f in findings_of(tmp_path, Case("attr_dicts", BEFORE, AFTER, CONSUMER))
             if f.rule_id in ("DRIFT015", "DRIFT010", "DRIFT011", "DRIFT016")]
    assert [(f.rule_id, f.consumer_site.line) for f in found] == \
        [("DRIFT015", line_of(code, 'self.engine_args["old_flag"] = True'))], [f.title for f in found]


def test_the_probe_keeps_literal_keys_and_leaves_popped_ones_out():
    tree = ast.parse(src(CONSUMER["app/runner.py"]))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert sorted(attribute_dicts(cls)["engine_args"]) == ["model", "old_flag", "swap"]
