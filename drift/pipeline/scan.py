"""`drift scan`: the `drift check` verdict for what is installed on a host, in one round trip.

The probe (stdlib only) runs under the host's interpreter, reads the installed vLLM and the
consumer's uses of it, and sends facts back compressed. Facts are cached on both sides by
content: the host keeps parsed modules (opt-out), drift keeps each host's facts under a key it
computes from what the host sent, and a per-host record of the digest that host claimed, so an
unchanged host answers "unchanged" and nothing large crosses the wire, and no host's reply can
stand in for another's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import hashlib
import json
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


from drift import exitcodes
from drift.consumer.load import Consumer
from drift.pipeline.run import Outcome
from drift.pipeline.run import Baseline, analyse, resolve_baseline
from drift.remote.connectors.base import Connector
from drift.model.demand import Stopped, stoppable
from drift.sources.cache import cache_name, cache_root
from drift.model.host_modules import HostModules
from drift.pipeline.lowprio import run_in_child
from drift.remote.probe import probe
from drift.remote.reply import ahead_modules, ahead_outlines, is_digest, merged_key, validate_ahead, validate_more
from drift.analysis.rules.loader import RuleLoadError, load_rules
from drift.sources.progress import Step
from drift.model.store import default_store

HOST_CACHE_DIR = "~/.cache/drift/probe"

def rule_words(rule_paths: tuple[str, ...] = ()) -> list[str]:
    """What the loaded rules (built-in packs and the user's `--rules`) declare they search the
    target for whatever the consumer uses (`Rule.searches`): the host answers them in its first
    reply. A pack that does not load is reported by the check itself; here it adds no words."""
    try:
        rules, _ = load_rules(list(rule_paths))
    except RuleLoadError:
        return []
    return sorted({w for r in rules for w in r.searches})


@dataclass(frozen=True)
class ScanSettings:
    consumer: str = "speculators"  # top-level import name of the consumer on the host
    target: str = "vllm"
    baseline: str | None = None  # spec; None = from the consumer's metadata on the host
    python: str = "python3"
    host_cache: bool = True
    host_cache_dir: str | None = None  # where the probe caches on the host; None = HOST_CACHE_DIR
    demand: bool = True  # the host parses only what the consumer reaches (False: the whole package)
    ahead: bool = True  # cold demand scan with --baseline: read the usage first, warm the baseline, ask ahead
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
    notice: str | None = None  # said once on stderr (where the probe wrote on the host)


def _host_dir(host: str) -> Path:
    """This host's own records; the exact spec is hashed in, so `a:1` and `a_1` never share one."""
    tag = hashlib.sha256(host.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return cache_root() / "hosts" / f"{cache_name(host)[:80]}-{tag}"


def _record_path(host: str, name: str) -> Path:
    return _host_dir(host) / f"{cache_name(name)}.json"


def _record(host: str, name: str) -> dict[str, Any]:
    """What THIS host sent last time: its claimed digest, drift's key for the facts, its cache dir."""
    try:
        data = json.loads(_record_path(host, name).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not is_digest(data.get("host_digest")) or not is_digest(data.get("key")):
        return {}
    return data


def _write_record(host: str, name: str, record: dict[str, Any]) -> None:
    path = _record_path(host, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, sort_keys=True))
    os.replace(tmp, path)


def _cache_notice(host: str, record: dict[str, Any], where: str | None) -> str | None:
    """Said once per host and location: a scan writes on the host unless told not to."""
    if not where or record.get("host_cache_dir") == where:
        return None
    return (f"drift: the probe caches parsed facts and its compiled code on {host} in {where} "
            "(opt out: --no-host-cache)")


def _failed(host: str, reason: str, code: int = exitcodes.USAGE) -> HostScan:
    return HostScan(host, "failed", None, reason, code)


# One baseline load per spec and event loop: the hosts of a fleet share the loop and the
# baseline, and two threads must never fetch the same release into one cache directory.
_EARLY: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict]" = weakref.WeakKeyDictionary()


def _early_baseline(settings: ScanSettings, say: Callable[[str], None]) -> "asyncio.Future":
    """The --baseline release fetched, hashed and opened for demand-driven parsing in a thread
    while the host probes (its modules are parsed when the analysis reads them, after the
    reply, since which ones depends on the consumer's uses the host sends)."""
    loop = asyncio.get_running_loop()
    jobs = _EARLY.setdefault(loop, {})
    key = (settings.baseline, settings.target)
    if key not in jobs:
        def load() -> Baseline | Outcome:
            try:
                return resolve_baseline(None, given=settings.baseline, target_package=settings.target, say=say)
            except Exception as exc:  # noqa: BLE001 - a result crosses the thread, never a traceback
                # an index that did not answer is exit 3 here as everywhere (FetchError carries it)
                return Outcome(None, f"baseline: {type(exc).__name__}: {exc}",
                               getattr(exc, "exit_code", exitcodes.USAGE))

        jobs[key] = loop.run_in_executor(None, load)
    return jobs[key]


async def scan_connector(
    connector: Connector, *, host: str, settings: ScanSettings, say: Callable[[str], None] = lambda _m: None
) -> HostScan:
    """Probe one host and check its consumer against its vLLM. ConnectorError propagates.

    Only this host's own last reply can stand in for an "unchanged" answer: the digest sent
    back is the one it claimed, and the facts come from the key drift computed from what it
    sent. No other host's reply, and no digest a host names, ever picks the facts."""
    target, consumer = settings.target, settings.consumer
    store = default_store()
    record = _record(host, target)
    known = {}
    if record and store.has(target, record["key"]):
        known[target] = record["host_digest"]
    request = {
        "packages": [target],
        "env_packages": sorted({target, consumer, "torch"}),
        "cache_dir": (settings.host_cache_dir or HOST_CACHE_DIR) if settings.host_cache else None,
        "known": known,
        "usage": {"packages": [consumer], "prefixes": [target]},
    }
    if settings.demand:
        request["demand"] = {"words": rule_words(settings.rule_paths)}
    complete_for = record.get("complete_for")  # what the stored package last served in full
    early = _early_baseline(settings, say) if settings.baseline is not None else None
    ahead, stop = None, threading.Event()  # `stop`: the head start is no longer wanted
    if settings.demand and settings.ahead and not known:
        ahead = asyncio.ensure_future(_ahead(connector, settings, request, early, host, say, stop))
    if early is None and ahead is not None:
        say(Step(f"{host}: probing {settings.python}; the baseline comes from the consumer's metadata there, "
                 "read by a first small probe and fetched here meanwhile"))
    elif early is None:
        say(Step(f"{host}: the baseline comes from the consumer's metadata there: read after the reply, "
                 "not while the host probes (--baseline overlaps it)"))
        say(f"{host}: probing {settings.python}")
    else:
        say(Step(f"{host}: probing {settings.python}; meanwhile the baseline {settings.baseline} "
                 "is fetched and opened here"))
    try:
        return await _scan_probed(connector, host, settings, request, record, known, complete_for, early, ahead,
                                  store, notice_say=say, stop=stop)
    finally:
        stop.set()  # a warm-up still reading the baseline (in its child) ends at its next read
        if ahead is not None and not ahead.done():
            ahead.cancel()
            await asyncio.gather(ahead, return_exceptions=True)


async def _scan_probed(connector: Connector, host: str, settings: ScanSettings, request: dict, record: dict,
                       known: dict, complete_for: Any, early, ahead, store, *, notice_say,
                       stop: threading.Event) -> HostScan:
    """scan_connector from the first exchange on (`ahead`, when running, is ended by the caller)."""
    target, consumer, say = settings.target, settings.consumer, notice_say
    result = await probe(connector, request, python=settings.python, timeout=settings.timeout)
    if not result.ok:
        return _failed(host, result.reason or "probe failed")
    facts = result.facts or {}
    missing = facts.get("missing") or []
    if target in missing:
        return _failed(host, f"{target} is not installed for {settings.python} on {host}")
    if consumer in missing:
        return _failed(host, f"{consumer} is not installed for {settings.python} on {host}")
    pkg = facts["packages"][target]
    where = (facts.get("probe") or {}).get("cache_dir")
    unchanged = bool(pkg.get("unchanged"))
    if unchanged:
        if pkg["digest"] != known.get(target):
            return _failed(host, f"{host} answered 'unchanged' for a {target} digest drift did not send "
                                 f"({pkg['digest'][:12]}); its reply is not trusted")
        cached = store.get(target, record["key"])
        if cached is None:  # the local cache was wiped between asking and answering
            return _failed(host, "local facts cache vanished during the scan; run it again")
        facts["packages"][target] = cached
    elif not isinstance(pkg.get("demand"), dict):
        store.put(target, pkg)
    sent = None if unchanged else pkg.get("modules")  # a demand package is stored after its check: once,
    # with what came ahead or in follow-ups (`_keep_merged`), not also as it came (~0.1-0.2 s of marshal)
    notice = _cache_notice(host, record, where)
    key = facts["packages"][target]["digest"]
    _write_record(host, target, {"host_digest": pkg.get("host_digest") or pkg["digest"], "key": key,
                                 "host_cache_dir": where or record.get("host_cache_dir")})
    baseline = await asyncio.shield(early) if early is not None else None
    pkg = facts["packages"][target]
    modules = None
    if isinstance(pkg.get("demand"), dict):
        modules = _host_modules(connector, settings, pkg, record_digest=pkg.get("host_digest") or record.get("host_digest"))
        pkg["modules"] = modules
        reads = _reads_key(facts["usage"][consumer], request["demand"]["words"], settings.rule_paths)
        modules.exact = unchanged and complete_for == reads  # nothing to collect: read with the store
    if ahead is not None:
        if modules is None:  # a whole package came: nothing asked ahead is adopted
            stop.set()
        got = await ahead  # a demand reply waits for the family asked ahead: it saves an exchange and a run
        stop.set()  # the warm-up, if still running, ends at its next read: a head start never holds the
        if got and got.get("warm") is not None:  # check back (vllm-omni's is a whole check, ~6 s), and
            await asyncio.gather(got["warm"], return_exceptions=True)  # what it cached the check reads
        if modules is not None and got and "answer" in got:
            modules.adopt(ahead_modules(got["answer"], modules.shape, pkg.get("host_digest")), got["wire"],
                          ahead_outlines(got["answer"], modules.shape, pkg.get("host_digest")))
        if baseline is None and got and "baseline" in got:  # read from the metadata the small probe saw:
            if _metadata_spec(host, facts["usage"][consumer], settings) == got["spec"]:  # the same pin now
                baseline = got["baseline"]
    try:
        if modules is None:
            scan = _check(host, facts, settings, say, where, baseline)
        else:  # the check reads the host while it runs: off the loop, which serves the connection
            with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="drift-check") as pool:
                scan = await asyncio.get_running_loop().run_in_executor(
                    pool, _check_in_rounds, host, facts, settings, say, where, baseline, modules)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        return _failed(host, f"the facts {host} sent could not be checked ({type(exc).__name__}: {exc}); "
                             "its reply does not have the shape drift's probe sends")
    if modules is not None:
        if modules.failed:
            return _failed(host, modules.failed, modules.failed_code)
        stats = dict(scan.probe_stats or {}, exchanges=1 + modules.exchanges, fetched=modules.fetched_modules,
                     ahead_modules=modules.ahead_modules, ahead_outlines=modules.ahead_outlines,
                     asked_needles=modules.asked_needles, parsed_on_host=len(modules) - len(modules.shape),
                     check_runs=modules.runs, check_exact=modules.exact)
        added = modules.exchanges or modules.ahead_modules  # follow-ups, or modules that came ahead
        if added:
            key = _keep_merged(store, target, pkg, modules)
        elif sent is not None:
            store.put(target, dict(pkg, modules=sent))
        if added or scan.status in ("ok", "drift"):
            _write_record(host, target, {"host_digest": pkg.get("host_digest") or record.get("host_digest"),
                                         "key": key, "host_cache_dir": where or record.get("host_cache_dir"),
                                         **({"complete_for": reads} if scan.status in ("ok", "drift") else {})})
        scan = dataclasses.replace(scan, probe_stats=stats)
    return dataclasses.replace(scan, notice=notice)


