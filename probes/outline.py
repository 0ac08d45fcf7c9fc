"""A module's class outline from its text alone: top-level classes (name, line, bases, method
names, nested classes), top-level function names and imports, without `ast.parse`.

A family-wide question (DRIFT040: which classes of vLLM 0.11.0 define `get_input_embeddings`,
and what are those classes and their bases in 0.16.0) reads ~270 model modules, 7.4 MB of
source; `ast.parse` of them is ~2 s of CPU and almost all of a cold check, yet the question
needs only which `def`s sit directly in which class and what each class's bases resolve to.
Strings and comments are masked with one regex (C speed), then the physical lines are walked
once, counting brackets, to find logical lines, their indentation and the few statements that
matter. That is ~10x cheaper than the parse.

The outline must equal what `probes.ast_facts.module_facts` would record, so anything this
reader does not fully understand returns None and the caller parses the module: non-ASCII
outside strings and comments (NFKC identifiers), tabs, form feeds, `\\r`, NUL bytes, a coding
cookie, an unterminated or odd string, an f-string whose braces do not balance (a PEP 701
nested quote), a stray backslash, unbalanced brackets, an unexpected indent, PEP 695 type
parameters, a one-line `if`/`try`/`with` body at module level, a parenthesised base, an import
it cannot read. A module the parser would reject for a reason the text does not show (say a
Python 2 `print` statement) is the one case it cannot see; `tests/test_outline.py` compares the
outline with the parse on every module of two vLLM releases and the corpus.

Stdlib only and Python 3.9 (vermin checks): the probe on a host answers a family asked ahead
with outlines (drift/pipeline/scan.py), and drift/model/outline.py is this module, so both read one
implementation.

Module-level assignments (`names`) are not read here: a lookup asks only whether one name is
bound, and `may_bind` answers that from the masked text (a target name is always followed by
`=`, `:`, `,`, `)`, `]` or a continuation), so the parse happens only when it may be.
"""

from __future__ import annotations

import ast
import re

from .ast_facts import _resolve
from .srctext import SourceText

_TOKEN = re.compile(  # first byte #, ' or ": the engine scans for it at C speed
    rb"#[^\n]*|'''(?:[^'\\]+|\\.|'(?!''))*'''|\"\"\"(?:[^\"\\]+|\\.|\"(?!\"\"))*\"\"\""
    rb"|'(?:[^'\\\n]+|\\.)*'|\"(?:[^\"\\\n]+|\\.)*\"", re.S)
_PREFIX = re.compile(rb"(?<![A-Za-z0-9_])[rRbBuUfF]{1,2}\Z")
_PREFIX_BYTES = frozenset(b"rRbBuUfF")
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_CLASS = re.compile(rb"class[ \\\n]+([A-Za-z_][A-Za-z0-9_]*)[ \\\n]*([(:\[])")
_DEF = re.compile(rb"(?:async[ \\\n]+)?def[ \\\n]+([A-Za-z_][A-Za-z0-9_]*)[ \\\n]*([(\[])")
_IMPORT = re.compile(rb"import[ \\\n]+(.*)", re.S)
_FROM = re.compile(rb"from(?![A-Za-z0-9_])[ \\\n]*((?:\.[ \\\n]*)*)([A-Za-z_][A-Za-z0-9_ \\\n.]*?)?[ \\\n]*"
                   rb"import(?![A-Za-z0-9_])[ \\\n]*(.*)", re.S)
_DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_ALIAS = re.compile(rb"([A-Za-z_][A-Za-z0-9_.]*?)(?:[ \\\n]+as[ \\\n]+([A-Za-z_][A-Za-z0-9_]*))?")
_TRANSPARENT = {b"if", b"elif", b"else", b"try", b"except", b"finally", b"with"}
_OPAQUE = {b"for", b"while", b"async", b"match", b"def", b"class"}
_DEF_LINE = re.compile(rb" *(?:async +)?def +[A-Za-z_][A-Za-z0-9_]* *\(")
_ASYNC_DEF = re.compile(rb"async[ \\\n]+def(?![A-Za-z0-9_])")
_ASYNC_OTHER = re.compile(rb"async[ \\\n]+(?:for|with)(?![A-Za-z0-9_])")
_MAX_DEPTH = 40
_DEDENT: dict = {}
_TC = re.compile(rb"(?:el)?if[ \\\n]+(?:[A-Za-z_][A-Za-z0-9_]*[ \\\n]*\.[ \\\n]*)*TYPE_CHECKING[ \\\n]*:")
_BLANKS = re.compile(rb"(?:[ ]*\n)+")
_PLAIN_FROM = re.compile(rb"from +(\.*) *([A-Za-z_][A-Za-z0-9_.]*)? +import +"
                         rb"([A-Za-z_][A-Za-z0-9_]*(?: *, *[A-Za-z_][A-Za-z0-9_]*)*)[ \n]*")
_KEYWORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*[ \\\n]*=(?!=)")
_SETTER = re.compile(rb"@[A-Za-z_][A-Za-z0-9_.]*\.(?:setter|deleter)(?:\(.*\))?", re.S)


_BRACKETS = bytes.maketrans(b"[{]}", b"(())")  # every opening bracket "(", every closing one ")"


def _balance(br: bytes, start: int, end: int) -> int:
    """Opening minus closing brackets in [start, end) of the text as `_BRACKETS` maps it (two
    counts instead of six: a model file asks this ~200 times)."""
    return br.count(b"(", start, end) - br.count(b")", start, end)


class _Bail(Exception):
    """The text holds something only the parser can answer."""


def _mask(m: re.Match) -> bytes:
    s = m.group()
    if s[0] == 0x23:  # a comment
        return b" " * len(s)
    at = m.start()
    p = _PREFIX.search(m.string, max(0, at - 3), at) if at and m.string[at - 1] in _PREFIX_BYTES else None
    if p is not None:
        p = p.group()
        if b"f" in p or b"F" in p:
            _check_fstring(s)
        if (b"b" in p or b"B" in p) and not s.isascii():
            raise _Bail("bytes literal with non-ASCII")
    return b"\x01" * len(s)


def _check_fstring(s: bytes) -> None:
    """Replacement fields must balance: a PEP 701 string with the same quote inside a field
    is cut short by the regex, and the cut always falls inside an open field."""
    q = 3 if s[:3] in (b"'''", b'"""') else 1
    body = s[q:-q]
    depth, i, n = 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == 0x7B:  # {
            if depth == 0 and body[i + 1:i + 2] == b"{":
                i += 2
                continue
            depth += 1
        elif c == 0x7D:  # }
            if depth == 0:
                if body[i + 1:i + 2] == b"}":
                    i += 2
                    continue
                raise _Bail("f-string braces")
            depth -= 1
        elif depth and c in (0x23, 0x5C):  # `#` or a backslash inside a field: 3.12 syntax
            raise _Bail("f-string field")
        i += 1
    if depth:
        raise _Bail("f-string braces")


def masked(source: bytes) -> bytes | None:
    """`source` with every comment blanked and every string literal replaced by \\x01 bytes,
    same length, so offsets map back; None when the text is not plain enough to trust."""
    if b"\r" in source or b"\f" in source or b"\0" in source:
        return None
    cookie = _COOKIE.search(source, 0, _two_lines(source))
    if cookie is not None and cookie.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return None
    if not source.isascii():
        try:
            source.decode("utf-8")
        except UnicodeDecodeError:
            return None  # the parser reads it with another codec, or not at all
    try:
        out = _TOKEN.sub(_mask, source)
    except _Bail:
        return None
    if not out.isascii() or b"'" in out or b'"' in out or b"\t" in out:
        return None
    return out


def _two_lines(source: bytes) -> int:
    end = source.find(b"\n")
    end = source.find(b"\n", end + 1) if end >= 0 else -1
    return len(source) if end < 0 else end


