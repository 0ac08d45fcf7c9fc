"""`drift patch [HOST]`: fix the consumer for the installed vLLM — dry run, apply, revert.

Dry run by default: the unified diff, which findings each file's hunks fix, and what stays
manual. `--apply` writes on the host (atomic, backed up, with a manifest), then verifies:
a re-scan must show no fixable breaking finding and the patched files must compile under the
host's own interpreter. `--revert` restores the byte-identical originals.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import PurePosixPath

from rich.console import Console

from drift import __version__, exitcodes
from drift.commands.common import add_consumer_options, fail, fail_connector, progress
from drift.config import ConfigError
from drift.remote.connectors.base import ConnectorError
from drift.jobs.connect import add_host_arguments, open_connector, settings_from_args
from drift.pipeline.scan import ScanSettings, scan_connector


def add_parser(sub) -> None:
    p = sub.add_parser("patch", help="libcst fixes for the consumer: diff (default), --apply, --revert",
                       description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("host", nargs="?", default=None, help="[user@]host[:port]; omitted or 'local' = this machine")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--apply", action="store_true", help="write the fixes on the host, then verify")
    mode.add_argument("--revert", action="store_true", help="restore the originals of the last applied patch")
    p.add_argument("-o", "--output", help="also write the diff to this file (git apply / patch -p1 in site-packages)")
    add_consumer_options(p, default_help="here: its name as installed on the host (default: consumer in "
                                          "drift.toml, else speculators)")
    p.add_argument("-b", "--baseline", default=None, help="vLLM the consumer was written for (default: its metadata)")
    p.add_argument("--state-dir", default=None, help="where backups and manifests live on the host "
                                                    "(default: ~/.drift/patches)")
    p.add_argument("--force", action="store_true", help="with --revert: restore even files edited since the apply")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="also apply fixes that may change what the code does (e.g. dropping a keyword whose "
                        "value differs from the old default); safe fixes only without it")
    p.add_argument("--add-todo", action="store_true",
                   help="write a `# TODO(drift): ...` comment with the edit and the vLLM evidence above each "
                        "site drift does not fix itself")
    p.add_argument("--single-version", action="store_true",
                   help="plain edits for the installed vLLM only, even when the consumer supports a range of "
                        "releases (default there: each edit is a version branch keeping the baseline's code)")
    p.add_argument("--fresh", action="store_true",
                   help="with --apply: ignore the plan saved by the last dry run and apply a newly computed one")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    add_host_arguments(p)
    p.set_defaults(func=run)


async def _home(connector, python: str) -> str:
    from drift.remote.connectors.script import run_script

    res = await run_script(connector, python, "import os; print(os.path.expanduser('~'))", timeout=30, limit=65536)
    if not res.ok:
        raise ConnectorError(f"cannot run {python} on the host: {res.stderr.decode(errors='replace').strip()[-200:]}",
                             category="usage")
    return res.stdout.decode().strip()


async def _second_run(connector, rescan, root, args, cfg, applies, plan) -> list[str]:  # type: ignore[no-untyped-def]
    """The files a second `drift patch` would change right after this one (none: it is a no-op)."""
    if not (rescan.outcome and rescan.outcome.report):
        return []
    report = rescan.outcome.report
    todo = [f for f in report.findings if applies(f, unsafe_fixes=args.unsafe_fixes)]
    files = {}
    for path in sorted({f.consumer_site.path for f in todo}):
        try:
            files[path] = await connector.get(str(PurePosixPath(root) / path))
        except ConnectorError:
            continue
    gate = None if args.single_version or not files else await _gate(
        connector, report, rescan.outcome.extra, root, files, declared=cfg.supports, say=lambda _text: None)
    return [c.path for c in plan(files, todo, unsafe_fixes=args.unsafe_fixes, gate=gate).changes]


def _baseline_checked(files, considered, gate, report, extra, args):  # type: ignore[no-untyped-def]
    """(plan, what the baseline re-check said): the edits tried on the fixed files with baseline
    and target swapped, a version branch only where a plain edit adds a finding there, and the
    gated patch checked the same way before anything is written on the host. The installed vLLM
    must be a release drift can fetch (a dev build is not): else every edit stays gated."""
    from packaging.version import InvalidVersion, Version

    from drift.fixes import plan
    from drift.pipeline.recheck import gate_on_files

    baseline_spec = (report.baseline or {}).get("spec") or f"vllm=={(report.baseline or {}).get('version')}"
    installed = str(report.target.get("version") or "")
    options = {"unsafe_fixes": args.unsafe_fixes, "add_todo": args.add_todo}
    every = plan(files, considered, gate=gate, **options)
    try:
        release = Version(installed)
    except InvalidVersion:
        release = None
    if release is None or release.is_prerelease or release.is_devrelease or release.local:
        return every, {"spec": baseline_spec, "new": None,
                       "note": f"not re-checked: the installed vLLM {installed or '?'} is not a release drift can "
                               "fetch, so every edit is version-gated"}
    plain = plan(files, considered, **options)
    gated, new, why = gate_on_files(
        {p: b for p, b in files.items()}, plain, lambda lines: plan(files, considered, gate=gate, gate_lines=lines,
                                                                    **options),
        packages=list(extra.get("consumer_packages") or []), baseline_spec=baseline_spec,
        target_spec=f"vllm=={installed}")
    return gated, {"spec": baseline_spec, "new": None if new is None else
                   [f"{f.consumer_site} {f.rule_id} {f.title}" for f in new], "note": why}


async def _gate(connector, report, extra, root: str, files: dict, *, declared, say):  # type: ignore[no-untyped-def]
    """The version gate for a consumer that supports a range of vLLM releases, else None.

    The consumer's own helper is looked for in the files the fixes touch (all drift reads of
    the host here); where drift adds its own, `<pkg>/utils/` is used when it is a package there."""
    from drift.consumer.support import support, valid_range
    from drift.fixes.version_helper import choose_gate, top_package

    if declared and not valid_range(declared):
        raise ConfigError(f"supports = {declared!r} in drift.toml is not a version range (e.g. \">=0.10.2\")")
    baseline = (report.baseline or {}).get("version")
    ranged = support(extra.get("consumer_requires") or [], baseline=baseline, declared=declared)
    if not ranged.is_range:
        return None
    top = top_package(list(files), list(extra.get("consumer_packages") or []))
    known = dict(files)
    try:
        known[f"{top}/utils/__init__.py"] = await connector.get(str(PurePosixPath(root) / top / "utils" / "__init__.py"))
    except ConnectorError:
        pass
    gate = choose_gate(known, top=top, since=str(report.target.get("version")), before=str(baseline))
    say(f"{ranged.why}: version-gated edits ({gate.test}); --single-version for plain ones")
    return gate


async def _run(args, say) -> tuple[int, dict]:
    from drift.fixes import LATEST, applies, apply, plan, revert, unified_diff, verify_compile
    from drift.fixes.plan import HELD_REASON
    from drift.pipeline.recheck import new_findings

    host = None if args.host in (None, "local") else args.host
    js = settings_from_args(args, host=host)
    cfg = js.config
    python = cfg.python or (sys.executable if js.is_local else "python3")
    from drift.commands.scan import consumer_name

    settings = ScanSettings(consumer=consumer_name(args, cfg),
                            baseline=args.baseline or cfg.baseline, python=python)
    connector = await open_connector(js)
    label = js.host or "local"
    try:
        state_dir = args.state_dir or str(PurePosixPath(await _home(connector, python)) / ".drift" / "patches")
        if args.revert:
            res = await revert(connector, state_dir=state_dir, patch_id=LATEST, python=python, force=args.force,
                               consumer=settings.consumer)
            ok = res.status in ("reverted", "already_reverted")
            return (exitcodes.CLEAN if ok else exitcodes.USAGE), {
                "action": "revert", "status": res.status, "reason": res.reason, "host": label,
                "patch_id": res.patch_id,
                "files": [{"path": f.path, "action": f.action} for f in res.files]}
        from drift.fixes import saved

        say(f"{label}: scanning")
        scan = await scan_connector(connector, host=label, settings=settings, say=say)
        if scan.outcome is None or scan.outcome.report is None:
            return scan.exit_code or exitcodes.USAGE, {"error": scan.reason, "host": label}
        report = scan.outcome.report
        options = {"unsafe_fixes": bool(args.unsafe_fixes), "add_todo": bool(args.add_todo),
                   "single_version": bool(args.single_version)}
        # a fix safe only in a version branch (`gated_tier`) may be written when the consumer supports
        # a range: its file is read too, and the gate (known below) decides
        fixable = [f for f in report.findings
                   if applies(f, unsafe_fixes=args.unsafe_fixes, gated=not args.single_version)]
        # breaking findings without a codemod; with --add-todo every unfixed finding gets its comment
        considered = [f for f in report.findings
                      if f.fix and f.fix.codemod or f.severity.value == "breaking" or args.add_todo]
        root = str(scan.outcome.extra.get("consumer_root") or "")
        baseline_check = None
        reviewed = saved.load(host=label, consumer=settings.consumer) if args.apply and not args.fresh else None
        if reviewed is not None and any(reviewed[1]["meta"].get(k, False) != v for k, v in options.items()):
            reviewed = None  # reviewed with other tiers or without TODOs: that diff is not what is asked for
        if reviewed is not None:
            # apply exactly the diff the user reviewed; the applier refuses if a file changed since
            the_plan, doc = reviewed
            meta = dict(doc["meta"])
        else:
            wanted = fixable + ([f for f in considered if f not in fixable] if args.add_todo else [])
            files = {path: await connector.get(str(PurePosixPath(root) / path))
                     for path in sorted({f.consumer_site.path for f in wanted})}
            gate = None if args.single_version else await _gate(connector, report, scan.outcome.extra, root,
                                                                 files, declared=cfg.supports, say=say)
            the_plan = plan(files, considered, unsafe_fixes=args.unsafe_fixes, add_todo=args.add_todo, gate=gate)
            fixable = [f for f in fixable if applies(f, unsafe_fixes=args.unsafe_fixes, gated=gate is not None)]
            if gate is not None:
                say(f"{label}: re-checking the patch against the baseline")
                the_plan, baseline_check = await asyncio.to_thread(
                    _baseline_checked, files, considered, gate, report, scan.outcome.extra, args)
            meta = {**options, "drift_version": __version__, "target_version": report.target.get("version"),
                    "baseline_version": (report.baseline or {}).get("version"),
                    "finding_ids": sorted(the_plan.finding_keys), "host": label}
        diff = unified_diff(the_plan)
        if baseline_check is not None:
            result_extra = {"baseline_check": baseline_check}
        else:
            result_extra = {}
        result = {"host": label, "consumer_root": root, "diff": diff, "reviewed_plan": reviewed is not None,
                  "fixes": {c.path: list(c.finding_keys) for c in the_plan.changes if c.finding_keys},
                  "manual": [{"key": f.key, "title": f.title, "fix": f.fix.description if f.fix else None,
                              "reason": (f.fix.manual_reason if f.fix else None) or "no automatic fix is known"}
                             for f in considered if not (f.fix and f.fix.codemod)],
                  "unsafe": [{"key": f.key, "title": f.title, "fix": f.fix.description, "reason": HELD_REASON}
                             for f in considered if f.fix and f.fix.codemod and f not in fixable],
                  "todos": list(the_plan.todos),
                  "skipped": [{"key": k, "reason": r} for k, r in the_plan.skipped],
                  "target_version": report.target.get("version"), **result_extra}
        if args.output:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(diff)
        if not args.apply:
            if not the_plan.empty:
                result["saved_plan"] = str(saved.save(the_plan, host=label, consumer=settings.consumer, root=root,
                                                      meta=meta))
            return (exitcodes.DRIFT if report.breaking else exitcodes.CLEAN), result
        if baseline_check and baseline_check.get("new"):
            return exitcodes.DRIFT, {**result, "apply": {
                "status": "refused", "patch_id": None,
                "reason": f"the patch adds findings against the baseline {baseline_check['spec']} the consumer still "
                          "supports: " + "; ".join(baseline_check["new"])}}
        if reviewed is not None and reviewed[1].get("root") != root:
            return exitcodes.USAGE, {**result, "apply": {
                "status": "refused", "patch_id": None,
                "reason": f"the reviewed plan was made for {reviewed[1].get('root')}, the consumer is now at {root}; "
                          "run drift patch again"}}
        say(f"{label}: applying")
        applied = await apply(the_plan, connector, root=root, state_dir=state_dir, meta=meta, python=python,
                              installed_version=report.target.get("version"))
        result["apply"] = {"status": applied.status, "reason": applied.reason, "patch_id": applied.patch_id}
        if not applied.ok:
            return exitcodes.USAGE, result
        saved.discard(host=label, consumer=settings.consumer)
        say(f"{label}: verifying")
        compiled = await verify_compile(connector, python=python, paths=[c.path for c in the_plan.changes], root=root)
        rescan = await scan_connector(connector, host=label, settings=settings, say=say)
        left = [f for f in (rescan.outcome.report.findings if rescan.outcome and rescan.outcome.report else [])
                if f.severity.value == "breaking" and applies(f, unsafe_fixes=args.unsafe_fixes)]
        still = list(rescan.outcome.report.breaking if rescan.outcome and rescan.outcome.report else ())
        added = new_findings(report, rescan.outcome.report) if rescan.outcome and rescan.outcome.report else []
        result["verify"] = {"compiled": compiled.ok, "compile_errors": [f"{p}: {m}" for p, m in compiled.errors],
                            "fixable_breaking_left": [f.key for f in left],
                            "breaking_left": [{"key": f.key, "title": f.title} for f in still],
                            "new_findings": [f"{f.consumer_site} {f.rule_id} {f.title}" for f in added]}
        result["verify"]["second_run_changes"] = again = await _second_run(
            connector, rescan, root, args, cfg, applies, plan)
        ok = compiled.ok and not left and not added and not again
        code = exitcodes.CLEAN if ok and not still else exitcodes.DRIFT
        return code, result
    finally:
        await connector.close()


def _print(result: dict, console: Console) -> None:
    """What was planned, applied or reverted. Paths, titles and reasons name the consumer's
    files and code: through `markup` in a markup line, `terminal` in a plain one (shown, not obeyed)."""
    from drift.output import markup as m_, terminal
    if "diff" in result:
        sys.stdout.write(result["diff"] or "(no fixable finding: nothing to change)\n")  # verbatim: never wrapped
        sys.stdout.flush()
        for path, keys in result["fixes"].items():
            console.print(f"[bold]{m_(path)}[/] fixes: " + m_(", ".join(k.split(":")[0] + "@" + k.split(":")[2] for k in keys)))
        for m in result["unsafe"]:
            console.print(f"[yellow]unsafe, not applied[/] {m_(m['title'])} — {m_(m.get('fix') or '')} "
                          "(--unsafe-fixes applies it)", highlight=False)
        for m in result["manual"]:
            console.print(f"[yellow]manual[/] {m_(m['title'])} — {m_(m.get('fix') or '')}"
                          + (f" ({m_(m['reason'])})" if m.get("reason") else ""), highlight=False)
        if result.get("todos"):
            console.print(f"TODO(drift) comments for {len(result['todos'])} finding(s)", highlight=False)
        for s in result["skipped"]:
            console.print(f"[yellow]skipped[/] {m_(s['key'])} — {m_(s['reason'])}", highlight=False)
    if result.get("baseline_check"):
        b = result["baseline_check"]
        if b.get("new"):
            console.print(f"[red]baseline {m_(b['spec'])}: the patch adds[/] " + m_("; ".join(b["new"])), highlight=False)
        elif b.get("new") is not None:
            console.print(f"re-checked against the baseline {m_(b['spec'])}: nothing new", highlight=False)
        if b.get("note"):
            console.print(f"baseline {m_(b['spec'])}: {m_(b['note'])}", highlight=False)
    if result.get("saved_plan"):
        console.print(f"plan saved: {m_(result['saved_plan'])} — `--apply` applies exactly this diff", highlight=False)
    if result.get("reviewed_plan"):
        console.print("applying the plan reviewed with the last dry run", highlight=False)
    if "apply" in result:
        a = result["apply"]
        console.print(m_(f"apply: {a['status']}" + (f" ({a['reason']})" if a.get("reason") else "")
                         + (f" patch {a['patch_id']}" if a.get("patch_id") else "")))
    if "verify" in result:
        v = result["verify"]
        console.print(f"verify: compile {'ok' if v['compiled'] else 'FAILED'}; "
                      f"fixable breaking left: {len(v['fixable_breaking_left'])}; "
                      f"breaking left (manual): {len(v['breaking_left'])}"
                      + (f"; NEW findings: {len(v['new_findings'])}" if v.get("new_findings") else "")
                      + (f"; a second run would change {len(v['second_run_changes'])} file(s)"
                         if v.get("second_run_changes") else ""))
        for e in v.get("new_findings") or ():
            console.print(terminal(f"  new: {e}"), markup=False)
        for e in v["compile_errors"]:
            console.print(terminal(f"  {e}"), markup=False)
    if result.get("action") == "revert":
        console.print(terminal(f"revert: {result['status']}" + (f" patch {result['patch_id']}" if result.get("patch_id") else "")
                               + (f" ({result['reason']})" if result.get("reason") else "")), markup=False)
        for f in result.get("files") or ():
            console.print(terminal(f"  {f['action']} {f['path']}"), markup=False)


def run(args) -> int:
    import json

    try:
        with progress() as say:
            code, result = asyncio.run(_run(args, say))
    except ConfigError as exc:
        return fail(str(exc), exitcodes.USAGE)
    except ConnectorError as exc:
        return fail_connector(exc)
    if "error" in result:
        return fail(f"{result['host']}: {result['error']}", code)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        _print(result, Console(highlight=False))
    return code
