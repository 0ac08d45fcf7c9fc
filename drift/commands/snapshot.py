"""`drift snapshot TARGET`: the facts drift reads from an install, as versioned JSON."""

from __future__ import annotations

import json
import sys

from drift import exitcodes
from drift.commands.common import fail, progress
from drift.targets import load_facts


def add_parser(sub) -> None:
    p = sub.add_parser("snapshot", help="facts of a target (PyPI spec, wheel, source tree, python:PATH) as JSON",
                       description="Read a target's sources without importing them and write the facts "
                                   "(probes/SCHEMA.md) as JSON.")
    p.add_argument("target", help="e.g. vllm==0.16.0, a .whl, a source tree, or python:/path/to/python")
    p.add_argument("--package", action="append", default=None,
                   help="top-level import name(s) to read (default: what the distribution provides)")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    p.add_argument("--summary", action="store_true", help="print counts instead of the facts")
    p.add_argument("--json", action="store_true", help="accepted for symmetry; output is always JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    packages = args.package
    if packages is None and args.target.startswith("python:"):
        packages = ["vllm"]
    with progress() as say:
        res = load_facts(args.target, packages=packages, progress=say)
    if not res.ok:
        return fail(res.error or "snapshot failed", res.exit_code or exitcodes.USAGE)
    facts = res.facts
    if args.summary:
        out = {}
        for name, pkg in (facts.get("packages") or {}).items():
            mods = pkg.get("modules") or {}
            out[name] = {"version": pkg.get("version"), "modules": len(mods),
                         "classes": sum(len(m.get("classes") or {}) for m in mods.values()),
                         "functions": sum(len(m.get("functions") or {}) for m in mods.values()),
                         "errors": len(pkg.get("errors") or []), "digest": pkg.get("digest")}
        text = json.dumps({"schema": facts.get("schema"), "probe": facts.get("probe"), "packages": out}, indent=2)
    else:
        text = json.dumps(facts, separators=(",", ":"), sort_keys=True)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return exitcodes.CLEAN
