"""The argparse options a target's parser builders register, and the consumer's reads of the
Namespace such a parser returns (stdlib only, Python 3.9+).

Target side (`parser_facts`, a function's `behaviour["cli"]`): a function that fills a parser --
vLLM's `make_arg_parser(parser)`, `EngineArgs.add_cli_args(parser)` -- records
- `dests`: the dest of each `add_argument` whose flags are literals (`"--max-model-len"` ->
  `max_model_len`; `dest=` wins), on the parser or on a group of it;
- `fields_of`: the classes whose fields a loop turns into options (`for k, v in
  get_kwargs(FrontendArgs).items(): group.add_argument(f"--{k}", **v)`, `for f in fields(C)`);
- `open`: true when an `add_argument` outside such a loop computes its flags (`add_argument(*flags)`):
  the builder registers options no fact names, so none can be said to be gone from it;
- `builders`: the source text of each call handed the parser (`AsyncEngineArgs.add_cli_args(parser)`,
  `super().add_cli_args(parser)`), whose options are the parser's too.

Consumer side (`namespaces`): in each function (and at module level), a parser the consumer
builds or receives and hands to a target builder (`make_arg_parser(parser)`), the Namespace its
`parse_args()` / `parse_known_args()[0]` returns, every `args.<name>` read of it, the consumer's
own `add_argument` dests on that parser, and the functions of the module the Namespace is passed
to (their reads of that parameter are reads of it too).
"""

import ast

_PARSER_CTORS = ("ArgumentParser",)  # FlexibleArgumentParser, argparse.ArgumentParser
_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
_FIELD_SOURCES = frozenset({"get_kwargs", "fields"})


def _name(func):
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and parts:
        return "super()." + ".".join(reversed(parts))
    return None


def dest_of(call):
    """The dest an `add_argument(...)` call registers, or None when its flags are not literals."""
    for k in call.keywords:
        if k.arg == "dest":
            return k.value.value if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) else None
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not flags or len(flags) != len(call.args):
        return None
    longs = [f for f in flags if f.startswith("--")]
    flag = longs[0] if longs else flags[0]
    dest = flag.lstrip("-").replace("-", "_")
    return dest if dest.isidentifier() else None


def _parser_names(fn, params, walk=ast.walk):
    """Names that hold a parser or one of its groups in `fn`: parameters named or annotated as a
    parser, names bound to an `*ArgumentParser(...)`, to a group of a parser, or to what a call
    handed a parser returns (`parser = EngineArgs.add_cli_args(parser)`)."""
    names = set()
    for a in params:
        ann = ast.unparse(a.annotation) if a.annotation is not None and hasattr(ast, "unparse") else ""
        if "ArgumentParser" in ann or a.arg in ("parser", "subparser"):
            names.add(a.arg)
    for _ in range(2):  # a group of a parser bound after it
        for node in walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call):
                call, func = node.value, node.value.func
                callee = _name(func) or ""
                if callee.endswith(_PARSER_CTORS) \
                        or (callee in _GROUPS and isinstance(func, ast.Attribute) and _dotted(func.value) in names) \
                        or any(isinstance(a, ast.Name) and a.id in names for a in call.args):
                    names.add(node.targets[0].id)
    return names


def parser_facts(fn):
    """`behaviour["cli"]` of a function that fills a parser (see the module's docstring), or None."""
    args = fn.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    if "add_argument" not in {_name(n.func) for n in ast.walk(fn) if isinstance(n, ast.Call)} \
            and not any(a.arg in ("parser", "subparser") for a in params):
        return None  # neither adds options nor takes a parser to hand on
    names = _parser_names(fn, params)
    dests, fields_of, builders = [], [], []
    looped = set()
    held = _field_sources_held(fn)
    for node in ast.walk(fn):
        if isinstance(node, ast.For):
            sources = [_dotted(c.args[0]) for c in ast.walk(node.iter) if _field_source(c)]
            sources += [held[n.id] for n in ast.walk(node.iter) if isinstance(n, ast.Name) and n.id in held]
            adds = [c for c in ast.walk(node) if isinstance(c, ast.Call) and _name(c.func) == "add_argument"
                    and dest_of(c) is None]
            if sources and adds:
                fields_of += sources
                looped.update(id(c) for c in adds)
            listed = _listed_flags(node, adds)
            if listed is not None:
                dests += [d for d in listed if d not in dests]
                looped.update(id(c) for c in adds)
        if not isinstance(node, ast.Call):
            continue
        if _name(node.func) == "add_argument" and isinstance(node.func, ast.Attribute) \
                and _dotted(node.func.value) in names:
            dest = dest_of(node)
            if dest and dest not in dests:
                dests.append(dest)
        elif any(isinstance(a, ast.Name) and a.id in names for a in node.args) and _dotted(node.func):
            text = _dotted(node.func)
            if _name(node.func) not in _GROUPS and text not in builders:
                builders.append(text)
    # an option whose dest is computed outside a fields loop (`add_argument(*flags, **kw)`,
    # `for k, v in table.items(): add_argument(k, ...)`): this builder registers options drift
    # cannot name, so no option can be said to be gone from it
    opened = any(isinstance(n, ast.Call) and _name(n.func) == "add_argument" and id(n) not in looped
                 and dest_of(n) is None for n in ast.walk(fn))
    if not (dests or fields_of or builders or opened):
        return None
    out = {"dests": dests, "fields_of": sorted(set(fields_of)), "builders": builders}
    if opened:
        out["open"] = True
    return out