class _Block:
    __slots__ = ("indent", "body", "kind", "node", "prev", "decorators", "tc", "deco_at")

    def __init__(self, indent: int, kind: str, node: dict | None, tc: bool = False):
        self.tc = tc  # inside `if TYPE_CHECKING:` (imports there are marked, as module_facts marks them)
        self.indent = indent  # the header's indentation
        self.body = None  # the body's, once its first line is seen
        self.kind = kind  # "module" (the module, or an if/try/with at module level), "class", "opaque"
        self.node = node  # the class's outline
        self.prev = None  # the keyword of the previous statement in this body (for else/elif)
        self.decorators = []  # the decorator lines above the next statement
        self.deco_at = 0  # the offset of the first of them


def outline(source: bytes, *, module: str, path: str, text: bytes | None = None,
            spans: dict | None = None) -> dict | None:
    """{"classes", "functions", "imports"} as `module_facts` records them (classes reduced to
    name, line, bases, methods and nested), or None when only a parse can say. `text` is
    `masked(source)` when the caller has it.

    `spans`, when given, is filled with (class, method) -> (start, end) byte offsets of each
    method of a top-level class, from its first decorator to the next statement not inside
    it, or None when the class defines that name more than once or through `@overload` (the
    facts then depend on its siblings): `method_alone` parses one such span by itself."""
    text = masked(source) if text is None else text
    if text is None:
        return None
    try:
        return _Reader(source, text, module, path, spans).read()
    except _Bail:
        return None


def method_alone(source: bytes, span: tuple[int, int]):
    """The FunctionDef node of one method span (`outline(spans=...)`) parsed by itself, and the
    `SourceText` to read it with, or None. The span is parsed inside `if 1:` on the line above
    it, after blank lines, so every line number and column is the module's own and
    `SourceText.of` gives the module's text for every node: the function's facts are exactly
    those of a whole parse (`function_facts` reads nothing outside its node).

    Why: DRIFT020 asks, of every class defining `execute_model`, whether that one method ends
    in `return None`; the classes are in 450 KB model-runner modules whose parse is most of
    what a cold check has left, and the method is a few KB."""
    start, end = span
    line_start = source.rfind(b"\n", 0, start) + 1
    line = source.count(b"\n", 0, line_start) + 1
    if line < 2:
        return None
    frag = b"\n" * (line - 2) + b"if 1:\n" + source[line_start:end]
    try:
        tree = ast.parse(frag)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) != 1 or len(tree.body[0].body) != 1:
        return None
    node = tree.body[0].body[0]
    if type(node) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    return node, SourceText(frag)


