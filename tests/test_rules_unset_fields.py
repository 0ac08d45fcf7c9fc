"""DRIFT088 (synthetic before/after pairs): an object the consumer builds from a target dataclass
and hands to a target method that now first reads a field of the class that has a default. The
target's own producer sets the field; the consumer's override of that producer builds the object
itself and never does, so the method always sees the default (here: no mask, silently). Shown by
running the synthetic code on both releases."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from drift.pipeline.run import check
from tests.rule_cases import LIB, Case, assert_findings, consumer_of, facts_of, line_of, write_tree

OUTPUT_BEFORE = """
    from dataclasses import dataclass


    @dataclass
    class Output:
        items: list
    """
OUTPUT_AFTER = """
    from dataclasses import dataclass


    @dataclass
    class Output:
        items: list
        has_special: bool = False
    """
SCHED_BEFORE = """
    from gizmo.output import Output


    class Sched:
        def __init__(self):
            self.items = []

        def schedule(self):
            out = Output(items=list(self.items))
            return out, self.mask(out)

        def mask(self, out):
            found = [i for i in out.items if i.startswith("s")]
            return found or None
    """
SCHED_AFTER = """
    from gizmo.output import Output


    class Sched:
        def __init__(self):
            self.items = []

        def schedule(self):
            out = Output(items=list(self.items))
            for item in out.items:
                out.has_special |= item.startswith("s")
            return out, self.mask(out)

        def mask(self, out):
            if not out.has_special:
                return None
            found = [i for i in out.items if i.startswith("s")]
            return found or None
    """
MINE = """
    from gizmo.output import Output
    from gizmo.sched import Sched


    class MySched(Sched):
        def schedule(self):
            out = Output(items=sorted(self.items))
            mask = self.mask(out)
            return out, mask


    def run(items):
        s = MySched()
        s.items = list(items)
        return s.schedule()[1]
    """


def _case(mine=MINE, before=(OUTPUT_BEFORE, SCHED_BEFORE), after=(OUTPUT_AFTER, SCHED_AFTER)):
    lib = {"gizmo/output.py": before[0], "gizmo/sched.py": before[1]}
    new = {"gizmo/output.py": after[0], "gizmo/sched.py": after[1]}
    return Case("unset-field", lib, new, {"app/__init__.py": "", "app/mine.py": mine})


def findings_of(tmp_path: Path, case: Case):
    """The check over the case's trees, with the releases' files on this machine (as for a release
    drift fetched): the rule asks the target's text whether its own code assigns the field."""
    target = facts_of(write_tree(tmp_path / "after", case.after))
    target["target"] = {"root": str(tmp_path / "after")}
    baseline = facts_of(write_tree(tmp_path / "before", case.before))
    baseline["target"] = {"root": str(tmp_path / "before")}
    outcome = check(consumer=consumer_of(write_tree(tmp_path / "consumer", case.consumer)), target_facts=target,
                    baseline_facts=baseline, target_package=LIB)
    assert outcome.error is None and outcome.report is not None and not outcome.report.incomplete
    return outcome.report.findings


def _value(roots: list[Path], module: str, expr: str):
    """Import `module` from `roots` and evaluate `expr` in it: what the synthetic code really does."""
    def forget() -> None:
        for name in [m for m in sys.modules if m.split(".")[0] in ("gizmo", "app")]:
            del sys.modules[name]

    forget()
    sys.path[:0] = [str(r) for r in roots]
    try:
        return eval(expr, vars(importlib.import_module(module)))  # our own synthetic sources
    finally:
        del sys.path[: len(roots)]
        forget()


def test_object_built_without_the_new_field_the_callee_reads_is_risky_at_the_call(tmp_path):
    findings = findings_of(tmp_path, _case())
    assert_findings(findings, [("DRIFT088", line_of(MINE, "mask = self.mask(out)"))])
    f = findings[0]
    assert f.severity.value == "risky" and f.symbol == "gizmo.output.Output.has_special"
    assert "`Sched.mask` now reads `out.has_special`" in f.title
    assert f"built at line {line_of(MINE, 'out = Output(')}" in f.title
    assert f.target_evidence[0].line == line_of(SCHED_AFTER, "if not out.has_special")
    run = "run(['a', 'sb'])"
    assert _value([tmp_path / "before", tmp_path / "consumer"], "app.mine", run) == ["sb"]
    assert _value([tmp_path / "after", tmp_path / "consumer"], "app.mine", run) is None


def test_consumer_that_sets_the_field_is_silent(tmp_path):
    mine = MINE.replace("            mask = self.mask(out)\n",
                        "            out.has_special = any(i.startswith('s') for i in out.items)\n"
                        "            mask = self.mask(out)\n")
    assert "out.has_special =" in mine
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_field_passed_to_the_constructor_is_silent(tmp_path):
    mine = MINE.replace("Output(items=sorted(self.items))", "Output(items=sorted(self.items), has_special=True)")
    assert_findings(findings_of(tmp_path, _case(mine=mine)), [])


def test_field_the_target_never_assigns_is_silent(tmp_path):
    sched = SCHED_AFTER.replace("            for item in out.items:\n                out.has_special |= item.startswith(\"s\")\n", "")
    assert "|=" not in sched
    assert_findings(findings_of(tmp_path, _case(after=(OUTPUT_AFTER, sched))), [])


def test_a_field_the_class_already_had_counts_once_the_callee_depends_on_it(tmp_path):
    findings = findings_of(tmp_path, _case(before=(OUTPUT_AFTER, SCHED_BEFORE)))
    assert_findings(findings, [("DRIFT088", line_of(MINE, "mask = self.mask(out)"))])


def test_a_callee_that_already_read_the_field_is_silent(tmp_path):
    assert_findings(findings_of(tmp_path, _case(before=(OUTPUT_AFTER, SCHED_AFTER))), [])