def _listed_flags(loop, adds):
    """The dests of a loop over a literal list of flags that adds each one (`for arg, type in
    [("--guided-decoding-backend", str), ...]: group.add_argument(arg, type=type)`), or None when the
    loop is not that shape."""
    target = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) and loop.target.elts else loop.target
    if not (adds and isinstance(target, ast.Name) and isinstance(loop.iter, (ast.List, ast.Tuple))):
        return None
    if not all(c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == target.id for c in adds):
        return None
    flags = []
    for elt in loop.iter.elts:
        first = elt.elts[0] if isinstance(elt, ast.Tuple) and elt.elts else elt
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return None
        flags.append(first.value)
    dests = [f.lstrip("-").replace("-", "_") for f in flags]
    return dests if all(d.isidentifier() for d in dests) else None


def _field_source(node):
    """Whether `node` is `get_kwargs(C)` / `fields(C)`: the options a loop over it adds are C's fields."""
    return isinstance(node, ast.Call) and _name(node.func) in _FIELD_SOURCES and len(node.args) == 1 \
        and _dotted(node.args[0]) is not None


def _field_sources_held(fn):
    """Locals bound to a fields source (`frontend_kwargs = get_kwargs(FrontendArgs)`, then
    `for key, value in frontend_kwargs.items(): group.add_argument(f"--{key}", **value)`): name ->
    the class's dotted text."""
    held = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _field_source(node.value):
            held[node.targets[0].id] = _dotted(node.value.args[0])
    return held


def _walk_scope(scope):
    """The nodes of one scope: a function's (or the module's) own code, not its nested defs or
    classes, whose names are their own."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _namespace_names(fn, parsers):
    """Names bound to what a parser's `parse_args()` / `parse_known_args()[0]` returns."""
    out = set()
    for node in _walk_scope(fn):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        value, target = node.value, node.targets[0]
        index0 = isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == 0
        call = value.value if index0 else value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and _dotted(call.func.value) in parsers):
            continue
        if len(call.args) > 1 or any(k.arg == "namespace" for k in call.keywords):
            continue  # parsed into the consumer's own Namespace: it may hold what the parser does not set
        if call.func.attr == "parse_args" and isinstance(target, ast.Name):
            out.add(target.id)
        elif call.func.attr == "parse_known_args":
            if index0 and isinstance(target, ast.Name):
                out.add(target.id)
            elif isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
                out.add(target.elts[0].id)
    return out


def _filled_freely(nodes, name):
    """Whether the scope sets attributes of `name` by computed names (`setattr(args, k, v)`,
    `args.__dict__.update(...)`, `vars(args).update(...)`): then any read may be one of those."""
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        if _name(n.func) == "setattr" and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == name \
                and not (len(n.args) > 1 and isinstance(n.args[1], ast.Constant)):
            return True
        if _name(n.func) == "update" and isinstance(n.func, ast.Attribute):
            owner = n.func.value
            if isinstance(owner, ast.Attribute) and owner.attr == "__dict__" and isinstance(owner.value, ast.Name) \
                    and owner.value.id == name:
                return True
            if isinstance(owner, ast.Call) and _name(owner.func) == "vars" and owner.args \
                    and isinstance(owner.args[0], ast.Name) and owner.args[0].id == name:
                return True
    return False


