"""Give a positional call the arguments the target's own identical call now passes.

Why: vLLM rewrites its own positional calls when a signature changes (0.11's `Scheduler.schedule`
called `kv_cache_manager.get_num_common_prefix_blocks(any_request, len(self.running))`, 0.13's
calls it with `(any_request.request_id)`; 0.13's `GPUModelRunner._dummy_run` appends the new
required `num_sampled_tokens`, built as `np.ones(num_reqs, dtype=np.int32)`). A consumer that
copied the baseline's call gets the same rewrite, and only there: the call must pass exactly the
baseline's positional arguments (compared as parsed expressions, so spacing and line breaks do
not matter), or nothing is written. A call that already passes the target's arguments is left
alone, so a second run is a no-op. `after` replaces the positional arguments; `add` passes new
ones by keyword (an appended positional one would bind to an optional slot of the baseline's).

`names` guards what the new arguments read beyond the old ones: `""` means a name the calling
function binds itself (a parameter or an assignment: `num_reqs`), a dotted path a name the file
binds by importing exactly that (`np` -> `numpy`). Any unbound or differently bound name stops
the codemod; libcst's scope analysis answers both. `migration` names the target's call and
changes nothing here. The rule that offers it sets the tier.
"""

from __future__ import annotations

import ast
from typing import Mapping, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import FunctionScope, QualifiedNameSource, ScopeProvider

from drift.fixes.kinds._site import (
    ALREADY,
    APPLIED,
    NOT_FOUND,
    SiteCodemod,
    has_keyword,
    parse_expr,
    relayout_comma,
    separator_comma,
)


def _shape(text: str) -> str | None:
    """A parsed expression's dump: two texts of one expression compare equal."""
    try:
        return ast.dump(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None


def _positional(call: cst.Call) -> list[int]:
    return [i for i, a in enumerate(call.args) if a.keyword is None and not a.star]


class RewriteArguments(SiteCodemod):
    DESCRIPTION = "Replace the positional arguments `before` of the call to `callee` with `after`."

    METADATA_DEPENDENCIES = (*SiteCodemod.METADATA_DEPENDENCIES, ScopeProvider)

    def __init__(self, context: CodemodContext, *, line: int, callee: str, before: Sequence[str],
                 after: Sequence[str], add: Mapping[str, str] | None = None,
                 names: Mapping[str, str] | None = None, migration: str | None = None) -> None:
        super().__init__(context, line=line)
        self.callee = callee
        self.before = [_shape(t) for t in before]
        self.after_src = list(after)
        self.after = [_shape(t) for t in after]
        self.values = [parse_expr(t) for t in after]  # fail early, before touching anything
        if None in self.before or None in self.after:
            raise ValueError("an argument text does not parse")
        self.add = {k: parse_expr(v) for k, v in (add or {}).items()}
        self.add_src = dict(add or {})
        self.names = dict(names or {})
        self._target: cst.Call | None = None

    def _texts(self, call: cst.Call) -> list[str | None]:
        return [_shape(cst.Module([]).code_for_node(call.args[i].value)) for i in _positional(call)]

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_here(self.callee)
        if not calls:
            return
        plain = [c for c in calls if not any(a.star for a in c.args)]
        if any(self._texts(c) == self.after and all(has_keyword(c, k) for k in self.add) for c in plain):
            self.record(ALREADY, f"{self.callee}() at line {self.line} passes the target's arguments already")
            return
        mine = [c for c in plain if self._texts(c) == self.before and not any(has_keyword(c, k) for k in self.add)]
        if not mine:
            self.record(NOT_FOUND, f"{self.callee}() at line {self.line} does not pass the baseline's arguments")
            return
        unbound = self._unbound(mine[0])
        if unbound:
            self.record(NOT_FOUND, f"{', '.join(unbound)} not bound as the target's call has it at line {self.line}")
            return
        self._target = mine[0]

    def _unbound(self, call: cst.Call) -> list[str]:
        """The guarded names the call's scope does not bind as required."""
        scope = self.get_metadata(ScopeProvider, call, None)
        if scope is None:
            return sorted(self.names)
        out = []
        for name, dotted in sorted(self.names.items()):
            if dotted:
                ok = any(q.name == dotted and q.source is QualifiedNameSource.IMPORT
                         for q in scope.get_qualified_names_for(name))
            else:
                ok = isinstance(scope, FunctionScope) and any(a.scope is scope for a in scope[name])
            if not ok:
                out.append(f"`{name}`" + (f" (`{dotted}`)" if dotted else " (a local)"))
        return out

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = list(updated_node.args)
        slots = _positional(updated_node)
        keep = min(len(slots), len(self.values))
        for i in range(keep):
            if self.after[i] != self.before[i]:
                args[slots[i]] = args[slots[i]].with_changes(value=self.values[i])
        if len(self.values) < len(slots):  # fewer arguments: drop the trailing ones
            for idx in sorted(slots[keep:], reverse=True):
                removed = args.pop(idx)
                if idx == len(args) and idx > 0:
                    prev = args[idx - 1]
                    args[idx - 1] = prev.with_changes(comma=relayout_comma(prev.comma, removed.comma)) \
                        if isinstance(removed.comma, cst.Comma) else \
                        prev.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=removed.whitespace_after_arg)
        elif len(self.values) > len(slots):  # more: append after the last positional one
            at = (slots[-1] + 1) if slots else 0
            for value in self.values[len(slots):]:
                args = _inserted(updated_node, args, at, cst.Arg(value=value))
                at += 1
        for kw, value in self.add.items():
            args = _with_keyword(updated_node, args, kw, value)
        shown = ", ".join([*self.after_src, *(f"{k}={v}" for k, v in self.add_src.items())])
        self.record(APPLIED, f"{self.callee}() now passes ({shown})")
        return updated_node.with_changes(args=args)


def _with_keyword(call: cst.Call, args: list, keyword: str, value: cst.BaseExpression) -> list:
    """`args` with `keyword=value` before any `**`, in the call's own comma style."""
    new = cst.Arg(keyword=cst.Name(keyword), value=value,
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    at = next((i for i, a in enumerate(args) if a.star == "**"), len(args))
    return _inserted(call, args, at, new)


def _inserted(call: cst.Call, args: list, at: int, new: cst.Arg) -> list:
    """`args` with `new` inserted at `at`, in the call's own comma style: appended after the last
    argument it takes that argument's comma (a trailing comma stays trailing) or its whitespace,
    and inside the list it gets the call's separator."""
    args = list(args)
    sep = separator_comma(call)
    if at == len(args) and args:
        last = args[-1]
        if isinstance(last.comma, cst.Comma):  # a trailing comma stays trailing
            new = new.with_changes(comma=last.comma)
            args[-1] = last.with_changes(comma=relayout_comma(last.comma, sep))
        else:
            new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
            args[-1] = last.with_changes(comma=sep, whitespace_after_arg=cst.SimpleWhitespace(""))
    elif at < len(args):
        new = new.with_changes(comma=sep)
    args.insert(at, new)
    return args
