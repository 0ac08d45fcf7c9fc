"""apply_fixes: several fixes in one file, bottom-up and re-located; plus the real speculators file."""

from __future__ import annotations

import shutil
import tokenize

import pytest

from drift.fixes.kinds import REGISTRY, apply_fixes
from drift.findings import Finding, Fix, Location, RuleKind, Severity

PATH = "pkg/gen.py"


def finding(line: int, codemod: str | None, *, path: str = PATH, symbol: str = "", tier: str = "safe",
            **args) -> Finding:
    fix = Fix("fix it", codemod=codemod, args=args, tier=tier) if codemod else Fix("by hand", manual_reason="no codemod")
    return Finding(
        rule_id="T001",
        kind=RuleKind.KEYWORD_REMOVED,
        severity=Severity.BREAKING,
        title="t",
        consumer_site=Location(path, line),
        fix=fix,
        symbol=symbol or f"{codemod}@{line}",
    )


SOURCE = '''\
"""Gen."""

from vllm.core import (
    alpha,
)


def run(self, so):
    cfg = make(spec=1, a=2)  # keep
    req = Request(
        a=1,
    )
    self.ex.execute_model(so)
    return states[0]
'''


def line_of(text: str, *needles: str) -> int:
    """The first line holding any needle (later needles find the site once it was rewritten)."""
    for needle in needles:
        for i, t in enumerate(text.splitlines(), 1):
            if needle in t:
                return i
    raise AssertionError(f"none of {needles} in text")


def fixes_for(text: str) -> list[Finding]:
    return [
        finding(line_of(text, "make("), "drop_keyword", callee="make", keyword="spec"),
        finding(
            line_of(text, "Request("),
            "add_keyword",
            callee="Request",
            keyword="hasher",
            value="_hasher()",
            imports=[["vllm.core", "beta"]],
            helper_name="_hasher",
            helper_src="def _hasher():\n    return beta\n",
        ),
        finding(line_of(text, "execute_model"), "add_second_phase"),
        finding(line_of(text, "states[0]", "return states"), "unwrap_index", index="0", name="states"),
        finding(line_of(text, "execute_model"), "drop_keyword", callee="missing", keyword="x"),
        finding(3, None),
        finding(1, "drop_keyword", path="other.py", callee="f", keyword="k"),
    ]


def test_registry_names():
    assert set(REGISTRY) == {"drop_keyword", "add_keyword", "rename_method", "add_second_phase", "unwrap_index", "move_import",
                             "rename_attribute_owner", "rename_keyword", "rename_attribute", "rename_import",
                             "keywordize_arguments", "add_parameters", "compare_versions", "alias_member",
                             "bind_parameters", "drop_argument", "call_to_attribute", "build_from_factory", "settle_setting",
                             "replace_removed_call", "import_moved_member",
                             "rename_constants_class", "drop_check", "rewrite_arguments", "read_env", "unpack_rest"}
    for cls in REGISTRY.values():
        assert cls.DESCRIPTION


def test_apply_fixes_one_pass_with_shifting_lines():
    findings = fixes_for(SOURCE)
    res = apply_fixes(SOURCE, findings, path=PATH)
    assert len(res.applied) == 4
    assert [k for k, _ in res.skipped] == [findings[4].key]
    assert "no call to missing()" in res.skipped[0][1]
    new = res.new_source
    compile(new, PATH, "exec")
    assert "cfg = make(a=2)  # keep" in new
    assert "    alpha,\n    beta,\n)" in new
    assert "def _hasher():\n    return beta\n" in new
    assert "        hasher=_hasher(),\n    )" in new
    assert "    if self.ex.execute_model(so) is None:\n        self.ex.sample_tokens(None)\n" in new
    assert "    return states\n" in new
    # Rescan-style second pass (sites re-located in the patched text): nothing changes.
    again = apply_fixes(new, fixes_for(new)[:4], path=PATH)
    assert again.new_source == new and not again.applied and len(again.already) == 4


def test_apply_fixes_unparseable_source_is_skipped_not_raised():
    res = apply_fixes("def (:\n", [finding(1, "drop_keyword", callee="f", keyword="k")], path=PATH)
    assert res.new_source == "def (:\n" and not res.applied
    assert "cannot parse" in res.skipped[0][1]


