"""unpack_rest: `a, b = f()` -> `a, b, *_ = f()` where f's tuple grew at its end; loops and
comprehensions too; a second run changes nothing; another call at the line is not touched."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

SRC = """\
def poll(pool, mgr):
    for job, ok in pool.get_finished():  # drained
        print(job, ok)
    blocks, hit = mgr.find_longest_cache_hit(ids, 4)
    done = [j for j, ok in pool.get_finished() if ok]
    x, y = other()
"""


def test_loop_target_gains_a_star_and_a_second_run_is_a_no_op():
    args = {"callee": "get_finished", "names": 2}
    new, out = run_codemod(SRC, "unpack_rest", line=2, args=args)
    assert out.status == "applied"
    assert new.splitlines()[1] == "    for job, ok, *_ in pool.get_finished():  # drained"
    assert new.splitlines()[4] == SRC.splitlines()[4]  # the comprehension's line is another site
    again, out2 = run_codemod(new, "unpack_rest", line=2, args=args)
    assert again == new and out2.status == "already"


def test_assignment_and_comprehension_targets():
    new, out = run_codemod(SRC, "unpack_rest", line=4, args={"callee": "find_longest_cache_hit", "names": 2})
    assert out.status == "applied" and new.splitlines()[3] == "    blocks, hit, *_ = mgr.find_longest_cache_hit(ids, 4)"
    new, out = run_codemod(SRC, "unpack_rest", line=5, args={"callee": "get_finished", "names": 2})
    assert out.status == "applied" and new.splitlines()[4] == "    done = [j for j, ok, *_ in pool.get_finished() if ok]"


def test_another_callee_or_another_count_is_not_found():
    _, out = run_codemod(SRC, "unpack_rest", line=6, args={"callee": "get_finished", "names": 2})
    assert out.status == "not_found"
    _, out = run_codemod(SRC, "unpack_rest", line=4, args={"callee": "find_longest_cache_hit", "names": 3})
    assert out.status == "not_found"
