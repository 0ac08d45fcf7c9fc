"""probes/astwalk.py: the memoised walk lists exactly what ast.walk yields, once per node."""

import ast
import types

from drift.probes import usage
from drift.probes.astwalk import memoised, walk

SOURCE = '''
import vllm.config as cfg
class Runner(cfg.Base):
    x: int = 1
    def run(self, a, *b, k=2, **kw):
        def inner():
            return [i for i in range(3) if i]
        return inner() or cfg.make(a, k=k)
async def go():
    async with x as y:
        await y
    match y:
        case [1, *rest]:
            pass
'''


def test_memoised_walk_is_ast_walk_in_order():
    tree = ast.parse(SOURCE)
    every = list(ast.walk(tree))
    with memoised():
        for node in every:
            assert walk(node) == list(ast.walk(node))


def test_computed_once_inside_the_block_and_lazy_outside():
    tree = ast.parse(SOURCE)
    with memoised():
        first = walk(tree)
        assert walk(tree) is first
        with memoised():  # nested blocks share the outer memo
            assert walk(tree) is first
    assert isinstance(walk(tree), types.GeneratorType)  # plain ast.walk again: nothing held


def test_usage_facts_unchanged_by_the_memo():
    """The consumer extractor gives the same record memoised (as it runs) and with ast.walk."""
    memoed = usage.usage_facts(SOURCE, module="pkg.m", path="pkg/m.py", prefixes=["vllm"])
    real = usage.memoised
    try:
        usage.memoised = _no_memo
        plain = usage.usage_facts(SOURCE, module="pkg.m", path="pkg/m.py", prefixes=["vllm"])
    finally:
        usage.memoised = real
    assert memoed == plain
    assert memoed["subclasses"] and memoed["calls"]


class _no_memo:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


FLAGGED = '''
USE_NEW = False
if USE_NEW:
    from vllm.gone import Thing
else:
    from vllm.config import Thing
'''


def test_once_answers_a_tree_question_once_inside_the_block():
    """`once(fn, tree)`: the readers that each ask a module's switches get one answer, the same
    object, inside the block; outside it every ask computes again."""
    from drift.probes.astwalk import once
    from drift.probes.reach import flag_constants

    tree = ast.parse(FLAGGED)
    asked = []

    def count(node):
        asked.append(node)
        return {"n": len(asked)}

    with memoised():
        assert once(count, tree) is once(count, tree)
        assert flag_constants(tree) is flag_constants(tree)
        assert flag_constants(tree) == {"USE_NEW": False}
    assert len(asked) == 1
    assert once(count, tree) == {"n": 2} and flag_constants(tree) is not flag_constants(tree)


def test_usage_facts_with_a_switch_unchanged_by_the_memo():
    """The switch's branch guards are the same whether the three readers share its answer or not."""
    memoed = usage.usage_facts(FLAGGED, module="pkg.m", path="pkg/m.py", prefixes=["vllm"])
    real = usage.memoised
    try:
        usage.memoised = _no_memo
        plain = usage.usage_facts(FLAGGED, module="pkg.m", path="pkg/m.py", prefixes=["vllm"])
    finally:
        usage.memoised = real
    assert memoed == plain
    assert any(imp.get("guards") for imp in memoed["imports"])


def test_children_is_iter_child_nodes_in_order():
    from drift.probes.astwalk import children

    for node in ast.walk(ast.parse(SOURCE)):
        assert children(node) == list(ast.iter_child_nodes(node))


REBINDS = '''
def f(args, n):
    args = narrow(args)
    total = 0
    for i in range(n):
        total = total + i
    total = total * 2
    return run(**args), total
def g(x):
    y = x + 1
    return y
def h(x):
    x = x + 1
    k = lambda: x
    return k
'''


def _versions_walked(body, local, params):
    """rebinding.versions without its early return: every statement walked."""
    from drift.probes import rebinding

    keep = set(local) - rebinding._closure_names(body)
    bound, current, out = set(params), {}, {}
    for st in body:
        target = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 \
            and isinstance(st.targets[0], ast.Name) and st.targets[0].id in keep else None
        for n in rebinding._inline(st):
            if isinstance(n, ast.Name) and n is not target and current.get(n.id):
                out[id(n)] = current[n.id]
        if target is not None:
            if target.id in bound:
                current[target.id] = current.get(target.id, 0) + 1
                out[id(target)] = current[target.id]
            elif current.get(target.id):
                out[id(target)] = current[target.id]
        for n in rebinding._inline(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                bound.add(n.id)
    return out


def test_rebinding_versions_same_with_its_shortcuts():
    """The early return (no top-level rebinding of a local) and the one walk per statement give
    the versions the plain walk gives, inside the memo and out."""
    from drift.probes.rebinding import versions

    tree = ast.parse(REBINDS)
    got = {}
    for fn in tree.body:
        local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        params = {a.arg for a in fn.args.args}
        want = _versions_walked(fn.body, local, params)
        assert versions(fn.body, local, params) == want
        with memoised():
            assert versions(fn.body, local, params) == want
        got[fn.name] = sorted(want.values())
    assert got == {"f": [1, 1, 1, 1], "g": [], "h": []}  # f: args and total rebound; h: x read by a lambda
