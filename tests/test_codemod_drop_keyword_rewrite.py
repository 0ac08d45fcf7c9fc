"""drop_keyword with `add`: the keyword the target's own rewrite of the same call passes takes the
dropped one's place (own_rewrites.py); the other dropped keywords of that call then just leave,
and a second run changes nothing."""

from __future__ import annotations

from drift.fixes.kinds import run_codemod

SRC = (
    "def load(self, path):\n"
    "    return self.cls.from_checkpoint(\n"
    "        path,\n"
    "        padding=self.vocab + self.config.extra,  # padded\n"
    "        modules=self.modules,\n"
    "        dtype=self.dtype,\n"
    "    )\n"
)
ADD = {"vocab_size": "self.vocab"}


def _run(src: str, keyword: str, line: int, add: dict | None = None) -> tuple[str, str]:
    args = {"callee": "from_checkpoint", "keyword": keyword, "migration": "pkg/m.py:12",
            **({"add": add} if add else {})}
    new, out = run_codemod(src, "drop_keyword", line=line, args=args)
    compile(new, "m.py", "exec")
    return new, out.status


def test_the_successor_takes_the_dropped_keywords_place_then_the_rest_leave():
    new, status = _run(SRC, "padding", 4, ADD)
    assert status == "applied"
    assert new == SRC.replace("padding=self.vocab + self.config.extra,", "vocab_size=self.vocab,")
    new2, status = _run(new, "modules", 5, ADD)  # the same rewrite offered on the next dropped keyword
    assert status == "applied"
    assert new2 == (
        "def load(self, path):\n"
        "    return self.cls.from_checkpoint(\n"
        "        path,\n"
        "        vocab_size=self.vocab,  # padded\n"
        "        dtype=self.dtype,\n"
        "    )\n"
    )
    for kw, line in (("padding", 4), ("modules", 5)):  # idempotent: nothing left to drop or add
        again, status = _run(new2, kw, line, ADD)
        assert again == new2 and status == "already"


def test_a_last_keyword_on_one_line_and_two_successors():
    src = "x = m.from_checkpoint(a, padding=p + 1)\n"
    new, status = _run(src, "padding", 1, {"size": "p", "pad": "1"})
    assert status == "applied" and new == "x = m.from_checkpoint(a, size=p, pad=1)\n"
    again, status = _run(new, "padding", 1, {"size": "p", "pad": "1"})
    assert again == new and status == "already"


def test_a_successor_the_call_passes_already_is_not_written_twice():
    src = "x = m.from_checkpoint(a, vocab_size=v, padding=p)\n"
    new, status = _run(src, "padding", 1, {"vocab_size": "p"})
    assert status == "applied" and new == "x = m.from_checkpoint(a, vocab_size=v)\n"


def test_without_add_it_is_the_plain_drop():
    new, status = _run("x = m.from_checkpoint(a, padding=p)\n", "padding", 1)
    assert status == "applied" and new == "x = m.from_checkpoint(a)\n"
