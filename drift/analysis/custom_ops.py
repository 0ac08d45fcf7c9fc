"""Which Python function a release registers as the torch custom op `<ns>::<op>`.

Why: a consumer reaching `torch.ops.vllm.x(...)` calls the function vLLM registered under that
name; the op's schema is inferred from that function's signature (`infer_schema`), so the
Python signature is the contract. The facts do not record registrations (module-level calls),
so they are read from the release's text, as `drift.analysis.torch_module` does for buffers:

- `direct_register_custom_op("x", fn, ...)` / `(op_name="x", op_func=fn, ...)`: namespace
  "vllm" unless the call names its own `target_lib` (then any namespace is taken to match);
- `@torch.library.custom_op("vllm::x", ...)` (or `@custom_op`) on `def fn`.

A release whose text does not quote the op's name at all does not register it (`GONE`); a
registration the patterns cannot read (a C++ op, a name built at run time) is `UNKNOWN`, and
nothing is claimed about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drift.model.index import Needle, PackageIndex, Symbol

GONE = "gone"
UNKNOWN = "unknown"
_WINDOW = 600  # characters of a registering call's arguments the patterns look at


@dataclass(frozen=True)
class Registered:
    """The function registered as the op, as the release's facts know it."""

    function: Symbol


def _quoted(ns: str, op: str) -> Needle:
    return Needle(op.encode(), re.compile(rb"""["'](?:%s::)?%s["']""" % (re.escape(ns.encode()), re.escape(op.encode()))))


def _direct(op: str, fn: str, own_lib: bool) -> Needle:
    """`direct_register_custom_op(` whose first arguments name `op` and `fn`; with `own_lib`, a
    call that also passes `target_lib=` (a plugin's own library)."""
    name, func = re.escape(op.encode()), re.escape(fn.encode())
    lib = rb"(?=[^)]{0,%d}target_lib)" % _WINDOW if own_lib else rb"(?![^)]{0,%d}target_lib)" % _WINDOW
    return Needle(b"direct_register_custom_op", re.compile(
        rb"direct_register_custom_op\(" + lib +
        rb"(?=[^)]{0,%d}[\"']%s[\"'])(?=[^)]{0,%d}(?<![\w.\"'])%s\b(?!\s*\())" % (_WINDOW, name, _WINDOW, func)))


def _decorated(ns: str, op: str, fn: str) -> Needle:
    return Needle(b"custom_op", re.compile(
        rb"custom_op\(\s*[\"']%s::%s[\"'][^\n]*\n(?:[^\n]*\n){0,8}?\s*def\s+%s\b"
        % (re.escape(ns.encode()), re.escape(op.encode()), re.escape(fn.encode()))))


def registration(index: PackageIndex, ns: str, op: str) -> Registered | str:
    """The function `index`'s release registers as `ns::op`, else GONE or UNKNOWN (the answer
    is kept per release as the registered function's dotted name; not without the release's
    text, which the release's digest does not say)."""
    if not index.has_sources or not op.isidentifier():
        return UNKNOWN
    found = index.memo("custom_op3", f"{ns}::{op}", lambda: _registration(index, ns, op))
    if found in (GONE, UNKNOWN):
        return found
    sym = index.lookup(found)
    return Registered(sym) if sym is not None and sym.kind == "function" else UNKNOWN


def _registration(index: PackageIndex, ns: str, op: str) -> str:
    modules = index.source_search(_quoted(ns, op))
    if not modules:
        return GONE
    for module in modules:
        sym = index.lookup(module)
        functions = list(sym.as_module.functions) if sym is not None and sym.kind == "module" else []
        functions.sort(key=lambda f: (f != op, f))  # the op's own name first: vLLM's habit
        for fn in functions:
            mine = [_decorated(ns, op, fn)]
            mine += [_direct(op, fn, own_lib=False)] if ns == "vllm" else []
            mine += [_direct(op, fn, own_lib=True)]
            if any(module in index.source_search(n) for n in mine):
                return f"{module}.{fn}"
    return UNKNOWN


def binding_error(function: Symbol, call: dict) -> str | None:
    """Why a call of shape `call` (probes/torch_ops.py) cannot bind to `function`'s parameters
    (an op's schema takes what the function takes), or None when it binds or cannot be told."""
    return params_binding_error(function.as_function.params, call)


def params_binding_error(params: list, call: dict) -> str | None:  # type: ignore[type-arg]
    """Why a call of shape `call` (`positional`, `keywords`, `star_args`, `star_kwargs`: a usage
    record or probes/torch_ops.py's) cannot bind to `params`, or None when it binds or cannot be told."""
    if call.get("star_args") or call.get("star_kwargs"):
        return None
    positional = [p for p in params if p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    var_pos = any(p.kind == "VAR_POSITIONAL" for p in params)
    var_kw = any(p.kind == "VAR_KEYWORD" for p in params)
    given = call.get("positional") or 0
    if given > len(positional) and not var_pos:
        return f"takes {len(positional)} positional argument{'s' if len(positional) != 1 else ''} but {given} were given"
    by_name = {p.name: p for p in params if p.kind in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
    for k in call.get("keywords") or ():
        if k not in by_name and not var_kw:
            return f"got an unexpected keyword argument '{k}'"
    bound = {p.name for p in positional[:given]} | set(call.get("keywords") or ())
    missing = [p.name for p in params if p.required and p.kind not in ("VAR_POSITIONAL", "VAR_KEYWORD")
               and p.name not in bound]
    if missing:
        return "missing required argument" + ("s " if len(missing) > 1 else " ") + ", ".join(f"'{m}'" for m in missing)
    return None
