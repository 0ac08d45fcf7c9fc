"""Renderers of a `drift diff` result: terminal (rich), JSON ("drift.diff/1"), Markdown.

Nothing here decides what changed; it only orders, groups and phrases the changes the diff
engine produced. Every format groups by module, counts per kind, and ends with one summary
line. Added modules are listed together at the end (they break nothing and would otherwise
bury the changes that do).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drift.output import markdown, markdown_code, terminal, visible
from drift.analysis.diff import Change, ChangeKind, DiffResult

KIND_ORDER = {kind: i for i, kind in enumerate(ChangeKind)}


def ordered(changes: Iterable[Change]) -> list[Change]:
    """Stable order: module, breaking first, kind order, symbol, detail."""
    return sorted(
        changes,
        key=lambda c: (c.module, not c.breaking, KIND_ORDER[c.kind], c.symbol, c.detail),
    )


def grouped(result: DiffResult) -> tuple[dict[str, list[Change]], list[Change]]:
    """(changes by module without additions, module additions)."""
    groups: dict[str, list[Change]] = {}
    added = []
    for change in ordered(result.changes):
        if change.kind is ChangeKind.MODULE_ADDED:
            added.append(change)
        else:
            groups.setdefault(change.module, []).append(change)
    return groups, added


def _side(side) -> str:
    version = f" {side.version}" if side.version and side.version not in side.label else ""
    return f"{side.label}{version}"


def summary_line(result: DiffResult) -> str:
    changes = result.changes
    breaking = sum(1 for c in changes if c.breaking)
    private = sum(1 for c in changes if c.private)
    modules = len({c.module for c in changes})
    if not changes:
        return f"no changes between {_side(result.old)} and {_side(result.new)}"
    return (
        f"{len(changes)} change{'s' * (len(changes) != 1)} in {modules} module"
        f"{'s' * (modules != 1)}: {breaking} breaking, {private} on private names"
    )


# -- JSON -------------------------------------------------------------------------------
def to_json(result: DiffResult, *, indent: int | None = None) -> str:
    """The versioned document; changes in the same stable order as the other formats.
    Compact by default: an indent forces json's pure-Python encoder (~10x slower on vLLM)."""
    data = result.to_dict()
    data["changes"] = [c.to_dict() for c in ordered(result.changes)]
    return json.dumps(data, indent=indent, sort_keys=False) + "\n"


# -- Markdown ---------------------------------------------------------------------------
def _md_escape(text: str) -> str:
    """A name or detail from the package's source (or a snapshot): on one line, controls shown."""
    return visible(text).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _evidence(change: Change) -> str:
    parts = []
    if change.old:
        parts.append("old " + ", ".join(markdown_code(e) for e in change.old))
    if change.new:
        parts.append("new " + ", ".join(markdown_code(e) for e in change.new))
    return "; ".join(parts)


def to_markdown(result: DiffResult) -> str:
    lines = [
        f"# drift diff: {markdown(result.old.package)} {markdown(_side(result.old))} → {markdown(_side(result.new))}",
        "",
        f"{result.old.modules} → {result.new.modules} modules. **{summary_line(result)}.**",
        "",
    ]
    counts: Counter = result.counts()
    if counts:
        lines += ["| Change | Count | Breaking |", "|---|---:|:---:|"]
        for kind in ChangeKind:
            if counts[kind]:
                mark = "yes" if any(c.kind is kind and c.breaking for c in result.changes) else ""
                lines.append(f"| {kind.value} | {counts[kind]} | {mark} |")
        lines.append("")
    for note in result.notes:
        lines.append(f"> note: {markdown(note)}")
    groups, added = grouped(result)
    for module, changes in groups.items():
        lines += ["", f"## {markdown_code(module)} ({len(changes)})", ""]
        for change in changes:
            flags = " **breaking**" if change.breaking else ""
            flags += " _private_" if change.private else ""
            symbol = f"{markdown_code(change.symbol)} " if change.symbol else ""
            lines.append(f"- {symbol}{change.kind.value}: {_md_escape(change.detail)}{flags}")
            ev = _evidence(change)
            if ev:
                lines.append(f"  - {ev}")
    if added:
        lines += ["", f"## Added modules ({len(added)})", ""]
        lines += [f"- {markdown_code(c.module)}" for c in added]
    lines.append("")
    return "\n".join(lines)


# -- terminal ---------------------------------------------------------------------------
def _kind_style(change: Change) -> str:
    if change.breaking:
        return "bold red"
    if change.kind is ChangeKind.MODULE_ADDED:
        return "green"
    return "yellow"


def counts_table(result: DiffResult) -> Table:
    counts: Counter = result.counts()
    table = Table(title=None, show_edge=False, box=None, pad_edge=False)
    table.add_column("change")
    table.add_column("count", justify="right")
    table.add_column("", justify="left")
    for kind in ChangeKind:
        if counts[kind]:
            breaking = any(c.kind is kind and c.breaking for c in result.changes)
            table.add_row(
                Text(kind.value, style="red" if breaking else ""),
                str(counts[kind]),
                Text(kind.name, style="dim"),
            )
    return table


def render_terminal(result: DiffResult, console: Console, *, evidence: bool = True) -> None:
    """Header, one block per module, the counts table, then the summary line last (so it is
    what stays on screen)."""
    console.print(
        Text.assemble(
            ("drift diff ", "bold"),
            (terminal(result.old.package), "bold"),
            " ",
            (terminal(_side(result.old)), "bold"),
            " → ",
            (terminal(_side(result.new)), "bold"),
            (f"   {result.old.modules} → {result.new.modules} modules", "dim"),
        )
    )
    for note in result.notes:
        console.print(Text(terminal(f"note: {note}"), style="dim"))
    groups, added = grouped(result)
    for module, changes in groups.items():
        block = Text("\n")
        block.append(terminal(module), style="bold cyan")
        block.append(f"  ({len(changes)})", style="dim")
        for change in changes:
            block.append("\n  ")
            if change.symbol:
                block.append(terminal(change.symbol), style="bold")
                block.append(" ")
            block.append(change.kind.value, style=_kind_style(change))
            block.append(": ")
            block.append(terminal(change.detail))
            if change.private:
                block.append("  [private]", style="dim")
            if evidence:
                for label, items in (("old", change.old), ("new", change.new)):
                    for ev in items:
                        block.append(f"\n      {label} " + terminal(ev), style="dim")
        console.print(block, soft_wrap=True)  # one print per module: rich is slow per call
    if added:
        console.print()
        console.print(Text.assemble(("modules added", "bold green"), (f"  ({len(added)})", "dim")))
        console.print(Text(terminal("  " + ", ".join(c.module for c in added)), style="green"), soft_wrap=True)
    if result.changes:
        console.print()
        console.print(counts_table(result))
    console.print()
    console.print(Text(summary_line(result), style="bold"))


def render(result: DiffResult, *, fmt: str, console: Console | None = None) -> str | None:
    """Text for `json`/`markdown`; prints to `console` and returns None for `terminal`."""
    if fmt == "json":
        return to_json(result)
    if fmt == "markdown":
        return to_markdown(result)
    render_terminal(result, console or Console())
    return None


__all__ = ["counts_table", "grouped", "ordered", "render", "render_terminal", "summary_line",
           "to_json", "to_markdown"]