AHEAD_NICE = 10  # the `more` asked ahead runs niced on the host: the first probe, the critical path, goes first
WARM_NICE = 10  # the baseline warm-up's child here, for the same reason where drift shares the host's cores
_WARMING = threading.Lock()  # one baseline warm-up at a time: hosts of a fleet share the baseline's modules


async def _ahead(connector: Connector, settings: ScanSettings, request: dict, early: "asyncio.Future | None",
                 host: str, say: Callable[[str], None], stop: threading.Event) -> dict | None:
    """While the host's first probe runs: its consumer's usage read by a second, small probe
    (~0.2 s on the host); with it, the baseline's side of the check warmed in a thread (its
    modules parsed, its questions answered into the store: the check then reads them) and
    the target modules of DRIFT040's family, which the host cannot know (they are the
    *baseline's* classes defining a method), asked in a `more` on a third channel; they are
    adopted when the first reply says the same modules exist with the same hashes
    (`reply.ahead_modules`). Without --baseline, the pin in the consumer's metadata that probe
    returns is fetched and opened here meanwhile (used when the first reply's metadata names
    the same). Everything here is only a head start: a failure of any part is dropped, and the
    scan reads and asks as it would have without it."""
    try:
        # the host's probe cache as the first probe has it: the consumer's usage and the probe's
        # compiled code are read back there on a known host (vllm-omni's usage is ~2-3 s to read)
        ask_usage = {"packages": [], "env_packages": [], "cache_dir": request["cache_dir"], "known": {},
                     "usage": request["usage"]}
        got = await probe(connector, ask_usage, python=settings.python, timeout=settings.timeout)
        use = ((got.facts or {}).get("usage") or {}).get(settings.consumer) if got.ok else None
        if not isinstance(use, dict):
            return None
        loop, out = asyncio.get_running_loop(), {}
        if early is not None:
            baseline = await asyncio.shield(early)
        else:  # the pin in the consumer's metadata: fetched and opened now, not after the reply
            out["spec"] = _metadata_spec(host, use, settings)
            baseline = out["baseline"] = await loop.run_in_executor(
                None, _baseline_on_host, host, {"usage": {settings.consumer: use}}, settings, say)
        if not isinstance(baseline, Baseline) or baseline.facts is None:
            return out
        # the family first (~0.15 s of outlines: all the `more` needs), then the warm-up beside it
        wanted = await loop.run_in_executor(None, _family_first, host, settings, use, baseline)
        out["warm"] = loop.run_in_executor(None, _warm_baseline_low, host, settings, use, baseline, stop)
        if not wanted or stop.is_set():
            return out
        more = {"packages": [settings.target], "env_packages": [],
                "cache_dir": (settings.host_cache_dir or HOST_CACHE_DIR) if settings.host_cache else None,
                "known": {}, "more": {"modules": [], "needles": [], "have": [], "outlines": wanted}, "nice": AHEAD_NICE}
        asked = asyncio.ensure_future(probe(connector, more, python=settings.python, timeout=settings.timeout,
                                            validate=lambda doc, req: validate_ahead(doc, req, settings.target)))
        while not asked.done():  # a whole reply (stop) makes the answer moot: not waited for
            if stop.is_set():
                asked.cancel()
                await asyncio.gather(asked, return_exceptions=True)
                return out
            await asyncio.wait({asked}, timeout=0.05)
        res = asked.result()
        if not res.ok:
            return out
        return dict(out, answer=res.facts["more"][settings.target], wire=res.wire_digest or "")
    except Exception:  # noqa: BLE001 - a head start only: the scan goes on without it
        return None


