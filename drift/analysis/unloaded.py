"""Findings in consumer modules that never load on the target are risky, not breaking.

Why: a break the user never meets is a false alarm in a gate. Some modules do not load
on the target although drift reads them (the marks come from the probe's map of the package's
own imports, probes/links.py):
- a module the package reaches only through imports under version tests, all false on the
  target (`if vllm_version == "0.8.4": from .vllm_0_8_4 import patch`): a per-release
  subpackage of a framework;
- a module nothing in the package imports or names (no import, no dotted string, no entry point,
  not run as a script) that sits at the path of a module of the target itself
  (`plugin/v1/worker/gpu_model_runner.py` beside vLLM's `vllm/v1/worker/gpu_model_runner.py`): a
  copy of vLLM's module that the plugin once loaded through an import hook or a class path and
  no longer names. A module that mirrors nothing stays breaking even when nothing names it: a
  library's users (and vLLM's configuration: a connector's module path, a worker extension)
  import such modules by name, and the corpus's real breaks there (KV connectors, offloading
  specs, model files, CLI modules) say so;
- a module nothing in the package imports whose import a maintainer commented out
  (`# from . import jit_monitor` in its package's `__init__`, vllm-metax): switched off, not an
  API (`commented_out`, probes/links.py);
- a copy of a file an editor or file manager left in the package (`nnsight/modeling/vllm/sampling
  copy.py`, shipped in nnsight's wheel; `utils (1).py`): no import statement can spell its name, so
  neither the package nor its users import it; only starting the file itself runs it.
Nothing is dropped: the finding stays, risky, with the reason in its title.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from drift.analysis.context import CheckContext
from drift.consumer.guards import as_version, dead_on
from drift.findings import Finding, Severity


def downgrade_unloaded(ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
    """`findings` with each breaking one in a module that does not load on the target made risky."""
    marked = {m["path"]: m for m in ctx.usage if isinstance(m, dict) and m.get("path")
              and (m.get("unreferenced") or m.get("loaded_under") or m.get("unnamed_classes") or m.get("named_at")
                   or _stray_copy(m["path"]))}
    if not marked:
        return findings
    reasons: dict[tuple[str, str], str | None] = {}
    breaking = [f.consumer_site for f in findings if f.severity is Severity.BREAKING]
    out = []
    for f in findings:
        mod = marked.get(f.consumer_site.path) if f.severity is Severity.BREAKING else None
        if mod is not None:
            why = _memo(reasons, (mod["path"], ""),
                        lambda: not_loaded_reason(ctx, mod) or failed_naming_reason(ctx, mod, breaking))
            cls = _class_at(mod, f.consumer_site.line) if not why else None
            if cls is not None:
                why = _memo(reasons, (mod["path"], cls), lambda: unbuilt_class_reason(ctx, mod, cls))
            if why:
                f = replace(f, severity=Severity.RISKY, title=f"{f.title}; {why}")
        out.append(f)
    return out


def _stray_copy(path: str) -> str | None:
    """The file name of a module a file manager or editor made by copying another (`sampling
    copy.py`, `utils (1).py`: a space or parentheses in the name), or None. No import statement
    can name it, and nobody names a script that way on purpose."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return stem if "/" in path and re.search(r"[ ()]", stem) else None


def _memo(memo: dict, key: tuple[str, str], compute) -> str | None:
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _class_at(mod: dict[str, Any], line: int) -> str | None:
    """The unnamed class (probes/links.py `unnamed_classes`) whose body holds `line`, if any."""
    for name, first, last in mod.get("unnamed_classes") or ():
        if first <= line <= last:
            return name
    return None


def unbuilt_class_reason(ctx: CheckContext, mod: dict[str, Any], cls: str) -> str | None:
    """Why a class nothing in the package names never runs on the target: it is a copy of the
    target's class of that name in the module at the same path below the top package, or one ending
    in it (MetaX's `MLAAttention` in its `model_executor/layers/attention/mla_attention.py`, beside
    vLLM's; a plugin's `models/internlm2.py` copy of `vllm.model_executor.models.internlm2`'s reward
    model that its registry never lists). The plugin's code uses vLLM's class or its own others and
    no longer builds this one. None for a class of its own: users and vLLM's configuration may
    build that by name."""
    name = mod.get("module") or ""
    copied = copied_class(ctx, name, cls)
    if copied is None:
        return None
    return (f"nothing in {name.split('.')[0]} names {cls}, a copy of {copied} kept in {name}; "
            f"its code runs only if a user builds it")


def copied_class(ctx: CheckContext, module: str, cls: str) -> str | None:
    """The target's (or baseline's) class `cls` in a module whose path ends with `module`'s below
    its top package (`plugin.models.x` -> `vllm.models.x` or `vllm.model_executor.models.x`)."""
    tail = module.split(".", 1)[1] if "." in module else ""
    if not tail:
        return None
    for index in (ctx.target, ctx.baseline):
        if index is None:
            continue
        candidates = [f"{ctx.target_package}.{tail}.{cls}"]
        candidates += [d for d in index.definitions_named(cls) if d.endswith(f".{tail}.{cls}")]
        for dotted in candidates:
            sym = index.lookup(dotted)
            if sym is not None and sym.kind == "class" and sym.dotted.startswith(ctx.target_package + "."):
                return sym.dotted
    return None


