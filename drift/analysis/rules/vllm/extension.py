"""vLLM knowledge: a worker extension class must not name anything the worker class has.

A consumer names its class in `worker_extension_cls` (an RL trainer's weight-sync methods, as
`LLM(..., worker_extension_cls="pkg.ext.Sync")` or a config default); before appending it to the
worker class's bases, vLLM asserts that the worker has none of the extension's non-dunder
attributes (`WorkerWrapperBase.init_worker`). A method name the worker newly defines in the target
(`Worker.update_weights` in 0.17, the weight-transfer API) stops every engine start with that
AssertionError, and the consumer's `collective_rpc("update_weights")` would reach vLLM's method
first anyway. Which consumer classes reach the key comes from the solved model (`named`,
drift/consumer/infer.py); which class they are mixed into, from `MIXED_INTO` (drift/analysis/paths.py)
or the consumer's own `worker_cls`.
"""

from __future__ import annotations

from typing import Any, Iterator

from drift.analysis.context import CheckContext
from drift.analysis.paths import BUILT_INSTEAD_OF, MIXED_INTO
from drift.analysis.rules.base import rule
from drift.analysis.rules.reach import _module_of
from drift.analysis.rules.vllm.rpc import DISPATCHERS
from drift.findings import Finding, Fix, Location, RuleKind, Severity
from drift.model.index import PackageIndex, Symbol


def _worker_classes(ctx: CheckContext, index: PackageIndex, defaults: tuple[str, ...], on_target: bool) -> list[Symbol]:
    """The target classes the extension is mixed into on one side: the bases of the consumer's own
    worker (`worker_cls`), else the release's default worker."""
    named = [ref for key in BUILT_INSTEAD_OF for ref in ctx.consumer.inferred.named.get(key) or []]
    if named:
        paths = ctx.target_paths if on_target else ctx.baseline_paths
        return [b for ref in named for b in (paths.target_bases(ref) if paths is not None else [])]
    sym = next((s for s in map(index.lookup, defaults) if s is not None and s.kind == "class"), None)
    return [sym] if sym is not None else []


def _has(index: PackageIndex, classes: list[Symbol], name: str) -> tuple[Symbol, int] | None:
    """The class of `classes`' MROs that defines `name` at class level (what `hasattr(cls, name)`
    sees), with the line of the definition."""
    for cls in classes:
        for owner in index.mro(cls):
            c = owner.as_class
            m = c.methods.get(name)
            if m is not None:
                return owner, m.line or owner.line
            if name in c.attrs or c.field(name) is not None:
                return owner, owner.line
    return None


def _members(ctx: CheckContext, ref: str) -> dict[str, tuple[Any, dict]]:
    """name -> (record, class record holding it) of every class-level name the extension has,
    its own and those of its consumer bases (a mixin's methods): vLLM's assertion walks
    `dir(extension)`, which lists the inherited names too. The nearest class's wins."""
    out: dict[str, tuple[Any, dict]] = {}
    for cls in ctx.consumer_lineage(ref):
        for name, m in {**(cls.get("class_attrs") or {}), **(cls.get("methods") or {})}.items():
            out.setdefault(name, (m, cls))
    return out


