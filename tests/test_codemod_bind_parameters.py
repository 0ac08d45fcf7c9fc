"""bind_parameters: an override's parameters the target stopped passing are taken out of the `def`
and the ones the body reads are bound from the object the target passes now: before/after,
idempotence, layouts (one per line, trailing comma, keyword-only, one-line body), and refusals."""

from __future__ import annotations

import pytest

from drift.fixes.kinds import run_codemod

METHOD = '''\
class Method(Base):
    def apply(
        self,
        layer,
        x,
        router_logits,
        top_k: int,
        renormalize: bool,
        use_grouped_topk: bool = False,  # unused here
        scoring_func: str = "softmax",
    ):
        """Route and run."""
        if scoring_func != "softmax":
            raise NotImplementedError
        return run(x, router_logits, top_k=top_k, renormalize=renormalize)
'''
NAMES = ["top_k", "renormalize", "use_grouped_topk", "scoring_func"]
ARGS = {"function": "apply", "params": [[n, f"layer.{n}"] for n in NAMES]}


def _twice(src: str, line: int, args: dict) -> str:
    new, out = run_codemod(src, "bind_parameters", line=line, args=args)
    assert out.status == "applied", out.reason
    again, out2 = run_codemod(new, "bind_parameters", line=line, args=args)
    assert again == new and out2.status == "already", out2
    compile(new, "m.py", "exec")
    return new


def test_parameters_leave_the_def_and_the_read_ones_are_bound_after_the_docstring():
    assert _twice(METHOD, 2, ARGS) == (
        "class Method(Base):\n"
        "    def apply(\n"
        "        self,\n"
        "        layer,\n"
        "        x,\n"
        "        router_logits,\n"
        "    ):\n"
        "        \"\"\"Route and run.\"\"\"\n"
        "        top_k = layer.top_k\n"
        "        renormalize = layer.renormalize\n"
        "        scoring_func = layer.scoring_func\n"
        "        if scoring_func != \"softmax\":\n"
        "            raise NotImplementedError\n"
        "        return run(x, router_logits, top_k=top_k, renormalize=renormalize)\n"
    )


def test_the_patched_override_takes_the_new_call_and_reads_the_values_from_the_object():
    new = _twice(METHOD, 2, ARGS)
    space: dict = {"Base": object, "run": lambda x, r, top_k, renormalize: (x, r, top_k, renormalize)}
    exec(compile(new, "m.py", "exec"), space)  # noqa: S102 - the synthetic source above

    class Layer:
        top_k, renormalize, use_grouped_topk, scoring_func = 2, True, False, "softmax"

    assert space["Method"]().apply(layer=Layer(), x="x", router_logits="r") == ("x", "r", 2, True)
    old: dict = dict(space)
    exec(compile(METHOD, "m.py", "exec"), old)  # noqa: S102
    with pytest.raises(TypeError, match="top_k"):
        old["Method"]().apply(layer=Layer(), x="x", router_logits="r")


def test_a_one_line_def_and_keyword_only_parameters():
    src = "class M:\n    def g(self, a, b, *, c=1): return b + c\n"
    assert _twice(src, 2, {"function": "g", "params": [["c", "self.c"]]}) == (
        "class M:\n    def g(self, a, b):\n        c = self.c\n        return b + c\n")
    src2 = "def g(a, b, c,):\n    return a\n"
    assert _twice(src2, 1, {"function": "g", "params": [["c", "a.c"], ["b", "a.b"]]}) == "def g(a,):\n    return a\n"


def test_nothing_to_take_or_no_such_def():
    src = "def g(a):\n    return a\n"
    new, out = run_codemod(src, "bind_parameters", line=1, args={"function": "g", "params": [["b", "a.b"]]})
    assert new == src and out.status == "already"
    new, out = run_codemod(src, "bind_parameters", line=1, args={"function": "h", "params": [["a", "x.a"]]})
    assert new == src and out.status == "not_found"
    src3 = "def g(a, b, /, c):\n    return b\n"
    new, out = run_codemod(src3, "bind_parameters", line=1, args={"function": "g", "params": [["b", "a.b"]]})
    assert new == src3 and out.status == "not_found" and "positional-only" in out.reason