def _reads(fn, name):
    """[line, col, attr] of each `name.attr` read in `fn` (a store or a hasattr test is no read),
    and of `getattr(name, "attr")` without a default; none when the scope fills `name` freely."""
    nodes = list(_walk_scope(fn))
    if _filled_freely(nodes, name):
        return []
    tested = {n.args[1].value for n in nodes if isinstance(n, ast.Call)  # hasattr, or getattr with a default
              and ((_name(n.func) == "hasattr" and len(n.args) == 2) or (_name(n.func) == "getattr" and len(n.args) == 3))
              and isinstance(n.args[0], ast.Name) and n.args[0].id == name and isinstance(n.args[1], ast.Constant)}
    stored = {n.attr for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
              and isinstance(n.value, ast.Name) and n.value.id == name}
    reads = [[n.lineno, n.col_offset, n.attr] for n in nodes
             if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
             and n.value.id == name and n.attr not in tested and n.attr not in stored]
    reads += [[n.lineno, n.col_offset, n.args[1].value] for n in nodes
              if isinstance(n, ast.Call) and _name(n.func) == "getattr" and len(n.args) == 2 and not n.keywords
              and isinstance(n.args[0], ast.Name) and n.args[0].id == name and isinstance(n.args[1], ast.Constant)
              and isinstance(n.args[1].value, str) and n.args[1].value not in stored]
    return reads


def _scopes(tree):
    """(qualname, node) of the module and every function in it."""
    out = [("", tree)]

    def walk(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + node.name, node))
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


def _namespace_param(a):
    ann = a.annotation
    text = (ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name)
            else ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else "")
    return text.rsplit(".", 1)[-1] == "Namespace" or (ann is None and a.arg in ("args", "cli_args", "parsed_args"))


def namespace_params(tree):
    """`{qualname: [[position, name, reads]]}` for each function of the module with a parameter
    annotated `Namespace` (or an unannotated `args`): where a Namespace another module parses and
    hands over is read (`reads` as `_reads`; position counts `self`). A method that stores the
    parameter on the instance (`self.args = args`) hands it to every method of its class: their
    `self.args.<name>` reads are reads of it too."""
    out = {}
    classes = _class_methods(tree)
    for qual, fn in _scopes(tree)[1:]:
        params = fn.args.posonlyargs + fn.args.args
        owner = classes.get(qual.rsplit(".", 1)[0]) if "." in qual else None
        rows = []
        for i, a in enumerate(params + fn.args.kwonlyargs):
            if _namespace_param(a):
                reads = _reads(fn, a.arg)
                if owner is not None and params and params[0].arg == "self":
                    for name in _self_fields_of(fn, a.arg):
                        reads += _field_reads(owner, name)
                if reads:
                    rows.append([i if i < len(params) else -1, a.arg, reads])
        if rows:
            out[qual] = rows
    return out


def _class_methods(tree):
    """qualname of each class -> its methods (`def`s directly in its body)."""
    out = {}

    def walk(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                out[prefix + node.name] = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
                walk(node.body, prefix + node.name + ".")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


def _self_fields_of(fn, name):
    """The fields of `self` a method stores `name` in (`self.args = args`)."""
    return sorted({t.attr for n in _walk_scope(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                   and n.value.id == name for t in n.targets if isinstance(t, ast.Attribute)
                   and isinstance(t.value, ast.Name) and t.value.id == "self"})


def _is_self_field(node, field):
    return isinstance(node, ast.Attribute) and node.attr == field and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _field_reads(methods, field):
    """[line, col, attr] of each `self.<field>.attr` read in the class's methods, as `_reads` counts
    them (a store or a hasattr / defaulted getattr test of that attr anywhere in the class is no read;
    none when a method fills the field by computed names)."""
    nodes = [n for m in methods for n in ast.walk(m)]
    tested, stored = set(), set()
    for n in nodes:
        if isinstance(n, ast.Call) and n.args and _is_self_field(n.args[0], field):
            if _name(n.func) == "setattr" and not (len(n.args) > 1 and isinstance(n.args[1], ast.Constant)):
                return []  # filled by computed names: any read may be one of those
            if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) and \
                    ((_name(n.func) == "hasattr" and len(n.args) == 2) or (_name(n.func) in ("getattr", "setattr") and len(n.args) == 3)):
                tested.add(n.args[1].value)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) and _is_self_field(n.value, field):
            stored.add(n.attr)
    reads = [[n.lineno, n.col_offset, n.attr] for n in nodes if isinstance(n, ast.Attribute)
             and isinstance(n.ctx, ast.Load) and _is_self_field(n.value, field)
             and n.attr not in tested and n.attr not in stored]
    reads += [[n.lineno, n.col_offset, n.args[1].value] for n in nodes
              if isinstance(n, ast.Call) and _name(n.func) == "getattr" and len(n.args) == 2 and not n.keywords
              and _is_self_field(n.args[0], field) and isinstance(n.args[1], ast.Constant)
              and isinstance(n.args[1].value, str) and n.args[1].value not in stored]
    return reads


