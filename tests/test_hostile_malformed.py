"""Malformed input is `drift: error: ...` and exit 2, never a traceback (issue 25): JSON nested
100,000 deep or holding a 5,000-digit number in a snapshot, an accepted-findings file or a job
runner's reply (one bounded parser, drift.inputs.loads_bounded); a snapshot whose fields have the
wrong types (every field checked: findings must not silently vanish); a snapshot of another
package; a consumer file with `# coding: undefined`; an index page that is not UTF-8.

The real CLI over small synthetic trees, a real local index (tests/fetch_fixtures.py) and a
stand-in interpreter for the job runner that answers what the test says.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from tests.fetch_fixtures import IndexServer, running
from tests.demo_cli import check_demo, demo_trees, run_drift

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = "1" * 5000


_drift = run_drift


def _clear_error(proc: subprocess.CompletedProcess, *says: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("drift: error: "), proc.stderr
    for text in says:
        assert text in proc.stderr, proc.stderr


@pytest.fixture
def trees(tmp_path) -> dict[str, str]:
    return demo_trees(tmp_path)


def _check(trees, *extra: str, target: str | None = None) -> subprocess.CompletedProcess:
    return check_demo(trees, *extra, cwd=Path(trees["root"]), target=target)


@pytest.fixture
def snapshot(trees) -> dict:
    out = Path(trees["root"]) / "after.json"
    proc = _drift("snapshot", trees["target"], "--package", "demo", "-o", str(out), cwd=Path(trees["root"]))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def _module(doc: dict) -> dict:
    return doc["packages"]["demo"]["modules"]["demo.api"]


# name -> (how to spoil a snapshot, what the error names)
WRONG_TYPES = {
    "modules a list": (lambda d: d["packages"]["demo"].update(modules=list(d["packages"]["demo"]["modules"].values())),
                       "has no modules table"),
    "functions a string": (lambda d: _module(d).update(functions="run"), "modules.demo.api.functions"),
    "classes a list": (lambda d: _module(d).update(classes=[]), "modules.demo.api.classes"),
    "params a string": (lambda d: _module(d)["functions"]["run"].update(params="job"), "functions.run.params"),
    "param name a number": (lambda d: _module(d)["functions"]["run"]["params"][0].update(name=1), ".params[0].name"),
    "version a number": (lambda d: d["packages"]["demo"].update(version=16), "packages.demo.version"),
    "module path escapes": (lambda d: _module(d).update(path="../../etc/passwd"), "not a plain relative path"),
    "imports a string": (lambda d: _module(d).update(imports="os"), "modules.demo.api.imports"),
    "behaviour a list": (lambda d: _module(d)["functions"]["run"].update(behaviour=[]), "functions.run.behaviour"),
    "error a number": (lambda d: _module(d).update(error=3), "modules.demo.api.error"),
    "requires a string": (lambda d: d["packages"]["demo"].update(requires="torch"), "packages.demo.requires"),
    "env a string": (lambda d: d.update(env="gpu-01"), "env: expected dict"),
    "env packages a list": (lambda d: d.update(env={"packages": [1]}), "env.packages: expected dict"),
    "env gpus a string": (lambda d: d.update(env={"gpus": "A100"}), "env.gpus"),
}


def test_the_untouched_snapshot_is_read(trees, snapshot):
    path = Path(trees["root"]) / "good.json"
    path.write_text(json.dumps(snapshot))
    proc = _check(trees, "--json", target=str(path))
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["breaking"] == 1


@pytest.mark.parametrize("name", WRONG_TYPES)
def test_a_snapshot_field_of_the_wrong_type_is_a_clear_error(trees, snapshot, name):
    spoil, says = WRONG_TYPES[name]
    doc = copy.deepcopy(snapshot)
    spoil(doc)
    path = Path(trees["root"]) / "spoiled.json"
    path.write_text(json.dumps(doc))
    _clear_error(_check(trees, target=str(path)), "spoiled.json", says)


@pytest.mark.parametrize("body, says", [(DEEP, "nested too deep"),
                                        ('{"schema": 1, "packages": {}, "n": ' + LONG_NUMBER + "}", "5000 characters"),
                                        ("\udcff", "not UTF-8")], ids=["deep", "long number", "not utf-8"])
def test_a_hostile_snapshot_document_is_a_clear_error(trees, body, says):
    path = Path(trees["root"]) / "hostile.json"
    path.write_bytes(body.encode("utf-8", "surrogateescape"))
    _clear_error(_check(trees, target=str(path)), "hostile.json", says)


def test_a_snapshot_of_another_package_says_so(trees, snapshot):
    path = Path(trees["root"]) / "demo-snapshot.json"
    path.write_text(json.dumps(snapshot))
    proc = _drift("check", trees["consumer"], "-t", str(path), "-b", trees["baseline"], cwd=Path(trees["root"]))
    _clear_error(proc, "is a snapshot of demo, not of vllm")
    assert "No module named" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("body, says", [('{"schema": "drift.accepted/1", "findings": ' + DEEP + "}", "nested too deep"),
                                        ('{"schema": "drift.accepted/1", "findings": [], "n": ' + LONG_NUMBER + "}",
                                         "5000 characters")], ids=["deep", "long number"])
def test_a_hostile_accepted_file_is_a_clear_error(trees, body, says):
    path = Path(trees["root"]) / "accepted.json"
    path.write_text(body)
    _clear_error(_check(trees, "--accepted", str(path)), "accepted-findings file", says)


@pytest.mark.parametrize("reply, says", [(DEEP, "nested too deep"),
                                         ('{"status": {"run_id": "r"}, "next_offset": ' + LONG_NUMBER + "}",
                                          "5000 characters")], ids=["deep", "long number"])
def test_a_hostile_runner_reply_is_a_clear_error(tmp_path, reply, says):
    """The job runner's interpreter is a stand-in that reads its payload and answers `reply`."""
    (tmp_path / "reply.json").write_text(reply + "\n")
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\ncat >/dev/null\ncat '{tmp_path / 'reply.json'}'\n")
    python.chmod(0o755)
    proc = _drift("watch", "local", "20260101-000000-abcd", "--python", str(python), "--run-dir", str(tmp_path / "runs"),
                  "--no-follow", cwd=tmp_path)
    _clear_error(proc, "the job runner's reply", says)


def test_coding_undefined_is_a_noted_file_and_the_rest_is_checked(trees):
    (Path(trees["consumer"]) / "uses_demo" / "odd.py").write_bytes(b"# coding: undefined\nimport demo\n")
    proc = _check(trees, "--json")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["breaking"] == 1  # __init__.py's call is still checked
    notes = "\n".join(doc["notes"])
    assert "uses_demo/odd.py" in notes and "undefined" in notes


@pytest.mark.parametrize("content_type, body", [
    ("text/html", b"<html><body><a href='x'>caf\xe9</a>\xff</body></html>"),
    ("application/vnd.pypi.simple.v1+json", b'{"meta": {"api-version": "1.0"}, "name": "caf\xe9", "files": []}'),
], ids=["html", "json"])
def test_an_index_page_that_is_not_utf8_is_a_clear_error(trees, content_type, body):
    with running(IndexServer(page=lambda _project: (body, content_type))) as srv:
        proc = _drift("check", trees["consumer"], "-t", "demo==1.0", "-b", trees["baseline"], "--package", "demo",
                      cwd=Path(trees["root"]), env_extra={"PIP_INDEX_URL": srv.simple})
    _clear_error(proc, "page for demo is not UTF-8")
