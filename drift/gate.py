"""`drift gate`: one consumer against one or more targets, for CI.

The same analysis as `drift check`, run once per target so a pull request can show the
compatibility matrix across vLLM releases; the consumer and the baseline are read once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from drift import exitcodes
from drift.check.baseline import baseline_from_requires
from drift.check.run import Consumer, check, load_consumer
from drift.fetch import FetchError
from drift.findings import Report
from drift.targets import load_facts


@dataclass(frozen=True)
class GateResult:
    reports: tuple[Report, ...]
    error: str | None
    exit_code: int
    nothing_to_check: bool = False
    consumer_root: Path | None = None  # where the consumer's files are (for `# drift: ignore` comments)


def run_gate(
    *,
    consumer_spec: str,
    targets: list[str],
    baseline_spec: str | None = None,
    target_package: str = "vllm",
    rule_paths: list[str] | None = None,
    progress: Callable[[str], None] = lambda _m: None,
    consumer_packages: list[str] | None = None,
) -> GateResult:
    try:
        progress(f"reading consumer {consumer_spec}")
        consumer: Consumer = load_consumer(consumer_spec, target_package=target_package, packages=consumer_packages)
    except FetchError as exc:
        return GateResult((), f"consumer: {exc}", exitcodes.USAGE)
    if not consumer.usage:
        return GateResult((), None, exitcodes.CLEAN, nothing_to_check=True, consumer_root=consumer.root)
    source = "given with --baseline"
    if baseline_spec is None:
        baseline_spec, source = baseline_from_requires(consumer.meta.get("requires") or [], target_package)
    loaded: dict[str, dict] = {}  # a target equal to the baseline is read once
    baseline_facts = None
    if baseline_spec:
        bres = load_facts(baseline_spec, packages=[target_package], progress=progress)
        if not bres.ok:
            return GateResult((), f"baseline: {bres.error}", bres.exit_code)
        baseline_facts = loaded[baseline_spec] = bres.facts
    reports = []
    for spec in targets:
        if spec in loaded:
            facts = loaded[spec]
        else:
            tres = load_facts(spec, packages=[target_package], progress=progress)
            if not tres.ok:
                return GateResult(tuple(reports), f"target {spec}: {tres.error}", tres.exit_code)
            facts = tres.facts
        outcome = check(consumer=consumer, target_facts=facts, baseline_facts=baseline_facts,
                        target_package=target_package, rule_paths=rule_paths,
                        labels={"target": spec, "baseline": baseline_spec, "baseline_source": source})
        if outcome.report is None:
            return GateResult(tuple(reports), outcome.error, outcome.exit_code)
        reports.append(outcome.report)
    code = exitcodes.DRIFT if any(r.breaking for r in reports) else exitcodes.CLEAN
    return GateResult(tuple(reports), None, code, consumer_root=consumer.root)
