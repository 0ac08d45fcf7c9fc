"""`drift scan`: the `drift check` verdict for what is installed on a host, in one round trip.

The probe (stdlib only) runs under the host's interpreter, reads the installed vLLM and the
consumer's uses of it, and sends facts back compressed. Facts are cached on both sides by
content: the host keeps parsed modules (opt-out), drift keeps each host's facts by digest, so
an unchanged host answers "unchanged" and nothing large crosses the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from drift import exitcodes
from drift.check.baseline import baseline_from_requires
from drift.check.run import Consumer, Outcome, check
from drift.connectors.base import Connector
from drift.fetch import cache_name, cache_root
from drift.remote_probe import probe
from drift.store import default_store
from drift.targets import load_facts

HOST_CACHE_DIR = "~/.cache/drift/probe"


@dataclass(frozen=True)
class ScanSettings:
    consumer: str = "speculators"  # top-level import name of the consumer on the host
    target: str = "vllm"
    baseline: str | None = None  # spec; None = from the consumer's metadata on the host
    python: str = "python3"
    host_cache: bool = True
    host_cache_dir: str | None = None  # where the probe caches on the host; None = HOST_CACHE_DIR
    rule_paths: tuple[str, ...] = ()
    timeout: float = 300


@dataclass(frozen=True)
class HostScan:
    """One host's result: a report, or why there is none. `status` feeds the fleet table."""

    host: str
    status: str  # ok | drift | failed | unreachable
    outcome: Outcome | None
    reason: str | None = None
    exit_code: int = exitcodes.CLEAN
    probe_stats: dict[str, Any] | None = None


def _host_dir(host: str) -> Path:
    return cache_root() / "hosts" / cache_name(host)


def _load_cached(name: str, digest: str) -> dict | None:
    """Facts drift already holds for this digest (from any host: same digest, same code)."""
    return default_store().get(name, digest)


def _store(host: str, name: str, pkg: dict) -> None:
    default_store().put(name, pkg)
    folder = _host_dir(host)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.latest").write_text(pkg["digest"])


def _latest_digest(host: str, name: str) -> str | None:
    try:
        return (_host_dir(host) / f"{name}.latest").read_text().strip() or None
    except OSError:
        return None


async def scan_connector(
    connector: Connector, *, host: str, settings: ScanSettings, say: Callable[[str], None] = lambda _m: None
) -> HostScan:
    """Probe one host and check its consumer against its vLLM. ConnectorError propagates."""
    target, consumer = settings.target, settings.consumer
    known = {}
    store = default_store()
    # this host's last digest, else the last one drift saw anywhere (a fleet runs one build)
    digest = _latest_digest(host, target) or store.latest(target)
    if digest and store.has(target, digest):
        known[target] = digest
    request = {
        "packages": [target],
        "env_packages": sorted({target, consumer, "torch"}),
        "cache_dir": (settings.host_cache_dir or HOST_CACHE_DIR) if settings.host_cache else None,
        "known": known,
        "usage": {"packages": [consumer], "prefixes": [target]},
    }
    say(f"{host}: probing {settings.python}")
    result = await probe(connector, request, python=settings.python, timeout=settings.timeout)
    if not result.ok:
        return HostScan(host, "failed", None, result.reason, exitcodes.USAGE)
    facts = result.facts or {}
    if facts.get("error"):
        return HostScan(host, "failed", None, f"probe: {facts['error']}", exitcodes.USAGE)
    missing = facts.get("missing") or []
    if target in missing:
        return HostScan(host, "failed", None, f"{target} is not installed for {settings.python} on {host}",
                        exitcodes.USAGE)
    if consumer in missing:
        return HostScan(host, "failed", None, f"{consumer} is not installed for {settings.python} on {host}",
                        exitcodes.USAGE)
    pkg = facts["packages"][target]
    if pkg.get("unchanged"):
        cached = _load_cached(target, pkg["digest"])
        if cached is None:  # the local cache was wiped between asking and answering
            return HostScan(host, "failed", None, "local facts cache vanished during the scan; run it again",
                            exitcodes.USAGE)
        facts["packages"][target] = cached
    else:
        _store(host, target, pkg)
    use = facts["usage"][consumer]
    cons = Consumer.from_usage(f"{consumer} on {host}", consumer, use)
    baseline_spec, source = settings.baseline, "given with --baseline"
    if baseline_spec is None:
        baseline_spec, source = baseline_from_requires(cons.meta["requires"], target)
    baseline_facts = None
    if baseline_spec:
        say(f"{host}: baseline {baseline_spec}")
        bres = load_facts(baseline_spec, packages=[target], progress=say)
        if not bres.ok:
            return HostScan(host, "failed", None, f"baseline: {bres.error}", bres.exit_code)
        baseline_facts = bres.facts
    where = (facts.get("probe") or {}).get("cache_dir")
    note = (f"the probe caches parsed facts on {host} in {where} (opt out: --no-host-cache)" if where
            else f"the probe wrote nothing on {host}")
    outcome = check(consumer=cons, target_facts=facts, baseline_facts=baseline_facts, target_package=target,
                    rule_paths=list(settings.rule_paths), notes=(note,),
                    labels={"target": f"{target} on {host}", "baseline": baseline_spec, "baseline_source": source,
                            "host": host})
    outcome = Outcome(outcome.report, outcome.error, outcome.exit_code, {"consumer_root": use.get("root")})
    if outcome.report is None:
        return HostScan(host, "failed", outcome, outcome.error, outcome.exit_code)
    status = "drift" if outcome.exit_code == exitcodes.DRIFT else "ok"
    reason = f"{len(outcome.report.breaking)} breaking" if status == "drift" else None
    return HostScan(host, status, outcome, reason, outcome.exit_code, facts.get("probe"))