def not_loaded_reason(ctx: CheckContext, mod: dict[str, Any]) -> str | None:
    """Why the module does not load on the target, or None when it may."""
    name = mod.get("module") or ""
    package = name.split(".")[0]
    version = ctx.target.versions.get(ctx.target_package)
    if mod.get("loaded_under"):
        current = as_version(version)
        if current is None:
            return None
        predicates: dict[str, dict[str, Any]] = {}
        for m in ctx.usage:
            predicates.update(m.get("version_predicates") or {})
        before = as_version(ctx.baseline.versions.get(ctx.target_package)) if ctx.baseline is not None else None
        alternatives = mod["loaded_under"]
        if all(dead_on(guards, current, predicates, before) for guards in alternatives):
            return (f"{package} imports {name} only under tests that are false on {ctx.target_package} "
                    f"{version} (version tests, module switches), so it never loads there")
        return None
    stray = _stray_copy(mod.get("path") or "")
    if stray is not None:
        # the name itself stays out of the text: a consumer's file name is not trusted (the path is
        # shown, escaped, by every renderer)
        return (f"the file's name is a copy's (a space or parentheses in it), which no import statement can "
                f"spell, so neither {package} nor its users import it; it runs only if someone starts the file itself")
    if mod.get("unreferenced"):
        mirror = mirrored_module(ctx, name)
        if mirror:
            return (f"no module of {package} imports or names {name}, a copy kept where "
                    f"{ctx.target_package} has {mirror}; it runs only if a user imports it directly")
        if mod.get("commented_out"):
            return (f"no module of {package} imports or names {name}; its import is commented out "
                    f"({', '.join(str(p) for p in mod['commented_out'][:3])}): switched off, it runs only if a user imports it")
    return None


def failed_naming_reason(ctx: CheckContext, mod: dict[str, Any], breaking: list) -> str | None:
    """Why a module only strings name (probes/links.py `named_at`: a class path handed to a call,
    `register_backend(backend=Enum.GONE, class_path="plugin.backends.x.Cls")`) never loads: every
    such call has a breaking finding inside it (an argument that fails to evaluate, or the call
    itself), so it raises before the string is handed on, and nothing else imports the module.
    None when one naming is not inside such a call."""
    places = mod.get("named_at") or []
    if not places:
        return None
    calls: dict[str, list] = {}
    for m in ctx.usage:
        if isinstance(m, dict) and m.get("path"):
            calls[m["path"]] = m.get("calls") or []
    failing = []
    for place in places:
        try:
            rel, line = place[0], int(place[1])
        except (TypeError, ValueError, IndexError):
            return None
        span = _call_around(calls.get(rel) or (), line)
        if span is None or not any(s.path == rel and span[0] <= s.line <= span[1] for s in breaking):
            return None
        failing.append(f"{rel}:{span[0]}")
    name = mod.get("module") or mod["path"]
    return (f"{name.split('.')[0]} names {name} only by a string handed to calls that fail first on "
            f"{ctx.target_package} {ctx.target.versions.get(ctx.target_package)} ({', '.join(sorted(set(failing)))}), "
            "so it never loads there")


def _call_around(calls, line: int) -> tuple[int, int] | None:
    """The innermost recorded call whose lines hold `line` (its first and last line)."""
    best = None
    for c in calls:
        first, last = c.get("line"), c.get("end_line") or c.get("line")
        if type(first) is int and type(last) is int and first <= line <= last \
                and (best is None or last - first < best[1] - best[0]):
            best = (first, last)
    return best


def mirrored_module(ctx: CheckContext, name: str) -> str | None:
    """The target's module at the consumer module's path below its top package, in the target or
    the baseline (`plugin.v1.worker.x` -> `vllm.v1.worker.x`), or else one whose last two parts
    are the consumer module's (`plugin.customized.layers.x` -> `vllm.model_executor.layers.x`: the
    copy kept in a folder of the plugin's own), or None."""
    rest = name.split(".", 1)[1] if "." in name else ""
    if not rest:
        return None
    dotted = f"{ctx.target_package}.{rest}"
    for index in (ctx.target, ctx.baseline):
        if index is not None and index.modules.get(dotted) is not None:
            return dotted
    parts = rest.split(".")
    if len(parts) < 2:
        return None
    tail = "." + ".".join(parts[-2:])
    for index in (ctx.target, ctx.baseline):
        if index is None:
            continue
        hits = sorted(m for m in _modules_ending(ctx, index, tail) if m.startswith(ctx.target_package + "."))
        if hits:
            return hits[0]
    return None


def _modules_ending(ctx: CheckContext, index, tail: str) -> list[str]:
    """The index's module names that end with `tail` (memoised per check and index: every
    unreferenced module of a plugin asks)."""
    memo = ctx.memo.setdefault("unloaded.module_tails", {})
    key = id(index)
    if key not in memo:
        by_tail: dict[str, list[str]] = {}
        for m in index.modules:
            bits = m.split(".")
            if len(bits) >= 3:
                by_tail.setdefault("." + ".".join(bits[-2:]), []).append(m)
        memo[key] = by_tail
    return memo[key].get(tail, [])
