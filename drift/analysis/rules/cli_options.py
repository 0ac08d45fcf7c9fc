"""DRIFT009: `args.<option>` read off the Namespace of a parser the target filled, for an option
the baseline's parser builders registered and the target's no longer do.

The consumer builds (or receives) a parser, hands it to the target (`make_arg_parser(parser)`,
`AsyncEngineArgs.add_cli_args(parser)`), parses, and reads the options: `args.disable_log_requests`.
When the target's builders stop registering that option, argparse never sets it and the read
raises AttributeError at start-up. The options are facts of each side's source (`behaviour["cli"]`,
probes/cli_args.py): literal `add_argument` dests, the fields of a class a loop turns into options,
and the options of every builder the parser is handed on to; the consumer's own `add_argument`
dests on that parser are not the target's and never reported.
"""

from __future__ import annotations

from typing import Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol

_DEPTH = 8
_OPEN = "open:"  # marks a builder whose flags are computed (probes/cli_args.py `open`)


@rule("DRIFT009", RuleKind.ATTRIBUTE_REMOVED)
def cli_option_gone(ctx: CheckContext) -> Iterator[Finding]:
    """`args.opt` where `args` is what `parse_args()` returns for a parser the target's builders
    filled (`make_arg_parser(parser)`, `EngineArgs.add_cli_args(parser)`), and `opt` is an option the
    baseline's builders registered that the target's do not: argparse never sets it, so the read
    raises AttributeError. An option the consumer adds itself is its own. The Namespace is followed
    where it goes: into functions and classes of the package (`Server(args)`), onto the instance
    (`self.args = args`, read as `self.args.opt` in any method), and from a module-level parse into
    the module's functions; a parser the package's own helper hands to the target's builders
    counts as filled by them."""
    if ctx.baseline is None:
        return
    seen: set[tuple] = set()
    by_module = {m.get("module"): m for m in ctx.usage if isinstance(m.get("module"), str)}
    for mod in ctx.usage:
        for ns in mod.get("cli_namespaces") or []:
            if not isinstance(ns, dict):
                continue
            builders = [b for b in ns.get("builders") or [] if isinstance(b, str)]
            builders += [b for b in _builders_via(by_module, ns) if b not in builders]
            if not builders:
                continue
            before, base_opaque = _options_of(ctx.baseline, builders)
            after, target_opaque = _options_of(ctx.target, builders)
            if before is None or after is None or not target_opaque <= base_opaque \
                    or any(t.startswith(_OPEN) for t in target_opaque):
                continue  # a builder unread on a side, a new source of options, or options the target computes
            own = {d for d in ns.get("own") or () if isinstance(d, str)}
            for where, read in [(mod, r) for r in ns.get("reads") or []] + _handed_reads(by_module, ns):
                if not _read_row(read):
                    continue  # a malformed row (a host's reply is not trusted): nothing to say
                line, col, attr = read
                if attr not in before or attr in after or attr in own:
                    continue
                key = (where.get("path"), line, attr)
                if key in seen:
                    continue
                seen.add(key)
                yield _finding(ctx, where, line, col, attr, builders)


def _builders_via(by_module: dict, ns: dict) -> list[str]:
    """The target's builders a parser reaches through the package's own helpers (`via`: a function
    of another module handed the parser, whose `parser_params` there name the builders it hands it
    to): `parser = add_target_options(parser)` where that helper calls `make_arg_parser(parser)`."""
    out: list[str] = []
    for row in ns.get("via") or []:
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) and isinstance(row[1], int)):
            continue
        mod, qual = _module_of(by_module, row[0])
        for param in ((mod or {}).get("parser_params") or {}).get(qual) or []:
            if isinstance(param, list) and len(param) == 2 and param[0] == row[1]:
                out += [b for b in param[1] or [] if isinstance(b, str) and b not in out]
    return out