def test_apply_fixes_unknown_codemod_and_bad_args():
    res = apply_fixes("f(k=1)\n", [finding(1, "nope"), finding(1, "drop_keyword", callee="f")], path=PATH)
    reasons = [r for _, r in res.skipped]
    assert "unknown codemod 'nope'" in reasons[0] and "bad arguments for drop_keyword" in reasons[1]


GEN = "speculators/data_generation/vllm_hidden_states_generator.py"

HELPER = '''
def _drift_block_hasher(vllm_config):
    """Added by drift: vLLM >= 0.11.1 wants each Request to carry its block hasher."""
    cache_config = vllm_config.cache_config
    hash_fn = get_hash_fn_by_name(cache_config.prefix_caching_hash_algo)
    init_none_hash(hash_fn)
    return get_request_block_hasher(cache_config.block_size, hash_fn)
'''


def speculators_fixes(text: str) -> list[Finding]:
    at = lambda needle: line_of(text, needle)  # noqa: E731
    return [
        finding(at("get_kv_cache_config_from_groups("), "drop_keyword", path=GEN,
                callee="get_kv_cache_config_from_groups", keyword="kv_cache_specs"),
        finding(at("self.scheduler = Scheduler("), "add_keyword", path=GEN, callee="Scheduler",
                keyword="block_size", value="self.vllm_config.cache_config.block_size"),
        finding(at("scheduler_config=SchedulerConfig("), "add_keyword", path=GEN, callee="SchedulerConfig",
                keyword="is_encoder_decoder", value="False"),
        finding(at("self.executor.execute_model(scheduler_output)"), "add_second_phase", path=GEN,
                method="execute_model", sibling="sample_tokens", sibling_args=["None"]),
        finding(line_of(text, "captured_states_list[0]", "aux_hidden_states = captured_states_list"), "unwrap_index", path=GEN, index="0", name="captured_states_list"),
        finding(at("req = Request("), "add_keyword", path=GEN, callee="Request", keyword="block_hasher",
                value="_drift_block_hasher(self.vllm_config)",
                imports=[["vllm.v1.core.kv_cache_utils", "get_request_block_hasher"],
                         ["vllm.v1.core.kv_cache_utils", "init_none_hash"],
                         ["vllm.utils.hashing", "get_hash_fn_by_name"]],
                helper_name="_drift_block_hasher", helper_src=HELPER),
    ]


def comments(text: str) -> list[str]:
    lines = iter(text.splitlines(keepends=True))
    return [t.string for t in tokenize.generate_tokens(lambda: next(lines, "")) if t.type == tokenize.COMMENT]


@pytest.mark.corpus
def test_speculators_generator_fixes(corpus_src, tmp_path):
    src_root = corpus_src("speculators==0.3.0")
    work = tmp_path / "site"
    (work / GEN).parent.mkdir(parents=True)
    shutil.copyfile(src_root / GEN, work / GEN)
    original = (work / GEN).read_text()

    res = apply_fixes(original, speculators_fixes(original), path=GEN)
    assert len(res.applied) == 6, res.skipped
    new = res.new_source
    compile(new, GEN, "exec")
    assert "kv_cache_specs=" not in new
    assert "block_size=self.vllm_config.cache_config.block_size,\n        )" in new
    assert "is_encoder_decoder=False,\n            )," in new
    assert "if self.executor.execute_model(scheduler_output) is None:\n" in new
    assert "self.executor.sample_tokens(None)\n" in new
    assert "aux_hidden_states = captured_states_list\n" in new
    assert "block_hasher=_drift_block_hasher(self.vllm_config),\n            )" in new
    assert "    get_request_block_hasher,\n    init_none_hash,\n)" in new
    assert "from vllm.utils.hashing import get_hash_fn_by_name\n" in new
    assert new.count("def _drift_block_hasher(") == 1
    assert comments(new) == comments(original)
    # Only the intended lines differ: every original line but the rewritten ones survives.
    kept = set(new.splitlines())
    lost = [t for t in original.splitlines() if t not in kept]
    assert [t.strip() for t in lost] == [
        "kv_cache_specs=kv_cache_spec,",
        "self.executor.execute_model(scheduler_output)",
        "aux_hidden_states = captured_states_list[0]",
    ]

    again = apply_fixes(new, speculators_fixes(new), path=GEN)
    assert again.new_source == new and not again.applied and len(again.already) == 6
