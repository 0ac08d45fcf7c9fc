"""Host keys checked as OpenSSH checks them, over real sshds: ProxyJump hops from the ssh config
honour --known-hosts/--accept-new and show their fingerprint when refused, an entry for the
same name on another port means "unknown" (not "changed"), a known_hosts line that is not
UTF-8 is skipped with a warning, and --accept-new says what it recorded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drift.cli import main

pytestmark = [pytest.mark.ssh]


def fingerprint(server) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", server.host_key + ".pub"], capture_output=True, text=True,
                         check=True).stdout
    return out.split()[1]


def runs(capsys, spec, *args):
    code = main(["runs", spec, "--python", sys.executable, "--run-dir", "/nonexistent/drift-runs", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.fixture
def jump_pair(sshd, sshd_factory, tmp_path):
    """(config file, known_hosts holding only the inner host's key, jump server, inner server)."""
    inner = sshd_factory(user_key=Path(sshd.identity))
    known = tmp_path / "known_hosts"
    known.write_text(inner.host_public_line())
    config = sshd.write_ssh_config(
        f"Host jumpbox\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n  IdentityFile {sshd.identity}\n"
        f"Host inner\n  HostName 127.0.0.1\n  Port {inner.port}\n  User root\n  IdentityFile {sshd.identity}\n"
        "  ProxyJump jumpbox\n", name=f"cfg_{tmp_path.name}")
    return config, known, sshd, inner


def test_unknown_proxyjump_hop_is_refused_with_its_fingerprint(jump_pair, capsys):
    config, known, jump, inner = jump_pair
    code, out, err = runs(capsys, "inner", "-F", config, "--known-hosts", str(known))
    assert code == 3
    assert "jump host jumpbox" in err and fingerprint(jump) in err
    assert "--accept-new" in err


def test_accept_new_reaches_the_proxyjump_hop_and_says_what_it_recorded(jump_pair, capsys):
    config, known, jump, inner = jump_pair
    code, out, err = runs(capsys, "inner", "-F", config, "--known-hosts", str(known), "--accept-new")
    assert code == 0, err
    assert f"recorded the ssh-ed25519 host key of [127.0.0.1]:{jump.port} ({fingerprint(jump)}) in {known}" in err
    assert jump.host_public_line().split()[2] in known.read_text()
    code, out, err = runs(capsys, "inner", "-F", config, "--known-hosts", str(known))  # now known
    assert code == 0 and "recorded" not in err


def test_same_name_on_another_port_is_unknown_not_changed(sshd, sshd_factory, tmp_path, capsys):
    other = sshd_factory()  # another sshd, another key, same address
    known = tmp_path / "known_hosts"
    alg, blob = Path(other.host_key + ".pub").read_text().split()[:2]
    known.write_text(f"127.0.0.1 {alg} {blob}\n[127.0.0.1]:{other.port} {alg} {blob}\n")
    code, out, err = runs(capsys, sshd.spec, "-i", sshd.identity, "--known-hosts", str(known),
                          "-F", sshd.write_ssh_config(""))
    assert code == 3
    assert "CHANGED" not in err
    assert "is not in known_hosts" in err and fingerprint(sshd) in err


def test_a_non_utf8_known_hosts_line_is_skipped_with_a_warning(sshd, tmp_path, capsys):
    known = tmp_path / "known_hosts"
    known.write_bytes(b"# caf\xe9 latin-1 comment\n" + b"\xff\xfe\x00 binary junk\n" + sshd.host_public_line().encode())
    code, out, err = runs(capsys, sshd.spec, "-i", sshd.identity, "--known-hosts", str(known),
                          "-F", sshd.write_ssh_config(""))
    assert code == 0, err
    assert f"{known}:1 is not UTF-8" in err and f"{known}:2 is not UTF-8" in err


def test_accept_new_says_what_it_recorded(sshd, tmp_path, capsys):
    known = tmp_path / "known_hosts"
    code, out, err = runs(capsys, sshd.spec, "-i", sshd.identity, "--known-hosts", str(known),
                          "-F", sshd.write_ssh_config(""), "--accept-new")
    assert code == 0, err
    assert f"recorded the ssh-ed25519 host key of [127.0.0.1]:{sshd.port} ({fingerprint(sshd)}) in {known}" in err
    assert known.read_text() == sshd.host_public_line()
