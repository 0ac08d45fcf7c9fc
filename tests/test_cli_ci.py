"""The CLI as CI meets it: index errors that name the real cause (against a real local simple
index served by http.server), the newest release as the default target, snapshot files as
targets, `drift explain`, rule pages that match the registry, the launch hint, docs/config.md."""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import pathlib
import re
import socket
import threading
import zipfile

import pytest

from drift import exitcodes
from drift.cli import build_parser, main
from drift.analysis.ruledocs import CHECKOUT_PAGES, REGENERATE, builtin_registry, page, stale

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _wheel(folder: pathlib.Path, version: str) -> str:
    name = f"demo-{version}-py3-none-any.whl"
    with zipfile.ZipFile(folder / name, "w") as zf:
        zf.writestr("demo/__init__.py", "def f(a):\n    return a\n" if version != "1.0" else "def f(a, b=None):\n    return a\n")
        info = f"demo-{version}.dist-info"
        zf.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: demo\nVersion: {version}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{info}/top_level.txt", "demo\n")
        zf.writestr(f"{info}/RECORD", "")
    return name


@pytest.fixture()
def index(tmp_path, monkeypatch):
    """A PEP 503 simple index on 127.0.0.1 with demo 1.0, 2.0, 10.0 and 11.0rc1; pip pointed at it alone."""
    root = tmp_path / "index"
    files = root / "files"
    files.mkdir(parents=True)
    names = [_wheel(files, v) for v in ("1.0", "2.0", "10.0", "11.0rc1")]
    (root / "simple" / "demo").mkdir(parents=True)
    (root / "simple" / "index.html").write_text('<a href="demo/">demo</a>\n')
    (root / "simple" / "demo" / "index.html").write_text(
        "".join(f'<a href="../../files/{n}">{n}</a>\n' for n in names))
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *_args) -> None:  # the test reads drift's stderr, not the server's log
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    for var in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.server_address[1]}/simple")
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture()
def consumer(tmp_path):
    pkg = tmp_path / "cons" / "usesdemo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from demo import f\n\n\ndef run():\n    return f(1, b=2)\n")
    return tmp_path / "cons"


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    err = [ln for ln in err if not ln.startswith("drift: ") or ln.startswith("drift: error: ")]  # progress lines
    assert err and err[0].startswith("drift: error: "), err
    assert all(ln.startswith("  hint: ") for ln in err[1:]), err
    return "\n".join(err)


def test_newest_release_is_the_newest_final_one(index) -> None:
    from drift.sources.fetch import index_versions, newest_release

    assert index_versions("demo")[:3] == ["11.0rc1", "10.0", "2.0"]
    assert newest_release("demo") == "10.0"


