"""Which target modules a consumer reaches, found on the host before anything is parsed there.

A cold `drift scan` used to parse all of vLLM on the host (1,359 modules, ~1.6 s) although a
check reads a few hundred. drift's own resolver (drift/model/index.py) runs on drift's side, after the
reply, so the host approximates what it will read, from the consumer's usage alone:

- every target name the usage mentions, resolved the way `PackageIndex.lookup` does: module
  prefixes, re-exports (imports, star imports, submodules), base classes transitively, plus the
  names a reached class or function mentions (annotations, `self.x = Cls(...)`) one hop deep,
  since the path resolver types instances from them (`TYPE_HOPS`);
- the modules the text search of drift's needles finds for the names the consumer uses
  (methods it overrides, patches or calls, attributes it reads or sets): `def name`,
  `name(` and the bare word, the same patterns `drift.model.index` builds (the tests compare them),
  answered here and sent with the reply so drift's queries need no sources. The names are the
  ones the rules search for: overridden methods of every class linked to the target through
  bases, generic parameters or decorators, also via the consumer's own classes (DRIFT070's call
  sites), the consumer's packages (DRIFT074), the classes it patches or parameterises
  (DRIFT076), each part of a dotted name that did not resolve (`definitions_named`), dunders too;
- for those parts and the rule packs' words, the modules that *define* the name (`defines`),
  answered exactly here from outlines (probes/hostdemand.py), not the hundreds holding the word.

The identifier index the searches read is built in a forked child beside the closure
(probes/background.py); a package reached for the most part is sent whole (`WHOLE_SHARE`).

What this misses (searches built from the target's own facts, such as DRIFT075's receiver
reads), drift collects over one run of its rules and asks for in one more exchange
(drift/pipeline/scan.py); it only costs time.
Stdlib only, Python 3.9.
"""

import io
import re
import tokenize
import unicodedata

from . import background

# The text patterns of drift's searches, defined once here (the host runs them) and used by
# drift.model.index to build its Needles: an identifier, what may stand between a callee and its `(`,
# and what stands before a defined name.
ID = r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])"
CALL_AFTER = r"(?:[\s)\\]|#[^\n]*\n)*\("
DEF_BEFORE = r"(?<![A-Za-z0-9_])def(?:[\s\\])+"
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PARSE_HITS = 60  # a needle matching more modules is answered, its modules parsed only if asked
# Names mentioned by a reached class/function are followed this far. Two hops parsed 256 of
# vLLM 0.16.0's modules for speculators, 54 of them only for the second hop; with one, the
# check still needs no follow-up there, and every corpus consumer has the same exchanges and
# findings (benchmarks/corpus_demand.py); with none, lmcache and kvcached need one more each.
TYPE_HOPS = 1
# When the modules reached and searched are this share of the package, the rest is parsed too
# and the package goes back whole (probes/hostdemand.py): vllm-omni, vllm-ascend and
# arctic-inference reach 60-70 % of vLLM 0.16.0, and parsing that in rounds, then what the
# check still lacked in a follow-up, with the collecting run it needs, made their cold scans
# 1.2-2x slower than the whole-package probe's.
WHOLE_SHARE = 0.5
MAX_NEEDLES = 12000  # needles answered at most (a huge consumer: the rest is asked later)


def word(name):
    """drift.model.index.word: `name` as an identifier."""
    return (name, ID % re.escape(name))


def call_of(name):
    """drift.model.index.call_of: a call of `name` or `x.name`."""
    return (name, ID % re.escape(name) + CALL_AFTER)


def def_of(name):
    """drift.model.index.def_of: `def name`, however spaced."""
    return (name, DEF_BEFORE + ID % re.escape(name))


DEFINES_MARK = "(?#defines)"  # a regex no-op: tells this needle from `word` by its pattern text


