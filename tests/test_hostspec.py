"""Host specs as people type them for ssh, and the errors for what ssh would not accept."""

import pytest

from drift.remote.hostspec import HostSpec, HostSpecError, parse_hostspec


@pytest.mark.parametrize(
    "text, host, user, port",
    [
        ("gpu-01", "gpu-01", None, None),
        ("root@gpu-01", "gpu-01", "root", None),
        ("gpu-01:2222", "gpu-01", None, 2222),
        ("ubuntu@gpu-01.example.com:2222", "gpu-01.example.com", "ubuntu", 2222),
        ("ssh://ubuntu@gpu-01:2200", "gpu-01", "ubuntu", 2200),
        ("ssh://gpu-01", "gpu-01", None, None),
        ("ssh://gpu-01/", "gpu-01", None, None),
        ("[::1]:2222", "::1", None, 2222),
        ("root@[::1]:2222", "::1", "root", 2222),
        ("[::1]", "::1", None, None),
        ("::1", "::1", None, None),
        ("root@fe80::1%eth0", "fe80::1%eth0", "root", None),
        ("ssh://root@[2001:db8::7]:22", "2001:db8::7", "root", 22),
        ("10.0.0.5:22", "10.0.0.5", None, 22),
        ("jenkins.ci@host_with_underscore", "host_with_underscore", "jenkins.ci", None),
        ("  gpu-01  ", "gpu-01", None, None),
    ],
)
def test_parses(text, host, user, port):
    assert parse_hostspec(text) == HostSpec(host=host, user=user, port=port)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("", "empty"),
        ("gpu-01:abc", "bad port"),
        ("gpu-01:0", "out of range"),
        ("gpu-01:70000", "out of range"),
        ("http://gpu-01", "unsupported scheme"),
        ("ssh://gpu-01/path", "path is not allowed"),
        ("[::1", "unclosed"),
        ("[::1]x", "unexpected"),
        ("[zz::1]:22", "not a valid IPv6"),
        ("gpu 01", "whitespace"),
        ("gpu;id", "not a valid host name"),
        ("$(id)@gpu", "bad user name"),
        ("root@", "no host"),
        ("-oProxyCommand=x", "not a valid host name"),
    ],
)
def test_rejects_with_clear_message(text, needle):
    with pytest.raises(HostSpecError, match=needle):
        parse_hostspec(text)


def test_error_is_a_value_error():
    assert issubclass(HostSpecError, ValueError)


def test_default_port_and_rendering():
    spec = parse_hostspec("root@[::1]", default_port=2222)
    assert spec.port == 2222 and spec.is_ipv6
    assert str(spec) == "root@[::1]:2222"
    assert str(parse_hostspec("gpu-01")) == "gpu-01"
    assert parse_hostspec("gpu-01:2222").known_hosts_name() == "[gpu-01]:2222"
    assert parse_hostspec("gpu-01:22").known_hosts_name() == "gpu-01"
    # str() round-trips through the parser
    for text in ["u@h:1", "[::1]:2", "h", "u@[fe80::1]"]:
        assert parse_hostspec(str(parse_hostspec(text))) == parse_hostspec(text)
