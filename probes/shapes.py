"""What kind of plain Python value an argument expression builds (stdlib, 3.9+).

A target can change what a parameter or dataclass field holds without changing its name: vLLM
0.11.1 turned `ModelRunnerOutput.sampled_token_ids` from `list[list[int]]` into
`list[np.ndarray]` and its scheduler now calls `.tolist()` on each entry. A consumer that still
passes nested Python lists is only visible from the value it passes, so the probe records, per
argument, whether the value is provably *a non-empty list of plain Python values* (nested
lists, tuples, numbers, strings, a tensor's or array's `.tolist()`). Anything it cannot prove
(a name of unknown origin, `[]`, `list(x)`, `[np.asarray(r) for r in rows]`) is not recorded.
"""

import ast

LIST_OF_BUILTIN = "list[builtin]"
NUMBER = "number"  # a Python int or float, never a tensor or array

# calls whose result is a plain Python value whatever their argument
_BUILTIN_CALLS = frozenset({"list", "tuple", "dict", "set", "frozenset", "int", "float", "str", "bool", "bytes",
                            "sorted", "len", "sum", "min", "max", "abs", "round", "range"})
_CONTAINERS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.JoinedStr)


def _is_tolist(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" \
        and not node.args and not node.keywords


def plain_value(node, lists=frozenset()):
    """True when `node` certainly evaluates to a builtin Python value (never an array or tensor).
    `lists` are local names known to hold a list of plain values."""
    t = type(node)
    if t is ast.Constant:
        return node.value is not None
    if t in _CONTAINERS:
        return True
    if t is ast.UnaryOp and isinstance(node.operand, ast.Constant):
        return True
    if t is ast.Name:
        return node.id in lists
    if t is ast.Call:
        return _is_tolist(node) or (isinstance(node.func, ast.Name) and node.func.id in _BUILTIN_CALLS)
    return False


def list_shape(node, lists=frozenset()):
    """LIST_OF_BUILTIN when `node` builds a list that holds at least one element and whose
    elements are all plain Python values; None otherwise."""
    if node is None:
        return None
    t = type(node)
    if t is ast.List:
        if node.elts and all(type(e) is not ast.Starred and plain_value(e, lists) for e in node.elts):
            return LIST_OF_BUILTIN
        return None
    if t is ast.ListComp:
        return LIST_OF_BUILTIN if plain_value(node.elt, lists) else None
    if _is_tolist(node):
        return LIST_OF_BUILTIN
    if t is ast.Name and node.id in lists:
        return LIST_OF_BUILTIN
    return None


LIST = "list"  # a Python list of any elements (`[BaseModelPath(...) for ...]`)


def any_list_shape(node, any_lists=frozenset()):
    """LIST when `node` certainly evaluates to a Python list, whatever its elements (a literal, a
    comprehension, a local bound to one); None otherwise. A list is no object of any other
    class: a parameter the target now declares as one class gets none of its members."""
    t = type(node)
    if t in (ast.List, ast.ListComp) or (t is ast.Name and node.id in any_lists):
        return LIST
    return None


_NUMBER_CALLS = frozenset({"int", "float", "len", "round", "abs"})


def number_shape(node):
    """NUMBER when `node` certainly evaluates to a Python int or float: a numeric literal (signed),
    `float(x)` / `int(x)` / `len(x)` / `round(x)` / `abs(<literal>)`, or arithmetic of such; None
    otherwise (a name of unknown origin may hold a tensor)."""
    t = type(node)
    if t is ast.Constant:
        return NUMBER if type(node.value) in (int, float) else None
    if t is ast.UnaryOp and isinstance(node.op, (ast.USub, ast.UAdd)):
        return number_shape(node.operand)
    if t is ast.BinOp and not isinstance(node.op, ast.MatMult):
        return NUMBER if number_shape(node.left) and number_shape(node.right) else None
    if t is ast.Call and isinstance(node.func, ast.Name) and node.func.id in _NUMBER_CALLS and len(node.args) == 1 \
            and not node.keywords:
        return NUMBER if node.func.id != "abs" or number_shape(node.args[0]) else None
    return None