def defines(name):
    """drift.model.index.defines: the modules that define `name` at their top (a class, a function
    or an assigned name: what `PackageIndex.definitions_named` reads). As a pattern it is the
    word (a superset); a host answers it exactly (probes/hostdemand.py `_Tree.defining`), so
    a name as common as `layers` (word in 508 of vLLM 0.16.0's modules) names the few modules
    that define it, and drift reads those instead of asking for all 508."""
    return (name, ID % re.escape(name) + DEFINES_MARK)


def is_defines(needle):
    return needle[1] == defines(needle[0])[1]


def search_text(src):
    """The text a needle is run on: a non-ASCII module NFKC-normalised, as the parser reads
    identifiers (drift.model.demand reads module text through this too)."""
    if src.isascii():
        return src
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(src).readline)
        return unicodedata.normalize("NFKC", src.decode(encoding, "replace")).encode("utf-8", "replace") + b"\n" + src
    except (SyntaxError, LookupError, UnicodeError, ValueError, TypeError):  # `# coding: undefined` included
        return src


_BOUNDARY = "(?<![A-Za-z0-9_])"
_WORDCHAR = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _compiled(pattern):
    """`pattern` without its leading look-behind (checked by hand at each match start), so the
    regex engine scans for the literal that follows at memchr speed; a leading look-behind
    makes it try every position (10x slower over vLLM)."""
    if pattern.startswith(_BOUNDARY):
        return re.compile(pattern[len(_BOUNDARY):].encode("utf-8", "surrogateescape")), True
    return re.compile(pattern.encode("utf-8", "surrogateescape")), False


def matches(compiled, text):
    """Whether the needle's full pattern (look-behind included) matches somewhere in `text`."""
    rx, bounded = compiled
    pos = 0
    while True:
        m = rx.search(text, pos)
        if m is None:
            return False
        at = m.start()
        if not bounded or at == 0 or text[at - 1] not in _WORDCHAR:
            return True
        pos = at + 1  # as the look-behind would: the next start, not the end of this match


# every byte that cannot be part of an identifier as a space: a text's whole identifiers are then
# exactly its `split()` (the pattern's `[A-Za-z0-9_]` is ASCII; a non-ASCII byte bounds like a space)
_WORDS_ONLY = bytes(c if c in _WORDCHAR else 0x20 for c in range(256))
TOKEN_INDEX_AT = 16  # needles from which one identifier index beats a scan of the sources each


class Tokens(dict):
    """identifier -> names holding it as a whole word; `only`: the identifiers asked (None: all)."""

    __slots__ = ("only", "defs")


def token_index(texts, order, wanted=None):
    """identifier -> names of `order` (in that order) whose text holds it as a whole word, for
    the identifiers in `wanted` (every identifier when None).

    Why: a big consumer asks ~1,000 needles; finding each literal by a scan of every module
    was ~15 ms a literal over vLLM 0.26's 45 MB (14.7 s for arctic_inference's 930 literals).
    One pass instead: each text with every non-identifier byte made a space (`translate`, C
    speed) and split, so a token is a whole word (bounded by non-identifier bytes or the
    ends, as `word` bounds it), then a literal is a lookup. vLLM 0.16.0 (20 MB, 1,359
    modules): 0.14-0.19 s against 0.38-0.6 s for a `findall` of identifiers and a dict entry
    for every distinct one."""
    out = Tokens()
    out.only = None if wanted is None else frozenset(wanted)
    out.defs = {}
    if wanted is not None:
        for tok in out.only:
            out[tok] = []
        pick = out.only.intersection
    for name in order:
        text = texts.get(name)
        if text is None:
            continue
        words = text.translate(_WORDS_ONLY).split()
        for tok in pick(words) if wanted is not None else set(words):
            if wanted is None:
                out.setdefault(tok, []).append(name)
            else:
                out[tok].append(name)
    return out


def _bounded(needle):
    """Whether every match of `needle` holds its literal as a whole identifier (so the token
    index finds every module it can match): true of `word`, `call_of` and `def_of`, whose
    patterns bound the literal by non-identifier characters on both sides; a needle drift built
    otherwise is searched by scanning. "word" when the needle is `word` itself: then the token
    index's modules are its answer (a whole word is all `word` asks)."""
    lit = needle[0]
    if not _IDENT.match(lit):
        return False
    if needle[1] in (word(lit)[1], defines(lit)[1]):
        return "word"
    return needle[1] in (call_of(lit)[1], def_of(lit)[1])


