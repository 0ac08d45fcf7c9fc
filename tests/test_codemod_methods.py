"""rename_method, add_second_phase, unwrap_index: before/after, idempotence, comments kept."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

LOOP = """\
def step(self, out):
    while True:
        # run one step
        self.executor.execute_model(out)  # first phase
        break
"""


def test_add_second_phase_expression_statement():
    new, out = run_codemod(LOOP, "add_second_phase", line=4, args={})
    assert out.status == "applied"
    assert new == (
        "def step(self, out):\n"
        "    while True:\n"
        "        # run one step\n"
        "        if self.executor.execute_model(out) is None:  # first phase\n"
        "            self.executor.sample_tokens(None)\n"
        "        break\n"
    )
    again, out2 = run_codemod(new, "add_second_phase", line=4, args={})
    assert again == new and out2.status == "already"


def test_add_second_phase_assignment():
    src = "def f(ex, so):\n    out = ex.execute_model(so)\n    return out\n"
    args = {"method": "execute_model", "sibling": "sample_tokens", "sibling_args": ["None"]}
    new, out = run_codemod(src, "add_second_phase", line=2, args=args)
    assert out.status == "applied"
    assert new == (
        "def f(ex, so):\n"
        "    out = ex.execute_model(so)\n"
        "    if out is None:\n"
        "        out = ex.sample_tokens(None)\n"
        "    return out\n"
    )
    compile(new, "f.py", "exec")
    again, out2 = run_codemod(new, "add_second_phase", line=2, args=args)
    assert again == new and out2.status == "already"


def test_add_second_phase_awaited_call():
    src = "async def f(ex, so):\n    await ex.execute_model(so)\n"
    new, out = run_codemod(src, "add_second_phase", line=2, args={})
    assert "if await ex.execute_model(so) is None:\n        await ex.sample_tokens(None)\n" in new


def test_add_second_phase_not_found():
    new, out = run_codemod(LOOP, "add_second_phase", line=5, args={})
    assert out.status == "not_found" and "execute_model" in out.reason and new == LOOP


def test_rename_method():
    src = "x = self.worker.get_cache_spec(  # spec\n    1)\ny = get_cache_spec()\n"
    args = {"old": "get_cache_spec", "new": "get_kv_cache_spec"}
    new, out = run_codemod(src, "rename_method", line=1, args=args)
    assert out.status == "applied"
    assert new == "x = self.worker.get_kv_cache_spec(  # spec\n    1)\ny = get_cache_spec()\n"
    again, out2 = run_codemod(new, "rename_method", line=1, args=args)
    assert again == new and out2.status == "already"
    _, out3 = run_codemod(src, "rename_method", line=3, args=args)
    assert out3.status == "not_found"  # a plain function call is not the attribute call


def test_unwrap_index():
    src = "states = rpc('x')\naux = states[0]  # layers\nother = states[1]\n"
    args = {"index": "0", "name": "states"}
    new, out = run_codemod(src, "unwrap_index", line=2, args=args)
    assert out.status == "applied"
    assert new == "states = rpc('x')\naux = states  # layers\nother = states[1]\n"
    again, out2 = run_codemod(new, "unwrap_index", line=2, args=args)
    assert again == new and out2.status == "already"
    _, out3 = run_codemod(src, "unwrap_index", line=3, args=args)
    assert out3.status == "not_found"


def test_unwrap_index_without_name_and_parenthesised():
    new, out = run_codemod("y = (f(x)[0]).shape\n", "unwrap_index", line=1, args={"index": "0"})
    assert out.status == "applied" and new == "y = (f(x)).shape\n"
