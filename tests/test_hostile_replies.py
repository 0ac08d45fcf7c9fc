"""A hostile host's replies, over the real sshd: drift's verdict for one host can only come from
what that host sent, and a bad reply is one clear error for that host (exit 2), never a
traceback, a write outside the cache, or gigabytes of memory.

The host side is tests/sshd_fixtures.py's harness: a stand-in `--python` that answers with
crafted bytes (another host's digest, a path-like digest, a zlib bomb, `{}`, endless output).
"""

from __future__ import annotations

import copy
import json
import os
import zlib
from pathlib import Path

import pytest

from drift.cli import main
from drift.probes.bundle import MAX_REPLY_BYTES
from drift.probes.main import collect_tree
from tests.sshd_fixtures import crafted_reply, real_reply

pytestmark = [pytest.mark.ssh, pytest.mark.corpus]

REQUEST = {"packages": ["vllm"], "env_packages": ["speculators", "torch", "vllm"], "cache_dir": None,
           "known": {}, "usage": {"packages": ["speculators"], "prefixes": ["vllm"]}}


@pytest.fixture(scope="module")
def host_python(host_venv):
    return str(host_venv(("vllm==0.16.0", "speculators==0.3.0")))


@pytest.fixture(scope="module")
def honest_doc(host_python):
    """What the honest vLLM 0.16 host really answers."""
    return real_reply(host_python, REQUEST)


@pytest.fixture(scope="module")
def facts_011(corpus_src):
    return collect_tree(str(corpus_src("vllm==0.11.0")), ["vllm"])["packages"]["vllm"]


@pytest.fixture
def cache(tmp_path, monkeypatch, corpus_src):
    """A drift cache of this test's own (fresh facts store and host records); the releases
    already fetched and their parse cache are shared."""
    corpus_src("vllm==0.11.0")
    real = Path(os.path.expanduser("~/.cache/drift"))
    root = tmp_path / "drift-cache"
    root.mkdir()
    for shared in ("sources", "probe"):
        (real / shared).mkdir(parents=True, exist_ok=True)
        (root / shared).symlink_to(real / shared)
    monkeypatch.setenv("DRIFT_CACHE", str(root))
    return root


def ssh_args(server):
    return ["-i", server.identity, "--known-hosts", server.known_hosts, "-F", server.write_ssh_config("")]


