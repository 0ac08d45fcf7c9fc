"""Which modules of the consumer's own package each module names, and under which version test
(stdlib, Python 3.9+).

Why: a finding in a module that never loads on the target is not a break the user meets. A
platform plugin keeps copies of vLLM modules that nothing imports any more (a model runner at
vLLM's own path, left behind after the plugin switched to vLLM's runner), and a framework keeps
a subpackage per vLLM release that it imports only under `if vllm_version == X`. drift cannot see
that from the modules that use vLLM alone: the importer may not mention vLLM at all. So every
file of the package gives its links here, cheaply (a regular expression over the bytes of a file
the usage scan does not parse; the tree, with the version branches, of one it parses), and
`package_reach` turns them into two marks per module record: `unreferenced` (nothing in the
package names it) and `loaded_under` (it loads only through imports under version tests).

Over-approximation is the safe side: any mention counts as a link (a comment too, in an unparsed
file), and a file that imports modules by computed names (`pkgutil.iter_modules`,
`import_module(f"...")`) links to every module of its own package folder.
"""

import re

from .locate import consumer_module as module_name
from .srctext import relative_module

MAX_ALTERNATIVES = 8  # more version-gated ways in than this: not worth judging, left unmarked
# names computed at run time: a folder enumerated (`pkgutil.iter_modules`, a glob of `*.py`) or a module
# name built by formatting or concatenation; a name taken from a table of literal strings is not one (the
# strings are links themselves)
_DYNAMIC = re.compile(rb"iter_modules|walk_packages|[\"']\*\.py[\"']"
                      rb"|(?:import_module|__import__)\(\s*(?:[fF][\"']|[^)\n]*(?:\+|%|\.format\(|\.join\())")
# the imported names: a parenthesized list may span lines, a bare one ends with its line (a backslash continues it)
_IMPORTED = rb"(\([\w\s,\\]+|(?:[\w \t,]|\\\n)+)"
_FROM_RELATIVE = re.compile(rb"from\s+(\.+)([\w.]*)\s+import\s+" + _IMPORTED)
_MAIN = re.compile(rb"__name__\s*==\s*[\"']__main__[\"']")


def _absolute(top):
    t = re.escape(top.encode())
    return (re.compile(rb"\b" + t + rb"(?:[.:/][A-Za-z_]\w*)*"),
            re.compile(rb"from\s+(" + t + rb"[\w.]*)\s+import\s+" + _IMPORTED))


def _names(blob):
    out = []
    for part in re.split(rb"[\s,()\\]+", blob):
        if part and part != b"as" and re.match(rb"^[A-Za-z_]\w*$", part):
            out.append(part.decode())
    return out


# an import statement a maintainer commented out (`# from . import jit_monitor`): the module was switched off
_COMMENTED_IMPORT = re.compile(rb"(?m)^[ \t]*#+[ \t]*((?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+[^\n]*)$")


def _commented(data, module, is_package):
    """(the dotted modules commented-out import statements of the file name, the file's bytes with
    those lines blanked): a commented-out import is no link, but a record of one that was removed."""
    out = set()
    for m in _COMMENTED_IMPORT.finditer(data):
        stmt = m.group(1)
        rel = _FROM_RELATIVE.match(stmt)
        if rel:
            base = relative_module(module, is_package, len(rel.group(1)), rel.group(2).decode() or None)
            if base:
                out.update(base + "." + n for n in _names(rel.group(3)))
                out.add(base)
            continue
        for word in re.findall(rb"[A-Za-z_][\w.]*", stmt):
            if word not in (b"from", b"import", b"as"):
                out.add(word.decode())
    blanked = _COMMENTED_IMPORT.sub(lambda m: b" " * (m.end() - m.start()), data) if out else data
    return sorted(out), blanked


def text_links(data, module, is_package):
    """{"links": [[dotted, None]], "bases": [...], "dynamic": bool, "main": bool} of a file read as
    bytes only. `bases`: modules named only as the source of a `from M import a, b` (the file takes
    those names from M, not M whole: a class of M it does not list stays unnamed by it).
    `commented`: what commented-out import statements name (no link)."""
    commented, data = _commented(data, module, is_package)
    top = module.split(".")[0]
    mention, from_abs = _absolute(top)
    found, bases, starts = set(), set(), set()
    for m in from_abs.finditer(data):
        base = m.group(1).decode()
        bases.add(base)
        starts.add(m.start(1))
        found.add(base)
        found.update(base + "." + n for n in _names(m.group(2)))
    whole = set()
    for m in mention.finditer(data):
        dotted = m.group(0).decode().replace(":", ".").replace("/", ".")
        found.add(dotted)
        if m.start() not in starts:
            whole.add(dotted)
    for m in _FROM_RELATIVE.finditer(data):
        base = relative_module(module, is_package, len(m.group(1)), m.group(2).decode() or None)
        if base:
            found.add(base)
            bases.add(base)
            found.update(base + "." + n for n in _names(m.group(3)))
    out = {"links": [[d, None] for d in sorted(found)], "bases": sorted(bases - whole),
           "dynamic": bool(_DYNAMIC.search(data)), "main": bool(_MAIN.search(data))}
    if commented:
        out["commented"] = commented
    return out


