"""Facts of single modules: the synthetic widgetlib in two versions plus focused edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift.probes.ast_facts import module_facts

SYNTH = Path(__file__).parent / "synth"


def facts(version: str, module: str) -> dict:
    rel = module.replace(".", "/")
    path = SYNTH / version / (rel + ".py")
    if not path.exists():
        path = SYNTH / version / rel / "__init__.py"
        rel += "/__init__"
    return module_facts(path.read_bytes(), module=module, path=rel + ".py")


def src(text: str, module: str = "pkg.mod") -> dict:
    return module_facts(text.encode(), module=module, path=module.replace(".", "/") + ".py")


def test_reexports_all_and_type_checking_imports():
    m = facts("v1", "widgetlib")
    assert m["is_package"] is True and m["error"] is None
    assert m["all"] == ["Widget", "make_widget", "Config", "Runner"]
    imp = m["imports"]
    assert imp["Config"] == {"target": "widgetlib.models.Settings", "line": 8}
    assert imp["Runner"]["target"] == "widgetlib.runner.Runner"
    assert imp["*"] == [{"target": "widgetlib.compat", "line": 6}]
    assert imp["Helper"] == {"target": "widgetlib.sub.helpers.Helper", "line": 11, "type_checking": True}
    assert "type_checking" not in imp["Widget"]
    assert m["names"]["VERSION"] == {"line": 14, "value": '"1.0"'}


def test_relative_imports_resolve_from_package_and_module():
    sub = facts("v1", "widgetlib.sub")
    assert sub["imports"]["helpers"]["target"] == "widgetlib.sub.helpers"
    assert sub["imports"]["BaseWidget"]["target"] == "widgetlib.core.Widget"
    helpers = facts("v1", "widgetlib.sub.helpers")
    assert helpers["imports"]["core"]["target"] == "widgetlib.core"
    assert helpers["imports"]["Runner"]["target"] == "widgetlib.runner.Runner"
    assert helpers["classes"]["Helper"]["bases"] == ["Runner"]


def test_plain_import_bindings():
    m = src("import a.b\nimport a.b as c\nimport os.path as osp, json\n")
    assert m["imports"]["a"]["target"] == "a"
    assert m["imports"]["c"]["target"] == "a.b"
    assert m["imports"]["osp"]["target"] == "os.path"
    assert m["imports"]["json"]["target"] == "json"


def test_dataclass_fields_initvar_and_default_change():
    w1 = facts("v1", "widgetlib.core")["classes"]["Widget"]
    w2 = facts("v2", "widgetlib.core")["classes"]["Widget"]
    assert w1["kind"] == w2["kind"] == "dataclass"
    f1 = {f["name"]: f for f in w1["fields"]}
    f2 = {f["name"]: f for f in w2["fields"]}
    assert f1["size"]["default"] == "16" and f2["size"]["default"] == "32"
    assert f1["tags"]["has_default"] is True
    assert f1["colour"]["initvar"] is True and f1["colour"]["has_default"] is True
    assert "device" not in f1
    assert f2["device"]["initvar"] is True and f2["device"]["has_default"] is False
    assert [p["name"] for p in w2["methods"]["__post_init__"]["params"]] == ["self", "device", "colour"]


def test_pydantic_like_model():
    s = facts("v1", "widgetlib.models")["classes"]["Settings"]
    assert s["kind"] == "pydantic"
    f = {x["name"]: x for x in s["fields"]}
    assert f["name"]["has_default"] is False
    assert f["retries"]["default"] == "Field(3, ge=0)" and f["retries"]["has_default"] is True
    assert f["timeout"]["has_default"] is True
    assert f["registry"]["classvar"] is True


def test_field_without_default_and_kw_only():
    m = src(
        "from dataclasses import dataclass, field, KW_ONLY\n"
        "@dataclass(frozen=True)\n"
        "class A:\n"
        "    a: int = field(metadata={})\n"
        "    b: int = field(default=1, kw_only=True)\n"
        "    _: KW_ONLY\n"
        "    c: int = 2\n"
        "    d: list = field(init=False, default_factory=list)\n"
    )
    f = {x["name"]: x for x in m["classes"]["A"]["fields"]}
    assert list(f) == ["a", "b", "c", "d"]
    assert f["a"]["has_default"] is False and f["a"]["kw_only"] is False
    assert f["b"]["has_default"] is True and f["b"]["kw_only"] is True
    assert f["c"]["kw_only"] is True
    assert m["classes"]["A"]["decorators"] == ["dataclass"]


@pytest.mark.parametrize("base,kind", [("NamedTuple", "namedtuple"), ("typing.TypedDict", "typeddict"),
                                       ("enum.IntEnum", "enum"), ("Protocol[T]", "protocol"), ("object", "class")])
def test_class_kinds(base, kind):
    m = src("class A(%s):\n    x: int\n" % base)
    assert m["classes"]["A"]["kind"] == kind


def test_overloads_fold_into_implementation():
    fn = facts("v1", "widgetlib.core")["functions"]["make_widget"]
    assert fn["line"] == 23 and fn["decorators"] == []
    assert [o["line"] for o in fn["overloads"]] == [20, 22]  # the `def` lines
    assert [p["name"] for p in fn["overloads"][1]["params"]] == ["name", "size"]
    kinds = [(p["name"], p["kind"], p["default"]) for p in fn["params"]]
    assert kinds == [("name", "POSITIONAL_OR_KEYWORD", None), ("size", "POSITIONAL_OR_KEYWORD", "DEFAULT_SIZE"),
                     ("strict", "KEYWORD_ONLY", "False"), ("extra", "VAR_KEYWORD", None)]


def test_params_positional_only_and_varargs():
    fn = src("def f(a, /, b=1, *args, c, d=2, **kw) -> 'int | None': pass\n")["functions"]["f"]
    assert [p["kind"] for p in fn["params"]] == [
        "POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "KEYWORD_ONLY", "VAR_KEYWORD"]
    assert fn["returns"] == "'int | None'"


def test_two_phase_methods_v1_and_v2():
    r1 = facts("v1", "widgetlib.runner")["classes"]["Runner"]["methods"]
    r2 = facts("v2", "widgetlib.runner")["classes"]["Runner"]["methods"]
    assert r1["execute"]["behaviour"]["tail_return_none"] is None
    assert r1["execute"]["behaviour"]["self_sets"] == {}
    b = r2["execute"]["behaviour"]
    assert b["tail_return_none"] == 20
    assert b["self_sets"] == {"state": [19]}
    s = r2["sample"]["behaviour"]
    assert s["self_reads"]["state"] == [23, 25] and s["self_resets"] == {"state": [26]}
    assert s["tail_return_none"] is None  # ends in `return output`
    init = r2["__init__"]["behaviour"]
    assert init["self_resets"] == {"state": [12]} and set(init["self_sets"]) == {"widget", "block_size"}


def test_implicit_end_is_not_tail_return_none():
    fn = src("def f(x):\n    if x:\n        return None\n    x.go()\n")["functions"]["f"]
    assert fn["behaviour"]["tail_return_none"] is None
    fn = src("def f(x):\n    x.go()\n    return\n")["functions"]["f"]
    assert fn["behaviour"]["tail_return_none"] == 3


def test_raise_message_and_guard():
    r = facts("v1", "widgetlib.runner")["classes"]["Runner"]["methods"]["execute"]["behaviour"]["raises"]
    assert r == [{"type": "RuntimeError", "line": 17, "message": "execute() called twice without sample()",
                  "guard": "self.state is not None"}]
    mk1 = facts("v1", "widgetlib.core")["functions"]["make_widget"]["behaviour"]["raises"][0]
    assert mk1["message"] == "size must be non-negative" and mk1["guard"] == "strict and size < 0"
    fn = src("def f(m):\n    if m:\n        pass\n    else:\n        raise errors.Bad(f'no {m.name}!') from None\n")
    assert fn["functions"]["f"]["behaviour"]["raises"] == [
        {"type": "errors.Bad", "line": 5, "message": "no {m.name}!", "guard": "not (m)"}]


def test_asserts_on_param_attributes():
    b = facts("v1", "widgetlib.runner")["classes"]["Runner"]["methods"]["check"]["behaviour"]
    assert b["asserts"] == [{"line": 29, "subject": "request", "attr": "block_hashes",
                             "src": "len(request.block_hashes) >= blocks"}]
    assert b["self_reads"] == {"block_size": [30]}


def test_return_shape_through_alias_in_nested_function():
    assert facts("v1", "widgetlib.core")["functions"]["fetch"]["behaviour"]["return_shapes"] == []
    shapes = facts("v2", "widgetlib.core")["functions"]["fetch"]["behaviour"]["return_shapes"]
    assert shapes == [{"line": 39, "src": "items[0] if rank is not None else items",
                       "shape": "element_or_sequence", "depends_on": ["unique_index"]}]


def test_kwarg_defaults_and_ctor_calls():
    b1 = facts("v1", "widgetlib.core")["functions"]["build"]["behaviour"]
    b2 = facts("v2", "widgetlib.core")["functions"]["build"]["behaviour"]
    assert b1["kwarg_defaults"] == {"size": {"value": "8", "line": 42}, "strict": {"value": "False", "line": 43}}
    assert b2["kwarg_defaults"]["size"] == {"value": "16", "line": 45}
    make = facts("v2", "widgetlib.runner")["classes"]["Runner"]["methods"]["make"]["behaviour"]
    assert make["ctor_calls"] == [{
        "callee": "Scheduler", "line": 36,
        "keywords": {"vllm_config": "config", "block_size": "scheduler_block_size"},
        "locals": {"scheduler_block_size": "config.cache.block_size * 2"}}]


def test_self_calls_and_nested_folding():
    code = (
        "class A:\n"
        "    def run(self):\n"
        "        def inner():\n"
        "            return self.helper(self.value)\n"
        "        self.count += 1\n"
        "        self.a, self.b = None, None\n"
        "        return inner()\n"
        "    @staticmethod\n"
        "    def s(self):\n"
        "        return self.x\n"
    )
    m = src(code)["classes"]["A"]["methods"]
    b = m["run"]["behaviour"]
    assert b["self_calls"] == {"helper": [4]}
    assert b["self_reads"] == {"value": [4]}
    assert b["self_sets"] == {"count": [5]}
    assert b["self_resets"] == {"a": [6], "b": [6]}
    assert m["s"]["behaviour"]["self_reads"] == {}
    assert m["run"]["nested"] == {}


def test_multiline_source_is_collapsed():
    fn = src("def f(\n    a=dict(\n        x=1,\n        y=2,\n    ),\n): pass\n")["functions"]["f"]
    assert fn["params"][0]["default"] == "dict(x=1, y=2,)"


@pytest.mark.parametrize("data,prefix", [
    (b"def f(:\n", "SyntaxError: "),
    (b"\xff\xfe\x00garbage\x00", "UnicodeDecodeError: "),
    (b"x = 1\x00\n", "ValueError: "),
])
def test_errors_are_recorded_not_raised(data, prefix):
    m = module_facts(data, module="pkg.bad", path="pkg/bad.py", sha256="abc")
    assert m["error"].startswith(prefix), m["error"]
    assert m["sha256"] == "abc" and m["functions"] == {} and m["classes"] == {}


def test_syntax_error_line():
    m = module_facts(b"x = 1\ny = (\n", module="p.m", path="p/m.py")
    assert m["error"].startswith("SyntaxError: ") and "(line 2)" in m["error"]


def test_coding_cookie_latin1():
    data = "# -*- coding: latin-1 -*-\nNAME = 'caf\u00e9'\n".encode("latin-1")
    m = module_facts(data, module="p.m", path="p/m.py")
    assert m["error"] is None and m["names"]["NAME"]["value"] == "'caf\u00e9'"


def test_env_exprs_record_every_read_form_of_a_setting():
    mod = src('''
import os

environment_variables = {
    "GAP": lambda: (
        int(os.environ["GAP"])
        if "GAP" in os.environ
        else 0
    ),
    "LOG": lambda: os.getenv("LOG", "info").lower(),
    "ROOT": lambda: os.path.join(_root(), "x"),
    "OTHER": lambda: os.getenv("SOMETHING_ELSE", "1"),
    "PLAIN": 3,
}
''', module="pkg.envs")
    exprs = mod["env_exprs"]
    assert sorted(exprs) == ["GAP", "LOG"]  # ROOT and OTHER read no variable of their own name
    assert exprs["GAP"]["expr"].split() == 'int(os.environ["GAP"]) if "GAP" in os.environ else 0'.split()
    assert exprs["LOG"] == {"line": 10, "expr": 'os.getenv("LOG", "info").lower()'}
    assert sorted(mod["env_defaults"]) == ["LOG"]  # the defaults table keeps its one read form
