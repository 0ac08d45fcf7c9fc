"""A small harness for rule tests: synthetic before/after target trees and a consumer tree.

Griffe style: each case is `(before_files, after_files, consumer_files, expected)`. The trees are
written to a temporary directory, read with the same code `drift check` uses (the probe's
`collect_tree` for the target, `collect_usage` for the consumer), and the findings of
`drift.pipeline.run.check` are compared exactly with `expected` (no extra findings).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from drift.consumer.load import Consumer
from drift.pipeline.run import Outcome, check
from drift.consumer.usage import collect_usage
from drift.findings import Finding
from drift.probes.main import collect_tree

LIB = "gizmo"
APP = "app"

Files = dict[str, str]
# (rule id, consumer line) or (rule id, a substring of the finding's title)
Expected = tuple[str, Union[int, str]]


@dataclass
class Case:
    id: str
    before: Files
    after: Files
    consumer: Files
    expected: list[Expected] = field(default_factory=list)


def src(text: str) -> str:
    """Dedented source; cases are written indented inside the test module."""
    return textwrap.dedent(text).lstrip("\n")


def line_of(source: str, needle: str, nth: int = 1) -> int:
    """1-based line of the `nth` line of (dedented) `source` containing `needle`."""
    hits = [i for i, line in enumerate(src(source).splitlines(), 1) if needle in line]
    if len(hits) < nth:
        raise AssertionError(f"{needle!r} is not in the source {nth} time(s)")
    return hits[nth - 1]


def write_tree(root: Path, files: Files) -> Path:
    """Write `{relative path: source}`; missing `__init__.py` files of packages are added empty."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(src(text))
    for rel in files:
        parts = Path(rel).parts[:-1]
        for i in range(1, len(parts) + 1):
            init = root.joinpath(*parts[:i], "__init__.py")
            if not init.exists():
                init.write_text("")
    return root


def facts_of(root: Path, package: str = LIB) -> dict[str, Any]:
    facts = collect_tree(str(root), [package], cache_dir=None)
    assert package in facts["packages"], f"probe found no {package} under {root}: {facts.get('missing')}"
    return facts


def consumer_of(root: Path, *, app: str = APP, lib: str = LIB, meta: dict[str, Any] | None = None) -> Consumer:
    usage = collect_usage(root, [app], [lib])
    return Consumer(app, root, [app], meta or {"name": app, "version": "1.0", "requires": []}, usage)


def run_case(tmp_path: Path, *, before: Files | None, after: Files, consumer: Files, lib: str = LIB,
             app: str = APP, rule_paths: list[str] | None = None) -> Outcome:
    """Write the three trees under tmp_path and run `check` on them; before=None means no baseline."""
    after_facts = facts_of(write_tree(tmp_path / "after", after), lib)
    before_facts = facts_of(write_tree(tmp_path / "before", before), lib) if before is not None else None
    cons = consumer_of(write_tree(tmp_path / "consumer", consumer), app=app, lib=lib)
    return check(consumer=cons, target_facts=after_facts, baseline_facts=before_facts, target_package=lib,
                 rule_paths=rule_paths)


def findings_of(tmp_path: Path, case: Case, **kwargs: Any) -> tuple[Finding, ...]:
    outcome = run_case(tmp_path, before=case.before, after=case.after, consumer=case.consumer, **kwargs)
    assert outcome.error is None, outcome.error
    assert outcome.report is not None
    failed = list(outcome.report.incomplete)  # a rule that raised (also a caveat)
    failed += [n for n in outcome.report.notes + outcome.report.caveats if "could not be read" in n]
    assert not failed, failed
    return outcome.report.findings


def describe(findings: tuple[Finding, ...]) -> list[str]:
    return [f"{f.rule_id} {f.consumer_site} {f.title}" for f in findings]


def assert_findings(findings: tuple[Finding, ...], expected: list[Expected]) -> None:
    """Each expected item matches exactly one distinct finding, and nothing else was found."""
    left = list(findings)
    for rule_id, where in expected:
        for f in left:
            if f.rule_id == rule_id and (f.consumer_site.line == where if isinstance(where, int) else where in f.title):
                left.remove(f)
                break
        else:
            raise AssertionError(f"expected {rule_id} at {where!r}; found: {describe(findings)}")
    assert not left, f"unexpected findings: {describe(tuple(left))}"


def only(findings: tuple[Finding, ...], rule_id: str) -> Finding:
    hits = [f for f in findings if f.rule_id == rule_id]
    assert len(hits) == 1, describe(findings)
    return hits[0]


def raised_by(roots: list[Path], module: str, expr: str, *, packages: tuple[str, ...] = (LIB, APP)) -> str | None:
    """Really run the synthetic code: import `module` from `roots`, evaluate `expr` in it and
    return what it raises as `Type: message` (None when it raises nothing).

    Lets tests hold a predicted failure to the text Python itself produces.
    """
    import importlib
    import sys

    def forget() -> None:
        for name in [m for m in sys.modules if m.split(".")[0] in packages]:
            del sys.modules[name]

    forget()
    sys.path[:0] = [str(r) for r in roots]
    try:
        try:
            mod = importlib.import_module(module)
            eval(expr, vars(mod))  # noqa: S307 - our own synthetic sources
        except Exception as exc:  # noqa: BLE001 - the point is to see it
            where = "" if type(exc).__module__ == "builtins" else type(exc).__module__ + "."
            return f"{where}{type(exc).__qualname__}: {exc}"
        return None
    finally:
        del sys.path[: len(roots)]
        forget()
        importlib.invalidate_caches()