def parsed_links(own, text, module=None, is_package=False):
    """The same record for a file the usage scan parsed: `own` is [[dotted, guards or None(,
    "from")]], every import of the package's own modules and every string naming one
    (`"pkg.mod.Cls"`, `"pkg.mod:Cls"`: a class vLLM or the package builds by name), with the version
    tests around it (usage's import visitor); "from" marks the source of a `from M import a`. An
    unguarded mention makes the guarded ones of that name moot."""
    free, gated, bases, whole = set(), {}, set(), set()
    strings, imported = {}, set()  # dotted -> lines of the strings naming it / named by an import statement
    for entry in own:
        dotted, guards = entry[0], entry[1]
        (bases if entry[2:] == ["from"] else whole).add(dotted)
        if entry[2:3] == ["string"] and len(entry) > 3 and type(entry[3]) is int:
            strings.setdefault(dotted, []).append(entry[3])
        else:
            imported.add(dotted)
        if guards:
            gated.setdefault(dotted, {})[repr(guards)] = guards
        else:
            free.add(dotted)
    links = [[d, None] for d in sorted(free)]
    for d in sorted(gated):
        if d not in free:
            links.extend([d, g] for g in gated[d].values())
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    out = {"links": links, "bases": sorted(bases - whole), "dynamic": bool(_DYNAMIC.search(data)),
           "main": bool(_MAIN.search(data))}
    if module is not None and b"#" in data:
        commented = _commented(data, module, is_package)[0]
        if commented:
            out["commented"] = commented
    # modules only a string names here (a class path handed to a registry), and where (`named_at`); present,
    # if empty, on every parsed file: a file read as text alone has no such key, and its mentions are not exact
    out["strings"] = {d: sorted(set(lines))[:MAX_NAMED_AT] for d, lines in strings.items() if d not in imported}
    return out


def lone_classes(tree, text):
    """[[name, first line, last line]] of the module's undecorated top-level classes whose name the
    module's text holds once (the `class` line itself): nothing here builds, subclasses, lists or
    names them."""
    classes = [n for n in tree.body if n.__class__.__name__ == "ClassDef" and not n.decorator_list]  # a decorator
    # may register the class where it is defined (`@register_quantization_config("x")`)
    if not classes:
        return []
    counts = {}
    for word in _WORD.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return [[c.name, c.lineno, getattr(c, "end_lineno", c.lineno)] for c in classes if counts.get(c.name) == 1]


_WORD = re.compile(r"[A-Za-z_]\w*")
_PLAIN_DECORATORS = ("staticmethod", "classmethod")


def private_methods(tree):
    """[[name, qualname, first line, last line]] of the private methods (`_name`, not dunder) of
    the module's top-level classes, undecorated or plain static/class methods (a decorator may
    register the method where it is defined): what only the package's own code calls."""
    out = []
    for cls in tree.body:
        if cls.__class__.__name__ != "ClassDef":
            continue
        for fn in cls.body:
            if fn.__class__.__name__ not in ("FunctionDef", "AsyncFunctionDef"):
                continue
            name = fn.name
            if not name.startswith("_") or name.startswith("__") or any(
                    getattr(d, "id", None) not in _PLAIN_DECORATORS for d in fn.decorator_list):
                continue
            out.append([name, "%s.%s" % (cls.name, name), fn.lineno, getattr(fn, "end_lineno", fn.lineno)])
    return out


_COMMENT = re.compile(rb"#[^\n]*")
_WORD_BYTES = re.compile(rb"[A-Za-z_]\w*")
_CALLED_WORD = re.compile(rb"\.([A-Za-z_]\w*)\s*\(")  # `self._m(` in a comment: a call disabled


