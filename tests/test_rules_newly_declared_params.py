"""DRIFT070 on a method the target's base newly declares (vLLM 0.13's SchedulerInterface.__init__
taking block_size, which EngineCore passes by keyword): the consumer's own method lacking a
required parameter gets add_parameters, unsafe (nothing in it hands the value on), and the
patched class is built by the target again."""

from __future__ import annotations

from drift.findings import UNSAFE
from drift.fixes import plan
from tests.rule_cases import Case, findings_of, only, raised_by

BEFORE = {"gizmo/__init__.py": "", "gizmo/sched.py": """
    class SchedulerInterface:
        def schedule(self):
            raise NotImplementedError


    def build(cls):
        return cls(config="cfg", cache="kv", log_stats=True)
    """}
AFTER = {"gizmo/__init__.py": "", "gizmo/sched.py": """
    class SchedulerInterface:
        def __init__(self, config, cache, block_size, log_stats=False):
            raise NotImplementedError

        def schedule(self):
            raise NotImplementedError


    def build(cls):
        return cls(config="cfg", cache="kv", block_size=16, log_stats=True)
    """}
CONSUMER = {"app/__init__.py": "", "app/sched.py": """
    from gizmo.sched import SchedulerInterface, build


    class Mine(SchedulerInterface):
        def __init__(
            self,
            config,
            cache,
            log_stats=False,
        ):
            self.config, self.cache, self.log_stats = config, cache, log_stats

        def schedule(self):
            return self.cache


    def run():
        return build(Mine).schedule()
    """}


def test_the_newly_declared_required_parameter_is_added_unsafe(tmp_path):
    findings = findings_of(tmp_path, Case("newly-declared", BEFORE, AFTER, CONSUMER))
    f = only(findings, "DRIFT070")
    assert f.fix.codemod == "add_parameters" and f.fix.tier == UNSAFE
    assert f.fix.args["params"] == [["block_size", None, "cache"]]
    roots = lambda side: [tmp_path / side, tmp_path / "consumer"]  # noqa: E731
    assert raised_by(roots("after"), "app.sched", "run()").startswith("TypeError")
    rel = "app/sched.py"
    source = (tmp_path / "consumer" / rel).read_bytes()
    assert plan({rel: source}, list(findings)).empty
    patched = plan({rel: source}, list(findings), unsafe_fixes=True).changes[0].after.decode()
    assert "        cache,\n        block_size,\n        log_stats=False,\n" in patched
    (tmp_path / "consumer" / rel).write_text(patched)
    assert raised_by(roots("after"), "app.sched", "None if run() == 'kv' else 1 / 0") is None
    again = findings_of(tmp_path / "again", Case("newly-declared-again", BEFORE, AFTER, {"app/__init__.py": "", rel: patched}))
    assert [g for g in again if g.rule_id == "DRIFT070"] == []
    assert plan({rel: patched.encode()}, list(findings), unsafe_fixes=True).empty


def test_a_range_consumer_keeps_the_old_def_for_the_baseline(tmp_path):
    """The baseline's engine does not pass the new required parameter: the edited def is always
    version-gated, whatever the baseline re-check sees."""
    from drift.fixes.version_helper import choose_gate

    findings = findings_of(tmp_path, Case("newly-declared-range", BEFORE, AFTER, CONSUMER))
    rel = "app/sched.py"
    files = {rel: (tmp_path / "consumer" / rel).read_bytes()}
    gate = choose_gate(files, top="app", since="0.13.0", before="0.12.0")
    text = {c.path: c.after.decode() for c in plan(files, list(findings), unsafe_fixes=True, gate=gate,
                                                     gate_lines={}).changes}
    assert "app/vllm_version.py" in text and text[rel].count("if vllm_version_at_least") == 1
    assert text[rel].count("def __init__(") == 2 and "block_size," in text[rel]
    compile(text[rel], rel, "exec")