class _Reader:
    def __init__(self, source: bytes, text: bytes, module: str, path: str, spans: dict | None = None):
        self.source, self.text = source, text
        self.br = text.translate(_BRACKETS)
        self.spans = spans
        self._pending = None  # (class, method, start) of the def whose span ends after this line
        self.package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        self.out = {"classes": {}, "functions": {}, "imports": {}}
        self._src_text: SourceText | None = None
        self._at = (0, 1)  # (offset, line number there): lines are counted forward, only when needed

    def line_at(self, offset: int) -> int:
        """The source line of `offset` (string literals hide newlines from the masked text)."""
        at, line = self._at
        line += self.source.count(b"\n", at, offset)
        self._at = (offset, line)
        return line

    def read(self) -> dict:
        """Walk the logical lines of the module and of class bodies; the body of a def (or a
        for, while, match, or any block inside a class body) is skipped whole, to the next
        line that is indented no deeper than its header and not inside brackets."""
        text = self.text
        if self.br.count(b"(") != self.br.count(b")"):
            raise _Bail("brackets")
        root = _Block(-1, "module", None)
        root.body = 0
        stack = [root]
        pos, n = 0, len(text)
        blanks = _BLANKS.match
        while pos < n:
            b = blanks(text, pos)
            if b is not None:  # blank lines (and masked comments) say nothing: a third of all lines
                pos = b.end()
                continue
            depth, end = 0, pos
            while True:  # one logical line: physical lines until brackets balance
                e = text.find(b"\n", end)
                if e < 0:
                    e = n
                line = text[end:e]
                cont = False
                if b"\\" in line:
                    if not line.endswith(b"\\") or b"\\" in line[:-1]:
                        raise _Bail("backslash")
                    cont = True
                if b"(" in line or b")" in line or b"[" in line or b"]" in line or b"{" in line or b"}" in line:
                    depth += _balance(self.br, end, e)
                    if depth < 0 or depth > _MAX_DEPTH:
                        raise _Bail("brackets")
                if depth == 0 and not cont:
                    break
                if end == pos and depth > 0 and not cont and _DEF_LINE.match(line):
                    break  # a def whose header goes on: its name is on this line, the rest is skipped with its body
                end = e + 1
                if end >= n:
                    raise _Bail("unterminated")
            if depth:  # the first line of a longer def header (three in five of a model file's lines)
                skip = self.logical(stack, pos, e, header=True)
                pos = self.skip(e + 1, skip, depth)
            else:
                skip = self.logical(stack, pos, e)
                pos = e + 1
                if skip is not None:
                    pos = self.skip(pos, skip)
            if self._pending is not None:
                cls, name, at = self._pending
                self._pending = None
                key = (cls, name)
                self.spans[key] = None if key in self.spans else (at, min(pos, n))
        return self.out

    def skip(self, pos: int, indent: int, depth: int = 0) -> int:
        """The start of the first logical line after `pos` indented at most `indent`; `depth`
        is the bracket depth at `pos` (inside a def header that goes on)."""
        pat = _DEDENT.get(indent)
        if pat is None:
            pat = _DEDENT[indent] = re.compile(rb"\n {0,%d}(?=[^ \n])" % indent)  # a literal first: memchr
        text, at = self.text, pos - 1  # `pos` starts a line: search from the newline before it
        while True:
            m = pat.search(text, at)
            if m is None:
                return len(text)
            s = m.start() + 1
            depth += _balance(self.br, pos, s)
            pos = s
            if depth == 0 and not (s >= 2 and text[s - 2] == 0x5C):  # not continued by a backslash
                return s
            if depth < 0:
                raise _Bail("brackets")
            at = text.find(b"\n", s)
            if at < 0:
                return len(text)

    def logical(self, stack: list, start: int, end: int, header: bool = False) -> int | None:
        """Record one logical line; the indent of a header whose body is to be skipped.
        `header`: [start, end) is only the first line of a def header that goes on."""
        raw = self.text[start:end]
        stripped = raw.lstrip(b" ")
        if not stripped.strip():
            return None
        indent = len(raw) - len(stripped)
        while stack[-1].indent >= indent:
            stack.pop()
        block = stack[-1]
        if block.body is None:
            block.body = indent
        elif indent != block.body:
            raise _Bail("indentation")
        if len(stack) > _MAX_DEPTH:
            raise _Bail("nesting")
        m = _WORD.match(stripped)
        word = m.group() if m else b""
        header = header or stripped.rstrip(b" \n\\").endswith(b":")
        if word == b"match" and not header:
            word = b""  # `match` the name, not the statement
        if word in _TRANSPARENT or word in _OPAQUE:
            kind, node = self.compound(block, word, stripped, start + indent, header)
            block.prev = word
            block.decorators = []
            if not header:
                return None
            if kind == "opaque":
                return indent
            tc = block.tc
            if word == b"if" or word == b"elif":
                tc = tc or _TC.fullmatch(stripped.rstrip(b" \n\\")) is not None
            stack.append(_Block(indent, kind, node, tc))
            return None
        block.prev = None
        if word == b"" and stripped[:1] == b"@":
            if not block.decorators:
                block.deco_at = start + indent
            block.decorators.append(stripped)
            return None
        block.decorators = []
        if block.kind == "module" and (b"import" in stripped):
            for part in stripped.split(b";") if b";" in stripped else (stripped,):
                part = part.strip(b" \n\\")
                w = _WORD.match(part)
                if w is not None and w.group() in (b"import", b"from"):
                    self.imports(part, self.line_at(start), block.tc)
        return None

    def compound(self, block: _Block, word: bytes, stripped: bytes, offset: int, header: bool):
        """(kind of the body, its class outline) for a compound statement, recording classes
        and defs. Only the module (and its if/try/with blocks) and class bodies are read, as
        `module_facts` reads them."""
        in_class = block.kind == "class"
        if word == b"async":
            if _ASYNC_DEF.match(stripped):
                word = b"def"
            elif not _ASYNC_OTHER.match(stripped):
                raise _Bail("async")
        if word == b"class":
            m = _CLASS.match(stripped)
            if m is None or m.group(2) == b"[":
                raise _Bail("class header")
            name = m.group(1).decode()
            node = {"name": name, "line": self.line_at(offset), "bases": self.bases(stripped, offset, m), "methods": {}, "nested": {}}
            (block.node["nested"] if in_class else self.out["classes"])[name] = node
            return "class", node
        if word == b"def":
            m = _DEF.match(stripped)
            if m is None or m.group(2) == b"[":
                raise _Bail("def header")
            name = m.group(1).decode()
            table = block.node["methods"] if in_class else self.out["functions"]
            if self.spans is not None and in_class and self.out["classes"].get(block.node["name"]) is block.node:
                key = (block.node["name"], name)
                if key in self.spans or name in table or block.decorators and any(b"overload" in d for d in block.decorators):
                    self.spans[key] = None  # its facts depend on the other defs of the name
                self._pending = (block.node["name"], name, block.deco_at if block.decorators else offset)
            if name in table and any(_setter(d) for d in block.decorators):
                return "opaque", None  # _place keeps the property's getter
            table[name] = {"name": name, "line": self.line_at(offset)}
            return "opaque", None
        if in_class or word not in _TRANSPARENT:
            return "opaque", None  # class_facts reads no nested block; module_facts no for/while/match
        if word == b"else" and block.prev in (b"for", b"while", b"async"):
            return "opaque", None  # the else of a loop
        if not header:
            raise _Bail("one-line block at module level")
        return "module", None

    def bases(self, stripped: bytes, offset: int, m: re.Match) -> list:
        if m.group(2) != b"(":
            return []
        i = m.end()  # just past "("
        depth, j, args, arg_start = 0, i, [], i
        while j < len(stripped):
            c = stripped[j]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                if depth == 0:
                    args.append((arg_start, j))
                    break
                depth -= 1
            elif c == 0x2C and depth == 0:  # ,
                args.append((arg_start, j))
                arg_start = j + 1
            j += 1
        else:
            raise _Bail("class header")
        out = []
        for a, b in args:
            seg = stripped[a:b]
            lead = len(seg) - len(seg.lstrip(b" \n\\"))
            seg2 = seg.strip(b" \n\\")
            if not seg2:
                continue  # a trailing comma
            if seg2.startswith(b"**"):
                continue
            if seg2.startswith(b"("):
                raise _Bail("parenthesised base")
            if _KEYWORD.match(seg2):
                continue  # a keyword (metaclass=..., total=False)
            s = offset + a + lead
            out.append(self.source_of(s, s + len(seg2)))
        return out

    def source_of(self, start: int, end: int) -> str:
        """The base's text exactly as `SourceText.of` gives it for the node at these offsets."""
        src = self.source
        if src.find(b"\n", start, end) < 0:  # one line (nearly every base): that line's slice
            return src[start:end].decode("utf-8", "replace")
        if self._src_text is None:
            self._src_text = SourceText(src)
        lineno = src.count(b"\n", 0, start) + 1
        end_lineno = lineno + src.count(b"\n", start, end)
        col = start - (src.rfind(b"\n", 0, start) + 1)
        end_col = end - (src.rfind(b"\n", 0, end) + 1)
        return self._src_text.of(_Pos(lineno, end_lineno, col, end_col))

    def imports(self, stmt: bytes, line: int, tc: bool) -> None:
        imports = self.out["imports"]
        stmt = stmt.replace(b"\\\n", b"  ")
        if stmt.startswith(b"from") and self.plain_from(stmt, line, tc):
            return
        m = _FROM.fullmatch(stmt) if stmt.startswith(b"from") else None
        if m is not None:
            level = m.group(1).count(b".")
            mod = (m.group(2) or b"").translate(None, b" \n")
            if mod and not _DOTTED.fullmatch(mod):
                raise _Bail("import")
            names = m.group(3).strip(b" \n")
            if names.startswith(b"("):
                if not names.endswith(b")"):
                    raise _Bail("import")
                names = names[1:-1]
            base = _resolve(self.package, level, mod.decode() or None)
            if names.strip() == b"*":
                imports.setdefault("*", []).append(_entry(base, line, tc))
                return
            for alias in _aliases(names, allow_dots=False):
                name, asname = alias
                imports[asname or name] = _entry(base + "." + name if base else name, line, tc)
            return
        m = _IMPORT.fullmatch(stmt)
        if m is None:
            raise _Bail("import")
        for name, asname in _aliases(m.group(1), allow_dots=True):
            local, target = (asname, name) if asname else (name.partition(".")[0],) * 2
            imports[local] = _entry(target, line, tc)


    def plain_from(self, stmt: bytes, line: int, tc: bool) -> bool:
        """`from a.b import c, d` on one line, without aliases or parentheses (nine in ten of
        a model file's imports), read without the general pattern; False: not that form."""
        m = _PLAIN_FROM.fullmatch(stmt)
        if m is None:
            return False
        mod = m.group(2) or b""
        if mod and not _DOTTED.fullmatch(mod):
            return False
        names = [x.strip(b" ") for x in m.group(3).split(b",")]
        if b"as" in names or b"import" in names:
            return False
        base = _resolve(self.package, len(m.group(1)), mod.decode() or None)
        imports = self.out["imports"]
        for name in names:
            name = name.decode()
            imports[name] = _entry(base + "." + name if base else name, line, tc)
        return True