def _family_first(host: str, settings: ScanSettings, use: dict, baseline: Baseline) -> list[str]:
    """The modules of DRIFT040's families as the baseline has them (`_family_modules`), before
    the warm-up: they are all the `more` asked ahead needs, and the answers go to the store."""
    try:
        return _family_modules(baseline, Consumer.from_usage(f"{settings.consumer} on {host}", settings.consumer,
                                                             use).usage)
    except Exception:  # noqa: BLE001 - a head start only
        return []


def _warm_baseline_low(host: str, settings: ScanSettings, use: dict, baseline: Baseline,
                       stop: threading.Event) -> None:
    """`_warm_baseline` in a forked child of low priority (`drift.pipeline.lowprio`: on cores the host's
    probe shares, the probe goes first, and drift's GIL stays with the loop reading the reply),
    one at a time: hosts of a fleet share the baseline, the next warm-up reads what the first
    cached. What it parses and answers reaches the check through the module cache and the
    store. In this thread where there is no fork."""
    while not _WARMING.acquire(timeout=0.05):  # another host's warm-up: until it ends, or this one is stopped
        if stop.is_set():
            return
    try:
        if stop.is_set():
            return
        if not hasattr(os, "fork"):
            _warm_baseline(host, settings, use, baseline, stop)
            return
        run_in_child(lambda child_stop: _warm_baseline(host, settings, use, baseline, child_stop),
                     stop=stop, nice=WARM_NICE)
    finally:
        _WARMING.release()