def test_default_target_is_the_newest_release(index, consumer, capsys) -> None:
    code = main(["check", str(consumer), "--package", "demo", "-b", "demo==1.0", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["target"]["version"] == "10.0" and doc["target"]["spec"] == "demo==10.0"
    assert [f["rule_id"] for f in doc["findings"]] == ["DRIFT010"] and code == exitcodes.DRIFT


def test_no_matching_release_lists_the_newest_versions_first(index, consumer, capsys) -> None:
    code = main(["check", str(consumer), "--package", "demo", "-t", "demo==5"])
    err = _error(capsys)
    assert code == exitcodes.USAGE
    assert "no release matches demo==5" in err
    assert re.search(r"11\.0rc1, 10\.0, 2\.0, 1\.0", err), err


def test_a_project_that_does_not_exist_says_so(index, consumer, capsys) -> None:
    code = main(["check", str(consumer), "--package", "demo", "-t", "nosuchproject==1.0"])
    err = _error(capsys)
    assert code == exitcodes.USAGE and "no project named 'nosuchproject'" in err and "no release matches" not in err


def test_an_unreachable_index_is_said_to_be_unreachable(index, consumer, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{_free_port()}/simple")
    code = main(["check", str(consumer), "--package", "demo", "-t", "demo==2.0"])
    err = _error(capsys)
    # exit 3 (unreachable), the index named with the network's own reason; not "no release matches"
    assert code == exitcodes.UNREACHABLE and "package index" in err and "127.0.0.1" in err
    assert "connection refused" in err.lower() and "no release matches" not in err
    code = main(["check", str(consumer), "--package", "demo"])  # the default target needs the index too
    err = _error(capsys)
    assert code == exitcodes.UNREACHABLE and "hint: pass the target yourself" in err


def test_snapshot_twice_then_use_it_as_a_target(index, consumer, tmp_path, capsys) -> None:
    facts = tmp_path / "facts.json"
    for _ in range(2):  # the second read comes from the lazy store (LazyModules): must serialise too
        assert main(["snapshot", "demo==10.0", "-o", str(facts)]) == exitcodes.CLEAN
    assert main(["snapshot", "-t", "demo==10.0", "--format", "summary"]) == exitcodes.CLEAN
    summary = json.loads(capsys.readouterr().out)
    assert summary["packages"]["demo"]["modules"] == 1
    code = main(["check", str(consumer), "--package", "demo", "-t", str(facts), "-b", "demo==1.0", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == exitcodes.DRIFT and [f["rule_id"] for f in doc["findings"]] == ["DRIFT010"]
    assert doc["target"]["spec"] == str(facts)


def test_a_file_that_is_not_a_snapshot_is_refused(tmp_path, consumer, capsys) -> None:
    for text, words in (("{not json", "invalid JSON"), ('{"schema": 1, "packages": {"../x": {}}}', "not a package name"),
                        ('{"schema": 9}', "not a drift snapshot")):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        assert main(["check", str(consumer), "--package", "demo", "-t", str(bad)]) == exitcodes.USAGE
        assert words in _error(capsys)


def test_explain_prints_the_rule_page(capsys) -> None:
    assert main(["explain", "drift020"]) == exitcodes.CLEAN
    assert capsys.readouterr().out == page(builtin_registry()["DRIFT020"])
    assert main(["explain", "NOPE1"]) == exitcodes.USAGE
    assert "hint: known rules: DRIFT001" in _error(capsys)


def test_rule_pages_are_current() -> None:
    problems = stale(CHECKOUT_PAGES, builtin_registry())
    assert not problems, f"docs/rules/ is not what the rule registry says ({problems}); regenerate with `{REGENERATE}`"


def test_launch_hint_keeps_the_connection_flags() -> None:
    from drift.commands.launch import connection_flags
    from drift.jobs.connect import settings_from_args

    argv = ["launch", "-p", "2222", "-i", "/keys/id ed25519", "--known-hosts", "/tmp/kh", "--python", "/opt/py/bin/python",
            "gpu-01", "--", "python", "job.py"]
    args = build_parser("launch").parse_args(argv)
    flags = connection_flags(args, settings_from_args(args, host="gpu-01"))
    import shlex

    pasted = ["watch", *shlex.split(" ".join(flags)), "gpu-01", "20261201-101500-ab12"]
    wargs = build_parser("watch").parse_args(pasted)
    assert wargs.port == 2222 and wargs.identity == ["/keys/id ed25519"] and wargs.known_hosts == "/tmp/kh"
    assert wargs.python == "/opt/py/bin/python" and wargs.targets == ["gpu-01", "20261201-101500-ab12"]


def test_usage_errors_have_the_one_error_shape(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--fail-on", "sometimes"])
    assert exit_.value.code == exitcodes.USAGE
    assert "invalid choice" in _error(capsys)
    assert main(["diff", "vllm==0.16.0"]) == exitcodes.USAGE
    assert "hint: drift diff" in _error(capsys)


def test_config_doc_lists_every_key_and_its_example_parses() -> None:
    from drift.config import _CODE_LISTS, _TOP_KEYS, parse_config, tomllib

    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_.<>]+)`", text, flags=re.M))
    for key in [*_TOP_KEYS, *_CODE_LISTS, "per_file_ignores", "launch.command", "launch.run_dir"]:
        assert key in documented, key
    example = re.search(r"```toml\n(.*?)```", text, flags=re.S).group(1)
    config = parse_config(tomllib.loads(example)["tool"]["drift"])
    assert config.ignore == ("DRIFT050",) and config.per_file_ignores["tests/*"] == ("DRIFT0",)
    assert config.fail_on == "breaking" and config.launch_command[0] == "python"
