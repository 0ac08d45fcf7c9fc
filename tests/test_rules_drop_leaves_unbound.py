"""DRIFT010's drop of a removed keyword is no fix when the call, once it is dropped, still lacks a
parameter the target requires (vLLM 0.10's `generate(prompt_token_ids=...)` made `prompts`
required; 0.11.1's `CachedRequestData` gained required fields as it lost one): the finding then
names what is missing, and no codemod writes a call that still raises, in any tier or branch."""

from __future__ import annotations

from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/llm.py": """
    class LLM:
        def generate(self, prompts=None, params=None, prompt_token_ids=None, use_tqdm=True):
            return prompts if prompts is not None else prompt_token_ids
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/llm.py": """
    class LLM:
        def generate(self, prompts, params=None, *, use_tqdm=True):
            return prompts
    """}
# the target keeps `prompts` optional: dropping the keyword leaves a call that binds
AFTER_OPTIONAL = {"gizmo/__init__.py": "", "gizmo/llm.py": """
    class LLM:
        def generate(self, prompts=None, params=None, *, use_tqdm=True):
            return prompts
    """}
CONSUMER = {"app/__init__.py": "", "app/run.py": """
    from gizmo.llm import LLM


    def run(ids):
        llm = LLM()
        return llm.generate(prompt_token_ids=ids, use_tqdm=False)
    """}


def _keys(tmp_path, findings, **kw):
    path = "app/run.py"
    files = {path: (tmp_path / "consumer" / path).read_bytes()}
    return set(plan(files, list(findings), **kw).finding_keys)


def test_a_drop_that_leaves_a_required_parameter_unpassed_is_manual(tmp_path):
    findings = findings_of(tmp_path, Case("unbound", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT010")
    assert f.fix.codemod is None and f.fix.gated_tier is None
    assert "`prompts`" in f.fix.description and "still raise" in f.fix.manual_reason
    assert f.key not in _keys(tmp_path, findings, unsafe_fixes=True)
    # the evidence: the call with the keyword dropped still raises on the target
    assert raised_by([tmp_path / "after", tmp_path / "consumer"], "gizmo.llm",
                     "LLM().generate(use_tqdm=False)").startswith("TypeError")


def test_a_drop_that_leaves_a_call_that_binds_keeps_its_codemod(tmp_path):
    findings = findings_of(tmp_path, Case("binds", BEFORE, AFTER_OPTIONAL, CONSUMER))
    f = only(findings, "DRIFT010")
    assert f.fix.codemod == "drop_keyword"
    assert f.key in _keys(tmp_path, findings, unsafe_fixes=True)