_DEF_NAMES = re.compile(rb"def[\s\\]+(?=([A-Za-z_][A-Za-z0-9_]*))")  # the word after every `def`


def _def_names(tokens, name, text):
    """The words right after a `def` and blanks or backslashes in `text`, bounded or not (a
    superset of what `def_of` can match: a `def_of(x)` match is always one of them), kept per
    module on `tokens`. Why: a `def_of` needle's candidates (modules holding the word) are
    hundreds for a name like `tokenizer`, and its pattern begins with `def`, so each scan
    tries every `def` of the module; one `findall` per module then rules most of them out."""
    got = tokens.defs.get(name)
    if got is None:
        got = tokens.defs[name] = frozenset(_DEF_NAMES.findall(text))
    return got


def bounded_literals(needles):
    """The literals of the needles the token index answers (`token_index`'s `wanted`)."""
    return {n[0].encode("utf-8", "surrogateescape") for n in needles if _bounded(n)}


def answer(needle, texts, order, holding=None, tokens=None):
    """Names of `order` whose text matches `needle` (literal first: memmem speed).

    `holding` (optional dict) keeps, per literal, the modules whose text contains it: the
    needles of one name share it. `tokens` (`token_index` of the same texts and order) gives
    the candidates of a bounded needle without scanning; the pattern still decides, except
    for `word`, whose candidates are its answer (a `def_of` needle's are first narrowed to
    the modules that define the word somewhere: `_def_names`)."""
    literal = needle[0].encode("utf-8", "surrogateescape")
    names = None
    if tokens is not None and (tokens.only is None or literal in tokens.only):
        kind = _bounded(needle)
        if kind:
            names = tokens.get(literal, [])
            if kind == "word":
                return list(names)
            if needle[1] == def_of(needle[0])[1]:
                names = [name for name in names if literal in _def_names(tokens, name, texts[name])]
    if names is None:
        names = holding.get(literal) if holding is not None else None
    if names is None:
        names = [n for n in order if n in texts and literal in texts[n]]
        if holding is not None:
            holding[literal] = names
    compiled = None
    out = []
    for name in names:
        text = texts[name]
        if compiled is None:
            compiled = _compiled(needle[1])
        if matches(compiled, text):
            out.append(name)
    return out


# -- what the usage names ---------------------------------------------------------------------

def _strings(value, out, depth=0):
    if isinstance(value, str):
        out.append(value)
    elif depth < 40 and isinstance(value, list):
        for v in value:
            _strings(v, out, depth + 1)
    elif depth < 40 and isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            _strings(v, out, depth + 1)