def parser_params(tree, bindings):
    """`{qualname: [[position, [builder]]]}` for each function of the module that hands a parser
    parameter to the target's builders (`def add_options(parser): return make_arg_parser(parser)`):
    a module that calls it with its parser has that parser filled by those builders."""
    out = {}
    for qual, fn in _scopes(tree)[1:]:
        params = fn.args.posonlyargs + fn.args.args
        rows = []
        for i, a in enumerate(params):
            if a.arg in ("self", "cls"):
                continue
            names = _parser_names(fn, [a], _walk_scope)
            if a.arg not in names:
                continue
            builders = _target_builders(fn, names, bindings)
            if builders:
                rows.append([i, builders])
        if rows:
            out[qual] = rows
    return out


def _target_builders(fn, parsers, bindings):
    """The target's functions `fn` hands one of `parsers` to (dotted, as the module imported them)."""
    out = []
    for c in _walk_scope(fn):
        if not isinstance(c, ast.Call) or not any(isinstance(a, ast.Name) and a.id in parsers for a in c.args):
            continue
        text = _dotted(c.func)
        head, _, rest = (text or "").partition(".")
        if head in bindings:
            dotted = bindings[head] + ("." + rest if rest else "")
            if dotted not in out:
                out.append(dotted)
    return sorted(out)


def _global_users(tree, name):
    """Functions of the module that read the module-level `name` (no parameter or local of theirs
    shadows it): a Namespace parsed at import time and read by the module's functions."""
    out = []
    for qual, fn in _scopes(tree)[1:]:
        a = fn.args
        if name in {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | \
                {p.arg for p in (a.vararg, a.kwarg) if p is not None}:
            continue
        nodes = list(_walk_scope(fn))
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in nodes) \
                and not any(isinstance(n, ast.Global) and name in n.names for n in nodes):
            continue
        if any(isinstance(n, ast.Name) and n.id == name for n in nodes):
            out.append((qual, fn))
    return out


def namespaces(tree, bindings, own_names=None):
    """The module's Namespaces of target-filled parsers (see the module's docstring):
    `[{"builders": [dotted], "via": [[dotted, position]], "own": [dest], "reads": [[line, col, attr]],
    "handed": [[dotted, position, keyword]]}]`. `bindings` maps a local name to the target path it
    imports; `via` names the package's own functions (other modules) the parser is handed to, whose
    `parser_params` there say which target builders fill it. A Namespace parsed at module level is
    also read (and handed on) by the module's functions that use it as a global."""
    own_names = own_names or {}
    defs = {qual.rsplit(".", 1)[-1]: (qual, node) for qual, node in _scopes(tree)[1:]}
    out = []
    for qual, fn in _scopes(tree):
        body_calls = [n for n in _walk_scope(fn) if isinstance(n, ast.Call)]
        if not any(_name(c.func) in ("parse_args", "parse_known_args") for c in body_calls):
            continue
        params = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if qual else []
        parsers = _parser_names(fn, params, _walk_scope)
        builders, own, via = [], [], []
        for c in body_calls:
            text = _dotted(c.func)
            if not text or not any(isinstance(a, ast.Name) and a.id in parsers for a in c.args):
                if _name(c.func) == "add_argument" and isinstance(c.func, ast.Attribute) \
                        and _dotted(c.func.value) in parsers and dest_of(c):
                    own.append(dest_of(c))
                continue
            head, _, rest = text.partition(".")
            if head in bindings:
                builders.append(bindings[head] + ("." + rest if rest else ""))
                continue
            far = _far_callee(c.func, own_names)
            if far:  # a helper of another module of the package that may hand it to the target's builders
                via += [[far, i] for i, a in enumerate(c.args) if isinstance(a, ast.Name) and a.id in parsers]
        if not builders and not via:
            continue
        for ns in _namespace_names(fn, parsers):
            scopes = [(qual, fn)] + (_global_users(tree, ns) if not qual else [])
            reads, handed = [], []
            for _, scope in scopes:
                got = _namespace_uses(scope, ns, defs, own_names)
                reads += got[0]
                handed += got[1]
                own += got[2]
            rec = {"builders": sorted(set(builders)), "own": sorted(set(own)), "reads": sorted(reads)}
            if via:
                rec["via"] = via
            if handed:
                rec["handed"] = handed
            out.append(rec)
    return out


