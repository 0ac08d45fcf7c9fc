"""`drift snapshot TARGET`: the facts drift reads from an install, as versioned JSON.

The file is itself a target (`drift check -t facts.json`): a team shares one GPU host's facts
and checks against them without reaching the host.
"""

from __future__ import annotations

import json
import sys

from drift import exitcodes
from drift.commands.common import fail, progress
from drift.model.targets import load_facts


def add_parser(sub) -> None:
    p = sub.add_parser("snapshot", help="facts of a target (PyPI spec, wheel, source tree, python:PATH) as JSON",
                       description="Read a target's sources without importing them and write the facts "
                                   "(probes/SCHEMA.md) as JSON; the file is accepted as a target (-t FILE).")
    p.add_argument("target_pos", nargs="?", metavar="TARGET",
                   help="e.g. vllm==0.16.0, a .whl, a source tree, or python:/path/to/python (same as -t)")
    p.add_argument("-t", "--target", default=None, help="the target (instead of the positional TARGET)")
    p.add_argument("--package", action="append", default=None,
                   help="top-level import name(s) to read (default: what the distribution provides)")
    p.add_argument("--format", choices=("json", "summary"), default=None,
                   help="json: the facts (default); summary: counts per package")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    p.add_argument("--summary", action="store_true", help=argparse_suppress())
    p.add_argument("--json", action="store_true", help=argparse_suppress())
    p.set_defaults(func=run)


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS  # old spellings kept working for scripts: --summary, --json


def run(args) -> int:
    from drift.model.facts import ModuleFacts
    from drift.sources.snapshot import dumps, plain

    target = args.target or args.target_pos
    if not target:
        return fail("no target given", exitcodes.USAGE, hint="drift snapshot vllm==0.16.0 -o facts.json")
    fmt = args.format or ("summary" if args.summary else "json")
    packages = args.package
    if packages is None and target.startswith("python:"):
        packages = ["vllm"]
    with progress() as say:
        res = load_facts(target, packages=packages, progress=say)
    if not res.ok:
        return fail(res.error or "snapshot failed", res.exit_code or exitcodes.USAGE, hint=res.hint)
    facts = res.facts
    if fmt == "summary":
        out = {}
        for name, pkg in (facts.get("packages") or {}).items():  # the package envelope: not a facts record
            mods = pkg.get("modules") or {}
            views = [ModuleFacts(m) for m in mods.values()]
            out[name] = {"version": pkg.get("version"), "modules": len(mods),
                         "classes": sum(len(m.classes) for m in views),
                         "functions": sum(len(m.functions) for m in views),
                         "errors": len(pkg.get("errors") or []), "digest": pkg.get("digest")}
        text = json.dumps({"schema": facts.get("schema"), "probe": facts.get("probe"), "packages": out}, indent=2,
                          default=plain)
    else:
        text = dumps(facts)  # facts from the store load lazily: plain() turns them into dicts
    if args.output:
        from pathlib import Path

        from drift.output import write_text

        write_text(Path(args.output), text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return exitcodes.CLEAN