def _paths(value, out, depth=0):
    """Every symbolic path (a list whose first item is `kind:dotted`) with its `.attr` steps."""
    if depth > 40:
        return
    if isinstance(value, list):
        if value and isinstance(value[0], str) and ":" in value[0] and all(isinstance(v, str) for v in value):
            out.append(value)
        for v in value:
            _paths(v, out, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            _paths(v, out, depth + 1)


def usage_names(usage, prefixes):
    """What the consumer's usage blocks name: (dotted target names, attribute/method names on
    its paths, methods its classes define, names it patches, capitalised callees)."""
    strings, paths = [], []
    for use in usage:
        _strings(use, strings)
        _paths(use, paths)
    dotted, steps_seen = set(), set()
    heads = tuple(prefixes)
    for path in paths:
        steps = [path[0].split(":", 1)[1].split(":", 1)[0]]  # `arg:mod.fn:0:x` -> `mod.fn`
        for step in path[1:]:
            if not (step.startswith(".") and _IDENT.match(step[1:])):
                break
            steps.append(step[1:])
        for step in path[1:]:
            if step.startswith(".") and _IDENT.match(step[1:]):
                steps_seen.add(step[1:])
        joined = ".".join(s for s in steps if s)
        if joined.split(".")[0] in heads:
            dotted.add(joined)
    for s in set(strings):  # each distinct string once (vllm-omni: 258,735 strings, 11,566 distinct)
        if not any(h in s for h in heads):
            continue  # no dotted name of the target can be in it
        for m in _DOTTED.finditer(s):
            if m.group().split(".")[0] in heads:
                dotted.add(m.group())
    methods, patched, classes_named, packages = set(), set(), set(), set()
    own = {}  # consumer class dotted -> (method names, dotted names its bases/generic/decorators give)
    for use in usage:
        if not isinstance(use, dict):
            continue
        mod = use.get("module") if isinstance(use.get("module"), str) else ""
        if mod and mod.split(".")[0] not in heads:
            packages.add(mod.split(".")[0])  # DRIFT074 searches the target for the consumer's package
        classes = use.get("classes") if isinstance(use.get("classes"), dict) else {}
        for cname, cls in classes.items():
            if isinstance(cls, dict) and isinstance(cls.get("methods"), dict):
                names = {k for k in cls["methods"] if isinstance(k, str)}
                methods.update(names)
                refs = []
                for key in ("bases", "generic", "decorated_with"):
                    _strings(cls.get(key), refs)
                refs = [r.split(":", 1)[-1] for r in refs]
                own["%s.%s" % (mod, cname)] = (names, refs)
                # a class it subclasses, patches (`P(Patch[C])`) or decorates: DRIFT076's choices
                classes_named.update(r.rsplit(".", 1)[-1] for r in refs if r.split(".")[0] in heads)
        for p in use.get("patches") if isinstance(use.get("patches"), list) else ():
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                patched.add(p["name"])
                path = p.get("path") if isinstance(p.get("path"), list) else []
                if path and isinstance(path[0], str) and path[0].split(":", 1)[-1].split(".")[0] in heads:
                    steps = [path[0].split(":", 1)[-1].split(":", 1)[0]]
                    steps += [x[1:] for x in path[1:] if isinstance(x, str) and x.startswith(".")]
                    classes_named.add(".".join(steps).rsplit(".", 1)[-1])  # the patched object
    # inverse drift: methods of a class that reaches a target class through its bases, generic
    # parameters or decorators, directly or through the consumer's own classes
    linked = {d for d, (_n, refs) in own.items() if any(r.split(".")[0] in heads for r in refs)}
    grew = True
    while grew:
        grew = False
        for d, (_n, refs) in own.items():
            if d not in linked and any(r in linked for r in refs):
                linked.add(d)
                grew = True
    overrides = set().union(*[own[d][0] for d in linked]) if linked else set()
    callees = {d.rsplit(".", 1)[-1] for d in dotted}
    return dotted, {"steps": steps_seen, "methods": methods, "overrides": overrides, "patched": patched,
                    "callees": callees, "classes": {c for c in classes_named if c[:1].isupper()},
                    "packages": packages}


def needles_for(names, words=()):
    """The needles drift's rules ask for these names (drift/rules: definers and two-phase
    methods `def_of`, constructor and self calls `call_of`, call sites of overridden or patched
    methods `word`, rule packs' own words), as {pattern: needle}."""
    out = {}

    def add(needle):
        out[needle[1]] = needle

    for name in names["steps"] | names["overrides"] | names["patched"]:
        add(def_of(name))
    for name in names["callees"]:
        if name[:1].isupper():  # a class the consumer builds: the target's own constructor calls
            add(call_of(name))
    for name in names["overrides"] | names["patched"]:  # who calls what the consumer replaces
        add(call_of(name))
        add(word(name))
    for name in names.get("classes", ()) | names.get("packages", ()):  # DRIFT076's and DRIFT074's words
        add(word(name))
    for name in words:  # rule packs' words and the parts of names that did not resolve, which
        add(word(name))  # `definitions_named` is asked of (check/moves.py)
        add(defines(name))
    return {k: v for k, v in out.items() if _IDENT.match(v[0]) and len(v[0]) > 1}


# -- resolution, the way PackageIndex.lookup reads modules ------------------------------------

class Reach:
    """Modules a set of dotted names needs, found in rounds: each round parses its modules
    together (`parse(names) -> {name: facts}`), then follows what they say.

    `unresolved` (after `run`) is what drift may find missing and search the target for
    (`check/moves.py`: `definitions_named` of each part): a name none of whose routes leads
    to a definition. A star import is a route among others: `from .utils import *` beside
    `from .parallel_state import *` makes `pkg.get_pp_group` a candidate in both, and the
    one that does not define it is no miss when the other does (drift's lookup tries each
    star import in turn and stops at the one that defines it). Before, every failed star
    route counted: for speculators over vLLM 0.16.0, `divide`, `get_pp_group` and
    `get_tp_group` from `vllm.distributed`'s three star imports, whose word searches
    picked ~80 modules (2.8 MB, 40 % of what the host parsed) that the check never read."""

    def __init__(self, package, modules, parse):
        self.package = package
        self.modules = modules  # every module name of the package
        self.parse = parse
        self.facts = {}
        self._failed = set()  # names with no definition on any route of their own
        self._ok = set()  # names that are a definition (a module, class, function or assigned name)
        self._parents = {}  # name -> [(the name it is a route of, "import" | "sub" | "star" | "mention")]
        self._seeds = set()
        self.unresolved = set()

    def run(self, seeds):
        todo = [(d, TYPE_HOPS) for d in sorted(seeds)]
        self._seeds.update(seeds)
        seen = {}
        rounds = 0
        while todo and rounds < 40:
            rounds += 1
            want = set()
            for dotted, _hops in todo:
                for mod in self._prefixes(dotted):
                    if mod not in self.facts:
                        want.add(mod)
            if want:
                self.facts.update(self.parse(sorted(want)))
            nxt = []
            for dotted, hops in todo:
                if seen.get(dotted, -1) >= hops:
                    continue
                seen[dotted] = hops
                for child, child_hops, kind in self._step(dotted, hops):
                    self._parents.setdefault(child, []).append((dotted, kind))
                    nxt.append((child, child_hops))
            todo = nxt
        self.unresolved = self._misses()
        return self.facts

    def _misses(self):
        """The failed names drift can meet as misses: reached from a seed through routes that
        failed as a whole (a star route of a name another route defines is not one)."""
        ok, stack = set(self._ok), list(self._ok)
        while stack:  # a name whose route leads to a definition is one
            child = stack.pop()
            for parent, kind in self._parents.get(child, ()):
                if kind != "mention" and parent not in ok:
                    ok.add(parent)
                    stack.append(parent)
        children = {}
        for child, parents in self._parents.items():
            for parent, kind in parents:
                children.setdefault(parent, []).append((child, kind))
        relevant, stack = set(self._seeds), list(self._seeds)
        while stack:
            parent = stack.pop()
            for child, kind in children.get(parent, ()):
                if child in relevant or (kind == "star" and parent in ok):
                    continue
                relevant.add(child)
                stack.append(child)
        return self._failed & relevant

    def _prefixes(self, dotted):
        parts = dotted.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.modules]

    def _step(self, dotted, hops):
        """[(name, hops, how it is reached from `dotted`)] to follow next."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            mod_name = ".".join(parts[:cut])
            if mod_name not in self.modules:
                continue
            mod = self.facts.get(mod_name) or {}
            rest = parts[cut:]
            if not rest:
                self._ok.add(dotted)
                return []
            return self._in_module(dotted, mod_name, mod, rest, hops)
        self._failed.add(dotted)
        return []

    def _in_module(self, dotted, mod_name, mod, rest, hops):
        head, tail = rest[0], rest[1:]
        out = []
        classes = mod.get("classes") or {}
        functions = mod.get("functions") or {}
        imports = mod.get("imports") or {}
        if head in classes:
            self._ok.add(dotted)
            cls = classes[head]
            for base in cls.get("bases") or []:
                out.extend((d, TYPE_HOPS, "mention") for d in self._mentions(mod_name, mod, [base]))
            if hops > 0:
                out.extend((d, hops - 1, "mention") for d in self._mentions(mod_name, mod, _class_types(cls)))
            return out
        if head in functions:
            self._ok.add(dotted)
            if hops > 0:
                out.extend((d, hops - 1, "mention")
                           for d in self._mentions(mod_name, mod, _function_types(functions[head])))
            return out
        imp = imports.get(head)
        if isinstance(imp, dict) and isinstance(imp.get("target"), str):
            out.append((".".join([imp["target"]] + tail), hops, "import"))
        sub = mod_name + "." + head
        if sub in self.modules:
            out.append((".".join([sub] + tail), hops, "sub"))
        for star in imports.get("*") or []:
            if isinstance(star, dict) and isinstance(star.get("target"), str):
                out.append((".".join([star["target"]] + rest), hops, "star"))
        names = mod.get("names") or {}
        if head in names:
            self._ok.add(dotted)
            if hops > 0:
                out.extend((d, hops - 1, "mention") for d in self._mentions(mod_name, mod, _node_types(names[head])))
        if not out and head not in names:
            self._failed.add(".".join([mod_name] + rest))
        return out

    def _mentions(self, mod_name, mod, strings):
        """Target names the strings refer to, in the module's own terms (its imports, its
        own classes and functions)."""
        imports = mod.get("imports") or {}
        local = set(mod.get("classes") or {}) | set(mod.get("functions") or {})
        out = set()
        for s in strings:
            for m in _DOTTED.finditer(s):
                text = m.group()
                head, _, tail = text.partition(".")
                imp = imports.get(head)
                if isinstance(imp, dict) and isinstance(imp.get("target"), str):
                    target = imp["target"] + ("." + tail if tail else "")
                    if target.split(".")[0] == self.package:
                        out.add(target)
                elif head in local:
                    out.add(mod_name + "." + text)
                elif head == self.package:
                    out.add(text)
        return out


def _node_types(node):
    """The strings of a field, attribute or name that can name a type: annotation, value."""
    if not isinstance(node, dict):
        return []
    return [v for k in ("annotation", "value", "type", "default") for v in [node.get(k)] if isinstance(v, str)]


def _function_types(fn):
    """Parameter annotations, the return annotation and decorators: what the path resolver
    types a call's result or a parameter from (never the body's behaviour records)."""
    if not isinstance(fn, dict):
        return []
    out = [fn.get("returns")] + list(fn.get("decorators") or [])
    for p in fn.get("params") or []:
        if isinstance(p, dict):
            out.append(p.get("annotation"))
    return [s for s in out if isinstance(s, str)]


def _class_types(cls):
    """What a reached class's members are typed from: decorators, fields, class attributes,
    what `__init__` and other methods set on self, method signatures, nested classes' bases."""
    out = [d for d in cls.get("decorators") or [] if isinstance(d, str)]
    for f in cls.get("fields") or []:
        out.extend(_node_types(f))
    for table in ("attrs", "instance_attrs"):
        for node in (cls.get(table) or {}).values():
            out.extend(_node_types(node))
    for fn in (cls.get("methods") or {}).values():
        out.extend(_function_types(fn))
    for sub in (cls.get("nested") or {}).values():
        if isinstance(sub, dict):
            out.extend(b for b in sub.get("bases") or [] if isinstance(b, str))
    return out


