"""DRIFT130: a string literal handed to a target function that raises for a name its module's
table lacks (`settings.is_set("OLD")`), where the baseline's table held it and the target's does
not. Silent for a name both tables hold, for one neither held (the call failed on the baseline),
and for a function that does not check its argument against a table."""

from __future__ import annotations

import ast

from drift.probes.name_tables import name_checks
from tests.rule_cases import Case, findings_of, line_of

def _settings(*names: str) -> dict[str, str]:
    """A settings module whose `is_set` raises for a name its table lacks; the two versions
    differ only in the table's names."""
    rows = "\n".join(f'        "{n}": lambda: os.getenv("{n}"),' for n in names)
    return {"gizmo/__init__.py": "", "gizmo/settings.py": f"""
    import os

    table = {{
{rows}
    }}


    def is_set(name):
        if name in table:
            return name in os.environ
        raise AttributeError(name)


    def lookup(name):
        return os.environ.get(name)
    """}


BEFORE = _settings("OLD", "KEPT")
AFTER = _settings("KEPT", "NEW")
CONSUMER = {"app/__init__.py": "", "app/flags.py": """
    import gizmo.settings as settings


    def flags():
        dropped = settings.is_set("OLD")
        by_keyword = settings.is_set(name="OLD")
        kept = settings.is_set("KEPT")
        never = settings.is_set("NEVER")
        plain = settings.lookup("OLD")
        return dropped, by_keyword, kept, never, plain
    """}


def test_a_name_the_target_table_dropped(tmp_path):
    src = CONSUMER["app/flags.py"]
    found = [f for f in findings_of(tmp_path, Case("tables", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT130"]
    assert sorted(f.consumer_site.line for f in found) == sorted(
        [line_of(src, 'settings.is_set("OLD")'), line_of(src, 'settings.is_set(name="OLD")')]), [f.title for f in found]
    assert all(f.predicted_failure.startswith("AttributeError") for f in found)


def test_the_probe_reads_each_form_of_the_check():
    tree = ast.parse(
        "T = {'a': 1}\n"
        "def early(name):\n    if name not in T:\n        raise KeyError(name)\n    return T[name]\n"
        "def branch(x, name):\n    if name in T:\n        return 1\n    else:\n        raise ValueError(name)\n"
        "def loose(name):\n    if name in T:\n        return 1\n    return 0\n")
    checks, tables = name_checks(tree)
    assert {k: (v["param"], v["index"], v["raises"]) for k, v in checks.items()} == \
        {"early": ("name", 0, "KeyError"), "branch": ("name", 1, "ValueError")}
    assert tables == {"T": ["a"]}
