"""A rule declares the names it searches the target for, and a demand-driven scan asks the host
for exactly those in its first reply: built-in packs and a user's `--rules` file alike."""

from __future__ import annotations

import textwrap

from drift.pipeline.scan import rule_words


def test_built_in_pack_words_reach_the_request():
    words = rule_words()
    assert {"block_hashes", "get_request_block_hasher"} <= set(words)
    assert words == sorted(set(words))


def test_user_rules_file_adds_its_searches(tmp_path):
    rules = tmp_path / "my_rules.py"
    rules.write_text(textwrap.dedent('''
        from drift.findings import RuleKind
        from drift.analysis.rules.base import rule

        @rule("USER001", RuleKind.SEMANTIC, pack="mine", searches=("my_special_hook",))
        def my_rule(ctx):
            """Looks for my_special_hook in the target."""
            return iter(())

        RULES = [my_rule]
    '''))
    assert "my_special_hook" in rule_words((str(rules),))
    assert "my_special_hook" not in rule_words()


def test_a_rules_file_that_does_not_load_adds_nothing(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no')\n")
    assert rule_words((str(broken),)) == []
