"""rewrite_arguments: a call passing the baseline's positional arguments verbatim gets the
target's, in its own layout, once; the names the new arguments read must be bound as the target's
call has them (a local of the calling function, a module imported), or nothing is written."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

HEAD = "import itertools as it\n\n\ndef run(self, num_reqs):\n"


def _twice(src: str, args: dict, line: int) -> str:
    new, out = run_codemod(src, "rewrite_arguments", line=line, args=args)
    assert out.status == "applied", out.reason
    again, out2 = run_codemod(new, "rewrite_arguments", line=line, args=args)
    assert again == new and out2.status == "already", out2
    compile(new, "m.py", "exec")
    return new


def test_the_arguments_replaced_in_the_calls_own_layout():
    src = "def f(self):\n    n = (\n        self.kv.common(\n            req, len(self.running)))\n"
    args = {"callee": "common", "before": ["req", "len(self.running)"], "after": ["req.request_id"]}
    assert _twice(src, args, line=3) == "def f(self):\n    n = (\n        self.kv.common(\n            req.request_id))\n"


def test_an_appended_argument_follows_the_calls_alignment_and_keeps_keywords_after_it():
    src = HEAD + "    with self.dummy(self.cfg,\n                    sched):\n        pass\n"
    args = {"callee": "dummy", "before": ["self.cfg", "sched"], "after": ["self.cfg", "sched", "list(it.repeat(1, num_reqs))"],
            "names": {"it": "itertools", "num_reqs": ""}}
    assert _twice(src, args, line=5) == HEAD + (
        "    with self.dummy(self.cfg,\n                    sched,\n                    list(it.repeat(1, num_reqs))):\n        pass\n")
    src = HEAD + "    self.dummy(self.cfg, sched, flag=True)\n"
    assert _twice(src, args, line=5) == HEAD + "    self.dummy(self.cfg, sched, list(it.repeat(1, num_reqs)), flag=True)\n"


def test_a_new_argument_by_keyword_goes_last():
    args = {"callee": "dummy", "before": ["self.cfg", "sched"], "after": ["self.cfg", "sched"],
            "add": {"sampled": "list(it.repeat(1, num_reqs))"}, "names": {"it": "itertools", "num_reqs": ""}}
    src = HEAD + "    with self.dummy(self.cfg,\n                    sched):\n        pass\n"
    assert _twice(src, args, line=5) == HEAD + (
        "    with self.dummy(self.cfg,\n                    sched,\n                    sampled=list(it.repeat(1, num_reqs))):\n"
        "        pass\n")
    src = HEAD + "    self.dummy(self.cfg, sched, flag=True)\n"
    assert _twice(src, args, line=5) == HEAD + \
        "    self.dummy(self.cfg, sched, flag=True, sampled=list(it.repeat(1, num_reqs)))\n"
    src = HEAD + "    self.dummy(self.cfg, sched, **kw)\n"  # a dict may pass it already: left alone
    new, out = run_codemod(src, "rewrite_arguments", line=5, args=args)
    assert new == src and out.status == "not_found"


def test_other_arguments_or_unbound_names_are_not_touched():
    args = {"callee": "dummy", "before": ["self.cfg", "sched"], "after": ["self.cfg", "sched", "list(it.repeat(1, num_reqs))"],
            "names": {"it": "itertools", "num_reqs": ""}}
    for src in (HEAD + "    self.dummy(self.cfg, other)\n",  # not the baseline's call
                HEAD.replace("num_reqs", "n") + "    self.dummy(self.cfg, sched)\n",  # no local num_reqs
                HEAD.replace("itertools as it", "more_itertools as it") + "    self.dummy(self.cfg, sched)\n",
                "num_reqs = 1\n" + HEAD.replace(", num_reqs", "") + "    self.dummy(self.cfg, sched)\n"):  # a global
        new, out = run_codemod(src, "rewrite_arguments", line=src.count("\n"), args=args)
        assert new == src and out.status == "not_found", (src, out)
