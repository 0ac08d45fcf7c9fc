"""`drift scan [HOST ...]`: what breaks the consumer on each host, read-only, over SSH."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
import dataclasses
from pathlib import PurePosixPath

from rich.console import Console

from drift import exitcodes
from drift.commands.common import (
    add_consumer_options, add_output_options, add_silencing_options, emit, fail, fail_connector, progress, silence,
    silencing,
)
from drift.config import ConfigError
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import add_host_arguments, open_connector, settings_from_args
from drift.pipeline.scan import HostScan, ScanSettings, scan_connector
from drift.suppress import SuppressError


def add_parser(sub) -> None:
    p = sub.add_parser(
        "scan",
        help="check what is installed on hosts over SSH (or here); caches parsed facts on the host "
             "(~/.cache/drift/probe) unless --no-host-cache",
        description="Probe each host's Python (stdlib only, nothing imported, no installed file changed) for "
                    "the installed vLLM and the consumer's uses of it, then report what breaks. By default "
                    "the probe caches parsed facts on each host in ~/.cache/drift/probe (and its own compiled "
                    "code, in code/ there), so the next scan reads nothing it has read before; drift says where the first time. --no-host-cache "
                    "writes nothing on the host.",
    )
    p.add_argument("hosts", nargs="*", metavar="HOST",
                   help="[user@]host[:port] or ssh://…; none (or 'local') scans this machine")
    p.add_argument("--inventory", metavar="FILE", help="Ansible inventory (INI or YAML)")
    p.add_argument("--limit", metavar="PATTERN", help="Ansible-style host pattern within the inventory")
    p.add_argument("-f", "--forks", type=int, default=8, help="hosts scanned at once (default 8)")
    add_consumer_options(p, default_help="here: its name as installed on the host (default: consumer in "
                                          "drift.toml, else speculators)")
    p.add_argument("-b", "--baseline", default=None, help="vLLM the consumer was written for (default: its metadata)")
    p.add_argument("--package", default=None, help="target import name (default: vllm)")
    p.add_argument("--no-host-cache", action="store_true",
                   help="write nothing on the host (the probe caches parsed facts in ~/.cache/drift/probe)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                   help="give up on a host's probe after this many seconds and end its processes there (default 300)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE", help="extra rule pack file")
    p.add_argument("--host-parse", choices=("reached", "all"), default="reached",
                   help="reached (default): the host parses only the vLLM modules the consumer reaches and drift "
                        "asks it again, in one batch, for what the rules read beyond them; all: the host parses "
                        "the whole package in one exchange (a cold scan of a consumer that reaches most of vLLM "
                        "is faster this way)")
    add_host_arguments(p)
    add_output_options(p)
    add_silencing_options(p, config=False)  # --config comes with the host arguments
    p.set_defaults(func=run)


def consumer_name(args, cfg) -> str:
    """The consumer on a host is what is installed there: its import name, from --consumer-package,
    else the name part of --consumer / the config's consumer (a spec's version is not checked)."""
    if getattr(args, "consumer_package", None):
        return args.consumer_package[0]
    text = args.consumer or cfg.consumer or "speculators"
    try:
        from packaging.requirements import Requirement

        return Requirement(text).name.replace("-", "_")
    except Exception:  # noqa: BLE001 - not a requirement: take it as the import name given
        return text


def _settings(args, js, python: str | None) -> ScanSettings:
    cfg = js.config
    return ScanSettings(
        consumer=consumer_name(args, cfg),
        target=args.package or "vllm",
        baseline=args.baseline or cfg.baseline,
        python=python or js.python,  # an inventory host's own interpreter wins
        host_cache=not args.no_host_cache,
        rule_paths=tuple(args.rules),
        timeout=args.timeout,
        demand=getattr(args, "host_parse", "reached") == "reached",
    )


async def _scan_one(host: str | None, args, say, *, python: str | None = None) -> HostScan:
    js = settings_from_args(args, host=host)
    settings = _settings(args, js, python)
    connector = await open_connector(js)
    try:
        scan = await scan_connector(connector, host=js.host or "local", settings=settings, say=say)
        return await _silenced(scan, args, js, connector)
    finally:
        await connector.close()


async def _silenced(scan: HostScan, args, js, connector) -> HostScan:
    """Apply comments, --select/--ignore, config and the accepted file to one host's report.

    `# drift: ignore[...]` comments live in the consumer's files on the host: read here when the
    host is this machine, else only the files that have findings are fetched (one `get` each).
    TODO(probe): have probes/usage.py send each use's line comments with the usage facts, so a
    host scan needs no second round trip for them.
    """
    from drift.suppress import local_source

    report = scan.outcome.report if scan.outcome else None
    if report is None:
        return scan
    root = scan.outcome.extra.get("consumer_root")
    policy, fail_on = silencing(args, js.config, consumer_root=root if js.is_local else None)
    if js.is_local or not root or not policy.comments:
        source = local_source(root if js.is_local else None)
    else:
        texts: dict[str, list[str] | None] = {}
        for path in sorted({f.consumer_site.path for f in report.findings}):
            try:
                data = await connector.get(str(PurePosixPath(root) / path))
                texts[path] = data[: 4 << 20].decode("utf-8", errors="replace").splitlines()
            except (ConnectorError, OSError):
                texts[path] = None  # unreadable: its findings stay, as without a comment
        source = texts.get
    (report,) = silence([report], args, policy, fail_on, [source])
    status = scan.status if scan.status not in ("ok", "drift") else ("drift" if report.exit_code else "ok")
    reason = f"{len(report.failing)} {fail_on.value}" + (" or worse" if fail_on.value == "risky" else "") if report.exit_code else None
    outcome = dataclasses.replace(scan.outcome, report=report, exit_code=report.exit_code)
    return dataclasses.replace(scan, outcome=outcome, status=status, reason=reason if status in ("ok", "drift") else scan.reason,
                               exit_code=report.exit_code if status in ("ok", "drift") else scan.exit_code)


def _notices(scans) -> None:
    from drift.output import terminal  # a notice names the host's cache dir, as the host reported it

    for scan in scans:
        if scan is not None and scan.notice:
            print(terminal(scan.notice), file=sys.stderr)


def run(args) -> int:
    if not args.timeout > 0:
        return fail(f"--timeout must be a positive number of seconds, not {args.timeout:g}", exitcodes.USAGE)
    if len(args.consumer_package or ()) > 1:
        return fail("drift scan reads one installed consumer package per host; --consumer-package was given "
                    f"{len(args.consumer_package)} times", exitcodes.USAGE,
                    hint="scan once per package, or check a checkout with drift check DIR --consumer-package A "
                         "--consumer-package B")
    hosts = list(args.hosts)
    if args.inventory:
        from drift.remote.inventory import InventoryError, load_inventory, select_hosts

        try:
            inv_hosts = select_hosts(load_inventory(args.inventory), args.limit)
        except (InventoryError, OSError) as exc:
            return fail(str(exc), exitcodes.USAGE)
        return _fleet(args, inv_hosts)
    if len(hosts) > 1:
        return _fleet(args, hosts)
    host = hosts[0] if hosts else None
    try:
        with progress() as say:
            scan = asyncio.run(_scan_one(None if host in (None, "local") else host, args, say))
    except (ConfigError, SuppressError) as exc:
        return fail(str(exc), exitcodes.USAGE)
    except ConnectorError as exc:
        return fail_connector(exc)
    _notices([scan])
    if scan.outcome is None or scan.outcome.report is None:
        return fail(f"{scan.host}: {scan.reason}", scan.exit_code or exitcodes.USAGE)
    emit(scan.outcome.report, args)
    return scan.exit_code


def _fleet(args, hosts) -> int:
    from drift.remote.fleet import fleet_exit_code, run_fleet

    if args.write_accepted:
        return fail("--write-accepted records one host's findings", exitcodes.USAGE,
                    hint="run it against one host, then pass --accepted FILE to the fleet scan")

    async def job(h):
        if isinstance(h, str):
            return await _scan_one(h, args, lambda _m: None)
        # an inventory host: its own address, port, user and python
        return await _scan_one(h.spec, args, lambda _m: None, python=h.python)

    try:
        outcomes = asyncio.run(run_fleet(hosts, job, forks=max(1, args.forks),
                                         classify=lambda s: s.status))
    except (ConfigError, SuppressError) as exc:
        return fail(str(exc), exitcodes.USAGE)
    reports_ = [o.value.outcome.report for o in outcomes
                if o.value is not None and o.value.outcome is not None and o.value.outcome.report is not None]
    fmt = "json" if args.json else (args.format or "terminal")
    if fmt == "terminal":
        from drift.reports.terminal import render_summary_table

        console = Console(highlight=False)
        rows = []
        for o in outcomes:
            report = o.value.outcome.report if o.value and o.value.outcome and o.value.outcome.report else None
            rows.append({"host": o.name, "status": o.status,
                         "vllm": (report.target.get("version") if report else None) or "",
                         "breaking": len(report.breaking) if report else "",
                         "detail": o.reason or (o.value.reason if o.value else "") or ""})
        if args.verbose:
            for r in reports_:
                emit(r, args)
        render_summary_table(rows, console)
    elif fmt in ("json", "sarif"):  # every host appears, with its status (reports.fleet)
        _write_fleet(fmt, outcomes, args)
    elif reports_:
        emit(reports_, args)
    _notices([o.value for o in outcomes])
    return fleet_exit_code(outcomes)


def _write_fleet(fmt: str, outcomes, args) -> None:
    from drift.remote.fleet import fleet_exit_code
    from drift.pipeline.scan import fleet_entries
    from drift.reports.fleet import to_json_fleet, to_sarif_fleet

    entries = fleet_entries(outcomes)
    text = (to_json_fleet(entries, exit_code=fleet_exit_code(outcomes)) if fmt == "json"
            else to_sarif_fleet(entries, repo_root=getattr(args, "repo_root", None)))
    if args.output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        from drift.output import write_text

        write_text(Path(args.output), text)
