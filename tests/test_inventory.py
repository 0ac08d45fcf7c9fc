"""Ansible inventories (INI and YAML) and --limit selection, on small inventories written here."""

import pytest

from drift.remote.inventory import InventoryError, load_inventory, parse_inventory, select_hosts

INI = """\
# a fleet of GPU hosts
bastion.example.com ansible_user=ops

[gpu]
gpu-[01:03] ansible_user=ubuntu
gpu-big ansible_host=10.1.2.3 ansible_port=2222 ansible_python_interpreter="/opt/venv/bin/python"
[gpu:vars]
ansible_python_interpreter=/usr/bin/python3
ansible_port=22
site=east

[cpu]
cpu-a:2200

[lab:children]
gpu
cpu

[lab:vars]
site=lab
owner=research

[all:vars]
ansible_user=root
"""

YAML = """\
all:
  vars:
    ansible_user: root
  hosts:
    bastion.example.com:
      ansible_user: ops
  children:
    lab:
      vars: {site: lab, owner: research}
      children:
        gpu:
          vars:
            ansible_python_interpreter: /usr/bin/python3
            site: east
          hosts:
            gpu-[01:03]:
              ansible_user: ubuntu
            gpu-big:
              ansible_host: 10.1.2.3
              ansible_port: 2222
              ansible_python_interpreter: /opt/venv/bin/python
        cpu:
          hosts:
            cpu-a:2200:
"""


@pytest.fixture(params=["ini", "yaml"])
def inv(request, tmp_path):
    name, text = ("hosts.ini", INI) if request.param == "ini" else ("hosts.yml", YAML)
    path = tmp_path / name
    path.write_text(text)
    return load_inventory(str(path))


def by_name(inv):
    return {h.name: h for h in inv.hosts}


def test_hosts_and_connection_vars(inv):
    hosts = by_name(inv)
    assert set(hosts) == {"bastion.example.com", "gpu-01", "gpu-02", "gpu-03", "gpu-big", "cpu-a"}
    big = hosts["gpu-big"]
    assert (big.address, big.port, big.user, big.python) == ("10.1.2.3", 2222, "root", "/opt/venv/bin/python")
    assert big.spec == "root@10.1.2.3:2222"
    g2 = hosts["gpu-02"]
    assert (g2.address, g2.user, g2.python) == ("gpu-02", "ubuntu", "/usr/bin/python3")
    assert hosts["cpu-a"].port == 2200 and hosts["cpu-a"].python is None
    assert hosts["bastion.example.com"].user == "ops"
    assert hosts["bastion.example.com"].groups == ("ungrouped",)


def test_group_membership_and_var_precedence(inv):
    hosts = by_name(inv)
    assert hosts["gpu-01"].groups == ("gpu", "lab")
    # child group (gpu) beats parent (lab); host vars beat both
    assert hosts["gpu-01"].vars["site"] == "east"
    assert hosts["cpu-a"].vars["site"] == "lab"
    assert hosts["gpu-01"].vars["owner"] == "research"
    assert sorted(inv.groups["lab"]) == ["cpu-a", "gpu-01", "gpu-02", "gpu-03", "gpu-big"]
    assert len(inv.groups["all"]) == 6


@pytest.mark.parametrize(
    "limit, expected",
    [
        (None, ["bastion.example.com", "gpu-01", "gpu-02", "gpu-03", "gpu-big", "cpu-a"]),
        ("all", ["bastion.example.com", "gpu-01", "gpu-02", "gpu-03", "gpu-big", "cpu-a"]),
        ("gpu", ["gpu-01", "gpu-02", "gpu-03", "gpu-big"]),
        ("gpu:!gpu-big", ["gpu-01", "gpu-02", "gpu-03"]),
        ("lab,!gpu", ["cpu-a"]),
        ("gpu-0*", ["gpu-01", "gpu-02", "gpu-03"]),
        ("cpu-a,bastion.example.com", ["bastion.example.com", "cpu-a"]),
        ("lab:&gpu:!gpu-01", ["gpu-02", "gpu-03", "gpu-big"]),
        ("~gpu-0[12]", ["gpu-01", "gpu-02"]),
        ("!lab", ["bastion.example.com"]),
        ("c*", ["gpu-01", "gpu-02", "gpu-03", "gpu-big", "cpu-a"][4:]),
    ],
)
def test_limit(inv, limit, expected):
    assert [h.name for h in select_hosts(inv, limit)] == expected


def test_limit_from_file(inv, tmp_path):
    f = tmp_path / "retry"
    f.write_text("gpu-01\ncpu-a\n")
    assert [h.name for h in inv.select(f"@{f}")] == ["gpu-01", "cpu-a"]


def test_limit_matching_nothing_is_an_error(inv):
    with pytest.raises(InventoryError, match="matches no host"):
        select_hosts(inv, "gpu-99")


def test_inline_host_list():
    inv = load_inventory("root@ignored-not-a-file-a,b:2222,")
    names = [h.name for h in inv.hosts]
    assert names == ["root@ignored-not-a-file-a", "b"]
    assert inv.hosts[1].port == 2222


def test_ipv6_limit_is_not_split_on_colons():
    inv = parse_inventory("[v6]\n::1 ansible_port=2222\n", fmt="ini")
    assert [h.name for h in select_hosts(inv, "::1")] == ["::1"]
    assert inv.hosts[0].spec == "[::1]:2222"


@pytest.mark.parametrize(
    "text, fmt, needle",
    [
        ("[gpu\nhost\n", "ini", "bad section header"),
        ("[gpu:vars]\nnot a pair\n", "ini", r"hosts.ini:2: expected key=value"),
        ("[gpu]\nh1 port\n", "ini", "expected key=value after the host name"),
        ("[gpu]\nh1 ansible_port=notnum\n", "ini", "is not a number"),
        ("[gpu]\nh1 ansible_port=99999\n", "ini", "out of range"),
        ("[gpu]\nweb[1:x]\n", "ini", "bad host range"),
        ("[a:children]\nb\n[b:children]\na\n", "ini", "group cycle"),
        ("all: [1, 2]\n", "yaml", "must be a mapping"),
        ("all:\n  hostz: {}\n", "yaml", "unknown keys"),
        ("all:\n  hosts: [a]\n", "yaml", "must be a mapping of host names"),
        ("all: {hosts: {a: }\n", "yaml", "invalid YAML"),
    ],
)
def test_errors(text, fmt, needle):
    with pytest.raises(InventoryError, match=needle):
        parse_inventory(text, source="hosts.ini", fmt=fmt)


def test_missing_file():
    with pytest.raises(InventoryError, match="inventory not found"):
        load_inventory("/nonexistent/inventory")


def test_host_ranges_keep_padding():
    inv = parse_inventory("[r]\nn[08:10].x\ndb-[a:c]\ns[1:5:2]\n", fmt="ini")
    assert [h.name for h in inv.hosts] == ["n08.x", "n09.x", "n10.x", "db-a", "db-b", "db-c", "s1", "s3", "s5"]
