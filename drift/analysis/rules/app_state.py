"""DRIFT148: a route reads a serving object off the server app's state by a name vLLM's
`init_app_state` stored there in the baseline and no longer stores in the target.

A serving add-on mounts its own routes on vLLM's OpenAI server and reaches vLLM's serving objects
through the request: `request.app.state.openai_serving_tokenization`. vLLM builds them in
`init_app_state(engine_client, state, args)` (and the helpers it hands `state` to). When the target
stores the object under another name (vLLM 0.25: `state.serving_tokenization`), the route raises
AttributeError at its first request; nothing the add-on imports changed.

What drift reads: the names each module reads off `<...>.app.state` (probes/app_state.py) and what
the target's and the baseline's `init_app_state` store on `state`, followed through the helpers it
hands `state` to (`stored_on`, rules/filled.py). Reported only for a consumer that imports vLLM's
OpenAI server module (the app is vLLM's); breaking where the baseline stored the name on every path
and the target's chain, read in full, stores it nowhere; risky for a `getattr` with a default (the
route then silently takes its fallback). The name the target stores the same kind of object under,
when there is exactly one, is named as the rename.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.rules.base import rule
from drift.analysis.rules.filled import Stored, stored_on
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex

SERVER = "vllm.entrypoints.openai.api_server"
FILLERS = (f"{SERVER}.init_app_state",)


def _stored(index: PackageIndex | None) -> tuple[dict[str, Stored], bool] | None:
    """What the side's `init_app_state` stores on `state`, and whether the chain was read whole."""
    fn = next((s for s in map(index.lookup, FILLERS) if s is not None), None) if index is not None else None
    if fn is None or fn.kind != "function":
        return None
    return stored_on(index, fn, "state")


def _uses_server(ctx: CheckContext) -> bool:
    """Whether a consumer module imports from vLLM's OpenAI server module (the app is vLLM's)."""
    for mod in ctx.usage:
        for imp in mod.get("imports") or ():
            name = str(imp.get("target") or "") if isinstance(imp, dict) else ""
            if name == SERVER or name.startswith(SERVER + "."):
                return True
    return False


def _successor(before: Stored, after: dict[str, Stored]) -> str | None:
    """The one name the target stores an object of the same kind under (a renamed attribute)."""
    if not before.kind:
        return None
    same = [name for name, st in after.items() if st.kind == before.kind]
    return same[0] if len(same) == 1 else None


@rule("DRIFT148", RuleKind.ATTRIBUTE_MISSING)
def app_state_name_gone(ctx: CheckContext) -> Iterator[Finding]:
    """A name read off the server app's state that the baseline's `init_app_state` stored there
    on every path and the target's stores nowhere: AttributeError at the route's first request."""
    reads = [(mod, row) for mod in ctx.usage for row in mod.get("app_state") or ()
             if isinstance(row, list) and len(row) >= 4]
    if not reads or not _uses_server(ctx):
        return
    base, target = _stored(ctx.baseline), _stored(ctx.target)
    if base is None or target is None or not target[1]:
        return  # a side without the filler, or a target chain drift could not read whole
    before, after = base[0], target[0]
    for mod, (name, line, col, how) in reads:
        old = before.get(str(name))
        if old is None or not old.every_path or str(name) in after:
            continue
        yield _finding(mod, str(name), int(line), int(col), str(how), old, _successor(old, after))


def _finding(mod: dict[str, Any], name: str, line: int, col: int, how: str, old: Stored,
             successor: str | None) -> Finding:
    fallback = how == "default"
    renamed = f"; the target stores the same object as `{successor}`" if successor else ""
    return Finding(
        rule_id="DRIFT148", kind=RuleKind.ATTRIBUTE_MISSING,
        severity=Severity.RISKY if fallback else Severity.BREAKING,
        title=f"`app.state.{name}` is no longer set by the target's `init_app_state`{renamed}",
        consumer_site=Location(mod.get("path") or "?", line, col=col + 1, symbol=f"{FILLERS[0]}.state.{name}"),
        baseline_evidence=(Location(old.where.path, old.line, symbol=f"{old.where.dotted}.state.{name}"),),
        predicted_failure=None if fallback else f"AttributeError: 'State' object has no attribute '{name}'",
        fix=Fix(f"read `app.state.{successor}`" if successor else
                f"read what the target's `init_app_state` now stores instead of `{name}`",
                manual_reason="the object under the new name may answer other calls" if successor else
                "the target stores no object of the same kind under one other name"),
        symbol=f"{FILLERS[0]}.state.{name}",
        details=("read with a default: the route silently takes it" if fallback else
                 f"the baseline's `{old.where.dotted.rsplit('.', 1)[-1]}` stored it on every path"),
    )


RULES = [app_state_name_gone]