def _module_of(by_module: dict, dotted: str) -> tuple[dict | None, str]:
    """(the package's module record that defines `dotted`, the qualname in it)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        mod = by_module.get(".".join(parts[:cut]))
        if mod is not None:
            return mod, ".".join(parts[cut:])
    return None, dotted


def _handed_reads(by_module: dict, ns: dict) -> list[tuple[dict, object]]:
    """(module, read) for the reads of the Namespace in the functions of other modules of the
    package it is handed to (`run_server(args)` imported from `.serve`): that function's parameter
    at the position or keyword the call fills, as `namespace_params` recorded it there."""
    out: list[tuple[dict, object]] = []
    for row in ns.get("handed") or []:
        if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)):
            continue
        dotted, pos, kw = row
        mod, qual = _module_of(by_module, dotted)
        if mod is None:
            continue
        params = mod.get("namespace_params") or {}
        if qual not in params and f"{qual}.__init__" in params:  # a class built with it: its `__init__`
            qual, pos = f"{qual}.__init__", pos + 1 if isinstance(pos, int) else pos  # (which counts `self`)
        for param in params.get(qual) or []:
            if isinstance(param, list) and len(param) == 3 and \
                    ((isinstance(pos, int) and param[0] == pos) or (kw is not None and param[1] == kw)):
                out += [(mod, r) for r in param[2] or []]
    return out


def _read_row(read: object) -> bool:
    return isinstance(read, (list, tuple)) and len(read) == 3 and isinstance(read[0], int) \
        and isinstance(read[1], int) and isinstance(read[2], str)


def _finding(ctx: CheckContext, mod: dict, line: int, col: int, attr: str, builders: list[str]) -> Finding:
    flag = "--" + attr.replace("_", "-")
    base = next((s for s in (ctx.baseline.lookup(b) for b in builders) if s is not None), None)
    return Finding(
        rule_id="DRIFT009", kind=RuleKind.ATTRIBUTE_REMOVED,
        severity=Severity.RISKY if ctx.dead_on_baseline(mod) else Severity.BREAKING,
        title=f"option `{flag}` is no longer registered by `{builders[0].rsplit('.', 1)[-1]}`: `args.{attr}` is unset",
        consumer_site=Location(mod["path"], line, col=col + 1, symbol=attr),
        details="the parser's options come from " + ", ".join(f"`{b}`" for b in builders),
        target_evidence=(),
        baseline_evidence=(ctx.evidence(base),) if base is not None else (),
        predicted_failure=f"AttributeError: 'Namespace' object has no attribute '{attr}'",
        fix=Fix(f"stop reading `args.{attr}`, add `{flag}` to the consumer's own parser, or read the option "
                "that replaced it", manual_reason="which option replaced it is the consumer's to judge"),
        symbol=attr,
    )


def _options_of(index: PackageIndex, builders: list[str]) -> tuple[set[str] | None, set[str]]:
    """(every dest the builders register on this side, or None when one is not there; the source
    texts of builders they hand the parser to that resolve to nothing drift read)."""
    out: set[str] = set()
    opaque: set[str] = set()
    for dotted in builders:
        sym = index.lookup(dotted)
        if sym is None or sym.kind not in ("function", "method"):
            return None, opaque
        _collect(index, sym, out, opaque, set(), 0)
    return out, opaque


def _collect(index: PackageIndex, sym: Symbol, out: set[str], opaque: set[str], seen: set, depth: int,
             receiver: Symbol | None = None) -> None:
    """Add the dests `sym` registers. `receiver` is the class a classmethod builder was called on
    (`FrontendArgs.add_cli_args(parser)` running an inherited `get_kwargs(cls)`): `cls` is that class,
    so its fields (and its bases') are the options, not the defining class's."""
    key = (sym.dotted, receiver.dotted if receiver is not None else None)
    if key in seen or depth > _DEPTH:
        return
    seen.add(key)
    cli = sym.as_function.behaviour.cli
    if not isinstance(cli, dict):
        return
    out.update(d for d in cli.get("dests") or () if isinstance(d, str))
    if cli.get("open") is True:
        opaque.add(_OPEN + sym.dotted)  # options this builder computes: none of them can be named
    for text in cli.get("fields_of") or ():
        if not isinstance(text, str):
            continue
        cls = (receiver or _owner(index, sym)) if text == "cls" else index.resolve_in(sym.module, text)
        if cls is not None and cls.kind == "class":
            for c in index.mro(cls):
                out.update(f["name"] for f in c.as_class.raw.get("fields") or ()
                           if isinstance(f, dict) and isinstance(f.get("name"), str))
        else:
            opaque.add(text)
    for text in cli.get("builders") or ():
        if not isinstance(text, str):
            continue
        callee = _builder(index, sym, text)
        if callee is None:
            opaque.add(text)
        else:
            _collect(index, callee, out, opaque, seen, depth + 1, _receiver(index, sym, text, receiver))


def _owner(index: PackageIndex, sym: Symbol) -> Symbol | None:
    owner = index.lookup(sym.dotted.rsplit(".", 1)[0]) if sym.kind == "method" else None
    return owner if owner is not None and owner.kind == "class" else None


def _receiver(index: PackageIndex, sym: Symbol, text: str, receiver: Symbol | None) -> Symbol | None:
    """The class a builder call `C.m(parser)` / `cls.m(parser)` / `super().m(parser)` runs `m` for."""
    head = text.rsplit(".", 1)[0] if "." in text else ""
    if head in ("cls", "super()"):
        return receiver or _owner(index, sym)
    cls = index.resolve_in(sym.module, head) if head else None
    return cls if cls is not None and cls.kind == "class" else None


def _builder(index: PackageIndex, sym: Symbol, text: str) -> Symbol | None:
    """The function a builder hands the parser to, as written in `sym`'s module: a name, a dotted
    name, or `super().m` (the next class of `sym`'s class's MRO that defines `m`)."""
    if text.startswith("super()."):
        owner = index.lookup(sym.dotted.rsplit(".", 1)[0]) if sym.kind == "method" else None
        if owner is None or owner.kind != "class":
            return None
        name = text[len("super()."):]
        for c in index.mro(owner)[1:]:
            if name in c.as_class.methods:
                return index.lookup(f"{c.dotted}.{name}")
        return None
    callee = index.resolve_in(sym.module, text)
    return callee if callee is not None and callee.kind in ("function", "method") else None


RULES = [cli_option_gone]
