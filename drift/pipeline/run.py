"""One pipeline: consumer -> baseline -> facts -> report, for check, gate, scan and the launch
preflight alike. `check` is its analysis step (facts in, Report out); `run_check` is `run` with one
target.

Each command used to resolve the baseline, load facts and call the analysis its own way (and
only `scan` checked that a pin read from a host's metadata is a version before it names a cache
directory). The steps live here once; commands parse arguments, call these, and render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from packaging.version import InvalidVersion, Version

from drift import exitcodes
from drift.analysis.context import CheckContext
from drift.analysis.engine import run_rules, uses_checked
from drift.analysis.rules.loader import RuleLoadError, load_rules
from drift.consumer.baseline import baseline_from_requires
from drift.consumer.guards import live_on
from drift.consumer.load import Consumer, load_consumer
from drift.findings import Report
from drift.model.index import DEFAULT_DATACLASS_DECORATORS, PackageIndex
from drift.model.targets import load_facts
from drift.sources.errors import FetchError

Say = Callable[[str], None]


@dataclass(frozen=True)
class Outcome:
    report: Report | None
    error: str | None = None
    exit_code: int = exitcodes.CLEAN
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Baseline:
    """The vLLM the consumer was written for: its spec, where that came from, and its facts."""

    spec: str | None
    source: str
    facts: dict[str, Any] | None = None


def _plain_version(text: str) -> bool:
    """A PEP 440 version spelled with version characters only (`===` pins may hold anything)."""
    if not re.fullmatch(r"[0-9A-Za-z.+!_-]{1,64}", text) or ".." in text:
        return False
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _baseline_spec(meta: dict[str, Any] | None, *, given: str | None, target_package: str, origin: str = "",
                   **versions: Any) -> tuple[str | None, str]:
    """(spec or None, where it came from): `given`, else the pin (or a range's highest release)
    in the consumer's Requires-Dist, refused unless it is a plain version."""
    if given is not None:
        return given, "given with --baseline"
    spec, source = baseline_from_requires((meta or {}).get("requires") or [], target_package, **versions)
    if spec and not _plain_version(spec.partition("==")[2]):
        return None, f"the consumer's metadata{origin} pins {spec[:80]!r}, which is not a version"
    return spec, source


def resolve_baseline(consumer: Consumer | None, *, given: str | None, target_package: str, say: Say,
                     origin: str = "") -> Baseline | Outcome:
    """The baseline given with --baseline, else the one the consumer's metadata pins (a range:
    the highest release it admits). A pin read from metadata must be a plain version: it names
    a release to fetch and a cache directory here, and the metadata may come from a host.
    With `given`, the consumer is not read (None: scan loads it while the host probes)."""
    spec, source = _baseline_spec(None if consumer is None else consumer.meta, given=given,
                                  target_package=target_package, origin=origin)
    if not spec:
        return Baseline(None, source)
    say(f"baseline {spec}")
    res = load_facts(spec, packages=[target_package], progress=say, demand=True)
    if not res.ok:
        return Outcome(None, f"baseline: {res.error}", res.exit_code)
    return Baseline(spec, source, res.facts)


def analyse(consumer: Consumer, target_facts: dict[str, Any], baseline: Baseline, *, target_label: str,
            target_package: str = "vllm", rule_paths: list[str] | None = None, host: str | None = None,
            notes: tuple[str, ...] = ()) -> Outcome:
    """The report of one consumer against one target's facts (the rules, nothing fetched)."""
    labels = {"target": target_label, "baseline": baseline.spec, "baseline_source": baseline.source}
    if host is not None:
        labels["host"] = host
    from drift.model.ahead import answered_ahead
    from drift.analysis.rules.family import family_jobs
    from drift.analysis.rules.protocol import two_phase_jobs
    from drift.model.store import default_store

    ahead = two_phase_jobs(consumer.usage) + family_jobs(consumer.usage)  # in the order the rules ask them
    with answered_ahead(target_facts, baseline.facts, ahead, store=default_store()):  # on the other core
        outcome = check(consumer=consumer, target_facts=target_facts, baseline_facts=baseline.facts,
                        target_package=target_package, rule_paths=rule_paths, labels=labels, notes=notes)
    return Outcome(outcome.report, outcome.error, outcome.exit_code,
                   {**outcome.extra, "consumer_root": consumer.root,
                    "consumer_requires": list((consumer.meta or {}).get("requires") or []),
                    "consumer_packages": list(consumer.packages)})


def consumer_from_spec(spec: str, *, target_package: str, packages: list[str] | None, say: Say,
                       selection=None) -> Consumer | Outcome:
    """`selection`: include/exclude globs for a source tree (drift.consumer.discover.Selection)."""
    try:
        say(f"reading consumer {spec}")
        return load_consumer(spec, target_package=target_package, packages=packages, selection=selection)
    except FetchError as exc:  # an index that did not answer is exit 3 for the consumer as for the target
        return Outcome(None, f"consumer: {exc}", getattr(exc, "exit_code", exitcodes.USAGE))


def run(*, consumer_spec: str, target_specs: list[str], baseline_spec: str | None = None,
        target_package: str = "vllm", rule_paths: list[str] | None = None, say: Say | None = None,
        consumer_packages: list[str] | None = None, selection=None) -> tuple[Consumer | None, list[Outcome]]:
    """Consumer and baseline read once, then one outcome per target, in order; the first one
    that cannot be produced ends the list (its outcome says why)."""
    say = say or (lambda _m: None)
    from drift.sources.prefetch import Prefetch

    with Prefetch(say=say) as pre:  # the releases fetched side by side, joined below in the usual order
        _prefetch_releases(pre, consumer_spec, target_specs, baseline_spec, target_package, consumer_packages)
        consumer = consumer_from_spec(consumer_spec, target_package=target_package, packages=consumer_packages,
                                      say=say, selection=selection)
        if isinstance(consumer, Outcome):
            return None, [consumer]
        return consumer, run_consumer(consumer, target_specs=target_specs, baseline_spec=baseline_spec,
                                      target_package=target_package, rule_paths=rule_paths, say=say, prefetch=pre)


def _early_baseline(meta: dict[str, Any], target_package: str, pre) -> str | None:
    """The baseline the consumer's metadata names, for a head start (a range asked on the
    prefetch's client); None when there is none or it cannot be had now."""
    try:
        return _baseline_spec(meta, given=None, target_package=target_package, versions=pre.versions)[0]
    except Exception:  # noqa: BLE001 - only a head start; resolve_baseline says what is wrong
        return None


def _baseline_from_metadata(pre, target_package: str):
    """A callback for the consumer's METADATA bytes (in its fetch thread, before its files are
    written): the baseline they name starts at once. Only a head start: the run still resolves
    the baseline from the consumer it reads, and starts that one if it differs."""
    def start(data: bytes) -> None:
        from email.parser import BytesHeaderParser

        requires = BytesHeaderParser().parsebytes(data).get_all("Requires-Dist") or []
        spec = _early_baseline({"requires": [str(r) for r in requires]}, target_package, pre)
        if spec:
            from drift.model.targets import classify

            if classify(spec) == "pypi":
                pre.start(spec)
    return start


def _prefetch_releases(pre, consumer_spec: str | None, target_specs: list[str], baseline_spec: str | None,
                       target_package: str, consumer_packages: list[str] | None) -> None:
    """Start every PyPI release the run will read: consumer and targets now, the baseline as
    soon as the consumer's metadata names it (before its usage is read). Only fetches start
    here; each is still asked for, and any failure reported, where the run always did."""
    from drift.sources.wheels import top_level_packages
    from drift.model.targets import classify

    if consumer_spec is not None and classify(consumer_spec) == "pypi":
        early = None if baseline_spec is not None else _baseline_from_metadata(pre, target_package)
        pre.start(consumer_spec, tree=True, metadata=early)  # the consumer is read as files
    for spec in dict.fromkeys(target_specs):
        if classify(spec) == "pypi":
            pre.start(spec)
    if baseline_spec is None:
        src = pre.result(consumer_spec)
        if src is None:
            return  # not fetched here (a tree, a wheel, an error): the baseline starts when it is resolved
        from drift.consumer.usage import read_metadata

        packages = consumer_packages or top_level_packages(src.root, src.name)
        if not packages:
            return
        baseline_spec = _early_baseline(read_metadata(src.root, packages[0]), target_package, pre)
    if baseline_spec and classify(baseline_spec) == "pypi":
        pre.start(baseline_spec)


def run_consumer(consumer: Consumer, *, target_specs: list[str], baseline_spec: str | None = None,
                 target_package: str = "vllm", rule_paths: list[str] | None = None,
                 say: Say | None = None, prefetch=None) -> list[Outcome]:
    """`run` for a consumer already read (gate looks at its uses before fetching anything).
    Without `prefetch` (run's), the targets and the baseline are fetched side by side here."""
    say = say or (lambda _m: None)
    if prefetch is None:
        from drift.sources.prefetch import Prefetch

        with Prefetch(say=say) as pre:
            baseline_guess = baseline_spec or _early_baseline(consumer.meta, target_package, pre)
            _prefetch_releases(pre, None, target_specs, baseline_guess or "", target_package, None)
            return run_consumer(consumer, target_specs=target_specs, baseline_spec=baseline_spec,
                                target_package=target_package, rule_paths=rule_paths, say=say, prefetch=pre)
    outcomes: list[Outcome] = []
    loaded: dict[str, dict[str, Any]] = {}
    baseline: Baseline | Outcome | None = None
    for spec in target_specs:
        res = load_facts(spec, packages=[target_package], progress=say, demand=True) if spec not in loaded else None
        if res is not None and not res.ok:
            outcomes.append(Outcome(None, f"target{' ' + spec if len(target_specs) > 1 else ''}: {res.error}",
                                    res.exit_code))
            break
        if res is not None:
            loaded[spec] = res.facts
        if baseline is None:
            baseline = resolve_baseline(consumer, given=baseline_spec, target_package=target_package, say=say)
            if isinstance(baseline, Outcome):
                outcomes.append(baseline)
                break
        outcomes.append(analyse(consumer, loaded[spec], baseline, target_label=spec, target_package=target_package,
                                rule_paths=rule_paths))
        if outcomes[-1].report is None:
            break
    return outcomes


def _syntax_error(use: dict[str, Any]) -> bool:
    """A usage record of a file Python refuses to parse: DRIFT004 reports it as a finding."""
    return str(use.get("error") or "").startswith(("SyntaxError", "IndentationError", "TabError"))


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
    bversion = ((baseline_facts or {}).get("packages") or {}).get(target_package, {}).get("version")
    usage, off_branch = live_on(consumer.usage, tversion, bversion)
    from drift.model.store import default_store

    store = default_store()
    target = PackageIndex(target_facts, dataclass_decorators=decos, store=store)
    baseline = PackageIndex(baseline_facts, dataclass_decorators=decos, store=store) if baseline_facts else None
    ctx = CheckContext(target=target, baseline=baseline, usage=usage, target_package=target_package,
                       consumer_name=consumer.meta.get("name") or consumer.label)
    from drift.analysis.rules import GENERIC_RULES
    from drift.analysis.rules.vllm import VLLM_RULES
    from drift.pipeline import check_cache

    digest = None if labels and labels.get("host") else check_cache.key(
        rules=rules, builtin=frozenset(r.id for r in (*GENERIC_RULES, *VLLM_RULES)), usage=usage,
        target_facts=target_facts, baseline_facts=baseline_facts, target_package=target_package,
        consumer_name=ctx.consumer_name, decorators=decos, usage_key=consumer.usage_key)
    answer = check_cache.load(digest) if digest else None
    if answer is None:  # the rules run: nothing this check reads was answered before (drift/pipeline/check_cache.py)
        findings, rule_notes = run_rules(ctx, rules)
        answer = (findings, rule_notes, uses_checked(ctx))
        if digest:
            check_cache.save(digest, answer)
    findings, rule_failures, uses = answer  # a rule that raised: a caveat, and the run cannot pass
    notes = tuple(notes) + tuple(getattr(consumer, "layout", ()))  # what of a checkout was read (load.layout_notes)
    if off_branch:
        notes += (f"{off_branch} uses skipped: on branches the consumer takes only for another {target_package} "
                  f"version than {tversion}",)
    labels = labels or {}
    caveats: tuple[str, ...] = tuple(f"{n}; its findings are missing, so this check is incomplete and exits 1"
                                     for n in rule_failures)
    unread = [u for u in consumer.usage if u.get("error") and not _syntax_error(u)]
    caveats += tuple(f"consumer file {u['path']} could not be read: {u['error']}" for u in unread)
    if not consumer.usage:
        caveats += (f"{consumer.meta.get('name') or consumer.label} does not use {target_package}: nothing to check",)
    if baseline_facts is None:
        caveats += (f"no baseline: {labels.get('baseline_source') or 'none given'}; every finding is against the "
                    "target alone",)
    elif "range" in (labels.get("baseline_source") or ""):
        caveats += (f"baseline {labels.get('baseline')}: {labels['baseline_source']}; pass -b to pin another",)
    caveats += tuple(labels.get("caveats") or ())
    # which file a target was read from, when no file of it is built for this platform (model/targets.py)
    caveats += tuple((target_facts.get("target") or {}).get("notes") or ())
    tpkg = (target_facts.get("packages") or {}).get(target_package, {})
    bpkg = ((baseline_facts or {}).get("packages") or {}).get(target_package, {})
    report = Report(
        consumer={"name": consumer.meta.get("name"), "version": consumer.meta.get("version"), "spec": consumer.label},
        target={"name": target_package, "version": tpkg.get("version"), "spec": labels.get("target"),
                "commit": ((target_facts.get("env") or {}).get("packages") or {}).get(target_package, {}).get("commit")},
        baseline={"name": target_package, "version": bpkg.get("version"), "spec": labels.get("baseline"),
                  "source": labels.get("baseline_source")} if baseline_facts else None,
        findings=findings,
        uses=uses,
        env=target_facts.get("env"),
        host=labels.get("host"),
        notes=notes,
        caveats=caveats,
        incomplete=tuple(rule_failures),
        files=tuple(sorted({u["path"] for u in consumer.usage if u.get("path")})),
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
    selection=None,
) -> Outcome:
    """check of one consumer against one target: `run` with one target."""
    _consumer, outcomes = run(consumer_spec=consumer_spec, target_specs=[target_spec], baseline_spec=baseline_spec,
                              target_package=target_package, rule_paths=rule_paths, say=progress,
                              consumer_packages=consumer_packages, selection=selection)
    return outcomes[-1]
