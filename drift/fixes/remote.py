"""Run drift/fixes/applier.py next to the files, through any Connector, in one round trip.

The applier and its JSON payload travel on stdin (drift.remote.connectors.script), so the command line
is `<python> -` whatever the login shell is: a multi-line `python -c` does not survive fish or
tcsh, and nothing from the payload ever meets a shell.
"""

from __future__ import annotations

import json
from importlib import resources

from drift.remote.connectors.base import Connector, ConnectorError
from drift.remote.connectors.script import run_script

REPLY_LIMIT = 4 * 1024 * 1024  # the applier answers with one short JSON line


def applier_source() -> str:
    return resources.files("drift.fixes").joinpath("applier.py").read_text(encoding="utf-8")


async def run_applier(connector: Connector, *, python: str, action: str, payload: dict) -> dict:
    """The applier's JSON answer, or {"status": "failed", "reason": ...} when it did not answer."""
    try:
        res = await run_script(connector, python, applier_source(), args=[action], name="<drift-applier>",
                               stdin=json.dumps(payload).encode(), limit=REPLY_LIMIT)
    except ConnectorError as exc:
        return {"status": "failed", "reason": f"{connector.name}: {exc}"}
    if res.truncated:
        return {"status": "failed", "reason": f"the applier on {connector.name} sent more than a result"}
    lines = res.stdout.decode("utf-8", "replace").strip().splitlines()
    if res.exit_status is None:
        return {"status": "failed", "reason": f"the applier on {connector.name} was killed or the link dropped"}
    if res.exit_status != 0 or not lines:
        err = res.stderr.decode("utf-8", "replace").strip().splitlines()
        tail = err[-1] if err else f"exit status {res.exit_status}"
        return {"status": "failed", "reason": f"the applier on {connector.name} failed: {tail}"}
    try:
        answer = json.loads(lines[-1])
    except ValueError:
        return {"status": "failed", "reason": f"the applier on {connector.name} printed no result"}
    return answer if isinstance(answer, dict) else {"status": "failed", "reason": "malformed applier result"}
