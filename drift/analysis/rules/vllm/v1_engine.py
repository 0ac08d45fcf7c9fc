"""DRIFT150: a use of vLLM's V0 engine where the target's factories hand back the V1 engine by
default.

From vLLM 0.8 `VLLM_USE_V1` defaults to 1 (`envs.py`: `os.getenv("VLLM_USE_V1", "1")`), and the V0
classes' factories switch on it: `AsyncLLMEngine.from_engine_args(...)` returns a
`vllm.v1.engine.async_llm.AsyncLLM`, `LLM(...).llm_engine` is a `vllm.v1.engine.llm_engine.LLMEngine`.
Their annotations still name the V0 classes, which keep their members, so no typed path shows a
change; but `engine.engine.get_model_config()` or `llm.llm_engine.model_executor` now meets the V1
object, which has no such member, at the first request (kani-ext-vllm and nnsight on 0.9-0.10).

What drift reads: the consumer's paths (usage `uses` and call records) evaluated step by step in the
target; where a step is an object of one of the V0 engine classes and the next reads a member, that
member is looked up on the V1 class the factory returns instead. Reported where the V1 class lacks
it, the baseline's V0 class had it, and the setting's default turned on between the two releases
(the baseline's default was 0, or it had no such setting). Setting `VLLM_USE_V1=0` keeps V0 where the
target still ships it: the finding says so. Silent where the consumer sets `VLLM_USE_V1` itself
(probes/env_sets.py), and where the object is the V0 class's own construction or an `isinstance(x,
V0)` branch (no factory chose the class there).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from drift.analysis.context import CheckContext, site_of
from drift.analysis.rules.base import rule
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex

V1_OF = {
    "vllm.engine.llm_engine.LLMEngine": "vllm.v1.engine.llm_engine.LLMEngine",
    "vllm.engine.async_llm_engine.AsyncLLMEngine": "vllm.v1.engine.async_llm.AsyncLLM",
}
_DEFAULT = re.compile(r"""getenv\(\s*["']VLLM_USE_V1["']\s*,\s*["'](\d)["']""")


def v1_by_default(index: PackageIndex | None) -> bool | None:
    """Whether the release's `VLLM_USE_V1` defaults to on; None when it has no such setting."""
    raw = index.modules.get("vllm.envs") if index is not None else None
    env = ModuleFacts(raw).env_exprs.get("VLLM_USE_V1") if raw is not None else None
    if env is None or not env.expr:
        return None
    m = _DEFAULT.search(env.expr)
    return m is not None and m.group(1) == "1"


def _paths(mod: dict[str, Any]) -> Iterator[tuple[dict[str, Any], list[str]]]:
    for rec in mod.get("uses") or ():
        if rec.get("kind") in ("attr", "item") and rec.get("path"):
            yield rec, rec["path"]
    for rec in mod.get("calls") or ():
        path = (rec.get("callee") or {}).get("path")
        if path:
            yield rec, path


@rule("DRIFT150", RuleKind.ATTRIBUTE_MISSING, pack="vllm")
def v1_engine_by_default(ctx: CheckContext) -> Iterator[Finding]:
    """A member read on a V0 engine object that the target's factories now hand back as the V1
    engine by default, whose class lacks it: AttributeError unless `VLLM_USE_V1=0`."""
    tpaths, bpaths = ctx.target_paths, ctx.baseline_paths
    if ctx.target_package != "vllm" or bpaths is None or not v1_by_default(ctx.target) \
            or v1_by_default(ctx.baseline):
        return
    if any(row[0] == "VLLM_USE_V1" for mod in ctx.usage for row in mod.get("env_sets") or ()
           if isinstance(row, list) and row):
        return  # the consumer picks the engine itself (`os.environ["VLLM_USE_V1"] = "0"`)
    seen: set[tuple[str, int, str]] = set()
    for mod in ctx.usage:
        for rec, path in _paths(mod):
            tsteps = tpaths.steps(path)
            for i, v in enumerate(tsteps[:-1]):
                if v.kind != "instance" or v.cls is None or v.cls.dotted not in V1_OF \
                        or not path[i + 1].startswith("."):
                    continue
                if i == 1 and path[1] == "()" and path[0] == f"sym:{v.cls.dotted}":
                    break  # built by the V0 class itself, or narrowed by `isinstance(x, V0)`: no factory chose
                name = path[i + 1][1:]
                v1 = ctx.target.lookup(V1_OF[v.cls.dotted])
                if v1 is None or v1.kind != "class" or tpaths._member(v1, name, on_class=False).kind != "missing":
                    break
                v0 = ctx.baseline.lookup(v.cls.dotted) if ctx.baseline is not None else None
                if v0 is None or v0.kind != "class" or not bpaths._member(v0, name, on_class=False).known:
                    break  # the baseline's V0 engine did not have it either: not this change
                key = (mod.get("path") or "", int(rec.get("line") or 0), name)
                if key not in seen:
                    seen.add(key)
                    yield _finding(ctx, mod, rec, v.cls.dotted, v1.dotted, v1.path, v1.line, name)
                break


def _finding(ctx: CheckContext, mod: dict[str, Any], rec: dict[str, Any], v0: str, v1: str, v1_path: str,
             v1_line: int, name: str) -> Finding:
    short0, short1 = v0.rsplit(".", 1)[-1], v1.rsplit(".", 1)[-1]
    return Finding(
        rule_id="DRIFT150", kind=RuleKind.ATTRIBUTE_MISSING, severity=Severity.BREAKING,
        title=f"`.{name}` on the engine: the target hands back V1's `{short1}` by default (VLLM_USE_V1=1), "
              f"which has no `{name}`",
        consumer_site=site_of(mod, rec),
        target_evidence=(Location(v1_path, v1_line, symbol=v1),),
        predicted_failure=f"AttributeError: '{short1}' object has no attribute '{name}'",
        fix=Fix(f"use what V1's `{short1}` offers instead of `.{name}` (or run with VLLM_USE_V1=0 while "
                f"the target still ships the V0 `{short0}`)",
                manual_reason="the V1 engine is another object; what replaces the member is a design choice"),
        symbol=f"{v1}.{name}",
        details=f"`{short0}`'s factories return `{v1}` when VLLM_USE_V1 is on, its default on the target "
                f"and not on the baseline",
    )


RULES = [v1_engine_by_default]
