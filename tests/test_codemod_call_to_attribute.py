"""call_to_attribute: `.m()` at the site becomes `.attr`, parentheses and layout kept; once only."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

ARGS = {"method": "create_empty_block_list", "attr": "empty_kv_cache_blocks"}


def test_the_call_in_parentheses_becomes_the_read():
    src = "def f(self):\n    blocks = (\n        self.manager.create_empty_block_list())\n    return blocks\n"
    new, out = run_codemod(src, "call_to_attribute", line=3, args=ARGS)
    assert out.status == "applied"
    assert new == "def f(self):\n    blocks = (\n        self.manager.empty_kv_cache_blocks)\n    return blocks\n"
    again, out2 = run_codemod(new, "call_to_attribute", line=3, args=ARGS)
    assert again == new and out2.status == "already"


def test_a_call_inside_an_expression():
    src = "x = (m.create_empty_block_list(), 0)\n"
    new, out = run_codemod(src, "call_to_attribute", line=1, args=ARGS)
    assert new == "x = (m.empty_kv_cache_blocks, 0)\n"


def test_a_call_with_arguments_or_elsewhere_is_not_touched():
    src = "x = m.create_empty_block_list(2)\ny = create_empty_block_list()\n"
    for line in (1, 2):
        new, out = run_codemod(src, "call_to_attribute", line=line, args=ARGS)
        assert new == src and out.status == "not_found"
