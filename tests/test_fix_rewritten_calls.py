"""A removed function whose calls the target's own code rewrote to one expression: the import's
finding carries `replace_removed_call` with that expression (vLLM 0.19 wrote
`envs.VLLM_BATCH_INVARIANT` for each `vllm_is_batch_invariant()`; torchtitan and vLLM-MetaX called it),
safe where three or more of the target's calls agree, and nothing where they do not agree."""

from __future__ import annotations

from drift.findings import SAFE
from drift.pipeline.run import check
from tests.rule_cases import consumer_of, facts_of, write_tree

HELPER = '''
import gizmo.envs as envs


def is_invariant():
    return envs.INVARIANT
'''
ENVS = "INVARIANT = False\n"


def _users(call: str) -> dict[str, str]:
    return {f"gizmo/user{i}.py": f"import gizmo.envs as envs\nfrom gizmo.batch import is_invariant\n\n\n"
            f"def f{i}(x):\n    flag = {call}\n    return x if flag else -x\n" for i in range(3)}


BEFORE = {"gizmo/envs.py": ENVS, "gizmo/batch.py": HELPER, **_users("is_invariant()")}
AFTER = {"gizmo/envs.py": ENVS, "gizmo/batch.py": "def other():\n    return 1\n",
         **{k: v.replace("from gizmo.batch import is_invariant\n", "") for k, v in _users("envs.INVARIANT").items()}}
CONSUMER = {"app/__init__.py": "", "app/run.py": """from gizmo.batch import is_invariant


def go():
    return 1 if is_invariant() else 0
"""}


def _findings(tmp_path, before, after):
    facts = {}
    for side, files in (("before", before), ("after", after)):
        root = write_tree(tmp_path / side, files)
        facts[side] = facts_of(root)
        facts[side]["target"] = {"root": str(root)}  # the releases' files at hand, as a check has them
    cons = consumer_of(write_tree(tmp_path / "consumer", CONSUMER))
    return check(consumer=cons, target_facts=facts["after"], baseline_facts=facts["before"],
                 target_package="gizmo").report.findings


def test_the_import_of_a_function_the_target_rewrote_away_carries_the_rewrite(tmp_path):
    found = [f for f in _findings(tmp_path, BEFORE, AFTER) if f.rule_id == "DRIFT001"]
    assert len(found) == 1
    fix = found[0].fix
    assert fix.codemod == "replace_removed_call" and fix.tier == SAFE
    assert fix.args == {"name": "is_invariant", "expression": "envs.INVARIANT", "head": "envs", "module": "gizmo.envs"}
    assert "3 call sites" in fix.description


def test_sites_that_disagree_give_no_rewrite(tmp_path):
    after = dict(AFTER)
    after["gizmo/user1.py"] = after["gizmo/user1.py"].replace("flag = envs.INVARIANT", "flag = not envs.INVARIANT")
    after["gizmo/user2.py"] = after["gizmo/user2.py"].replace("flag = envs.INVARIANT", "flag = bool(x)")
    found = [f for f in _findings(tmp_path, BEFORE, after) if f.rule_id == "DRIFT001"]
    assert found and found[0].fix.codemod != "replace_removed_call"