def unnamed_methods(methods, texts):
    """{rel: [[qualname, first, last], ...]} of the private methods (`methods`: {rel: usage's
    `private_methods`}) whose one call the package commented out: its code writes the name
    nowhere but at its `def` (no call, no `self._m` handed on, no string naming it), and a comment
    holds a call of it (`# out = self._m(x)`). A method nothing ever named may still be an entry
    point for code outside the package; one whose call was disabled is dead. A name two classes
    define is written twice, so neither is taken for unnamed. `texts`: every file's bytes."""
    wanted = {m[0] for found in methods.values() for m in found}
    if not wanted:
        return {}
    counts = dict.fromkeys(wanted, 0)
    counts_b = dict.fromkeys((w.encode("utf-8") for w in wanted if w.isascii()), 0)
    disabled = set()
    for data in texts:
        for comment in _COMMENT.findall(data):
            for m in _CALLED_WORD.finditer(comment):
                w = m.group(1).decode("ascii", "replace")
                if w in counts:
                    disabled.add(w)
        for word in _WORD_BYTES.findall(_COMMENT.sub(b"", data)):
            if word in counts_b:  # bytes compared as read: no word is decoded
                counts_b[word] += 1
    for word, n in counts_b.items():
        counts[word.decode("ascii", "replace")] = n
    out = {}
    for rel, found in methods.items():
        lone = [[qual, first, last] for name, qual, first, last in found
                if counts.get(name) == 1 and name in disabled]
        if lone:
            out[rel] = lone
    return out


def _module_of(rel):
    return module_name(rel) if rel.endswith(".py") else rel.replace("/", ".")


def _resolve(dotted, modules):
    """The module a dotted name loads: its longest prefix that is a module of the package."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        cand = ".".join(parts[:i])
        if cand in modules:
            return cand
    return None


def _with_parents(name, modules):
    """Importing `a.b.c` runs `a` and `a.b` first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in modules]


def package_reach(per_file, metadata_text=b"", lone=None):
    """{module: {"unreferenced": True} | {"loaded_under": [[guard, ...], ...]}} for the modules of
    one package, from `per_file` {rel: links record}; `metadata_text`: the package's setup.py,
    setup.cfg, pyproject.toml and entry_points.txt bytes (an entry point is a root).

    Roots are the modules users or vLLM may load without the package naming them: its top
    `__init__`, modules run as scripts, modules its metadata names, and every module nothing in
    the package names (`unreferenced`, marked only in a package loaded through plugin entry points:
    whether that is a root or dead code is drift's call, from what the module is). A module reached from the roots only through imports under version tests
    gets the tests of each way in (`loaded_under`). `lone`: {rel: usage's `lone_classes`}; those no
    other file takes by name, in a module no file takes whole, are `unnamed_classes`."""
    modules = {_module_of(rel): rel for rel in per_file}
    edges = {m: [] for m in modules}  # module -> [(target module, guards or None)]
    for rel, rec in per_file.items():
        src = _module_of(rel)
        if rec.get("dynamic"):
            folder = src if rel.endswith("__init__.py") else src.rpartition(".")[0]
            edges[src].extend((m, None) for m in modules if m.startswith(folder + ".") and m != src)
        for dotted, guards in rec.get("links") or ():
            hit = _resolve(dotted, modules)
            if hit is not None and hit != src:
                edges[src].extend((p, guards) for p in _with_parents(hit, modules) if p != src)
    referenced = {t for src, out in edges.items() for t, _ in out if t != src}
    taken, whole = _names_taken(per_file, modules)
    named = set()
    if metadata_text:
        tops = {m.split(".")[0] for m in modules}
        for top in tops:
            for m in _absolute(top)[0].finditer(metadata_text):
                hit = _resolve(m.group(0).decode().replace(":", ".").replace("/", "."), modules)
                if hit:
                    named.add(hit)
    plugin = declares_plugin_entry_points(metadata_text)
    roots = set()
    out = {}
    for m, rel in modules.items():
        if "." not in m or per_file[rel].get("main") or m in named or rel.endswith("__main__.py"):
            roots.add(m)
        elif m not in referenced:
            roots.add(m)
            if plugin and not rel.endswith("__init__.py"):
                out[m] = {"unreferenced": True}
                off = sorted(r for r, rec in per_file.items() if m in (rec.get("commented") or ()))
                if off:  # its import was commented out there: switched off, not a module users import
                    out[m]["commented_out"] = off[:MAX_NAMED_AT]
    free = _closure(roots, edges, modules, guarded=False)
    entries = {}  # (target, guards as text) -> guards: a version-gated way from a freely loaded module
    for src in free:
        for t, guards in edges[src]:
            if guards and t not in free:
                entries.setdefault((t, repr(guards)), (t, guards))
    ways = {}
    for t, guards in entries.values():
        for m in _closure({t}, edges, modules, guarded=True, outside=free):
            ways.setdefault(m, {})[repr(guards)] = guards
    for m, alternatives in ways.items():
        if len(alternatives) <= MAX_ALTERNATIVES and m not in out:
            out[m] = {"loaded_under": list(alternatives.values())}
    for m, places in _named_only_by_strings(per_file, modules, roots).items():
        if m not in out:
            out[m] = {"named_at": places}
    for rel, classes in (lone or {}).items():
        m = _module_of(rel)
        if plugin and m in modules and m not in whole:
            unnamed = [c for c in classes if c[0] not in taken.get(m, ())]
            if unnamed:
                out.setdefault(m, {})["unnamed_classes"] = unnamed
    return {modules[m]: mark for m, mark in out.items()}