def _warm_baseline(host: str, settings: ScanSettings, use: dict, baseline: Baseline, stop: Any = None) -> bool:
    """The check run once with the baseline as its target too: its reads of the baseline are
    the real check's, and the modules it parses and the answers it stores are found there.

    `stop` set (the host has replied, or the scan ended) ends it at its next read of the
    baseline (`drift.model.demand.stoppable`): what it parsed and stored so far stays for the check."""
    stop = stop or threading.Event()
    with stoppable(stop):
        if stop.is_set():
            return False
        cons = Consumer.from_usage(f"{settings.consumer} on {host}", settings.consumer, use)
        try:
            analyse(cons, baseline.facts, baseline, target_label=f"{settings.target} (warm-up)",
                    target_package=settings.target, rule_paths=list(settings.rule_paths))
        except Exception:  # noqa: BLE001 - the real check meets (and reports) the same problem
            pass
        except Stopped:
            return False
        return True


def _family_modules(baseline: Baseline, usage: list) -> list[str]:
    from drift.model.index import PackageIndex
    from drift.analysis.rules.family import family_modules

    return family_modules(PackageIndex(baseline.facts, store=default_store()), usage)


def _host_modules(connector: Connector, settings: ScanSettings, pkg: dict[str, Any], *,
                  record_digest: str | None) -> HostModules:
    """The demand-driven package's modules; a read of what the host left out asks it again
    (`more`) over the same connection, from the check's thread through the loop."""
    loop = asyncio.get_running_loop()
    demand = pkg["demand"]
    shape = demand["shape"]
    holder: list[HostModules] = []

    def fetch(modules: list[str], needles: list[tuple[str, str]], have: list[str]):
        request = {"packages": [settings.target], "env_packages": [],
                   "cache_dir": (settings.host_cache_dir or HOST_CACHE_DIR) if settings.host_cache else None,
                   "known": {}, "more": {"modules": modules, "needles": [list(n) for n in needles], "have": have}}
        have_set = set(have)
        coro = probe(connector, request, python=settings.python, timeout=settings.timeout,
                     validate=lambda doc, req: validate_more(doc, req, settings.target, shape, have_set, record_digest))
        try:
            result = asyncio.run_coroutine_threadsafe(coro, loop).result(settings.timeout + 5)
        except Exception as exc:  # noqa: BLE001 - the scan fails with this reason, not a rule
            return holder[0].fail(f"asking the host again failed: {type(exc).__name__}: {exc}",
                                  exitcodes.UNREACHABLE)
        if not result.ok:
            return holder[0].fail(result.reason or "the second exchange failed")
        ans = result.facts["more"][settings.target]
        holder[0].follow_ups.append(result.wire_digest or "")
        if record_digest is not None and ans["digest"] != record_digest:
            return holder[0].fail(f"the {settings.target} on the host changed during the scan "
                                  f"({ans['digest'][:12]} after {record_digest[:12]}); scan it again")
        return ans["modules"], ans["answers"]

    modules = HostModules(pkg["modules"], shape, demand.get("answers") or {}, fetch, outlines=demand.get("outlines"))
    holder.append(modules)
    return modules


