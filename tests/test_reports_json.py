"""drift.report/1: validates against its schema, is byte-stable, round-trips, is documented."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re

import jsonschema
import pytest

from drift.findings import Finding
from drift.reports._common import ordered
from drift.reports.json_report import SCHEMA_ID, from_dict, from_json, report_dict, schema, to_json, to_json_many
from tests import report_samples as S

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "report-schema.md"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


@pytest.mark.parametrize("make", [S.seed_report, S.middle_report, S.clean_report])
def test_output_validates(make, validator) -> None:
    doc = json.loads(to_json(make()))
    assert doc["schema"] == SCHEMA_ID
    validator.validate(doc)


def test_array_for_several_targets_validates_item_by_item(validator) -> None:
    docs = json.loads(to_json_many(S.matrix_reports()))
    assert [d["target"]["version"] for d in docs] == ["0.11.0", "0.12.0", "0.16.0"]
    for doc in docs:
        validator.validate(doc)


def test_schema_rejects_what_drift_must_not_write(validator) -> None:
    doc = report_dict(S.middle_report())
    doc["findings"][0]["severity"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)
    doc = report_dict(S.middle_report())
    del doc["findings"][0]["consumer_site"]["line"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)


def test_deterministic_regardless_of_input_order() -> None:
    report = S.seed_report()
    shuffled = dataclasses.replace(report, findings=tuple(reversed(report.findings)), uses=tuple(reversed(report.uses)))
    assert to_json(report) == to_json(report) == to_json(shuffled)
    doc = json.loads(to_json(report))
    assert [f["severity"] for f in doc["findings"]] == ["breaking"] * 5 + ["risky"] * 2 + ["info"]
    assert doc["summary"] == {"breaking": 5, "risky": 2, "info": 1, "uses_checked": len(S.USES), "silenced": 0}
    assert doc["verdict"] == "5 breaking, 2 risky — do not launch" and doc["exit_code"] == 1


def test_findings_round_trip_through_finding_from_dict() -> None:
    report = S.seed_report()
    doc = json.loads(to_json(report))
    rebuilt = [Finding.from_dict(d) for d in doc["findings"]]
    assert rebuilt == ordered(report.findings)
    assert all(d["key"] == f.key for d, f in zip(doc["findings"], rebuilt))


def test_whole_report_round_trips() -> None:
    for report in S.matrix_reports():
        again = from_json(to_json(report))
        assert to_json(again) == to_json(report)
        assert again.env == report.env and again.host == report.host and again.notes == report.notes


def _asdict(use) -> dict:
    """`dataclasses.asdict`, without a site's unset `use_line` / `use_col` (written only where a
    finding's failure surfaces off the use's own line, drift/analysis/surfacing.py)."""
    out = dataclasses.asdict(use)
    for key in ("use_line", "use_col"):
        if out["site"].get(key) is None:
            out["site"].pop(key, None)
    return out


def test_uses_are_written_as_asdict_writes_them() -> None:
    """The report spells each use out instead of calling `dataclasses.asdict` (faster on
    thousands of uses); a field added to `UseChecked` or `Location` must not go missing."""
    from drift.findings import Location, UseChecked
    from drift.reports.json_report import _use_dict

    uses = list(S.USES) + [UseChecked("vllm.x.Y", Location("p.py", 3, symbol="s", snippet="é \u2028", col=7), "call")]
    assert [_use_dict(u) for u in uses] == [_asdict(u) for u in uses]
    assert report_dict(S.seed_report())["uses"] == [_asdict(u) for u in sorted(
        S.seed_report().uses, key=lambda u: (u.site.path, u.site.line, u.symbol, u.what))]


def test_from_dict_refuses_other_documents() -> None:
    with pytest.raises(ValueError, match="drift.report/1"):
        from_dict({"schema": "something/2"})


def _field_names(node, names: set[str]) -> None:
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            names.add(name)
            _field_names(sub, names)
        for sub in (node.get("$defs") or {}).values():
            _field_names(sub, names)


def test_every_schema_field_is_documented() -> None:
    names: set[str] = set()
    _field_names(schema(), names)
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", DOC.read_text(encoding="utf-8"), flags=re.M))
    missing = sorted(names - documented)
    assert not missing, f"fields missing from docs/report-schema.md: {missing}"
