"""Inventories a careless or hostile hand wrote: a 1 KB YAML alias bomb and a range of 100
million hosts are clear errors (exit 2), found before anything is expanded."""

from __future__ import annotations

import pytest

from drift.cli import main


def _alias_bomb() -> str:
    lines = ["all:", "  children:", "    g0: &g0 {hosts: {h1: null, h2: null}}"]
    for i in range(1, 9):
        refs = ", ".join(f"{k}: *g{i - 1}" for k in "abcdefghi")
        lines.append(f"    g{i}: &g{i} {{children: {{{refs}}}}}")
    return "\n".join(lines) + "\n"


def _vars_bomb() -> str:
    lines = ["all:", "  vars:", '    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"    {cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines + ["  hosts:", "    h1:"]) + "\n"


CASES = [
    ("alias bomb in groups", _alias_bomb(), "alias bomb"),
    ("alias bomb in vars", _vars_bomb(), "alias bomb"),
    ("hundred million hosts", "[gpu]\nh[1:100000000]\n", "expands to 100,000,000+ hosts"),
    ("two ranges multiplied", "[gpu]\nh[1:1000]-[1:1000]\n", "expands to 1,000,000+ hosts"),
    ("range step zero", "[gpu]\nh[1:9:0]\n", "step must be at least 1"),
    ("yaml range", "all:\n  hosts:\n    'h[1:99999999]':\n", "expands to"),
    ("yaml nested deep", "all:\n  vars:\n    x: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
]


@pytest.mark.parametrize("name, text, says", CASES, ids=[case[0] for case in CASES])
def test_hostile_inventory_is_a_clear_error(name, text, says, tmp_path, capsys):
    assert len(text) < 16 * 1024 or "nested" in name
    inventory = tmp_path / ("hosts.yml" if text.startswith("all:") else "hosts.ini")
    inventory.write_text(text)
    code = main(["scan", "--inventory", str(inventory)])
    err = capsys.readouterr().err
    assert code == 2
    assert says in err and "Traceback" not in err