def _keep_merged(store, target: str, pkg: dict[str, Any], modules: HostModules) -> str:
    """Store the package with what the second exchanges added, under drift's key of it, so a
    warm scan of this host reads it all without asking again."""
    parsed, shape, answers, outlines = modules.snapshot()
    merged = {k: v for k, v in pkg.items() if k not in ("modules", "digest", "host_digest")}
    merged["demand"] = dict(pkg["demand"], shape=shape, answers=answers, outlines=outlines)
    merged["modules"] = parsed
    merged["digest"] = merged_key(pkg["digest"], modules.follow_ups)  # not a re-encoding of 9 MB to hash it
    store.put(target, merged)
    return merged["digest"]


COLLECT_ROUNDS = 2  # collecting runs of the rules before the exact one (each fetch: one exchange)


def _reads_key(usage: Any, words: list[str], rule_paths: tuple[str, ...]) -> str:
    """What decides which of a host package's modules and searches the check reads: the
    consumer's uses and the rules. A stored package that served a check with this key in full
    serves it again, so that check runs exactly, reading the answers the store keeps for it,
    instead of collecting (whose runs keep nothing)."""
    blob = json.dumps({"usage": usage, "words": list(words), "rules": list(rule_paths)}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()


def _check_in_rounds(host: str, facts: dict[str, Any], settings: ScanSettings, say: Callable[[str], None],
                     where: str | None, baseline: Baseline | Outcome | None, modules: HostModules) -> HostScan:
    """The check over a demand-driven host package, in a few exchanges however much it lacks.

    Each collecting run reads placeholders for what the host left out and records it; all of it
    is then fetched in one exchange. A run that recorded nothing read only real facts: its
    report is the answer. After COLLECT_ROUNDS fetches the check runs exactly, asking for
    anything still missing as it reads it (correct, only slower). Collecting runs see the
    package without its digest, so PackageIndex stores no answer built on a placeholder; which
    also means they read none it stored, so a warm scan whose stored package already served
    these uses and rules in full (`modules.exact`) skips collecting."""
    if baseline is None:  # from the consumer's metadata on the host: known only now, read once
        baseline = _baseline_on_host(host, facts, settings, say)
    pkg = facts["packages"][settings.target]
    scratch = dict(facts, packages=dict(facts["packages"], **{settings.target: dict(pkg, digest=None)}))
    for _ in range(0 if modules.exact else COLLECT_ROUNDS):
        modules.collecting = True
        try:
            modules.runs += 1
            scan = _check(host, scratch, settings, say, where, baseline)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError):
            if not modules.wanted():
                raise  # no placeholder was read: the facts themselves are malformed
            scan = None  # code outside the rules met a placeholder: the report is discarded anyway
        finally:
            modules.collecting = False
        if not modules.wanted() and scan is not None:
            return scan
        try:
            modules.fetch_wanted()
        except LookupError:  # the host's answer was refused: `modules.failed` says why
            return _failed(host, modules.failed or "asking the host again failed", modules.failed_code)
    modules.runs += 1
    return _check(host, facts, settings, say, where, baseline)


