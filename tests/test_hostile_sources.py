"""A corpus of hostile consumer (and target) files, end to end through `drift scan` over the real
sshd: a file the probe cannot walk is noted and skipped, the scan goes on, and a latin-1 file
with its PEP 263 cookie is read like any other.

The host is a real venv whose site-packages point (.pth) at vLLM 0.16's released sources and at
a copy of speculators 0.3.0 with the hostile files added to it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main
from drift.probes.main import collect_tree

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]

EXECUTOR = "from vllm.v1.executor.multiproc_executor import MultiprocExecutor\n"

# name -> (source bytes, what must be true of it in the report: "read" | "noted" | "finding")
def _null_bytes_are_a_syntax_error() -> bool:
    import ast

    try:
        ast.parse("x\x00")
    except SyntaxError:
        return True
    except ValueError:
        return False
    return False


CORPUS = {
    "plus_chain": (b"from vllm import LLM\nx = " + b" + ".join([b"LLM.a"] * 700) + b"\n", "read"),
    "attribute_chain": (b"import vllm\nx = vllm" + b".b" * 100_000 + b"\n", "read"),
    "call_chain": (b"import vllm\nx = vllm.f" + b"()" * 50_000 + b"\n", "read"),
    "not_chain": (b"import vllm\nx = " + b"not " * 100_000 + b"vllm\n", "noted"),
    "lambda_nest": (b"import vllm\nx = " + b"lambda: " * 3000 + b"vllm\n", "noted"),
    "latin1_cookie": (("# -*- coding: latin-1 -*-\n" + EXECUTOR + "# café, naïve\n"
                       "def go(ex: MultiprocExecutor):\n    return ex.collective_rpc('m', unique_reply_rank=0)\n"
                       ).encode("latin-1"), "read"),
    "utf8_bom": (b"\xef\xbb\xbf" + EXECUTOR.encode() + b"def go(ex):\n    return ex.collective_rpc('m')\n", "read"),
    "unknown_cookie": (b"# -*- coding: klingon -*-\nimport vllm\n", "noted"),
    "invalid_utf8": (b"import vllm\ns = '\xff\xfe'\n", "noted"),
    # Python 3.11.4+ refuses a null byte with a SyntaxError (a finding, as for syntax_error), older ones with
    # a ValueError (the file is noted): drift says what this interpreter would raise on import
    "null_bytes": (b"import vllm\x00\n", "finding" if _null_bytes_are_a_syntax_error() else "noted"),
    "syntax_error": (b"import vllm\ndef f(:\n", "finding"),  # issue 24: DRIFT004, breaking
    "too_large": (b"import vllm\n" + b"#" * 5_000_100 + b"\n", "noted"),
}


@pytest.fixture(scope="module")
def hostile_host(tmp_path_factory, corpus_src):
    """The python of a host whose consumer holds the hostile corpus (and a FIFO named .py)."""
    vllm_root = corpus_src("vllm==0.16.0")
    spec_src = corpus_src("speculators==0.3.0")
    corpus_src("vllm==0.11.0")  # the baseline speculators names
    work = tmp_path_factory.mktemp("hostile-host")
    consumer = work / "consumer"
    shutil.copytree(spec_src, consumer)
    for name, (data, _) in CORPUS.items():
        (consumer / "speculators" / f"hostile_{name}.py").write_bytes(data)
    os.mkfifo(consumer / "speculators" / "hostile_fifo.py")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "drift_hostile.pth").write_text(f"{vllm_root}\n{consumer}\n")
    return str(python)


def test_hostile_consumer_files_are_noted_and_the_scan_goes_on(sshd, hostile_host, capsys):
    code = main(["scan", sshd.spec, "--python", hostile_host, "-i", sshd.identity, "--known-hosts",
                 sshd.known_hosts, "-F", sshd.write_ssh_config(""), "--json", "--no-host-cache"])
    out, err = capsys.readouterr()
    assert "probe crashed" not in err and "Traceback" not in err
    assert code == 1, err  # the real speculators files still break on vLLM 0.16
    doc = json.loads(out)
    assert {"DRIFT020", "VLLM001"} <= {f["rule_id"] for f in doc["findings"]}
    notes = "\n".join(doc["notes"])
    for name, (_, expect) in CORPUS.items():
        path = f"speculators/hostile_{name}.py"
        if expect == "noted":
            assert path in notes, name
        else:
            assert path not in notes, name
        if expect == "finding":
            assert any(f["rule_id"] == "DRIFT004" and f["consumer_site"]["path"] == path for f in doc["findings"]), name
    assert "speculators/hostile_fifo.py" in notes  # named .py, but a FIFO: noted, never opened
    assert "skipped: MemoryError" in notes
    used = {u["site"]["path"] for u in doc["uses"]}
    assert {"speculators/hostile_latin1_cookie.py", "speculators/hostile_utf8_bom.py"} <= used


def test_hostile_target_files_become_module_errors(tmp_path):
    """The same corpus inside a target package: each file is a module with its error (or its
    facts), and the probe (in-process and in its forked workers) never crashes."""
    pkg = tmp_path / "tgt"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, (data, _) in CORPUS.items():
        (pkg / f"{name}.py").write_bytes(data)
    for workers in (1, 2):
        doc = collect_tree(str(tmp_path), ["tgt"], workers=workers)
        modules = doc["packages"]["tgt"]["modules"]
        assert set(modules) == {"tgt"} | {f"tgt.{n}" for n in CORPUS}
        assert modules["tgt.plus_chain"]["error"] is None
        assert modules["tgt.attribute_chain"]["error"] is None
        assert modules["tgt.latin1_cookie"]["error"] is None
        assert modules["tgt.latin1_cookie"]["imports"]["MultiprocExecutor"]["target"].endswith("MultiprocExecutor")
        assert "MemoryError" in modules["tgt.not_chain"]["error"]
        assert modules["tgt.too_large"]["error"].startswith("too large")
