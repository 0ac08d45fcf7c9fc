"""replace_removed_call: every call of a removed function imported at the site line reads the
target's expression instead, the import goes and the expression's module comes; all or nothing;
once only."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

ARGS = {"name": "vllm_is_batch_invariant", "expression": "envs.VLLM_BATCH_INVARIANT", "head": "envs",
        "module": "vllm.envs"}
SRC = """import torch
from vllm.model_executor.layers.batch_invariant import init_batch_invariance, vllm_is_batch_invariant


def setup():
    init_batch_invariance()
    if vllm_is_batch_invariant() and torch.cuda.is_available():
        return True
    return not vllm_is_batch_invariant()
"""


def test_every_call_reads_the_expression_and_the_import_follows():
    new, out = run_codemod(SRC, "replace_removed_call", line=2, args=ARGS)
    assert out.status == "applied", out
    assert "from vllm.model_executor.layers.batch_invariant import init_batch_invariance\n" in new
    assert "import vllm.envs as envs\n" in new
    assert "    if envs.VLLM_BATCH_INVARIANT and torch.cuda.is_available():\n" in new
    assert "    return not envs.VLLM_BATCH_INVARIANT\n" in new and "vllm_is_batch_invariant" not in new
    compile(new, "x.py", "exec")
    again, out2 = run_codemod(new, "replace_removed_call", line=2, args=ARGS)
    assert again == new and out2.status == "already"


def test_the_function_handed_on_or_a_taken_name_leaves_the_file_alone():
    handed = SRC + "\nHOOK = vllm_is_batch_invariant\n"
    new, out = run_codemod(handed, "replace_removed_call", line=2, args=ARGS)
    assert new == handed and out.status == "not_found" and "other than called" in out.reason
    taken = SRC.replace("import torch\n", "import torch\nenvs = {}\n")
    new, out = run_codemod(taken, "replace_removed_call", line=3, args=ARGS)
    assert new == taken and out.status == "not_found" and "`envs`" in out.reason


def test_an_import_of_the_module_already_there_is_reused():
    src = "import vllm.envs as envs\n" + SRC
    new, out = run_codemod(src, "replace_removed_call", line=3, args=ARGS)
    assert out.status == "applied" and new.count("import vllm.envs as envs") == 1


def test_the_module_imported_from_its_package_under_that_name_is_reused():
    src = "from vllm import envs\n" + SRC
    new, out = run_codemod(src, "replace_removed_call", line=3, args=ARGS)
    assert out.status == "applied", out
    assert "import vllm.envs" not in new and "from vllm import envs\n" in new
    assert "    return not envs.VLLM_BATCH_INVARIANT\n" in new
