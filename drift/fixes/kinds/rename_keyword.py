"""Rename a keyword to the successor the baseline's deprecation shim named (`guided_decoding=` ->
`structured_outputs=`), converting the value as the shim did; also a string dict key that
reaches the callee's `**kwargs` (`{"guided_decoding": g}`) at the site line."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import (
    ALREADY,
    APPLIED,
    NOT_FOUND,
    SiteCodemod,
    has_keyword,
)


def converted(value: cst.BaseExpression, convert: str | None) -> cst.BaseExpression:
    """`value` as the shim converts it: unchanged, `not value`, or `convert` with `{}` filled."""
    if not convert:
        return value
    code = cst.Module([]).code_for_node(value)
    if convert == "not":
        simple = isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
        return cst.parse_expression(f"not {code}" if simple else f"not ({code})")
    return cst.parse_expression(convert.replace("{}", code))


def _key_is(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == name


class RenameKeyword(SiteCodemod):
    DESCRIPTION = "Rename `old=` to `new=` in the call to `callee` (or the dict key) at the site line."

    def __init__(self, context: CodemodContext, *, line: int, callee: str, old: str, new: str,
                 convert: str | None = None) -> None:
        super().__init__(context, line=line)
        self.callee, self.old, self.new, self.convert = callee, old, new, convert
        self._target: cst.CSTNode | None = None

    def visit_Module(self, node: cst.Module) -> None:
        calls = self.calls_at_line(self.callee) + self.calls_at_line("dict")  # `dict(old=v)` fed to **kwargs
        calls = [c for c in calls if not self._rebound(c)]  # a local that may name another callable: as calls_here
        with_old = [c for c in calls if has_keyword(c, self.old)]
        if with_old:
            if has_keyword(with_old[0], self.new):
                self.record(NOT_FOUND, f"{self.callee}() at line {self.line} passes both {self.old}= and {self.new}=")
                return
            self._target = with_old[0]
            return
        keys = self.nodes_at_line(cst.DictElement, lambda e: _key_is(e.key, self.old))
        if keys:
            self._target = keys[0]
            return
        indexes = self.nodes_at_line(cst.SubscriptElement, lambda e: isinstance(e.slice, cst.Index)
                                     and _key_is(e.slice.value, self.old))
        if indexes:  # `kwargs["old"] = v`: the key renamed; a value to convert is not at hand here
            if self.convert:
                self.record(NOT_FOUND, f"kwargs[{self.old!r}] at line {self.line}: its value cannot be converted here")
                return
            self._target = indexes[0]
            return
        if any(has_keyword(c, self.new) for c in calls) or self.nodes_at_line(
                cst.DictElement, lambda e: _key_is(e.key, self.new)) or self.nodes_at_line(
                cst.SubscriptElement, lambda e: isinstance(e.slice, cst.Index) and _key_is(e.slice.value, self.new)):
            self.record(ALREADY, f"{self.new}= already passed at line {self.line}")
        else:
            self.record(NOT_FOUND, f"no {self.old}= passed to {self.callee}() at line {self.line}")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self._target:
            return updated_node
        args = [a.with_changes(keyword=cst.Name(self.new), value=converted(a.value, self.convert))
                if a.keyword is not None and a.keyword.value == self.old else a for a in updated_node.args]
        self.record(APPLIED, f"renamed {self.old}= to {self.new}= in {self.callee}()")
        return updated_node.with_changes(args=args)

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement,
                               updated_node: cst.SubscriptElement) -> cst.SubscriptElement:
        if original_node is not self._target:
            return updated_node
        index = updated_node.slice
        assert isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
        key = index.value
        self.record(APPLIED, f"renamed the key {self.old!r} to {self.new!r}")
        return updated_node.with_changes(slice=index.with_changes(
            value=key.with_changes(value=f"{key.prefix}{key.quote}{self.new}{key.quote}")))

    def leave_DictElement(self, original_node: cst.DictElement, updated_node: cst.DictElement) -> cst.DictElement:
        if original_node is not self._target:
            return updated_node
        key = updated_node.key
        assert isinstance(key, cst.SimpleString)
        quote = key.quote
        self.record(APPLIED, f"renamed the key {self.old!r} to {self.new!r}")
        return updated_node.with_changes(key=key.with_changes(value=f"{key.prefix}{quote}{self.new}{quote}"),
                                         value=converted(updated_node.value, self.convert))