def _plain_tokens(texts, order, wanted):
    """`token_index` as marshal writes it (a forked child sends it back)."""
    tokens = token_index(texts, order, wanted)
    return dict(tokens), sorted(tokens.only)


def _tokens_from(got):
    """The `Tokens` a child built (`_plain_tokens`)."""
    table, only = got
    out = Tokens(table)
    out.only, out.defs = frozenset(only), {}
    return out


def plan(package, usage, prefixes, modules, texts, parse, words=(), whole_share=WHOLE_SHARE, defining=None):
    """(facts of the modules reached, needle answers {pattern: [names]}, stats).

    `modules`: every module name of the package in order; `texts`: name -> search text;
    `parse(names)`: {name: facts}; `words`: extra names drift's rule packs search for;
    `defining`: `needs(name, candidates)` (the candidates a parse must rule in or out) and
    `defined(name, candidates)` (those that define it, once parsed): a `defines` needle's
    exact answer (probes/hostdemand.py); without it the needle is the word it is a superset of.
    The needles' hits and what the `defines` needles need are parsed in one batch. When
    what is reached and searched is `whole_share` of `modules` or more, every module is
    parsed (in the same batch as the search hits) and `stats["whole"]` is set."""
    dotted, names = usage_names(usage, prefixes)
    # the identifier index of what is known to be searched for, built beside the closure
    # (probes/background.py); the names of what the closure leaves unresolved are scanned for
    early = needles_for(names, sorted(set(words)))
    early_asked = sorted(early)[:MAX_NEEDLES]
    pending = (background.start(_plain_tokens, texts, modules, bounded_literals(early[k] for k in early_asked))
               if len(early_asked) >= TOKEN_INDEX_AT else None)
    try:
        reach = Reach(package, set(modules), parse)
        reach.run(dotted)
        reached = len(reach.facts)
        # "moved to": for a name gone from the target drift searches its definitions
        # (check/moves.py asks `definitions_named` of each name a missing dotted name is made of)
        extra_words = set(words) | {part for d in reach.unresolved for part in d.split(".")[1:]}
        needles = needles_for(names, sorted(extra_words))
        asked = sorted(needles)[:MAX_NEEDLES]
        tokens = None
        if len(asked) >= TOKEN_INDEX_AT:
            got = pending.result() if pending is not None else None
            tokens = (_tokens_from(got) if got is not None
                      else token_index(texts, modules, bounded_literals(needles[k] for k in asked)))
    finally:
        if pending is not None:
            pending.close()
    # A package reached for the most part is sent whole, with no answers: decided as soon as the
    # count says so (vllm-omni: after a third of its 3,257 needles, and before the `defines`
    # needles' ~850 outlines), not after every answer is computed and then dropped.
    enough = whole_share * len(modules) if whole_share is not None else None
    answers, hits, holding, defs = {}, set(), {}, {}
    whole = enough is not None and len(reach.facts) >= enough
    for key in asked if not whole else ():
        found = answer(needles[key], texts, modules, holding, tokens)
        if defining is not None and is_defines(needles[key]):
            defs[key] = found  # answered once what it needs is parsed, with the hits
            continue
        answers[key] = found
        if len(found) <= PARSE_HITS:
            hits.update(m for m in found if m not in reach.facts)
            if enough is not None and len(reach.facts) + len(hits) >= enough:
                whole = True
                break
    batch = set(hits)
    if not whole:
        for key, found in defs.items():  # each needs outlines of its candidates: stop once it is whole
            batch.update(m for m in defining.needs(needles[key][0], found) if m not in reach.facts)
            if enough is not None and len(reach.facts) + len(batch) >= enough:
                whole = True
                break
    if whole:
        batch = set(modules).difference(reach.facts)
    parsed = parse(sorted(batch)) if batch else {}
    if whole:
        stats = {"reached": reached, "searched": len(parsed), "needles": len(answers), "whole": True}
        reach.facts.update(parsed)
        return reach.facts, {}, stats  # the answers are not sent with a whole package
    for key, found in defs.items():
        found = answers[key] = defining.defined(needles[key][0], found)
        if len(found) <= PARSE_HITS:
            hits.update(found)
    answers = {k: answers[k] for k in asked}  # in the order asked
    hits = hits - set(reach.facts)  # sent: not what only ruled a module out
    reach.facts.update((n, parsed[n]) for n in sorted(hits) if n in parsed)
    stats = {"reached": reached, "searched": len(hits), "needles": len(answers)}
    return reach.facts, answers, stats
