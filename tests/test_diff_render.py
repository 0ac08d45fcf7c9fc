"""Renderers of a diff (terminal, JSON, Markdown) and the `drift diff` command end to end."""

from __future__ import annotations

import importlib.util
import io
import json
import textwrap

import pytest
from rich.console import Console

from drift import cli, exitcodes
from drift.analysis.diff import ChangeKind, diff_facts
from drift.reports.diff_render import render, render_terminal, summary_line, to_json, to_markdown

from tests.test_diff_engine import TWO_PHASE_NEW, TWO_PHASE_OLD, facts_of

OLD = {
    "pkg.r": TWO_PHASE_OLD,
    "pkg.api": "def call(a, b): ...\ndef _inner(x): ...",
    "pkg.gone": "class Old: ...",
}
NEW = {
    "pkg.r": TWO_PHASE_NEW,
    "pkg.api": "def call(a): ...\ndef _inner(): ...",
    "pkg.fresh": "class Old: ...",
}


@pytest.fixture(scope="module")
def result():
    res, error = diff_facts(facts_of(OLD, version="1.0"), facts_of(NEW, version="2.0"),
                            old_label="pkg==1.0", new_label="pkg==2.0")
    assert error is None
    return res


def test_terminal_groups_by_module_with_counts_and_summary(result):
    out = io.StringIO()
    render_terminal(result, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert text.startswith("drift diff pkg pkg==1.0 → pkg==2.0")
    assert "pkg.api  (2)" in text and "pkg.r  (" in text
    assert "Runner.execute method now returns None and hands its result to a sibling method" in text
    assert "new pkg/r.py:10 (return None)" in text
    assert "_inner parameter was removed: x  [private]" in text  # markup-like text kept literally
    assert "modules added  (1)" in text and "pkg.fresh" in text
    assert "TWO_PHASE_PROTOCOL" in text  # counts table
    last = text.strip().splitlines()[-1]
    assert last == summary_line(result)
    assert "breaking" in last


def test_terminal_without_evidence(result):
    out = io.StringIO()
    render_terminal(result, Console(file=out, width=200, color_system=None), evidence=False)
    assert "pkg/r.py:10" not in out.getvalue()


def test_json_round_trip_is_ordered_and_versioned(result):
    data = json.loads(to_json(result))
    assert data["schema"] == "drift.diff/1"
    assert data["old"]["version"] == "1.0" and data["new"]["label"] == "pkg==2.0"
    modules = [c["module"] for c in data["changes"]]
    assert modules == sorted(modules)
    assert data["summary"]["by_kind"]["TWO_PHASE_PROTOCOL"] == 1
    assert to_json(result) == render(result, fmt="json")  # byte-stable


def test_markdown(result):
    text = to_markdown(result)
    assert text.startswith("# drift diff: pkg pkg==1.0 → pkg==2.0")
    assert "| method now returns None and hands its result to a sibling method | 1 | yes |" in text
    assert "## `pkg.r`" in text and "`pkg/r.py:10 (return None)`" in text
    assert "## Added modules (1)" in text


def test_empty_diff_says_so():
    same = facts_of({"pkg.m": "def f(a): ..."})
    res, _ = diff_facts(same, same, old_label="a", new_label="b")
    assert summary_line(res) == "no changes between a 1 and b 1"


# -- the command ------------------------------------------------------------------------
HAVE_PROBE = importlib.util.find_spec("drift.probes.main") is not None
needs_probe = pytest.mark.skipif(not HAVE_PROBE, reason="drift.probes.main (collect_tree) not present yet")


def write_tree(root, version: str, sources: dict[str, str]):
    """A source tree with a package and its dist-info, as a release would be extracted."""
    for name, source in sources.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    for pkg_dir in [p for p in root.rglob("*") if p.is_dir()]:
        init = pkg_dir / "__init__.py"
        if not init.exists():
            init.write_text("")
    dist = root / f"pkg-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\n")
    (dist / "top_level.txt").write_text("pkg\n")
    return root


@pytest.fixture()
def trees(tmp_path):
    old = write_tree(tmp_path / "old", "1.0", OLD)
    new = write_tree(tmp_path / "new", "2.0", NEW)
    return old, new, tmp_path / "cache"


@needs_probe
def test_command_json(trees, capsys):
    old, new, cache = trees
    code = cli.main(["diff", str(old), str(new), "--package", "pkg", "--json", "--cache-dir", str(cache)])
    out = capsys.readouterr().out
    assert code == exitcodes.CLEAN
    data = json.loads(out)
    assert data["schema"] == "drift.diff/1"
    kinds = {c["kind"] for c in data["changes"]}
    assert {"TWO_PHASE_PROTOCOL", "PARAM_REMOVED", "MODULE_REMOVED", "SYMBOL_MOVED"} <= kinds


@needs_probe
def test_command_filters_and_markdown(trees, capsys):
    old, new, cache = trees
    code = cli.main(["diff", str(old), str(new), "--markdown", "--public-only", "--module", "pkg.api",
                     "--kind", "param-removed", "--cache-dir", str(cache)])
    out = capsys.readouterr().out
    assert code == 0
    assert "`call` parameter was removed: b" in out and "_inner" not in out and "pkg.r" not in out


@needs_probe
def test_command_terminal(trees, capsys):
    old, new, cache = trees
    assert cli.main(["diff", str(old), str(new), "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "two-phase protocol: execute now returns None" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["diff", "/no/such/path", "/no/such/other"], "no such path"),
        (["diff", "{tmp}", "{tmp}"], "not a Python package"),
        (["diff", "{tmp}", "{tmp}", "--kind", "bogus"], "unknown change kind"),
    ],
)
def test_command_bad_input_exits_2_with_a_message(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == exitcodes.USAGE
    assert message in err and "Traceback" not in err


def test_kind_names_cover_every_kind():
    from drift.analysis.diff import CHANGE_KINDS, parse_kind

    for kind in CHANGE_KINDS:
        assert parse_kind(kind.name.lower()) is kind
    assert parse_kind("keyword_removed") is None  # a finding kind, never a change `drift diff` makes


SYNTH = __import__("pathlib").Path(__file__).parent / "synth"


@needs_probe
@pytest.mark.skipif(not (SYNTH / "v2").is_dir(), reason="tests/synth/v1, v2 not present")
def test_command_on_synthetic_widgetlib(tmp_path, capsys):
    code = cli.main(["diff", str(SYNTH / "v1"), str(SYNTH / "v2"), "--json", "--cache-dir", str(tmp_path)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["old"]["version"] == "1.0" and data["new"]["version"] == "2.0"
    got = {(c["dotted"], c["kind"]) for c in data["changes"]}
    assert {
        ("widgetlib.core.Widget", "FIELD_REQUIRED_ADDED"),
        ("widgetlib.core.Widget", "FIELD_DEFAULT_CHANGED"),
        ("widgetlib.core.fetch", "RETURN_SHAPE_DEPENDS"),
        ("widgetlib.runner.Runner.execute", "TWO_PHASE_PROTOCOL"),
        ("widgetlib.models.Settings", "FIELD_DEFAULT_CHANGED"),
    } <= got
