"""Text from outside is data in every format (issue 25: file names, package metadata, a snapshot's
version): the shared table of hostile strings (tests/hostile_strings.py) is put into a consumer's
file names and its pyproject name and version, and into the version of the snapshot it is checked
against; then the real CLI renders the report in every format under GITHUB_ACTIONS=true.

Each format must show the strings (escaped) and obey none of them: no raw control character, no
line a CI runner would take for a workflow command (but drift's own annotations in `github`), no
HTML or heading a Markdown renderer would make, well-formed XML, and JSON/SARIF that give the very
strings back.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.hostile_strings import HOSTILE, RAW_CONTROLS, workflow_command_lines

FORMATS = ("terminal", "concise", "markdown", "json", "sarif", "junit", "html", "github")
META = "evil\x1b[31m\n::add-mask::meta <img src=y>"  # the pyproject's name and version, the snapshot's version


def _drift(*argv: str, cwd: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "GITHUB_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, DRIFT_CACHE=str(cwd / "cache"), GITHUB_ACTIONS="true", **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", *argv], cwd=cwd,
                          capture_output=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> dict[str, Path]:
    """A target before and after (`run`'s retries became keyword-only), a snapshot of the after
    whose version is hostile, and a consumer with one breaking call in each hostile file."""
    root = tmp_path_factory.mktemp("hostile-names")
    for name, api in (("before", "def run(job, retries=3):\n    return job\n"),
                      ("after", "def run(job, *, retries=3):\n    return job\n")):
        (root / name / "demo").mkdir(parents=True)
        (root / name / "demo" / "__init__.py").write_text("")
        (root / name / "demo" / "api.py").write_text(api)
    snap = _drift("snapshot", str(root / "after"), "--package", "demo", "-o", str(root / "after.json"), cwd=root)
    assert snap.returncode == 0, snap.stderr
    facts = json.loads((root / "after.json").read_text())
    facts["packages"]["demo"]["version"] = META
    (root / "after.json").write_text(json.dumps(facts))
    consumer = root / "consumer"
    (consumer / "uses_demo").mkdir(parents=True)
    (consumer / "uses_demo" / "__init__.py").write_text("")
    (consumer / "pyproject.toml").write_text(
        f"[project]\nname = {json.dumps(META)}\nversion = {json.dumps(META)}\n")
    for text in HOSTILE.values():
        (consumer / "uses_demo" / f"{text}.py").write_text("from demo.api import run\n\nrun('x', 5)\n")
    return {"root": root, "consumer": consumer, "target": root / "after.json", "baseline": root / "before"}


def _check(checkout, fmt: str) -> subprocess.CompletedProcess:
    return _drift("check", str(checkout["consumer"]), "-t", str(checkout["target"]), "-b", str(checkout["baseline"]),
                  "--package", "demo", "--consumer-package", "uses_demo", "--format", fmt, cwd=checkout["root"])


def _paths_of(doc) -> set[str]:
    return {f["consumer_site"]["path"] for f in doc["findings"]}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_shows_hostile_names_and_obeys_none(checkout, fmt):
    proc = _check(checkout, fmt)
    assert proc.returncode == 1, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    out = proc.stdout.decode("utf-8")
    assert not RAW_CONTROLS.search(out), RAW_CONTROLS.findall(out)
    commands = workflow_command_lines(out)
    if fmt == "github":  # drift's own annotations only (a finding's repeats may share one), each `::level file=…`
        assert 1 <= len(commands) <= len(HOSTILE)
        assert all(re.match(r"::(error|warning|notice) file=", c) for c in commands), commands
    else:
        assert commands == []
    if fmt in ("json", "sarif"):  # same data back, exactly
        doc = json.loads(out)
        if fmt == "json":
            assert _paths_of(doc) == {f"uses_demo/{t}.py" for t in HOSTILE.values()}
            assert doc["consumer"]["name"] == META and doc["target"]["version"] == META
        else:
            uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
            assert len(uris) == len(HOSTILE)
        return
    assert "add-mask" in out and "owned" in out  # shown, as text
    if fmt == "junit":
        root = ET.fromstring(out)  # well-formed, control characters and all
        files = {case.get("file") for case in root.iter("testcase")}
        assert "uses_demo/n\\x0a::add-mask::X\\x0a::warning file=x::owned.py" in files
    if fmt == "markdown":
        html = MarkdownIt("commonmark").enable("table").render(out)
        assert "<img" not in html and "<h2" not in html and "<a href" not in html
        assert "injected heading" in html and "&lt;img src=x" in html
    if fmt == "html":
        assert "<img src=x" not in out and "<img src=y" not in out
    if fmt in ("terminal", "concise"):
        assert "n\\x0a::add-mask::X" in out and "clear\\x1b[2J" in out
        assert "[bold red]rich[blink][link=file:x]y" in out  # rich markup printed as the characters it is


def test_gate_under_github_actions_escapes_annotations_and_the_step_summary(checkout, tmp_path):
    summary = tmp_path / "summary.md"
    proc = _drift("gate", "-c", str(checkout["consumer"]), "-t", str(checkout["target"]), "-b", str(checkout["baseline"]),
                  "--package", "demo", "--consumer-package", "uses_demo", cwd=checkout["root"],
                  env_extra={"GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1, proc.stderr.decode()
    out = proc.stdout.decode("utf-8")
    assert not RAW_CONTROLS.search(out)
    commands = workflow_command_lines(out)
    assert 1 <= len(commands) <= len(HOSTILE) and all(re.match(r"::(error|warning|notice) file=", c) for c in commands)
    html = MarkdownIt("commonmark").enable("table").render(summary.read_text(encoding="utf-8"))
    assert "<img" not in html and "<h2" not in html and "<a href" not in html
    assert not RAW_CONTROLS.search(summary.read_text(encoding="utf-8"))
    assert workflow_command_lines(summary.read_text(encoding="utf-8")) == []


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_inventory_host_names_are_text_not_rich_markup(tmp_path):
    """The fleet table of a scan prints each inventory host's name: rich markup in it is shown as
    the characters it is, escape sequences escaped. The hosts point at a closed port on loopback,
    so each is unreachable at once."""
    names = {key: HOSTILE[key] for key in ("rich_markup", "ansi_clear", "osc_title", "c1_csi")}
    names["closing_markup"] = "[bold red]x[/bold red][link=file:///etc/passwd]y[/link]"
    port = _closed_port()
    hosts = "".join(f"    {json.dumps(name)}:\n      ansible_host: 127.0.0.1\n      ansible_port: {port}\n"
                    for name in names.values())
    (tmp_path / "hosts.yml").write_text("all:\n  hosts:\n" + hosts)
    proc = _drift("scan", "--inventory", str(tmp_path / "hosts.yml"), "--connect-timeout", "5", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr.decode()
    out = proc.stdout.decode("utf-8") + proc.stderr.decode("utf-8")
    assert "Traceback" not in out
    assert not RAW_CONTROLS.search(out), RAW_CONTROLS.findall(out)
    assert "[bold red]x[/bold red][link=file:///etc/passwd]y[/link]" in out
    assert "[bold red]rich[blink][link=file:x]y" in out
    assert "clear\\x1b[2J" in out and "csi\\x9b31m" in out


def test_a_consumer_wheels_metadata_version_is_shown_escaped(checkout, tmp_path):
    """A wheel's METADATA `Version:` (one header line: no newline can be in it) with escape
    sequences and HTML, in the terminal report and the Markdown summary."""
    import zipfile

    version = "1.0\x1b[2J\x1b]0;owned\x07<img src=z>\u202e"
    wheel = tmp_path / "uses_demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("uses_demo/__init__.py", "from demo.api import run\n\nrun('x', 5)\n")
        zf.writestr("uses_demo-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\nName: uses-demo\nVersion: {version}\n")
        zf.writestr("uses_demo-1.0.dist-info/top_level.txt", "uses_demo\n")
        zf.writestr("uses_demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr("uses_demo-1.0.dist-info/RECORD", "")
    for fmt in ("terminal", "markdown"):
        proc = _drift("check", str(wheel), "-t", str(checkout["target"]), "-b", str(checkout["baseline"]),
                      "--package", "demo", "--format", fmt, cwd=tmp_path)
        out = proc.stdout.decode("utf-8") + proc.stderr.decode("utf-8")
        assert "Traceback" not in out
        assert not RAW_CONTROLS.search(out), RAW_CONTROLS.findall(out)
        assert proc.returncode == 1, out
        shown = MarkdownIt("commonmark").enable("table").render(out) if fmt == "markdown" else out
        assert "1.0\\x1b[2J\\x1b]0;owned" in shown  # the version, shown as text (rendered, for Markdown)
        assert fmt != "markdown" or "<img" not in shown


def test_drift_diff_shows_a_snapshots_hostile_names_escaped(checkout, tmp_path):
    """A snapshot's function name is someone else's text too: `drift diff` from a snapshot whose
    `run` is renamed to a hostile string to the real tree reports it removed, escaped."""
    facts = json.loads(checkout["target"].read_text())
    functions = facts["packages"]["demo"]["modules"]["demo.api"]["functions"]
    hostile = HOSTILE["workflow_commands"] + HOSTILE["ansi_clear"]
    functions[hostile] = dict(functions.pop("run"), name=hostile)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(facts))
    for fmt in ("terminal", "markdown"):
        proc = _drift("diff", str(old), str(checkout["root"] / "after"), "--package", "demo", "--format", fmt,
                      cwd=tmp_path)
        out = proc.stdout.decode("utf-8")
        assert proc.returncode == 0, proc.stderr.decode()
        assert "add-mask" in out  # reported, as text
        assert not RAW_CONTROLS.search(out) and workflow_command_lines(out) == []
