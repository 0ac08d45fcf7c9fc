"""A fleet scan as one document in which every host appears, with or without a report.

Why its own renderer: a fleet's JSON and SARIF used to hold only the hosts that produced a
report, so an unreachable or failed host vanished (and with every host down, nothing at all
was printed). Here each host is an entry with its status and reason; hosts with a report carry
it (drift.report/1) and SARIF lists the others as failed tool executions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from drift.output import json_text
from drift.reports.json_report import report_dict

SCHEMA_ID = "drift.fleet/1"


def fleet_dict(hosts: Sequence[dict[str, Any]], *, exit_code: int) -> dict[str, Any]:
    """`hosts`: {"host", "status", "reason", "hint", "exit_code", "report": Report | None}, in order."""
    counts: dict[str, int] = {}
    entries = []
    for h in hosts:
        counts[h["status"]] = counts.get(h["status"], 0) + 1
        entries.append({"host": h["host"], "status": h["status"], "reason": h.get("reason"),
                        "hint": h.get("hint"), "exit_code": h["exit_code"],
                        "report": report_dict(h["report"]) if h.get("report") is not None else None})
    return {"schema": SCHEMA_ID, "exit_code": exit_code, "summary": counts, "hosts": entries}


def to_json_fleet(hosts: Sequence[dict[str, Any]], *, exit_code: int, indent: int | None = 2) -> str:
    return json_text(json.dumps(fleet_dict(hosts, exit_code=exit_code), indent=indent, sort_keys=True, ensure_ascii=False)) + "\n"


def to_sarif_fleet(hosts: Sequence[dict[str, Any]], *, repo_root: str | None = None) -> str:
    """SARIF 2.1.0: findings of the hosts that reported; one failed-execution notification per
    host that did not (SARIF's own way to say part of the run did not happen)."""
    from drift.reports.sarif import to_sarif

    log = to_sarif([h["report"] for h in hosts if h.get("report") is not None], repo_root=repo_root)
    run = log["runs"][0]
    notes = [{"level": "error", "descriptor": {"id": f"drift/{h['status']}"},
              "message": {"text": f"{h['host']}: {h['status']}: {h.get('reason') or 'no report'}"
                                  + (f" (hint: {h['hint']})" if h.get("hint") else "")},
              "properties": {"host": h["host"], "status": h["status"]}}
             for h in hosts if h.get("report") is None]
    run["invocations"] = [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}]
    run.setdefault("properties", {})["hosts"] = [
        {"host": h["host"], "status": h["status"], "reason": h.get("reason"), "exit_code": h["exit_code"]}
        for h in hosts]
    return json_text(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
