"""`drift check`: consumer + target (+ baseline) -> Report. Results, not exceptions."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from drift import exitcodes
from drift.analysis.context import CheckContext
from drift.analysis.engine import run_rules, uses_checked
from drift.consumer.guards import live_on
from drift.consumer.usage import collect_usage, read_metadata
from drift.sources.fetch import FetchError, fetch_sources, parse_requirement, top_level_packages, wheel_sources
from drift.findings import Report
from drift.model.index import DEFAULT_DATACLASS_DECORATORS, PackageIndex
from drift.analysis.rules.loader import RuleLoadError, load_rules
from drift.model.targets import _tree_root, classify, default_probe_cache, probe_interpreter


@dataclass(frozen=True)
class Consumer:
    label: str
    root: Path
    packages: list[str]
    meta: dict[str, Any]
    usage: list[dict[str, Any]]

    @classmethod
    def from_usage(cls, label: str, package: str, use: dict[str, Any]) -> "Consumer":
        """From the probe's usage block for `package` (a host, or an interpreter here)."""
        meta = {"name": use.get("dist") or package, "version": use.get("version"),
                "requires": use.get("requires") or []}
        return cls(label, Path(use.get("root") or "."), [package], meta, use.get("modules") or [])


@dataclass(frozen=True)
class Outcome:
    report: Report | None
    error: str | None = None
    exit_code: int = exitcodes.CLEAN
    extra: dict[str, Any] = field(default_factory=dict)


def load_consumer(spec: str, *, target_package: str, packages: list[str] | None = None) -> Consumer:
    kind = classify(spec)
    if kind == "pypi":
        parse_requirement(spec)
        src = fetch_sources(spec)
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "wheel":
        src = wheel_sources(Path(os.path.expanduser(spec)))
        root, pkgs = src.root, packages or top_level_packages(src.root, src.name)
    elif kind == "tree":
        root, pkgs = _tree_root(Path(os.path.expanduser(spec)), packages)
    elif kind == "missing-path":
        raise FetchError(f"no such path: {spec}")
    elif kind == "python":
        return _consumer_in_environment(spec, package=(packages or ["speculators"])[0], target_package=target_package)
    else:
        raise FetchError(f"{spec}: a consumer is a PyPI spec, a wheel, a source tree or python:PATH")
    if not pkgs:
        raise FetchError(f"{spec}: no importable package found")
    meta = read_metadata(root, pkgs[0])
    usage = collect_usage(root, pkgs, [target_package], cache_dir=default_probe_cache())
    return Consumer(spec, root, pkgs, meta, usage)


def _consumer_in_environment(spec: str, *, package: str, target_package: str) -> Consumer:
    """A consumer installed in another interpreter here: the same probe `drift scan` ships."""
    python = spec[len("python:"):] if spec.startswith("python:") else spec
    doc = probe_interpreter(python, {"packages": [], "env_packages": [package], "cache_dir": default_probe_cache(),
                                     "known": {}, "usage": {"packages": [package], "prefixes": [target_package]}})
    return Consumer.from_usage(spec, package, doc["usage"][package])


def check(
    *,
    consumer: Consumer,
    target_facts: dict[str, Any],
    baseline_facts: dict[str, Any] | None,
    target_package: str = "vllm",
    rule_paths: list[str] | None = None,
    labels: dict[str, Any] | None = None,
    notes: tuple[str, ...] = (),
) -> Outcome:
    """Pure analysis: facts in, Report out. `notes` are the caller's own lines for the report."""
    try:
        rules, decorators = load_rules(rule_paths)
    except RuleLoadError as exc:
        return Outcome(None, str(exc), exitcodes.USAGE)
    decos = DEFAULT_DATACLASS_DECORATORS | decorators
    tversion = ((target_facts.get("packages") or {}).get(target_package) or {}).get("version")
    usage, off_branch = live_on(consumer.usage, tversion)
    from drift.model.store import default_store

    store = default_store()
    target = PackageIndex(target_facts, dataclass_decorators=decos, store=store)
    baseline = PackageIndex(baseline_facts, dataclass_decorators=decos, store=store) if baseline_facts else None
    ctx = CheckContext(target=target, baseline=baseline, usage=usage, target_package=target_package,
                       consumer_name=consumer.meta.get("name") or consumer.label)
    findings, rule_notes = run_rules(ctx, rules)
    notes = rule_notes + tuple(notes)
    if off_branch:
        notes += (f"{off_branch} uses skipped: on branches the consumer takes only for another {target_package} "
                  f"version than {tversion}",)
    labels = labels or {}
    parse_errors = [u for u in consumer.usage if u.get("error")]
    notes = notes + tuple(f"consumer file {u['path']} could not be read: {u['error']}" for u in parse_errors)
    if not consumer.usage:
        notes += (f"{consumer.meta.get('name') or consumer.label} does not use {target_package}: nothing to check",)
    if baseline_facts is None:
        notes += (f"no baseline: {labels.get('baseline_source') or 'none given'}; every finding is against the "
                  "target alone",)
    tpkg = (target_facts.get("packages") or {}).get(target_package, {})
    bpkg = ((baseline_facts or {}).get("packages") or {}).get(target_package, {})
    report = Report(
        consumer={"name": consumer.meta.get("name"), "version": consumer.meta.get("version"), "spec": consumer.label},
        target={"name": target_package, "version": tpkg.get("version"), "spec": labels.get("target"),
                "commit": ((target_facts.get("env") or {}).get("packages") or {}).get(target_package, {}).get("commit")},
        baseline={"name": target_package, "version": bpkg.get("version"), "spec": labels.get("baseline"),
                  "source": labels.get("baseline_source")} if baseline_facts else None,
        findings=findings,
        uses=uses_checked(ctx),
        env=target_facts.get("env"),
        host=labels.get("host"),
        notes=notes,
    )
    return Outcome(report, None, report.exit_code)


def run_check(
    *,
    consumer_spec: str,
    target_spec: str,
    baseline_spec: str | None = None,
    target_package: str = "vllm",
    rule_paths: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
    consumer_packages: list[str] | None = None,
) -> Outcome:
    """check of one consumer against one target: the one pipeline (drift.pipeline.run) with one target."""
    from drift.pipeline.run import run

    _consumer, outcomes = run(consumer_spec=consumer_spec, target_specs=[target_spec], baseline_spec=baseline_spec,
                              target_package=target_package, rule_paths=rule_paths, say=progress,
                              consumer_packages=consumer_packages)
    return outcomes[-1]
