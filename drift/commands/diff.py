"""`drift diff OLD NEW`: everything that changed in a package's surface between two targets.

Informational: it exits 0 whether or not it finds changes (use `drift check` / `drift gate`
for a verdict on a consumer); 2 when a target cannot be read.
"""

from __future__ import annotations

import argparse
import gc
import sys
from dataclasses import dataclass
from typing import Callable

from drift import exitcodes


@dataclass(frozen=True)
class DiffRun:
    """Outcome of snapshotting both sides and diffing them: a result or a user message."""

    result: object | None  # drift.analysis.diff.DiffResult
    error: str | None
    exit_code: int


def add_parser(subparsers) -> None:
    from drift.analysis.diff import CHANGE_KINDS

    kinds = "\n".join(f"  {k.name:<22} {k.value}" for k in CHANGE_KINDS)
    p = subparsers.add_parser(
        "diff",
        help="full-surface difference of a package between two targets",
        description=(
            "Compare a package between two targets (PyPI requirement such as vllm==0.16.0, wheel, "
            "source tree, or python interpreter path) and list every change with old and new "
            "file:line evidence."
        ),
        epilog=f"change kinds (--kind):\n{kinds}\n\nexit codes: 0 compared (changes or not), 2 bad input",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("old", metavar="OLD", nargs="?", help="baseline target, e.g. vllm==0.11.0 (or -b)")
    p.add_argument("new", metavar="NEW", nargs="?", help="target to compare, e.g. vllm==0.16.0 (or -t)")
    p.add_argument("-b", "--baseline", default=None, help="the old side (instead of OLD)")
    p.add_argument("-t", "--target", default=None, help="the new side (instead of NEW)")
    p.add_argument("--package", help="top-level import name to compare (default: the target's)")
    p.add_argument("--format", choices=("terminal", "json", "markdown"), default=None,
                   help='terminal (default), json (the "drift.diff/1" document) or markdown')
    p.add_argument("-o", "--output", default=None, help="write the diff to this file instead of stdout")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # old spelling of --format json
    p.add_argument("--markdown", action="store_true", help=argparse.SUPPRESS)  # old spelling of --format markdown
    p.add_argument("--public-only", action="store_true", help="leave out private (_underscore) names")
    p.add_argument("--module", metavar="PREFIX", help="only modules under this dotted prefix")
    p.add_argument(
        "--kind",
        action="append",
        metavar="KIND",
        help="only this change kind (name such as PARAM_REMOVED; repeatable)",
    )
    p.add_argument("--cache-dir", help="probe facts cache (default: drift's user cache)")
    p.add_argument("--no-evidence", action="store_true", help="terminal: leave out the file:line lines")
    p.set_defaults(func=run)


def run_diff(
    old_spec: str,
    new_spec: str,
    *,
    package: str | None = None,
    cache_dir: str | None = None,
    public_only: bool = False,
    module_prefix: str | None = None,
    kinds=None,
    progress: Callable[[str], None] | None = None,
) -> DiffRun:
    """Snapshot both targets and diff them; every failure becomes a DiffRun with a message."""
    try:
        from drift.model.targets import load_facts
    except ImportError as exc:  # a broken install, not the user's input
        return DiffRun(None, f"cannot load targets: {exc}", exitcodes.USAGE)
    from drift.analysis.diff import diff_facts

    packages = [package] if package else None
    # Our caller's own frozen objects (if any) stay frozen; ours are released on the way out, or
    # every later `gc_paused` in this process pays gc.get_freeze_count()'s walk over them (O(n)
    # in CPython): a test process that ran a diff in-process spent 95 % of its time there.
    release = gc.get_freeze_count() == 0
    try:
        return _diff(old_spec, new_spec, packages, load_facts, diff_facts, package=package, cache_dir=cache_dir,
                     public_only=public_only, module_prefix=module_prefix, kinds=kinds, progress=progress)
    finally:
        if release:
            gc.unfreeze()


def _diff(old_spec, new_spec, packages, load_facts, diff_facts, *, package, cache_dir, public_only, module_prefix,
          kinds, progress) -> DiffRun:
    sides = []
    for spec in (old_spec, new_spec):
        try:
            loaded = load_facts(spec, packages=packages, cache_dir=cache_dir, progress=progress)
        except ImportError as exc:
            return DiffRun(None, f"{spec}: probe unavailable: {exc}", exitcodes.USAGE)
        if not loaded.ok:
            return DiffRun(None, loaded.error or f"{spec}: cannot be read", loaded.exit_code or exitcodes.USAGE)
        sides.append(loaded)
        # Two snapshots are millions of small objects that live until exit: keep the cyclic
        # GC from re-walking them on every allocation burst (halves the diff's time on vLLM).
        gc.freeze()
        if packages is None:
            names = [n for n, p in (loaded.facts.get("packages") or {}).items() if p.get("modules")]
            if len(names) == 1:
                packages = names  # read the same package on the other side
    if progress:
        progress("comparing")
    result, error = diff_facts(
        sides[0].facts,
        sides[1].facts,
        package=package or (packages[0] if packages else None),
        old_label=sides[0].label,
        new_label=sides[1].label,
        public_only=public_only,
        module_prefix=module_prefix,
        kinds=kinds,
        store=_store(),
    )
    if error:
        return DiffRun(None, error, exitcodes.USAGE)
    return DiffRun(result, None, exitcodes.CLEAN)


def _store():
    """The facts store the targets were read from: whole-package indexes are cached beside them."""
    try:
        from drift.model.store import default_store
    except ImportError:
        return None
    return default_store()


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from drift.analysis.diff import parse_kind

    from drift.commands.common import fail

    err = Console(stderr=True)
    old, new = args.baseline or args.old, args.target or args.new
    if args.baseline and args.old and args.new and not args.target:
        old, new = args.baseline, args.old  # `drift diff -b OLD NEW`
    if not old or not new:
        return fail("diff needs two targets", exitcodes.USAGE, hint="drift diff vllm==0.11.0 vllm==0.16.0 "
                                                                   "(or -b OLD -t NEW)")
    fmt = args.format or ("json" if args.json else "markdown" if args.markdown else "terminal")
    kinds = []
    for text in args.kind or ():
        kind = parse_kind(text)
        if kind is None:
            return fail(f"unknown change kind {text!r}", exitcodes.USAGE, hint="drift diff --help lists the kinds")
        kinds.append(kind)
    with err.status("snapshotting", spinner="dots") as status:
        outcome = run_diff(
            old,
            new,
            package=args.package,
            cache_dir=args.cache_dir,
            public_only=args.public_only,
            module_prefix=args.module,
            kinds=kinds or None,
            progress=lambda msg: status.update(msg),
        )
    if outcome.result is None:
        return fail(outcome.error or "diff failed", outcome.exit_code)
    from drift.reports.diff_render import render_terminal, to_json, to_markdown

    if fmt == "terminal" and not args.output:
        render_terminal(outcome.result, Console(), evidence=not args.no_evidence)
        return exitcodes.CLEAN
    if fmt == "json":
        text = to_json(outcome.result)
    elif fmt == "markdown":
        text = to_markdown(outcome.result)
    else:  # terminal layout into a file: plain text, whole lines
        import io

        buffer = io.StringIO()
        render_terminal(outcome.result, Console(file=buffer, width=200, no_color=True, soft_wrap=True),
                        evidence=not args.no_evidence)
        text = buffer.getvalue()
    if args.output:
        from pathlib import Path

        from drift.output import write_text

        write_text(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return exitcodes.CLEAN