@rule("VLLM004", RuleKind.OVERRIDE_INCOMPATIBLE)
def extension_name_taken(ctx: CheckContext) -> Iterator[Finding]:
    """A method (or class attribute) of the consumer's worker extension class whose name the
    worker class it is mixed into now defines too, and did not in the baseline: vLLM's conflict
    assertion fails when the worker is built."""
    if ctx.baseline is None:
        return
    for key, defaults in MIXED_INTO.items():
        exts = ctx.consumer.inferred.named.get(key) or []
        if not exts:
            continue
        tworkers = _worker_classes(ctx, ctx.target, defaults, True)
        bworkers = _worker_classes(ctx, ctx.baseline, defaults, False)
        if not tworkers or not bworkers:
            continue
        seen: set[tuple[str, str]] = set()  # a mixin shared by two extensions is reported once
        for ref in exts:
            cls = ctx.consumer.classes.get(ref)
            if cls is None:
                continue
            for name, (m, holder) in sorted(_members(ctx, ref).items()):
                if name.startswith("__") or (holder["qual"], name) in seen:
                    continue
                found = _has(ctx.target, tworkers, name)
                if found is None or _has(ctx.baseline, bworkers, name) is not None:
                    continue
                owner, at = found
                seen.add((holder["qual"], name))
                worker = tworkers[0]
                line = m.get("line") if isinstance(m, dict) else None
                yield Finding(
                    rule_id="VLLM004", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.BREAKING,
                    title=f"`{cls['qual']}.{name}` (named in `{key}`) now clashes with "
                          f"`{owner.dotted.rsplit('.', 1)[-1]}"
                          f".{name}`: vLLM refuses to mix the extension into its worker",
                    consumer_site=Location(_module_of(ctx, holder)["path"], line or holder["line"],
                                           symbol=f"{holder['qual']}.{name}"),
                    target_evidence=(Location(owner.path, at, symbol=f"{owner.dotted}.{name}"),),
                    predicted_failure=f"AssertionError: Worker class <class '{worker.dotted}'> already has an "
                                      f"attribute {name}, which conflicts with the worker extension class "
                                      f"<class '{ref}'>.",
                    details=f"the baseline's worker had no `{name}`; the extension is appended to the worker's bases "
                            f"only when none of its names is taken, and a `collective_rpc(\"{name}\")` would reach "
                            "vLLM's own method first",
                    fix=Fix(f"rename `{name}` in `{holder['qual']}` (and the `collective_rpc` calls naming it)",
                            manual_reason="the new name and every dispatch of it are the consumer's to choose"),
                    symbol=f"{owner.dotted}.{name}",
                )
                yield from _dispatches_of(ctx, name, owner, ref)


def _dispatches_of(ctx: CheckContext, name: str, owner: Symbol, ref: str) -> Iterator[Finding]:
    """The consumer's own `collective_rpc("name", ...)` calls of the clashing name: meant for the
    extension's method, they reach the worker's own first (the extension comes last in the bases).
    Risky: the conflict assertion stops the engine before any of them runs, unless asserts are off."""
    for mod in ctx.usage:
        sent = [{"line": line, "routed": True, "callee_src": f"POST /{route}"}  # over HTTP (probes/routes.py)
                for route, method, line in mod.get("routed") or [] if route in DISPATCHERS and method == name]
        for rec in (mod.get("calls") or []) + sent:
            path = (rec.get("callee") or {}).get("path") or rec.get("path") or ()
            if rec.get("routed"):
                line = rec["line"]
            elif rec.get("name_arg") == name and path and str(path[-1]).lstrip(".") in DISPATCHERS:
                line = rec.get("name_line") or rec["line"]
            else:
                continue
            yield Finding(
                rule_id="VLLM004", kind=RuleKind.OVERRIDE_INCOMPATIBLE, severity=Severity.RISKY,
                title=f"`{rec.get('callee_src') or 'collective_rpc'}(\"{name}\")` now reaches "
                      f"`{owner.dotted.rsplit('.', 1)[-1]}.{name}`, not the extension's",
                consumer_site=Location(mod["path"], line, snippet=rec.get("callee_src")),
                target_evidence=(Location(owner.path, owner.line, symbol=f"{owner.dotted}.{name}"),),
                predicted_failure=f"vLLM's own `{name}` runs with the extension's arguments (once the start-up "
                                  "assertion is off or the clash is renamed on one side only)",
                fix=Fix(f"dispatch the extension's renamed method instead of `{name}`",
                        manual_reason="the new name is the consumer's to choose"),
                symbol=f"{owner.dotted}.{name}",
            )


RULES = [extension_name_taken]
