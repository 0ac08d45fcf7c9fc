"""Source text of AST nodes, cheaply.

`ast.get_source_segment` re-splits the whole file on every call; a probe asks for thousands of
segments per file, so the lines are split once here. Offsets in the AST are UTF-8 byte offsets,
hence the slicing on bytes. Multi-line segments are collapsed to single spaces so that a value
reads the same in a report and a re-wrapped line does not look like a change.
"""

import ast


class SourceText:
    """Slices node source from the UTF-8 bytes of one module."""

    __slots__ = ("lines",)

    def __init__(self, source: bytes):
        self.lines = source.splitlines()

    def of(self, node, limit: int = 0):
        """Source of `node` (None when it has no position); cut at `limit` chars when given."""
        try:
            lineno = node.lineno
            end = node.end_lineno
        except AttributeError:
            return None
        lines = self.lines
        if lineno is None or end is None or lineno > len(lines) or end > len(lines):
            return None
        if lineno == end:
            raw = lines[lineno - 1][node.col_offset:node.end_col_offset]
            text = raw.decode("utf-8", "replace")
        else:
            parts = [lines[lineno - 1][node.col_offset:]]
            parts.extend(lines[lineno:end - 1])
            parts.append(lines[end - 1][:node.end_col_offset])
            text = " ".join(b" ".join(parts).decode("utf-8", "replace").split())
            text = text.replace("( ", "(").replace("[ ", "[").replace("{ ", "{")
            text = text.replace(" )", ")").replace(" ]", "]").replace(" }", "}").replace(", )", ",)")
        if limit and len(text) > limit:
            return text[:limit]
        return text


def dotted(node):
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return None
    parts.append(node.id)
    parts.reverse()
    return ".".join(parts)


def decorator_name(node, text: SourceText):
    """Dotted source text of a decorator without call arguments."""
    if type(node) is ast.Call:
        node = node.func
    name = dotted(node)
    return name if name is not None else text.of(node)


def last_segment(name):
    return name.rsplit(".", 1)[-1] if name else ""


def relative_module(module, is_package, level, name):
    """The absolute module a relative import names (`from ..x import y` in `a.b.c` -> `a.x`)."""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))