def _namespace_uses(fn, ns, defs, own_names):
    """(reads, handed, stored) of the Namespace `ns` in the scope `fn`: its reads there and in the
    module's functions it is passed to, the functions of other modules of the package it is handed
    to ([dotted, position, keyword]), and the attributes the scope sets on it (its own, not the
    parser's)."""
    body_calls = [n for n in _walk_scope(fn) if isinstance(n, ast.Call)]
    passed, handed = [], []
    for c in body_calls:
        callee = defs.get(_name(c.func) or "")
        if callee is None:
            far = _far_callee(c.func, own_names)
            if far:  # a function of another module of the package: its reads are looked up there
                handed += [[far, i, None] for i, a in enumerate(c.args) if isinstance(a, ast.Name) and a.id == ns]
                handed += [[far, None, k.arg] for k in c.keywords
                           if k.arg and isinstance(k.value, ast.Name) and k.value.id == ns]
            continue
        cparams = callee[1].args.posonlyargs + callee[1].args.args
        skip = 1 if cparams and cparams[0].arg in ("self", "cls") and isinstance(c.func, ast.Attribute) else 0
        for i, a in enumerate(c.args):
            if isinstance(a, ast.Name) and a.id == ns and i + skip < len(cparams):
                passed.append([callee[1], cparams[i + skip].arg])
        for k in c.keywords:
            if isinstance(k.value, ast.Name) and k.value.id == ns and k.arg:
                passed.append([callee[1], k.arg])
    reads = _reads(fn, ns)
    for node, param in passed:
        reads += _reads(node, param)
    stored = sorted({n.attr for n in _walk_scope(fn) if isinstance(n, ast.Attribute)
                     and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == ns})
    return reads, handed, stored


def _far_callee(func, own_names):
    """The dotted name of a function the module imported from its own package (`from .serve import
    run`), or None."""
    if isinstance(func, ast.Name):
        hit = own_names.get(func.id)
        return hit[0][4:] if hit and isinstance(hit[0], str) and hit[0].startswith("sym:") else None
    return None


def _unconditional_adds(scope, parsers):
    """`add_argument` calls on one of `parsers` that run whenever the scope does: not under an
    `if`, `try`, loop or `with` of the scope (a consumer that adds an option only when the
    target lacks it has already met the conflict)."""
    stack = [(n, False) for n in ast.iter_child_nodes(scope)]
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and _name(node.func) == "add_argument" and isinstance(node.func, ast.Attribute) \
                and _dotted(node.func.value) in parsers and not guarded:
            yield node
        inner = guarded or isinstance(node, (ast.If, ast.Try, ast.For, ast.AsyncFor, ast.While, ast.With,
                                             ast.AsyncWith, ast.IfExp)) and not _is_main_block(node)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _is_main_block(node):
    """`if __name__ == "__main__":`: a script's own body, which runs whenever the script does (its
    `else`, never present in practice, is treated as the body too)."""
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__" \
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__"


def _resolves_conflicts(scope):
    """Whether the scope builds its parser with `conflict_handler="resolve"` (a later option wins)."""
    return any(isinstance(n, ast.Call) and (_name(n.func) or "").endswith(_PARSER_CTORS)
               and any(k.arg == "conflict_handler" for k in n.keywords) for n in _walk_scope(scope))


def own_options(tree, bindings, own_names=None):
    """`[{"builders": [dotted], "options": [[flag, line, col]], "via": [[dotted, position]]}]`:
    per scope, the long option flags the consumer itself adds (literally, unconditionally) to a
    parser it also hands to a target builder (`AsyncEngineArgs.add_cli_args(parser)`), or to a
    helper of another module of the package (`via`, whose `parser_params` there name the builders:
    KServe's `maybe_add_vllm_cli_parser(parser)`). argparse refuses a flag registered twice on one
    parser, so a flag the target's builders now register too is a conflict."""
    out = []
    for qual, fn in _scopes(tree):
        params = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if qual else []
        parsers = _parser_names(fn, params, _walk_scope)
        if not parsers or _resolves_conflicts(fn):
            continue
        builders = _target_builders(fn, parsers, bindings)
        via = []
        for c in _walk_scope(fn):
            far = _far_callee(c.func, own_names or {}) if isinstance(c, ast.Call) else None
            if far:
                via += [[far, i] for i, a in enumerate(c.args) if isinstance(a, ast.Name) and a.id in parsers]
        if not builders and not via:
            continue
        options = []
        for call in _unconditional_adds(fn, parsers):
            for a in call.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                    options.append([a.value, a.lineno, a.col_offset])
        if options:
            rec = {"builders": builders, "options": sorted(options, key=lambda o: (o[1], o[2]))}
            if via:
                rec["via"] = via
            out.append(rec)
    return out
