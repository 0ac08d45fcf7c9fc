"""`drift gate`: one consumer against one or more targets, for CI.

The same analysis as `drift check`, run once per target so a pull request can show the
compatibility matrix across vLLM releases; the consumer and the baseline are read once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from drift import exitcodes
from drift.pipeline.run import Outcome
from drift.pipeline.run import consumer_from_spec, run_consumer
from drift.findings import Report


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
    selection=None,
) -> GateResult:
    consumer = consumer_from_spec(consumer_spec, target_package=target_package, packages=consumer_packages,
                                  say=progress, selection=selection)
    if isinstance(consumer, Outcome):
        return GateResult((), consumer.error, consumer.exit_code)
    if not consumer.usage:
        return GateResult((), None, exitcodes.CLEAN, nothing_to_check=True, consumer_root=consumer.root)
    outcomes = run_consumer(consumer, target_specs=targets, baseline_spec=baseline_spec,
                            target_package=target_package, rule_paths=rule_paths, say=progress)
    reports = [o.report for o in outcomes if o.report is not None]
    if outcomes and outcomes[-1].report is None:
        return GateResult(tuple(reports), outcomes[-1].error, outcomes[-1].exit_code)
    code = exitcodes.DRIFT if any(r.breaking for r in reports) else exitcodes.CLEAN
    return GateResult(tuple(reports), None, code, consumer_root=consumer.root)