def scan(capsys, server, python, *extra):
    code = main(["scan", server.spec, "--python", python, *ssh_args(server), *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def breaking(out: str) -> set[str]:
    return {f["rule_id"] for f in json.loads(out)["findings"] if f["severity"] == "breaking"}


def test_another_hosts_digest_cannot_decide_the_honest_hosts_verdict(
        sshd, sshd_factory, host_python, honest_doc, facts_011, hostile_python, cache, capsys):
    evil = sshd_factory()
    lie = copy.deepcopy(honest_doc)
    lie["packages"]["vllm"] = dict(facts_011, digest=honest_doc["packages"]["vllm"]["digest"])
    scan(capsys, evil, hostile_python.replying(crafted_reply(lie)), "--json")

    code, out, err = scan(capsys, sshd, host_python, "--json")
    assert code == 1, err
    assert {"DRIFT020", "DRIFT030", "VLLM001"} <= breaking(out)
    assert json.loads(out)["target"]["version"] == "0.16.0"


def test_unchanged_for_a_digest_drift_never_sent_that_host_is_refused(
        sshd, sshd_factory, host_python, honest_doc, hostile_python, cache, capsys):
    code, _, _ = scan(capsys, sshd, host_python, "--json")
    assert code == 1
    evil = sshd_factory()
    claim = {"unchanged": True, "digest": honest_doc["packages"]["vllm"]["digest"]}
    reply = dict(copy.deepcopy(honest_doc), packages={"vllm": claim})
    code, out, err = scan(capsys, evil, hostile_python.replying(crafted_reply(reply)), "--json")
    assert code == 2
    assert "unchanged" in err and "did not send" in err
    assert out == ""


def test_a_host_only_gets_unchanged_for_what_it_sent_itself(sshd, host_python, cache, capsys):
    first = scan(capsys, sshd, host_python, "--json")
    second = scan(capsys, sshd, host_python, "--json")
    assert first[0] == second[0] == 1
    assert [f["key"] for f in json.loads(first[1])["findings"]] == [f["key"] for f in json.loads(second[1])["findings"]]
    records = list((cache / "hosts").rglob("vllm.json"))
    assert len(records) == 1
    record = json.loads(records[0].read_text())
    assert record["host_digest"] != record["key"]  # drift's own key, not the host's claim


def test_path_like_digest_writes_nothing_outside_the_cache(
        sshd, honest_doc, hostile_python, cache, capsys):
    reply = copy.deepcopy(honest_doc)
    reply["packages"]["vllm"]["digest"] = "/../../x"
    code, out, err = scan(capsys, sshd, hostile_python.replying(crafted_reply(reply)))
    assert code == 2
    assert "digest" in err and "/../../x" in err
    assert not [p for p in cache.parent.rglob("x.*")]
    assert not (cache / "facts").exists() or not list((cache / "facts").iterdir())


MALFORMED = [
    ("empty object", crafted_reply({}), "not probe facts"),
    ("packages missing", crafted_reply({"schema": 1, "env": {}, "missing": []}), "reply.packages"),
    ("modules a list", None, "reply.packages.vllm.modules"),
    ("params not a list", None, ".params"),
    ("module path escapes", None, "not a plain relative path"),
    ("consumer path escapes", None, "reply.usage.speculators.modules[0].path"),
    ("not json", crafted_reply(b"{not json"), "not JSON"),
    ("truncated stream", crafted_reply({"schema": 1})[:-6], "truncated or corrupt"),
    ("json nested deep", crafted_reply(b"[" * 200000 + b"]" * 200000), "nested too deeply"),
    ("not a dict", crafted_reply([1, 2, 3]), "not an object"),
    ("unasked package", None, "was not asked for"),
    ("no marker", b"Welcome to gpu-01\n", "marker"),
]


@pytest.mark.parametrize("name, reply, says", MALFORMED, ids=[case[0] for case in MALFORMED])
def test_malformed_reply_is_a_clear_error_for_that_host(
        name, reply, says, sshd, honest_doc, hostile_python, cache, capsys):
    if reply is None:
        doc = copy.deepcopy(honest_doc)
        pkg = doc["packages"]["vllm"]
        mod = pkg["modules"]["vllm.v1.request"]
        if name == "modules a list":
            pkg["modules"] = list(pkg["modules"].values())
        elif name == "params not a list":
            next(iter(mod["classes"]["Request"]["methods"].values()))["params"] = "self"
        elif name == "module path escapes":
            mod["path"] = "../../../etc/passwd"
        elif name == "consumer path escapes":
            doc["usage"]["speculators"]["modules"][0]["path"] = "/root/.bashrc"
        elif name == "unasked package":
            doc["packages"]["torch"] = pkg
        reply = crafted_reply(doc)
    code, out, err = scan(capsys, sshd, hostile_python.replying(reply), "--json")
    assert code == 2, err
    assert says in err
    assert out == ""


def test_zlib_bomb_is_refused_before_it_inflates(sshd, hostile_python, cache, capsys):
    bomb = b"DRIFT1\n" + zlib.compress(b'{"schema": 1, "pad": "' + b"0" * (600 * 1024 * 1024), 9)
    assert len(bomb) < 1024 * 1024  # under 1 MB on the wire
    code, out, err = scan(capsys, sshd, hostile_python.replying(bomb))
    assert code == 2
    assert f"inflates to more than {MAX_REPLY_BYTES // (1024 * 1024)} MB" in err


def test_endless_output_is_cut_at_the_reply_limit(sshd, hostile_python, cache, capsys):
    code, out, err = scan(capsys, sshd, hostile_python.endless())
    assert code == 2
    assert "larger than 32 MB" in err


def test_host_pinned_baseline_that_is_not_a_version_never_reaches_a_path(
        sshd, honest_doc, hostile_python, cache, capsys):
    doc = copy.deepcopy(honest_doc)
    doc["usage"]["speculators"]["requires"] = ["vllm===../../../../tmp/drift-escape"]
    code, out, err = scan(capsys, sshd, hostile_python.replying(crafted_reply(doc)), "--json")
    assert code in (0, 1), err
    notes = " ".join(json.loads(out)["notes"])
    assert "not a version" in notes
    assert not Path("/tmp/drift-escape").exists()
    assert not [p for p in cache.rglob("*drift-escape*")]


def test_a_bad_reply_fails_that_host_and_the_fleet_goes_on(
        sshd, sshd_factory, host_python, hostile_python, cache, capsys, tmp_path):
    evil = sshd_factory(user_key=Path(sshd.identity))
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "all:\n  hosts:\n"
        f"    honest: {{ansible_host: 127.0.0.1, ansible_port: {sshd.port}, ansible_user: root,"
        f" ansible_python_interpreter: {host_python}}}\n"
        f"    evil: {{ansible_host: 127.0.0.1, ansible_port: {evil.port}, ansible_user: root,"
        f" ansible_python_interpreter: {hostile_python.replying(crafted_reply({}))}}}\n")
    known = tmp_path / "known_hosts"
    known.write_text(sshd.host_public_line() + evil.host_public_line())
    code = main(["scan", "--inventory", str(inventory), "-i", sshd.identity, "--known-hosts", str(known),
                 "-F", sshd.write_ssh_config(""), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    doc = json.loads(out)
    by_host = {h["host"]: h for h in doc["hosts"]}
    assert by_host["honest"]["status"] == "drift" and by_host["honest"]["report"]["findings"]
    assert by_host["evil"]["status"] == "failed" and "not probe facts" in by_host["evil"]["reason"]
    assert code == doc["exit_code"] == 2  # a host drift could not check outranks drift elsewhere


def test_escape_sequences_from_the_host_never_reach_the_terminal(sshd, honest_doc, hostile_python, cache, capsys):
    doc = copy.deepcopy(honest_doc)
    doc["env"]["hostname"] = "gpu-01\x1b]0;owned\x07"
    doc["env"]["packages"]["vllm"]["version"] = "0.16.0\x1b[2J\x1b[H"
    doc["packages"]["vllm"]["version"] = "0.16.0\x1b[8m"
    code, out, err = scan(capsys, sshd, hostile_python.replying(crafted_reply(doc)))
    assert code == 1, err
    assert "\x1b" not in out and "\x1b" not in err and "\x07" not in out
    json_code, json_out, _ = scan(capsys, sshd, hostile_python.replying(crafted_reply(doc)), "--json")
    assert json.loads(json_out)["target"]["version"] == "0.16.0\\x1b[8m"


def test_escape_sequences_in_the_hosts_error_text_are_shown_escaped(sshd, hostile_python, cache, capsys):
    reply = crafted_reply({"schema": 1, "error": "no\x1b[2J way"})
    code, out, err = scan(capsys, sshd, hostile_python.replying(reply))
    assert code == 2
    assert "no\\x1b[2J way" in err and "\x1b" not in err
