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

from .srctext import relative_module

MAX_ALTERNATIVES = 8  # more version-gated ways in than this: not worth judging, left unmarked
# names computed at run time: a folder enumerated (`pkgutil.iter_modules`, a glob of `*.py`) or a module
# name built by formatting or concatenation; a name taken from a table of literal strings is not one (the
# strings are links themselves)
_DYNAMIC = re.compile(rb"iter_modules|walk_packages|[\"']\*\.py[\"']"
                      rb"|(?:import_module|__import__)\(\s*(?:[fF][\"']|[^)\n]*(?:\+|%|\.format\(|\.join\())")
_FROM_RELATIVE = re.compile(rb"from\s+(\.+)([\w.]*)\s+import\s+\(?([\w\s,\\]+)")
_MAIN = re.compile(rb"__name__\s*==\s*[\"']__main__[\"']")


def _absolute(top):
    t = re.escape(top.encode())
    return (re.compile(rb"\b" + t + rb"(?:[.:/][A-Za-z_]\w*)*"),
            re.compile(rb"from\s+(" + t + rb"[\w.]*)\s+import\s+\(?([\w\s,\\]+)"))


def _names(blob):
    out = []
    for part in re.split(rb"[\s,()\\]+", blob):
        if part and part != b"as" and re.match(rb"^[A-Za-z_]\w*$", part):
            out.append(part.decode())
    return out


def text_links(data, module, is_package):
    """{"links": [[dotted, None]], "dynamic": bool, "main": bool} of a file read as bytes only."""
    top = module.split(".")[0]
    mention, from_abs = _absolute(top)
    found = set()
    for m in mention.finditer(data):
        found.add(m.group(0).decode().replace(":", ".").replace("/", "."))
    for m in from_abs.finditer(data):
        base = m.group(1).decode()
        found.update(base + "." + n for n in _names(m.group(2)))
    for m in _FROM_RELATIVE.finditer(data):
        base = relative_module(module, is_package, len(m.group(1)), m.group(2).decode() or None)
        if base:
            found.add(base)
            found.update(base + "." + n for n in _names(m.group(3)))
    return {"links": [[d, None] for d in sorted(found)], "dynamic": bool(_DYNAMIC.search(data)),
            "main": bool(_MAIN.search(data))}


def parsed_links(own, text):
    """The same record for a file the usage scan parsed: `own` is [[dotted, guards or None]], every
    import of the package's own modules and every string naming one (`"pkg.mod.Cls"`,
    `"pkg.mod:Cls"`: a class vLLM or the package builds by name), with the version tests around it
    (usage's import visitor). An unguarded mention makes the guarded ones of that name moot."""
    free, gated = set(), {}
    for dotted, guards in own:
        if guards:
            gated.setdefault(dotted, {})[repr(guards)] = guards
        else:
            free.add(dotted)
    links = [[d, None] for d in sorted(free)]
    for d in sorted(gated):
        if d not in free:
            links.extend([d, g] for g in gated[d].values())
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    return {"links": links, "dynamic": bool(_DYNAMIC.search(data)), "main": bool(_MAIN.search(data))}


def _module_of(rel):
    name = rel[:-3].replace("/", ".") if rel.endswith(".py") else rel.replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


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


def package_reach(per_file, metadata_text=b""):
    """{module: {"unreferenced": True} | {"loaded_under": [[guard, ...], ...]}} for the modules of
    one package, from `per_file` {rel: links record}; `metadata_text`: the package's setup.py,
    setup.cfg, pyproject.toml and entry_points.txt bytes (an entry point is a root).

    Roots are the modules users or vLLM may load without the package naming them: its top
    `__init__`, modules run as scripts, modules its metadata names, and every module nothing in
    the package names (`unreferenced`: whether that is a root or dead code is drift's call, from
    what the module is). A module reached from the roots only through imports under version tests
    gets the tests of each way in (`loaded_under`)."""
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
    named = set()
    if metadata_text:
        tops = {m.split(".")[0] for m in modules}
        for top in tops:
            for m in _absolute(top)[0].finditer(metadata_text):
                hit = _resolve(m.group(0).decode().replace(":", ".").replace("/", "."), modules)
                if hit:
                    named.add(hit)
    roots = set()
    out = {}
    for m, rel in modules.items():
        if "." not in m or per_file[rel].get("main") or m in named or rel.endswith("__main__.py"):
            roots.add(m)
        elif m not in referenced:
            roots.add(m)
            if not rel.endswith("__init__.py"):
                out[m] = {"unreferenced": True}
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
    return {modules[m]: mark for m, mark in out.items()}


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
