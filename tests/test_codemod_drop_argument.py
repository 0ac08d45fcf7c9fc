"""drop_argument: positional arguments at a deleted parameter's position leave the call, in its
own layout, once (the positional count guards idempotence)."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod


def _twice(src: str, args: dict, line: int = 1) -> str:
    new, out = run_codemod(src, "drop_argument", line=line, args=args)
    assert out.status == "applied", out.reason
    again, out2 = run_codemod(new, "drop_argument", line=line, args=args)
    assert again == new and out2.status == "already", out2
    compile(new, "m.py", "exec")
    return new


def test_a_middle_argument_on_one_line():
    src = "async def f(app, args):\n    await init_state(client, config, app.state, args)\n"
    assert _twice(src, {"callee": "init_state", "positions": [1], "count": 4}, line=2) == \
        "async def f(app, args):\n    await init_state(client, app.state, args)\n"


def test_one_argument_per_line_keeps_the_others_comments():
    src = "x = build(\n    a,  # first\n    b,  # gone\n    c,\n    key=1,\n)\n"
    assert _twice(src, {"callee": "build", "positions": [1], "count": 3}) == \
        "x = build(\n    a,  # first\n    c,\n    key=1,\n)\n"


def test_the_last_and_two_arguments():
    assert _twice("x = m.f(a, b)\n", {"callee": "f", "positions": [1], "count": 2}) == "x = m.f(a)\n"
    assert _twice("x = f(a, b, c, d)\n", {"callee": "f", "positions": [0, 2], "count": 4}) == "x = f(b, d)\n"


def test_another_count_or_a_star_call_is_not_touched():
    for src in ("x = f(a, b, c, d, e)\n", "x = f(*rest)\n"):
        new, out = run_codemod(src, "drop_argument", line=1, args={"callee": "f", "positions": [1], "count": 4})
        assert new == src and out.status == "not_found"
    new, out = run_codemod("x = g(a, b)\n", "drop_argument", line=1, args={"callee": "f", "positions": [1], "count": 2})
    assert out.status == "not_found"
