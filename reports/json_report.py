"""drift's own machine-readable report, versioned as "drift.report/1".

Byte-stable: findings worst first then by site, uses by site, keys sorted, no timestamps,
so two runs on the same inputs give identical files a CI job can diff or cache.
The shape is documented in docs/report-schema.md and checked by reports/schemas/report-1.json.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from drift import __version__
from drift.findings import Finding, Location, Report, Unused, UseChecked
from drift.output import json_text

from drift.reports._common import counts, ordered, verdict

SCHEMA_ID = "drift.report/1"


def _use_key(use: UseChecked) -> tuple:
    return (use.site.path, use.site.line, use.symbol, use.what)


def _use_dict(use: UseChecked) -> dict[str, Any]:
    """`dataclasses.asdict(use)` spelled out: asdict deep-copies every field, and a report of
    the largest corpus consumer holds 4,299 uses (a third of its JSON rendering).
    `tests/test_reports_json.py` holds the two equal. A use's own site has no `use_line` /
    `use_col` (only a finding moved by drift/analysis/surfacing.py has them): left out, as
    `Finding.to_dict` leaves them out where they are unset."""
    site = use.site
    out = {"path": site.path, "line": site.line, "symbol": site.symbol, "snippet": site.snippet, "col": site.col}
    if site.use_line is not None:
        out["use_line"], out["use_col"] = site.use_line, site.use_col
    return {"symbol": use.symbol, "site": out, "what": use.what}


def report_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data (what `to_json` serialises)."""
    tally = counts(report.findings)
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "drift", "version": __version__},
        "consumer": dict(report.consumer),
        "target": dict(report.target),
        "baseline": dict(report.baseline) if report.baseline is not None else None,
        "host": report.host,
        "env": report.env,
        "summary": {sev.value: n for sev, n in tally.items()} | {"uses_checked": len(report.uses),
                                                                  "silenced": len(report.silenced)},
        "verdict": verdict(report),
        "exit_code": report.exit_code,
        "findings": [f.to_dict() for f in ordered(report.findings)],
        "uses": [_use_dict(u) for u in sorted(report.uses, key=_use_key)],
        "notes": list(report.caveats) + list(report.notes),
        "caveats": list(report.caveats),
        "unused": [{"what": u.what, "path": u.path, "line": u.line} for u in report.unused],
        "strict": report.strict,
        "incomplete": list(report.incomplete),
        "silenced": [{"by": s.by, "rule_id": s.finding.rule_id, "fingerprint": s.finding.fingerprint,
                      "path": s.finding.consumer_site.path, "line": s.finding.consumer_site.line,
                      "title": s.finding.title} for s in report.silenced],
        "fail_on": report.fail_on.value,
    }


def to_json(report: Report, *, indent: int | None = 2) -> str:
    return json_text(json.dumps(report_dict(report), indent=indent, sort_keys=True, ensure_ascii=False)) + "\n"


def to_json_many(reports: Sequence[Report], *, indent: int | None = 2) -> str:
    """Several targets: a JSON array of drift.report/1 objects, in the order given."""
    return json_text(json.dumps([report_dict(r) for r in reports], indent=indent, sort_keys=True, ensure_ascii=False)) + "\n"


def _location(data: dict[str, Any]) -> Location:
    return Location(path=data["path"], line=int(data["line"]), symbol=data.get("symbol"), snippet=data.get("snippet"),
                    col=data.get("col"))


def from_dict(data: dict[str, Any]) -> Report:
    """Rebuild a Report from `report_dict` output (e.g. a saved report fed to `drift gate`)."""
    if data.get("schema") != SCHEMA_ID:
        raise ValueError(f"not a {SCHEMA_ID} document (schema={data.get('schema')!r})")
    return Report(
        consumer=data["consumer"],
        target=data["target"],
        baseline=data.get("baseline"),
        findings=tuple(Finding.from_dict(f) for f in data.get("findings", ())),
        uses=tuple(
            UseChecked(symbol=u["symbol"], site=_location(u["site"]), what=u["what"]) for u in data.get("uses", ())
        ),
        env=data.get("env"),
        host=data.get("host"),
        notes=tuple(n for n in data.get("notes", ()) if n not in data.get("caveats", ())),
        caveats=tuple(data.get("caveats", ())),
        unused=tuple(Unused(u["what"], u.get("path"), u.get("line")) for u in data.get("unused", ())),
        strict=bool(data.get("strict", False)),
        incomplete=tuple(str(n) for n in data.get("incomplete", ()) if isinstance(n, str)),
    )


def from_json(text: str) -> Report:
    return from_dict(json.loads(text))


def schema() -> dict[str, Any]:
    """The JSON Schema of drift.report/1, shipped as package data."""
    return json.loads(resources.files("reports").joinpath("schemas/report-1.json").read_text(encoding="utf-8"))
