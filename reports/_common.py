"""Wording and ordering every renderer shares, so all formats say the same thing.

Nothing here decides what is wrong; it only orders findings, counts them and phrases the
verdict, fixes, parties and the host environment the same way in every output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from drift.findings import SEVERITY_ORDER, Finding, Fix, Location, Report, Severity


def finding_sort_key(finding: Finding) -> tuple:
    """Worst first, then by consumer file and line, so output is stable run to run."""
    site = finding.consumer_site
    return (
        SEVERITY_ORDER[finding.severity],
        site.path,
        site.line,
        finding.rule_id,
        finding.symbol or "",
        finding.title,
    )


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=finding_sort_key)


def counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    tally = Counter(f.severity for f in findings)
    return {sev: tally.get(sev, 0) for sev in Severity}


def verdict_from_counts(tally: Mapping[Severity, int]) -> str:
    """One line a person can act on: what was found and whether to launch."""
    breaking, risky, info = (tally.get(s, 0) for s in (Severity.BREAKING, Severity.RISKY, Severity.INFO))
    parts = [f"{n} {sev.value}" for sev, n in ((Severity.BREAKING, breaking), (Severity.RISKY, risky)) if n]
    if breaking:
        return f"{', '.join(parts)} — do not launch"
    if risky:
        return f"{', '.join(parts)} — review before launch"
    return f"clean ({info} info)" if info else "clean"


def verdict(report: Report) -> str:
    text = verdict_from_counts(counts(report.findings))
    if report.incomplete:  # a rule raised: what it would have found is unknown, never "clean"
        n = len(report.incomplete)
        return f"{text} — incomplete: {n} rule{'s' * (n != 1)} failed, do not launch on this verdict"
    return text


def overall_verdict(reports: Sequence[Report]) -> str:
    """Across targets: how many are clean and which is worst (sums would double-count uses)."""
    if not reports:
        return "no targets checked"
    clean = sum(1 for r in reports if not any(f.severity is not Severity.INFO for f in r.findings))
    rank = lambda r: tuple(-n for n in counts(r.findings).values())  # noqa: E731
    worst_report = min(reports, key=rank)
    text = f"{clean} of {len(reports)} target{'s' * (len(reports) != 1)} clean"
    if clean < len(reports):
        text += f" · worst: {target_label(worst_report)} ({verdict(worst_report)})"
    return text


def worst(findings: Iterable[Finding]) -> Severity | None:
    sevs = [f.severity for f in findings]
    return min(sevs, key=SEVERITY_ORDER.__getitem__) if sevs else None


def fix_text(fix: Fix | None, *, verbose: bool = False) -> str:
    """The fix said concretely, with its tier first (ruff's safe/unsafe fixes).

    'safe: <edit>' is what `drift patch --apply` writes; 'unsafe (--unsafe-fixes): <edit>' may
    change what the code does and is written only on request ('...; safe when version-gated': a
    range consumer's patch writes it in a vLLM-version branch, `Fix.gated_tier`); 'manual: <edit>' is left to a
    person, and why (`verbose`: -v, and the long forms) is for whoever doubts it: the line a
    reader acts on is the edit.
    """
    if fix is None:
        return "manual: no automatic fix known"
    if fix.codemod:
        if fix.tier == "unsafe" and fix.gated_tier == "safe":  # a range consumer's gated patch writes it
            return f"unsafe (--unsafe-fixes; safe when version-gated): {fix.description}"
        return f"{fix.tier}{' (--unsafe-fixes)' if fix.tier == 'unsafe' else ''}: {fix.description}"
    if verbose and fix.manual_reason and fix.manual_reason != fix.description:
        return f"manual: {fix.description} ({fix.manual_reason})"
    return f"manual: {fix.description}"


def header_notes(report: Report) -> list[str]:
    """What every format prints under its header, -v or not: the caveats that change how to
    read the verdict (no baseline, target = newest release, …) and the unused suppressions."""
    word = "error" if report.strict else "warning"
    return list(report.caveats) + [f"{word}: unused suppression {u}" for u in report.unused]


def party(info: Mapping[str, Any] | None, *, with_commit: bool = False) -> str:
    """'vllm 0.16.0 (1a2b3c4)' from a consumer/target/baseline dict."""
    if not info:
        return "—"
    name = info.get("name") or info.get("spec") or "?"
    text = f"{name} {info['version']}" if info.get("version") else str(name)
    commit = info.get("commit")
    if with_commit and commit:
        text += f" ({str(commit)[:12]})"
    return text


def target_label(report: Report) -> str:
    """Column / suite name for a target: version, plus the host when scanned on one."""
    label = party(report.target)
    return f"{label} @ {report.host}" if report.host else label


def env_parts(env: Mapping[str, Any] | None) -> list[str]:
    """Python, torch, CUDA and GPUs from the probe's env block; absent pieces are skipped."""
    if not env:
        return []
    parts: list[str] = []
    if env.get("python"):
        parts.append(f"python {env['python']}")
    packages = env.get("packages") or {}
    torch = packages.get("torch") or {}
    if torch.get("version"):
        parts.append(f"torch {torch['version']}")
    if torch.get("cuda"):
        parts.append(f"CUDA {torch['cuda']}")
    gpus = env.get("gpus") or []
    if gpus:
        by_name = Counter(g.get("name") or "GPU" for g in gpus)
        memory = {g.get("name") or "GPU": g.get("memory") for g in gpus}
        for name, n in sorted(by_name.items()):
            mem = f" ({memory[name]})" if memory.get(name) else ""
            parts.append(f"{n}× {name}{mem}")
    return parts


def env_line(env: Mapping[str, Any] | None) -> str:
    return " · ".join(env_parts(env))


def location_text(loc: Location) -> str:
    return f"{loc.path}:{loc.line}"


def evidence_text(locs: Iterable[Location]) -> str:
    return ", ".join(location_text(loc) for loc in locs) or "—"