def _metadata_spec(host: str, use: dict, settings: ScanSettings) -> tuple:
    """(spec, where from) of the baseline this usage block's metadata names (or the given one)."""
    from drift.pipeline.run import _baseline_spec

    meta = Consumer.from_usage(settings.consumer, settings.consumer, use).meta
    return _baseline_spec(meta, given=settings.baseline, target_package=settings.target, origin=f" on {host}")


def _baseline_on_host(host: str, facts: dict[str, Any], settings: ScanSettings,
                      say: Callable[[str], None]) -> Baseline | Outcome:
    cons = Consumer.from_usage(f"{settings.consumer} on {host}", settings.consumer, facts["usage"][settings.consumer])
    return resolve_baseline(cons, given=settings.baseline, target_package=settings.target,
                            say=lambda m: say(f"{host}: {m}"), origin=f" on {host}")


def _check(host: str, facts: dict[str, Any], settings: ScanSettings, say: Callable[[str], None],
           where: str | None, baseline: Baseline | Outcome | None = None) -> HostScan:
    target, consumer = settings.target, settings.consumer
    use = facts["usage"][consumer]
    cons = Consumer.from_usage(f"{consumer} on {host}", consumer, use)
    if baseline is None:  # from the consumer's metadata on the host: known only now
        baseline = _baseline_on_host(host, facts, settings, say)
    if isinstance(baseline, Outcome):
        return HostScan(host, "failed", None, baseline.error, baseline.exit_code)
    note = (f"the probe caches parsed facts and its compiled code on {host} in {where} (opt out: --no-host-cache)"
            if where else f"the probe wrote nothing on {host}")
    outcome = analyse(cons, facts, baseline, target_label=f"{target} on {host}", target_package=target,
                      rule_paths=list(settings.rule_paths), host=host, notes=(note,))
    outcome = Outcome(outcome.report, outcome.error, outcome.exit_code, {"consumer_root": use.get("root")})
    if outcome.report is None:
        return HostScan(host, "failed", outcome, outcome.error, outcome.exit_code)
    status = "drift" if outcome.exit_code == exitcodes.DRIFT else "ok"
    reason = f"{len(outcome.report.breaking)} breaking" if status == "drift" else None
    return HostScan(host, status, outcome, reason, outcome.exit_code, facts.get("probe"))


def fleet_entries(outcomes) -> list[dict[str, Any]]:
    """One entry per host of a fleet scan (drift.remote.fleet.HostOutcome of HostScan), in input order,
    for reports.fleet: every host appears, whether or not it produced a report."""
    out = []
    for o in outcomes:
        scan = o.value
        report = scan.outcome.report if scan is not None and scan.outcome is not None else None
        code = scan.exit_code if scan is not None else (
            exitcodes.USAGE if o.status == "failed" else exitcodes.UNREACHABLE)
        out.append({"host": o.name, "status": o.status, "reason": o.reason or (scan.reason if scan else None),
                    "hint": o.hint, "exit_code": code, "report": report})
    return out
