"""The JSON report schema names every finding kind a rule can produce (it is generated from the
one vocabulary, drift/kinds.py, and must not fall behind when a rule adds a kind)."""

import json
from pathlib import Path

from drift.kinds import RULE_KINDS

SCHEMA = Path(__file__).parents[1] / "reports" / "schemas" / "report-1.json"


def _enums(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum" and isinstance(value, list):
                yield value
            else:
                yield from _enums(value)
    elif isinstance(node, list):
        for item in node:
            yield from _enums(item)


def test_schema_lists_every_rule_kind_and_its_message():
    enums = list(_enums(json.loads(SCHEMA.read_text())))
    assert [k.name for k in RULE_KINDS] in enums
    assert [k.value for k in RULE_KINDS] in enums