MAX_NAMED_AT = 8  # string mentions of one module kept per file (a registry names a class path once or twice)


def _named_only_by_strings(per_file, modules, roots):
    """{module: [[rel, line], ...]} for the modules no file imports and every mention of which is a
    string whose line drift knows (`"pkg.backends.tree.TreeBackend"` handed to a registry): the
    module loads only if that string is used, so a call that fails around it keeps it unloaded
    (drift/analysis/unloaded.py). A file read by text alone names no lines: its mentions count as
    imports, and the module gets no mark."""
    places, imported = {}, set()
    for rel, rec in per_file.items():
        strings = rec.get("strings") or {}
        if "strings" not in rec:  # read as text: `from pkg.sub import a, b` may import any module just below pkg.sub
            for base in rec.get("bases") or ():
                imported.update(m for m in modules if m.startswith(base + ".") and "." not in m[len(base) + 1:])
        for dotted, _guards in rec.get("links") or ():
            hit = _resolve(dotted, modules)
            if hit is None or hit == _module_of(rel):
                continue
            if dotted in strings:  # a module path, or a class path naming the module that holds the class
                places.setdefault(hit, []).extend([rel, line] for line in strings[dotted])
            else:
                imported.update(_with_parents(hit, modules))
        if rec.get("dynamic"):
            return {}  # modules enumerated at run time: any may load
    return {m: sorted(p) for m, p in places.items()
            if m not in imported and m not in roots and len(p) <= MAX_NAMED_AT}


# an entry-point group declared in setup.py (`"group": [...]` in its entry_points dict), setup.cfg (`[options.entry_points]`
# then `group =`), pyproject.toml (`[project.entry-points."group"]`) or an installed entry_points.txt (`[group]`)
_GROUPS = re.compile(rb"[\"']([\w\-]+(?:\.[\w\-]+)+)[\"']\s*:\s*\[|entry-points\.[\"']?([\w.\-]+)"
                     rb"|^\[([\w.\-]+)\]\s*$|^([\w.\-]+)\s*=\s*\n\s+\w", re.M)
_SCRIPTS = {b"console_scripts", b"gui_scripts", b"options.entry_points", b"options", b"metadata", b"build-system",
            b"project", b"tool"}


def declares_plugin_entry_points(metadata_text):
    """Whether the package declares entry points a host application loads it through (any group
    but console and GUI scripts: `vllm.platform_plugins`, `vllm.general_plugins`, ...). Such a package
    runs from those roots, so a module nothing reaches from them is not one a user imports; a
    library (no such group) is imported by its users, module by module."""
    for m in _GROUPS.finditer(metadata_text or b""):
        group = next(g for g in m.groups() if g)
        if b"." in group and group not in _SCRIPTS \
                and not group.startswith((b"tool.", b"project.", b"options.", b"coverage.")):
            return True
    return False


def _names_taken(per_file, modules):
    """({module: names other files take from it}, {modules some file takes whole}): `from M import
    C` and `"M.C"` take C; `import M`, `from P import M`, `from M import *`, a string naming M, and a
    folder enumerated at run time take M whole (any of its names may be read)."""
    named, whole = {}, set()
    for rel, rec in per_file.items():
        src = _module_of(rel)
        if rec.get("dynamic"):
            folder = src if rel.endswith("__init__.py") else src.rpartition(".")[0]
            whole.update(m for m in modules if m.startswith(folder + "."))
        bases = set(rec.get("bases") or ())
        for dotted, _guards in rec.get("links") or ():
            hit = _resolve(dotted, modules)
            if hit is None or hit == src:
                continue
            if hit == dotted:
                if dotted not in bases:
                    whole.add(hit)
            else:
                named.setdefault(hit, set()).add(dotted[len(hit) + 1:].split(".")[0])
    return named, whole


def _closure(start, edges, modules, guarded, outside=frozenset()):
    seen = set()
    stack = [m for m in start if m not in outside]
    while stack:
        m = stack.pop()
        if m in seen:
            continue
        seen.add(m)
        stack.extend(p for p in _with_parents(m, modules) if p not in seen and p not in outside)
        for t, guards in edges.get(m, ()):
            if (guarded or not guards) and t not in seen and t not in outside:
                stack.append(t)
    return seen