def _entry(target: str, line: int, tc: bool) -> dict:
    return {"target": target, "line": line, "type_checking": True} if tc else {"target": target, "line": line}


def _setter(decorator: bytes) -> bool:
    """`decorator_name(d).endswith((".setter", ".deleter"))` for a decorator line; a
    parenthesised one is not read."""
    if b"setter" not in decorator and b"deleter" not in decorator:
        return False
    if _SETTER.fullmatch(decorator.rstrip(b" \n\\")) is None:
        raise _Bail("decorator")
    return True


def _aliases(text: bytes, *, allow_dots: bool) -> list:
    out = []
    parts = [p.strip(b" \n") for p in text.split(b",")]
    if parts and not parts[-1]:
        parts.pop()  # a trailing comma (only legal in parentheses; the parser would say otherwise)
    for part in parts:
        m = _ALIAS.fullmatch(part)
        if m is None:
            raise _Bail("import")
        name = m.group(1).translate(None, b" \n\\")
        if not (_DOTTED if allow_dots else _WORD).fullmatch(name) or name in (b"as", b"import"):
            raise _Bail("import")
        out.append((name.decode(), m.group(2).decode() if m.group(2) else None))
    if not out:
        raise _Bail("import")
    return out


class _Pos:
    __slots__ = ("lineno", "end_lineno", "col_offset", "end_col_offset")

    def __init__(self, lineno, end_lineno, col, end_col):
        self.lineno, self.end_lineno, self.col_offset, self.end_col_offset = lineno, end_lineno, col, end_col


_TARGET_AFTER = rb"\s*[=:,)\]\\]"


# `may_bind`'s test for every name at once. The identifier is bounded by \b on both sides and the
# character after it consumed (it is never part of the next name): with a look-ahead after an open
# identifier, each failed match backtracked through every shorter prefix (0.76 -> 0.45 s over vLLM
# 0.26.0's 2,234 modules, the same sets).
_BINDABLE = re.compile(rb"\b([A-Za-z_]\w*)\b" + _TARGET_AFTER)


def bindable(text: bytes) -> frozenset:
    """Every name `may_bind(text, name)` is true of, in one pass: a host asked which modules
    define each of hundreds of names (probes/hostdemand.py) ran `may_bind` once per name and
    module, ~3 s for vllm-ascend."""
    return frozenset(m.decode("ascii") for m in _BINDABLE.findall(text))


def may_bind(text: bytes, name: str) -> bool:
    """Whether the masked text can assign `name` at all (a superset: a False is certain)."""
    return re.search(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])" + _TARGET_AFTER,
                     text) is not None
