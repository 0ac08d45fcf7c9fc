"""Define a member under the name the target now asks for, bound to the member the class has.

Why: a target whose interface check accepted an old member name only as a fallback (vLLM 0.12's
`_check_vllm_model_embed_input_ids` found no `embed_input_ids`, took `get_input_embeddings` and
set `model.embed_input_ids = model.get_input_embeddings`) and whose next release drops that
fallback rejects a class that defines only the old name. Binding the new name to the same member
is the alias the baseline's fallback made at run time, written once in the consumer's class:
nothing else changes, and the old name stays for releases that still ask for it.

Three places a class member is written: a `def old(...)` in a class body gets `new = old` right
after it; a `type(name, bases, {"old": value, ...})` namespace gets `"new": value` right after
the old entry, in the dict's own layout; a namespace filled step by step (`ns["old"] = value`)
gets `ns["new"] = ns["old"]` on the next line. A class or namespace that already has the new
name is left alone.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.codemod import CodemodContext

from drift.fixes.kinds._site import ALREADY, APPLIED, NOT_FOUND, SiteCodemod, clean_comma, relayout_comma


def _key(element: cst.BaseDictElement) -> str | None:
    """The string a dict entry's key spells (`"old"`, `'old'`), or None for any other key."""
    if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
        return None
    try:
        value = ast.literal_eval(element.key.value)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _class_names(body: cst.BaseSuite) -> set[str]:
    """Names a class body binds: its defs, classes and plain or annotated assignments."""
    names: set[str] = set()
    for stmt in getattr(body, "body", ()):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, cst.AnnAssign) else []
                names.update(t.value for t in targets if isinstance(t, cst.Name))
    return names


class AliasMember(SiteCodemod):
    DESCRIPTION = "Bind `new` to the member `old` at the site line (class body or type() namespace)."

    def __init__(self, context: CodemodContext, *, line: int, old: str, new: str) -> None:
        super().__init__(context, line=line)
        self.old, self.new = old, new
        self._dict: cst.Dict | None = None
        self._class: cst.ClassDef | None = None
        self._line: cst.SimpleStatementLine | None = None

    def _store(self, stmt: cst.CSTNode, name: str | None = None) -> cst.Subscript | None:
        """The `ns["<name>"]` a statement `ns["<name>"] = value` stores into (old name by default)."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign):
            return None
        assign = stmt.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Subscript):
            return None
        sub = assign.targets[0].target
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        key = sub.slice[0].slice.value
        if not isinstance(key, cst.SimpleString):
            return None
        try:
            spelled = ast.literal_eval(key.value)
        except (ValueError, SyntaxError):
            return None
        return sub if spelled == (name or self.old) else None

    def visit_Module(self, node: cst.Module) -> None:
        dicts = self.nodes_at_line(cst.Dict, lambda d: any(_key(e) == self.old for e in d.elements))
        if dicts:
            if any(_key(e) == self.new for e in dicts[0].elements):
                self.record(ALREADY, f"the namespace already has {self.new!r}")
                return
            self._dict = dicts[0]
            return
        stores = self.nodes_at_line(cst.SimpleStatementLine, lambda st: self._store(st) is not None)
        if stores:
            block = self.parent(stores[0])
            if any(self._store(st, self.new) is not None for st in getattr(block, "body", ())):
                self.record(ALREADY, f"the namespace already gets {self.new!r}")
                return
            self._line = stores[0]
            return
        defs = self.nodes_at_line(cst.FunctionDef, lambda d: d.name.value == self.old)
        owner = self.parent(self.parent(defs[0])) if defs else None  # def -> IndentedBlock -> ClassDef
        if not isinstance(owner, cst.ClassDef):
            self.record(NOT_FOUND, f"no class member {self.old} at line {self.line}")
            return
        if self.new in _class_names(owner.body):
            self.record(ALREADY, f"{owner.name.value} already defines {self.new}")
            return
        self._class = owner

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.Dict:
        if original_node is not self._dict:
            return updated_node
        elements = list(updated_node.elements)
        i = next(k for k, e in enumerate(elements) if _key(e) == self.old)
        old = elements[i]
        assert isinstance(old, cst.DictElement) and isinstance(old.key, cst.SimpleString)
        new_key = old.key.with_changes(value=f"{old.key.prefix}{old.key.quote}{self.new}{old.key.quote}")
        if i < len(elements) - 1:  # the old entry keeps its comma and comments; the new one copies its layout
            entry = old.with_changes(key=new_key, comma=clean_comma(old.comma) if isinstance(old.comma, cst.Comma)
                                     else cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        else:  # the last entry: the new one ends the dict as the old one did (trailing comma or none)
            sep = next((e.comma for e in elements[:-1] if isinstance(e.comma, cst.Comma)),
                       cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            entry = old.with_changes(key=new_key, comma=clean_comma(old.comma) if isinstance(old.comma, cst.Comma)
                                     else cst.MaybeSentinel.DEFAULT)
            elements[i] = old.with_changes(comma=relayout_comma(old.comma, sep))
        elements.insert(i + 1, entry)
        self.record(APPLIED, f"added {self.new!r} beside {self.old!r}, the same value")
        return updated_node.with_changes(elements=elements)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return self._after_store(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return self._after_store(original_node, updated_node)

    def _after_store(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        """`ns["new"] = ns["old"]` after the block's `ns["old"] = value`."""
        if self._line is None or self._line not in original_node.body:
            return updated_node
        i = list(original_node.body).index(self._line)
        sub = self._store(self._line)
        assert sub is not None
        key = sub.slice[0].slice.value
        assert isinstance(key, cst.SimpleString)
        new_sub = sub.with_changes(slice=[sub.slice[0].with_changes(slice=cst.Index(key.with_changes(
            value=f"{key.prefix}{key.quote}{self.new}{key.quote}")))])
        alias = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(new_sub)], sub)])
        body = list(updated_node.body)
        body.insert(i + 1, alias)
        self._line = None
        self.record(APPLIED, f"added {self.new!r} to the namespace, the same value as {self.old!r}")
        return updated_node.with_changes(body=body)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        if original_node is not self._class:
            return updated_node
        body = list(updated_node.body.body)
        i = next(k for k, s in enumerate(body) if isinstance(s, cst.FunctionDef) and s.name.value == self.old)
        alias = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(self.new))], cst.Name(self.old))],
            leading_lines=[cst.EmptyLine(indent=False)])
        body.insert(i + 1, alias)
        self.record(APPLIED, f"{updated_node.name.value}.{self.new} = {self.old}")
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))
