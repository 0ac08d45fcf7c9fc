"""Findings that share one cause, and the counts of `--statistics`.

Why: one vLLM change can break a consumer at many lines (vllm-ascend: 82 imports of a
`vllm.utils` that was split into modules). Listed one by one, the cause drowns in its
findings; said once ("`vllm.utils`: 82 imports → 6 new modules") it is one task with a list of
sites. Nothing here decides what is wrong: findings are only keyed and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from drift.findings import Finding, Report

_IMPORT_RULES = ("DRIFT001", "DRIFT002", "DRIFT003")


@dataclass(frozen=True)
class Cause:
    """One change in the target and every finding it causes."""

    key: tuple[str, ...]
    summary: str  # "`vllm.utils`: 82 imports → 6 new modules (vllm.utils.math_utils, …)"
    findings: tuple[Finding, ...]


def _new_home(f: Finding) -> str | None:
    """The module a moved import's name lives in now (its target evidence), when known."""
    for loc in f.target_evidence:
        if loc.symbol and f.symbol and loc.symbol.rsplit(".", 1)[-1] == f.symbol.rsplit(".", 1)[-1]:
            return loc.symbol.rsplit(".", 1)[0]
    return None


def cause_key(f: Finding) -> tuple[str, ...]:
    """Imports from one module share the module's change; any other finding shares its rule
    and target symbol (one removed keyword, called from many places)."""
    if f.rule_id in _IMPORT_RULES and f.symbol and "." in f.symbol:
        return ("module", f.symbol.rsplit(".", 1)[0])
    return ("symbol", f.rule_id, f.symbol or f.title)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _summary(key: tuple[str, ...], findings: Sequence[Finding]) -> str:
    n = len(findings)
    files = len({f.consumer_site.path for f in findings})
    where = f"{_plural(n, 'site')} in {_plural(files, 'file')}"
    if key[0] == "module":
        homes = sorted({h for h in map(_new_home, findings) if h})
        text = f"`{key[1]}`: {_plural(n, 'import')}"
        if homes:
            shown = ", ".join(homes[:4]) + (", …" if len(homes) > 4 else "")
            text += f" → {_plural(len(homes), 'new module')} ({shown})"
        gone = sum(1 for f in findings if _new_home(f) is None)
        if homes and gone:
            text += f", {gone} gone"
        return f"{text}; {_plural(files, 'file')}"
    return f"{key[1]} {findings[0].title}: {where}"


def shared_causes(findings: Iterable[Finding], *, minimum: int = 2) -> list[Cause]:
    """Causes behind at least `minimum` findings, the largest first (then by key)."""
    groups: dict[tuple[str, ...], list[Finding]] = {}
    for f in findings:
        groups.setdefault(cause_key(f), []).append(f)
    out = [Cause(k, _summary(k, v), tuple(v)) for k, v in groups.items() if len(v) >= minimum]
    return sorted(out, key=lambda c: (-len(c.findings), c.key))


def statistics(reports: Sequence[Report]) -> dict[str, list[dict]]:
    """`--statistics`: findings per rule (with how many a codemod fixes) and per shared cause,
    over every report (a gate's targets: a finding on two targets counts twice)."""
    findings = [f for r in reports for f in r.findings]
    per_rule = Counter(f.rule_id for f in findings)
    fixable = Counter(f.rule_id for f in findings if f.fix is not None and f.fix.codemod)
    kind = {f.rule_id: f.kind.value for f in findings}
    severity = {f.rule_id: f.severity.value for f in findings}
    rules = [{"rule": r, "count": n, "fixable": fixable.get(r, 0), "severity": severity[r], "kind": kind[r]}
             for r, n in sorted(per_rule.items(), key=lambda kv: (-kv[1], kv[0]))]
    causes = [{"cause": c.summary, "count": len(c.findings), "rules": sorted({f.rule_id for f in c.findings})}
              for c in shared_causes(findings)]
    return {"rules": rules, "causes": causes}


def statistics_text(reports: Sequence[Report]) -> str:
    """ruff's `--statistics` layout: count, rule, [*] when fixable, message; then the causes."""
    stats = statistics(reports)
    if not stats["rules"]:
        return "No findings.\n"
    width = max(len(str(r["count"])) for r in stats["rules"])
    lines = []
    for r in stats["rules"]:
        mark = "[*]" if r["fixable"] == r["count"] else "[-]" if r["fixable"] else "   "
        lines.append(f"{r['count']:>{width}}\t{r['rule']}\t{mark} {r['kind']} ({r['severity']})")
    if stats["causes"]:
        lines += ["", "shared causes:"]
        lines += [f"{c['count']:>{width}}\t{c['cause']}" for c in stats["causes"]]
    lines += ["", "[*] every finding has a codemod (drift patch), [-] some have"]
    return "\n".join(lines) + "\n"
