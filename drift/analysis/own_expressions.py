"""The one expression the target wrote in place of its own calls of a function it removed.

Why: vLLM removes a small accessor and rewrites every call of it in its own code to what the
accessor returned (0.19 removed `vllm_is_batch_invariant()` and wrote `envs.VLLM_BATCH_INVARIANT`
in each of its modules that called it). A consumer's call of the removed function gets the same
rewrite (MELT, ASE'23: a library's own migration is the evidence for its clients' fix). Facts do
not keep a zero-argument call's surroundings, so the evidence is read from the two releases' text
(`PackageIndex.module_text`): in each baseline module that calls `name()` as part of a line (`x =
name()`, `if name() and ...:`), the lines diffed against the target's same module
(`difflib.SequenceMatcher`) give the replaced block, and a target line there that keeps the
baseline line's text before and after the call gives the expression that took its place. Only
an expression every such site agrees on, seen at two sites at least, whose leading name the
target's modules import from one module, is an answer.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from drift.findings import Location
from drift.model.facts import ModuleFacts
from drift.model.index import PackageIndex, call_of

MAX_MODULES = 40  # baseline modules read per removed function


@dataclass(frozen=True)
class CallRewrite:
    expression: str  # `envs.VLLM_BATCH_INVARIANT`
    head: str  # its leading name, `envs` ("" for an expression of literals alone)
    module: str  # what `head` imports in the target's modules, `vllm.envs` ("" when none is needed)
    sites: int  # how many of the baseline's calls were rewritten so
    evidence: Location  # one rewritten line in the target
    baseline_evidence: Location  # its call in the baseline


def _takes_nothing(sym) -> bool:  # type: ignore[no-untyped-def]
    return sym is not None and sym.kind == "function" and all(
        not p.required for p in sym.as_function.params if p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD"))


def _head(expression: str) -> str | None:
    """The leading name of an expression (`envs` of `envs.X`), "" for literals alone, None when it
    is no expression."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    if isinstance(node, ast.Name):
        return node.id
    return "" if isinstance(node, ast.Constant) else None


def _imported(index: PackageIndex, module: str, head: str) -> str | None:
    """The module a top-level `import ... as head` / `import head` of `module` binds, else None."""
    raw = index.modules.get(module) if hasattr(index.modules, "get") else None
    if raw is None:
        return None
    imp = ModuleFacts(raw).imports.get(head)
    target = getattr(imp, "target", None) if imp is not None else None
    return target if target and target in index.modules else None


def call_rewrite(baseline: PackageIndex, target: PackageIndex, dotted: str) -> CallRewrite | None:
    """How the target rewrote its own calls of `dotted`, a function of the baseline it removed
    that takes no required argument; None when the releases' text is not at hand or the sites do
    not agree on one expression."""
    short = dotted.rsplit(".", 1)[-1]
    if not _takes_nothing(baseline.lookup(dotted)) or not baseline.has_sources or not target.has_sources:
        return None
    call = short + "()"
    votes: dict[str, list[tuple[str, int, int]]] = {}
    for module in baseline.source_search(call_of(short))[:MAX_MODULES]:
        if module not in target.modules:
            continue
        btext, ttext = baseline.module_text(module), target.module_text(module)
        if btext is None or ttext is None:
            continue
        blines = btext.decode("utf-8", "replace").splitlines()
        tlines = ttext.decode("utf-8", "replace").splitlines()
        matcher = difflib.SequenceMatcher(None, blines, tlines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace":
                continue
            for i in range(i1, i2):
                line = blines[i]
                at = line.find(call)
                if at < 0 or (at and (line[at - 1].isalnum() or line[at - 1] in "_.")):
                    continue  # not a bare call of the function (`x.name()` is another's method)
                before, after = line[:at].strip(), line[at + len(call):].strip()
                if not before and not after:
                    continue  # a statement of its own: no expression took its place
                for j in range(j1, j2):
                    text = tlines[j].strip()
                    if len(text) <= len(before) + len(after) or not text.startswith(before) or not text.endswith(after):
                        continue
                    middle = text[len(before):len(text) - len(after)].strip()
                    if middle and short not in middle and _head(middle) is not None:
                        votes.setdefault(middle, []).append((module, j + 1, i + 1))
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -len(kv[1]))
    expression, sites = ranked[0]
    if len(sites) < 2 or (len(ranked) > 1 and len(ranked[1][1]) * 2 >= len(sites)):
        return None
    head = _head(expression) or ""
    homes = {_imported(target, m, head) for m, _j, _i in sites} if head else {""}
    if len(homes) != 1 or None in homes:
        return None
    module, tline, bline = sites[0]
    tpath = ModuleFacts(target.modules[module]).path or module
    bpath = ModuleFacts(baseline.modules[module]).path or module
    return CallRewrite(expression, head, homes.pop(), len(sites),
                       Location(tpath, tline, symbol=expression), Location(bpath, bline, symbol=f"{dotted}()"))
