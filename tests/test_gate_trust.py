"""A gate that cannot turn green by mistake (issue 24, items 1 and 2), over the real CLI.

A synthetic "vllm" before/after pair and a consumer tree on disk; `drift check` and `drift
gate` run through drift.cli.main, the JSON report and stderr read back.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from drift import exitcodes
from drift.cli import main

BEFORE = "def f(a, b=None):\n    return a\n\n\ndef g():\n    return 1\n"
AFTER = "def f(a):\n    return a\n"
CONSUMER = "from vllm.api import f, g\n\n\ndef run():\n    f(1, b=2)\n    return g()\n"


@pytest.fixture()
def trees(tmp_path, monkeypatch):
    for side, text in (("before", BEFORE), ("after", AFTER)):
        pkg = tmp_path / side / "vllm"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "api.py").write_text(text)
    cons = tmp_path / "repo" / "kvtool"
    cons.mkdir(parents=True)
    (cons / "__init__.py").write_text(CONSUMER)
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _check(trees, capsys, *extra, baseline="before") -> tuple[int, dict | None, str]:
    argv = ["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / baseline),
            "--format", "json", *extra]
    code = main(argv)
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out.strip() else None), cap.err


@pytest.mark.parametrize("flag, code, near", [
    ("--select", "DRIFT91", "DRIFT091"),  # a dropped digit: one code is nearest whatever rules are added
    ("--ignore", "DRFT080", "DRIFT080"),
    ("--ignore", "DRFT0", "DRIFT0"),
    ("--select", "VLM", "VLLM"),
])
def test_unknown_code_on_the_command_line_exits_2_with_the_nearest(trees, capsys, flag, code, near) -> None:
    rc, doc, err = _check(trees, capsys, flag, code)
    assert rc == exitcodes.USAGE and doc is None
    assert f"drift: error: {flag}: unknown rule code '{code}'" in err
    assert f"did you mean {near}" in err
    assert "Traceback" not in err


def test_valid_prefixes_still_select(trees, capsys) -> None:
    rc, doc, _ = _check(trees, capsys, "--select", "DRIFT01")
    assert rc == 1 and [f["rule_id"] for f in doc["findings"]] == ["DRIFT010"]


@pytest.mark.parametrize("toml, key", [
    ('[tool.drift]\nignore = ["DRFT080"]\n', "tool.drift.ignore"),
    ('[tool.drift]\nselect = ["DRIFT999"]\n', "tool.drift.select"),
    ('[tool.drift.per-file-ignores]\n"kvtool/*" = ["DRIFTX"]\n', "tool.drift.per_file_ignores.'kvtool/*'"),
])
def test_unknown_code_in_the_config_exits_2_naming_file_and_key(trees, capsys, toml, key) -> None:
    (trees / "repo" / "pyproject.toml").write_text(toml)
    rc, doc, err = _check(trees, capsys)
    assert rc == exitcodes.USAGE and doc is None
    assert f"pyproject.toml: {key}: unknown rule code" in err


def test_gate_with_a_typo_in_select_exits_2(trees, capsys) -> None:
    rc = main(["gate", "-c", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before"),
               "--select", "DRIFT999"])
    assert rc == exitcodes.USAGE
    assert "unknown rule code 'DRIFT999'" in capsys.readouterr().err


def test_unknown_code_in_an_inline_comment_exits_2(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "__init__.py").write_text(CONSUMER.replace("f(1, b=2)", "f(1, b=2)  # drift: ignore[DRFT010]"))
    rc, doc, err = _check(trees, capsys)
    assert rc == exitcodes.USAGE and doc is None
    assert "kvtool/__init__.py:5: `# drift: ignore[DRFT010]`: unknown rule code 'DRFT010'; did you mean DRIFT010" in err


def test_unused_inline_ignores_warn_and_fail_under_strict(trees, capsys) -> None:
    text = ("from vllm.api import f, g  # drift: ignore[DRIFT001, DRIFT050]\n\n\ndef run():\n"
            "    f(1, b=2)  # drift: ignore\n    return None  # drift: ignore\n")
    (trees / "repo" / "kvtool" / "__init__.py").write_text(text)
    (trees / "repo" / "kvtool" / "other.py").write_text("import vllm\nX = 1  # drift: ignore[DRIFT010]\n")
    rc, doc, err = _check(trees, capsys)
    assert rc == 0 and doc["findings"] == []
    assert "drift: warning: kvtool/__init__.py:1: unused DRIFT050 in `# drift: ignore[DRIFT001, DRIFT050]`" in err
    assert "drift: warning: kvtool/__init__.py:6: unused `# drift: ignore`: no finding on this line" in err
    assert "drift: warning: kvtool/other.py:2: unused DRIFT010" in err  # a file without findings is read too
    assert "kvtool/__init__.py:5" not in err  # that comment silenced DRIFT010
    assert sorted((u["path"], u["line"]) for u in doc["unused"]) == [
        ("kvtool/__init__.py", 1), ("kvtool/__init__.py", 6), ("kvtool/other.py", 2)]
    rc, doc, err = _check(trees, capsys, "--strict")
    assert rc == 1 and doc["exit_code"] == 1 and "drift: error: kvtool/other.py:2: unused DRIFT010" in err
    (trees / "repo" / "pyproject.toml").write_text("[tool.drift]\nstrict = true\n")
    rc, _, _ = _check(trees, capsys)
    assert rc == 1


def test_stale_accepted_entries_are_reported(trees, capsys) -> None:
    accepted = trees / "repo" / "accepted.json"
    rc, _, _ = _check(trees, capsys, "--write-accepted", str(accepted))
    assert rc == 0
    rc, doc, err = _check(trees, capsys, "--accepted", str(accepted))
    assert rc == 0 and not doc["unused"] and "unused" not in err
    # the consumer stops calling f(…, b=2): its accepted entry now matches nothing
    (trees / "repo" / "kvtool" / "__init__.py").write_text(CONSUMER.replace("f(1, b=2)", "f(1)"))
    rc, doc, err = _check(trees, capsys, "--accepted", str(accepted))
    assert rc == 0
    assert "drift: warning: accepted entry DRIFT010 kvtool/__init__.py `vllm.api.f` matches no finding" in err
    assert [u["what"].split(" matches")[0] for u in doc["unused"]] == ["accepted entry DRIFT010 kvtool/__init__.py `vllm.api.f`"]
    rc, _, _ = _check(trees, capsys, "--accepted", str(accepted), "--strict")
    assert rc == 1


def test_a_file_that_does_not_parse_is_a_breaking_finding(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "bad.py").write_text("from vllm.api import f\n\n\ndef run(:\n    f(1, b=2)\n")
    rc, doc, _ = _check(trees, capsys, "--select", "DRIFT004")
    assert rc == 1
    (f,) = doc["findings"]
    assert f["rule_id"] == "DRIFT004" and f["severity"] == "breaking"
    assert f["consumer_site"]["path"] == "kvtool/bad.py" and f["consumer_site"]["line"] == 4
    try:
        compile((trees / "repo" / "kvtool" / "bad.py").read_text(), "kvtool/bad.py", "exec")
    except SyntaxError as exc:
        assert f["predicted_failure"] == f"SyntaxError: {exc}"  # Python's own message, at the same line
    assert not any("bad.py" in n for n in doc["notes"])


def test_a_file_only_a_newer_python_parses_is_a_caveat_not_a_break(trees, capsys) -> None:
    """PEP 695 generics parse on the plugin's 3.12 interpreter: no DRIFT004, but the report says
    the file went unchecked (which Python refused it, and why)."""
    import sys

    source = "from vllm.api import f\n\n\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n"
    (trees / "repo" / "kvtool" / "generic.py").write_text(source)
    rc, doc, _ = _check(trees, capsys)
    if sys.version_info >= (3, 12):  # this interpreter reads it: the file is simply checked
        assert not any(f["rule_id"] == "DRIFT004" for f in doc["findings"])
        return
    assert not any(f["rule_id"] == "DRIFT004" for f in doc["findings"])
    (note,) = [n for n in doc["notes"] if "generic.py" in n]
    assert "could not be read" in note and "valid Python for a newer interpreter" in note
    assert "%d.%d" % sys.version_info[:2] in note
    # a file no Python parses stays a breaking finding beside it
    (trees / "repo" / "kvtool" / "bad.py").write_text("from vllm.api import f\n\n\ndef run(:\n    f(1)\n")
    rc, doc, _ = _check(trees, capsys)
    assert [f["consumer_site"]["path"] for f in doc["findings"] if f["rule_id"] == "DRIFT004"] == ["kvtool/bad.py"]


def test_an_import_that_never_resolved_is_reported_with_target_equal_to_baseline(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "__init__.py").write_text("from vllm.api import f\nfrom vllm.nothere import x\n")
    rc, doc, _ = _check(trees, capsys, baseline="after")
    (f,) = doc["findings"]
    assert f["rule_id"] == "DRIFT001" and f["consumer_site"]["line"] == 2
    assert f["predicted_failure"] == "ModuleNotFoundError: No module named 'vllm.nothere'"
    assert "in the target nor in the baseline" in f["title"]
    assert doc["verdict"] != "clean"
    # a private name under a package that exists may be a compiled extension (vllm._C): left alone
    (trees / "repo" / "kvtool" / "__init__.py").write_text("from vllm.api import f\nimport vllm._C\n")
    rc, doc, _ = _check(trees, capsys, baseline="after")
    assert rc == 0 and doc["findings"] == []


# -- item 3: what changes the verdict is under the header in every format, without -v ----------

NO_BASELINE = "no baseline: the consumer's metadata names no vllm version"


@pytest.mark.parametrize("fmt", ["terminal", "concise", "markdown", "github", "sarif", "junit", "html", "json"])
def test_no_baseline_is_said_in_every_format_without_verbose(trees, capsys, fmt) -> None:
    rc = main(["check", str(trees / "repo"), "-t", str(trees / "after"), "--format", fmt])
    out = capsys.readouterr().out
    assert rc == 1
    if fmt == "sarif":
        (run,) = json.loads(out)["runs"]
        notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
        assert any(n.startswith(NO_BASELINE) for n in notes)
    elif fmt == "json":
        doc = json.loads(out)
        assert doc["caveats"][0].startswith(NO_BASELINE) and doc["notes"][0] == doc["caveats"][0]
    else:
        head = out.replace("&#x27;", "'").replace("&#39;", "'")
        assert NO_BASELINE in head
        # under the header: before the first finding's line
        first = {"github": "file=kvtool/__init__.py", "html": '<table class="matrix"'}.get(fmt, "kvtool/__init__.py:1")
        assert head.index(NO_BASELINE) < head.index(first)


def test_a_baseline_given_leaves_no_caveat(trees, capsys) -> None:
    rc, doc, _ = _check(trees, capsys)
    assert rc == 1 and doc["caveats"] == []


def test_a_newest_target_is_a_caveat(trees, capsys) -> None:
    from drift.commands.common import target_caveat

    # the wording check/gate add when drift chose the target (no -t: the index's newest)
    assert "newest release on the index" in target_caveat(None, "vllm==0.30.0")
    assert target_caveat("vllm==0.16.0", "vllm==0.16.0") is None
    assert "newest for vllm==nightly" in target_caveat("vllm==nightly", "vllm==0.30.1.dev2")


def test_unused_suppressions_are_under_the_header_too(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "__init__.py").write_text(CONSUMER.replace("return g()", "x = 0  # drift: ignore\n    return g()"))
    rc = main(["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before"),
               "--format", "markdown"])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("> ⚠️ warning: unused suppression"))
    assert rc == 1 and ".py:6: unused" in line and out.index(line) < out.index("| Severity |")


# -- item 5: the edit on the finding's line; why it is manual only under -v ------------------------

def test_the_fix_line_says_the_edit_and_why_manual_only_with_verbose(trees, capsys) -> None:
    argv = ["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before")]
    assert main(argv) == 1
    plain = capsys.readouterr().out
    line = next(x for x in plain.splitlines() if "stop using" in x)
    assert line.endswith("fix manual: stop using `vllm.api.g`")  # the edit, and nothing after it
    assert "drop `b=2` from the call" in plain and "codemod" not in plain
    assert main([*argv, "-v"]) == 1
    verbose = capsys.readouterr().out
    line = next(x for x in verbose.splitlines() if "stop using" in x)
    assert "fix manual: stop using `vllm.api.g` (" in line and line.endswith(")")  # why manual, with -v
    assert main([*argv, "--format", "concise"]) == 1
    concise = capsys.readouterr().out
    assert "fix: manual: stop using `vllm.api.g`" in concise and "drop `b=2` from the call" in concise


def _demo_wheel(dest: pathlib.Path, version: str, api: str) -> pathlib.Path:
    """A universal wheel of distribution `demo` (import name `demo`)."""
    import zipfile

    dist = f"demo-{version}.dist-info"
    files = {"demo/__init__.py": "", "demo/api.py": api,
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: demo\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: drift-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{dist}/top_level.txt": "demo\n", f"{dist}/RECORD": ""}
    path = dest / f"demo-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


def test_a_target_drift_chose_and_a_baseline_from_a_range_are_caveats(tmp_path) -> None:
    """No -t: the index's newest release is the target; the consumer's range `demo>=1.0,<2` gives
    the baseline (its highest release): both change the verdict without a change in the
    consumer, so both are said under the header (JSON `caveats`; the terminal's `!` lines)."""
    from tests.fetch_fixtures import IndexServer, running
    from tests.test_fetch_nightly import _drift

    old, new = "def run(job, retries=3):\n    return job\n", "def run(job, *, retries=3):\n    return job\n"
    consumer = tmp_path / "consumer"
    (consumer / "uses_demo").mkdir(parents=True)
    (consumer / "uses_demo" / "__init__.py").write_text("from demo.api import run\n\n\ndef go(job):\n    return run(job, 5)\n")
    (consumer / "pyproject.toml").write_text(
        '[project]\nname = "uses-demo"\nversion = "0.1"\ndependencies = ["demo>=1.0,<2"]\n')
    with running(IndexServer()) as index:
        for version, api in (("1.0", old), ("1.1", old), ("2.0", new)):
            index.add(_demo_wheel(tmp_path, version, api))
        env = {"PIP_INDEX_URL": index.simple}
        proc = _drift("check", str(consumer), "--package", "demo", "--consumer-package", "uses_demo",
                      "--format", "json", env_extra=env, tmp_path=tmp_path)
        term = _drift("check", str(consumer), "--package", "demo", "--consumer-package", "uses_demo",
                      env_extra=env, tmp_path=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["target"]["version"] == "2.0" and doc["baseline"]["version"] == "1.1"
    newest, ranged = doc["caveats"]
    assert newest.startswith("target demo==2.0 is the newest release on the index (no -t given)")
    assert ranged.startswith("baseline demo==1.1: the highest release admitted by the consumer's range")
    head = term.stdout.split("BREAKING")[0]
    assert f"! {newest}" in head and f"! {ranged}" in head


def test_a_consumer_file_that_cannot_be_read_is_a_caveat(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "odd.py").write_bytes(b"# -*- coding: no-such-codec -*-\nimport vllm\n")
    rc = main(["check", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before")])
    out = capsys.readouterr().out
    head = out.split("BREAKING")[0]
    assert rc == 1 and "! consumer file kvtool/odd.py could not be read" in head


def test_a_syntax_error_fails_the_gate(trees, capsys) -> None:
    (trees / "repo" / "kvtool" / "__init__.py").write_text("from vllm.api import f\n")  # clean otherwise
    argv = ["gate", "-c", str(trees / "repo"), "-t", str(trees / "after"), "-b", str(trees / "before"),
            "--format", "json"]
    assert main(argv) == 0
    capsys.readouterr()
    (trees / "repo" / "kvtool" / "bad.py").write_text("import vllm\n\ndef f(:\n")
    assert main(argv) == 1
    report = json.loads(capsys.readouterr().out)  # one target: one drift.report/1 object
    assert [f["rule_id"] for f in report["findings"]] == ["DRIFT004"]