def test_unread_parameters_leave_the_def_and_a_body_reading_one_is_left_alone():
    """`unread`: no evidence the new source gives the baseline's value, so they are removed but never bound."""
    args = {**ARGS, "unread": ["use_grouped_topk"]}
    new = _twice(METHOD, 2, args)
    assert "use_grouped_topk" not in new and "top_k = layer.top_k" in new
    reading = METHOD.replace("return run(", "return use_grouped_topk or run(")
    new, out = run_codemod(reading, "bind_parameters", line=2, args=args)
    assert new == reading and out.status == "not_found" and "reads use_grouped_topk" in out.reason


PACKED = '''\
class Platform(Base):
    @classmethod
    def get_backend(cls, selected: "Enum",
                    head_size: int, dtype: str,
                    use_v1: bool, use_mla: bool) -> str:
        if use_v1:
            return "v1" if not use_mla else "mla"
        return "v0"
'''
PACKED_ARGS = {"function": "get_backend", "add": [["config", "selected"]],
               "params": [["head_size", "config.head_size"], ["dtype", "config.dtype"],
                          ["use_v1", "True"], ["use_mla", "config.use_mla"]]}


def test_packed_parameters_leave_the_def_the_new_object_takes_their_place_and_a_fixed_flag_is_bound():
    assert _twice(PACKED, 3, PACKED_ARGS) == (
        "class Platform(Base):\n"
        "    @classmethod\n"
        "    def get_backend(cls, selected: \"Enum\",\n"
        "                    config) -> str:\n"
        "        use_v1 = True\n"
        "        use_mla = config.use_mla\n"
        "        if use_v1:\n"
        "            return \"v1\" if not use_mla else \"mla\"\n"
        "        return \"v0\"\n"
    )


def test_the_packed_override_takes_the_targets_call_and_behaves_as_on_the_baseline():
    new = _twice(PACKED, 3, PACKED_ARGS)
    scope: dict = {"Base": object}
    exec(new, scope)

    class Config:
        head_size, dtype, use_mla = 64, "bf16", True

    assert scope["Platform"].get_backend("FLASH", config=Config()) == "mla"
    Config.use_mla = False
    assert scope["Platform"].get_backend("FLASH", Config()) == "v1"


def test_the_new_object_goes_in_the_middle_in_the_defs_own_layout():
    src = ("def hook(a, b, c, d):\n"
           "    return a, c\n")
    args = {"function": "hook", "add": [["packed", "a"]], "params": [["b", "packed.b"], ["c", "packed.c"]]}
    assert _twice(src, 1, args) == ("def hook(a, packed, d):\n"
                                    "    c = packed.c\n"
                                    "    return a, c\n")


def test_an_added_parameter_that_would_shadow_a_read_or_follow_a_default_is_refused():
    shadow = ("def hook(a, b):\n"
              "    return config, b\n")
    args = {"function": "hook", "add": [["config", "a"]], "params": [["b", "config.b"]]}
    new, out = run_codemod(shadow, "bind_parameters", line=1, args=args)
    assert new == shadow and out.status == "not_found" and "shadow" in out.reason
    defaulted = ("def hook(a=1, b=2):\n"
                 "    return a, b\n")
    args = {"function": "hook", "add": [["config", "a"]], "params": [["b", "config.b"]]}
    new, out = run_codemod(defaulted, "bind_parameters", line=1, args=args)
    assert new == defaulted and out.status == "not_found" and "default" in out.reason


def test_a_def_that_already_dropped_them_but_lacks_the_new_object_is_not_taken_as_done():
    src = ("def hook(a, d):\n"
           "    return a\n")
    args = {"function": "hook", "add": [["packed", "a"]], "params": [["b", "packed.b"]]}
    new, out = run_codemod(src, "bind_parameters", line=1, args=args)
    assert new == src and out.status == "not_found"
