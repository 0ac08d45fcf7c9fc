"""A host consumer with one oddly named file is still checked (issue 25): the file is noted,
escaped, and every other file's uses are checked; a file with `# coding: undefined` is noted
and the probe goes on. Before, the first refused the whole reply (its path is not a plain
relative path) and the second crashed the probe, so one file left the whole host unchecked.

The host is the real sshd of tests/sshd_fixtures.py and a real venv whose site-packages hold a
small synthetic consumer (with a dist-info) and point (.pth) at vLLM 0.16's released sources.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main
from tests.hostile_strings import HOSTILE, RAW_CONTROLS, workflow_command_lines

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]

BREAKS = ("from vllm.v1.core.kv_cache_utils import get_kv_cache_config_from_groups\n\n"
          "def go(config, groups, memory):\n"
          "    return get_kv_cache_config_from_groups(config, groups, kv_cache_specs={}, available_memory=memory)\n")
ODD_NAME = HOSTILE["workflow_commands"] + "\x1b[2J"


@pytest.fixture(scope="module")
def odd_host(tmp_path_factory, corpus_src):
    vllm_root = corpus_src("vllm==0.16.0")
    corpus_src("vllm==0.11.0")  # the baseline, warm for the scan
    work = tmp_path_factory.mktemp("odd-host")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    pkg = site / "uses_vllm"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "plain.py").write_text(BREAKS)
    (pkg / f"{ODD_NAME}.py").write_text(BREAKS)
    (pkg / "undefined_cookie.py").write_bytes(b"# coding: undefined\n" + BREAKS.encode())
    info = site / "uses_vllm-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: uses-vllm\nVersion: 1.0\nRequires-Dist: vllm==0.11.0\n")
    (info / "top_level.txt").write_text("uses_vllm\n")
    (info / "RECORD").write_text("")
    (site / "drift_odd.pth").write_text(f"{vllm_root}\n")
    return str(python)


def _scan(sshd, python, capsys, *extra):
    code = main(["scan", sshd.spec, "--python", python, "-i", sshd.identity, "--known-hosts", sshd.known_hosts,
                 "-F", sshd.write_ssh_config(""), "-c", "uses-vllm", "-b", "vllm==0.11.0", "--no-host-cache", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_odd_file_name_is_noted_and_the_rest_is_checked(sshd, odd_host, capsys):
    code, out, err = _scan(sshd, odd_host, capsys, "--json")
    assert "Traceback" not in err and "probe crashed" not in err
    assert code == 1, err  # plain.py still breaks on vLLM 0.16
    doc = json.loads(out)
    assert {f["consumer_site"]["path"] for f in doc["findings"]} == {"uses_vllm/plain.py"}
    notes = "\n".join(doc["notes"])
    assert "uses_vllm/n\\x0a::add-mask::X\\x0a::warning file=x::owned\\x1b[2J.py" in notes  # noted, escaped
    assert "uses_vllm/undefined_cookie.py" in notes and "undefined" in notes


def test_the_terminal_report_of_that_host_obeys_no_name(sshd, odd_host, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, err = _scan(sshd, odd_host, capsys, "-v")
    assert code == 1, err
    assert not RAW_CONTROLS.search(out + err)
    assert workflow_command_lines(out + err) == []
    assert "add-mask" in out
