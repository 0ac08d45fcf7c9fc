"""Ansible inventories (INI and YAML) and --limit patterns, so a fleet is described once.

Only what selecting and reaching hosts needs is read: groups, children, vars, and the
connection vars ansible_host / ansible_port / ansible_user / ansible_python_interpreter.
Variable precedence follows Ansible: all < parent groups < child groups (by depth, then name)
< host vars. Errors carry file:line so a typo is found without guessing.
"""

from __future__ import annotations

import ast
import fnmatch
import ipaddress
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from drift.inputs import InputTooLarge, read_bounded

__all__ = ["Inventory", "InventoryError", "InventoryHost", "load_inventory", "parse_inventory", "select_hosts"]

MAX_HOSTS = 50_000  # more than any fleet drift is meant for; a typo'd range stops here
MAX_YAML_NODES = 1_000_000  # YAML nodes once aliases are expanded (a 1 KB alias bomb is billions)
MAX_INVENTORY_BYTES = 16 * 1024 * 1024
_RANGE = re.compile(r"\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::(\d+))?\]")
_SECTION = re.compile(r"^\[([^\]:\s]+)(?::(vars|children))?\]\s*$")


class InventoryError(ValueError):
    """An inventory or limit pattern drift cannot read; the message says where and why."""


@dataclass(frozen=True)
class InventoryHost:
    name: str
    address: str
    port: int | None
    user: str | None
    python: str | None
    groups: tuple[str, ...]  # every group the host belongs to, transitively, without "all"
    vars: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def spec(self) -> str:
        """A host spec drift.remote.hostspec and the SSH connector understand."""
        host = f"[{self.address}]" if ":" in self.address else self.address
        user = f"{self.user}@" if self.user else ""
        return f"{user}{host}:{self.port}" if self.port else f"{user}{host}"


@dataclass
class _Group:
    name: str
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)  # host -> host vars here
    children: set[str] = field(default_factory=set)
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass
class Inventory:
    hosts: list[InventoryHost]
    groups: dict[str, list[str]]  # group -> host names (transitive), includes "all"

    def select(self, limit: str | None) -> list[InventoryHost]:
        return select_hosts(self, limit)


# ------------------------------------------------------------------------------ host ranges


def _range_values(start: str, end: str, step: int, pattern: str, where: str) -> range | list[str]:
    if step < 1:
        raise InventoryError(f"{where}host range step must be at least 1 in {pattern!r}")
    if start.isdigit() and end.isdigit():
        return range(int(start), int(end) + 1, step)
    if len(start) == 1 and len(end) == 1 and start.isalpha() and end.isalpha():
        return [chr(c) for c in range(ord(start), ord(end) + 1, step)]
    raise InventoryError(f"{where}bad host range [{start}:{end}] in {pattern!r}")


def range_count(pattern: str, *, where: str = "") -> int:
    """How many names ``pattern`` expands to, computed without expanding it."""
    total, rest = 1, pattern
    while True:
        m = _RANGE.search(rest)
        if not m:
            return total
        start, end, step = m.group(1), m.group(2), int(m.group(3) or 1)
        total *= len(_range_values(start, end, step, pattern, where))
        if total > MAX_HOSTS:
            return total
        rest = rest[m.end():]


def expand_host_pattern(pattern: str, *, where: str = "") -> list[str]:
    """Expand Ansible ranges: ``web[01:03]`` -> web01..web03, ``db-[a:c]``, ``[1:9:2]``.

    The count is checked before anything is built: ``h[1:100000000]`` is an error, not 100
    million strings."""
    count = range_count(pattern, where=where)
    if count > MAX_HOSTS:
        raise InventoryError(f"{where}{pattern!r} expands to {count:,}+ hosts; drift takes at most {MAX_HOSTS:,}")
    return _expand(pattern, where)


def _expand(pattern: str, where: str) -> list[str]:
    m = _RANGE.search(pattern)
    if not m:
        return [pattern]
    start, end, step = m.group(1), m.group(2), int(m.group(3) or 1)
    head, tail = pattern[: m.start()], pattern[m.end() :]
    values = _range_values(start, end, step, pattern, where)
    if isinstance(values, range):
        width = len(start) if start.startswith("0") and len(start) > 1 else 0
        values = [str(i).zfill(width) for i in values]
    if not values:
        raise InventoryError(f"{where}empty host range in {pattern!r}")
    return [h for v in values for h in _expand(head + v + tail, where)]


# ------------------------------------------------------------------------------ parsers


def _ini_value(text: str, *, literal: bool) -> Any:
    """Ansible: inline host vars are Python literals when they parse as one; :vars are strings."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if literal:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
    return text


def _split_host_port(token: str) -> tuple[str, int | None]:
    """``host:port`` shorthand of INI inventories (not for bare IPv6)."""
    if token.startswith("[") and "]:" in token and not _RANGE.match(token):
        host, _, port = token[1:].partition("]:")
        return host, int(port) if port.isdigit() else None
    if token.count(":") == 1:
        host, _, port = token.partition(":")
        if port.isdigit():
            return host, int(port)
    return token, None


def _parse_ini(text: str, source: str) -> dict[str, _Group]:
    groups: dict[str, _Group] = {"all": _Group("all"), "ungrouped": _Group("ungrouped")}
    current, kind = "ungrouped", "hosts"
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{lineno}: "
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = _SECTION.match(line)
            if not m:
                raise InventoryError(f"{where}bad section header {line!r}")
            current, kind = m.group(1), m.group(2) or "hosts"
            groups.setdefault(current, _Group(current))
            continue
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError as exc:
            raise InventoryError(f"{where}{exc}") from None
        if not tokens:
            continue
        if kind == "vars":
            key, eq, value = line.partition("=")
            if not eq or not key.strip():
                raise InventoryError(f"{where}expected key=value in [{current}:vars], got {line!r}")
            groups[current].vars[key.strip()] = _ini_value(value.strip(), literal=False)
        elif kind == "children":
            if len(tokens) != 1:
                raise InventoryError(f"{where}expected one group name in [{current}:children]")
            groups.setdefault(tokens[0], _Group(tokens[0]))
            groups[current].children.add(tokens[0])
        else:
            host_vars: dict[str, Any] = {}
            for tok in tokens[1:]:
                key, eq, value = tok.partition("=")
                if not eq or not key:
                    raise InventoryError(f"{where}expected key=value after the host name, got {tok!r}")
                host_vars[key] = _ini_value(value, literal=True)
            name, port = _split_host_port(tokens[0])
            if port is not None:
                host_vars.setdefault("ansible_port", port)
            for host in expand_host_pattern(name, where=where):
                groups[current].hosts.setdefault(host, {}).update(host_vars)
    return groups


def _expanded_nodes(node: Any, memo: dict[int, int]) -> int:
    """YAML nodes with every alias expanded, counted over the shared node graph (no expansion)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # an alias cycle counts once rather than recursing forever
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_nodes(n, memo) for n in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_nodes(k, memo) + _expanded_nodes(v, memo) for k, v in node.value)
    memo[key] = min(size, MAX_YAML_NODES + 1)
    return memo[key]


def _parse_yaml(text: str, source: str) -> dict[str, _Group]:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is not None and _expanded_nodes(root, {}) > MAX_YAML_NODES:
            raise InventoryError(f"{source}: YAML aliases expand to more than {MAX_YAML_NODES:,} nodes "
                                 "(an alias bomb?); refusing to read it")
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InventoryError(f"{source}: invalid YAML: {exc}") from None
    except RecursionError:
        raise InventoryError(f"{source}: YAML nested too deeply to read") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InventoryError(f"{source}: expected a mapping of groups at the top level")
    groups: dict[str, _Group] = {"all": _Group("all"), "ungrouped": _Group("ungrouped")}

    def walk(name: str, body: Any, path: str) -> None:
        group = groups.setdefault(name, _Group(name))
        if body is None:
            return
        if not isinstance(body, dict):
            raise InventoryError(f"{source}: group {path} must be a mapping (hosts/children/vars)")
        unknown = set(body) - {"hosts", "children", "vars"}
        if unknown:
            raise InventoryError(f"{source}: group {path} has unknown keys {sorted(unknown)}")
        hosts = body.get("hosts") or {}
        if not isinstance(hosts, dict):
            raise InventoryError(f"{source}: {path}.hosts must be a mapping of host names")
        for pattern, host_vars in hosts.items():
            if host_vars is not None and not isinstance(host_vars, dict):
                raise InventoryError(f"{source}: vars of host {pattern} in {path} must be a mapping")
            name_, port = _split_host_port(str(pattern))
            hv = dict(host_vars or {})
            if port is not None:
                hv.setdefault("ansible_port", port)
            for host in expand_host_pattern(name_, where=f"{source}: "):
                group.hosts.setdefault(host, {}).update(hv)
        gvars = body.get("vars") or {}
        if not isinstance(gvars, dict):
            raise InventoryError(f"{source}: {path}.vars must be a mapping")
        group.vars.update(gvars)
        children = body.get("children") or {}
        if not isinstance(children, dict):
            raise InventoryError(f"{source}: {path}.children must be a mapping of groups")
        for child, child_body in children.items():
            group.children.add(str(child))
            walk(str(child), child_body, f"{path}.children.{child}")

    for name, body in data.items():
        walk(str(name), body, str(name))
    return groups


# ------------------------------------------------------------------------------ resolution


def _check_cycles(groups: dict[str, _Group], source: str) -> None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(name: str, path: tuple[str, ...]) -> None:
        if state.get(name) == 1:
            cycle = path[path.index(name):] + (name,)
            raise InventoryError(f"{source}: group cycle: {' -> '.join(cycle)}")
        if state.get(name) == 2:
            return
        state[name] = 1
        for child in sorted(groups[name].children):
            visit(child, path + (name,))
        state[name] = 2

    for name in sorted(groups):
        visit(name, ())


def _build(groups: dict[str, _Group], source: str) -> Inventory:
    _check_cycles(groups, source)
    parents: dict[str, set[str]] = {name: set() for name in groups}
    for group in groups.values():
        for child in group.children:
            parents[child].add(group.name)
    for name in groups:
        if name != "all" and not parents[name]:
            parents[name].add("all")
            groups["all"].children.add(name)

    def ancestors(name: str) -> set[str]:
        out = {name}
        for p in parents[name]:
            out |= ancestors(p)
        return out

    depth: dict[str, int] = {}

    def depth_of(name: str) -> int:
        if name not in depth:
            depth[name] = 0 if name == "all" else 1 + max(depth_of(p) for p in parents[name])
        return depth[name]

    direct: dict[str, set[str]] = {}
    host_vars: dict[str, dict[str, Any]] = {}
    for group in groups.values():
        for host, hv in group.hosts.items():
            direct.setdefault(host, set()).add(group.name)
            host_vars.setdefault(host, {}).update(hv)
    if len(direct) > MAX_HOSTS:
        raise InventoryError(f"{source}: {len(direct):,} hosts; drift takes at most {MAX_HOSTS:,}")
    hosts: list[InventoryHost] = []
    members: dict[str, list[str]] = {name: [] for name in groups}
    for host in direct:
        if direct[host] - {"ungrouped", "all"}:
            direct[host].discard("ungrouped")
        elif "ungrouped" not in direct[host]:
            direct[host].add("ungrouped")
        all_groups: set[str] = set()
        for g in direct[host]:
            all_groups |= ancestors(g)
        merged: dict[str, Any] = {}
        for g in sorted(all_groups, key=lambda n: (depth_of(n), n)):
            merged.update(groups[g].vars)
        merged.update(host_vars[host])
        hosts.append(_make_host(host, merged, tuple(sorted(all_groups - {"all"})), source))
        for g in all_groups:
            members[g].append(host)
    return Inventory(hosts=hosts, groups=members)


def _make_host(name: str, hv: dict[str, Any], groups: tuple[str, ...], source: str) -> InventoryHost:
    port = hv.get("ansible_port", hv.get("ansible_ssh_port"))
    if port is not None:
        try:
            port = int(port)
        except (TypeError, ValueError):
            raise InventoryError(f"{source}: host {name}: ansible_port {port!r} is not a number") from None
        if not 1 <= port <= 65535:
            raise InventoryError(f"{source}: host {name}: ansible_port {port} is out of range")
    user = hv.get("ansible_user", hv.get("ansible_ssh_user"))
    python = hv.get("ansible_python_interpreter")
    return InventoryHost(
        name=name,
        address=str(hv.get("ansible_host", hv.get("ansible_ssh_host", name))),
        port=port,
        user=str(user) if user is not None else None,
        python=str(python) if python is not None else None,
        groups=groups,
        vars=hv,
    )


def parse_inventory(text: str, *, source: str = "<inventory>", fmt: str | None = None) -> Inventory:
    """Parse inventory text; ``fmt`` is "ini" or "yaml", guessed from the text when None."""
    if fmt is None:
        stripped = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", ";"))]
        fmt = "ini" if not stripped or stripped[0].lstrip().startswith("[") or "=" in stripped[0] else "yaml"
        if fmt == "yaml" and not stripped[0].rstrip().endswith(":"):
            fmt = "ini"
    if fmt not in ("ini", "yaml"):
        raise InventoryError(f"unknown inventory format {fmt!r}")
    groups = _parse_yaml(text, source) if fmt == "yaml" else _parse_ini(text, source)
    return _build(groups, source)


def load_inventory(path_or_hosts: str) -> Inventory:
    """Load a file (format from its suffix or content), or an inline list ``"h1,h2,"`` as Ansible's -i."""
    path = Path(path_or_hosts).expanduser()
    if not path.exists():
        if "," in path_or_hosts:
            names = [h.strip() for h in path_or_hosts.split(",") if h.strip()]
            text = "\n".join(names)
            return parse_inventory(text, source="<inline>", fmt="ini")
        raise InventoryError(f"inventory not found: {path_or_hosts}")
    if path.is_dir():
        raise InventoryError(f"inventory directories are not supported, give a file: {path_or_hosts}")
    try:
        text = read_bounded(path, limit=MAX_INVENTORY_BYTES, what=f"inventory {path_or_hosts}").decode("utf-8")
    except InputTooLarge as exc:
        raise InventoryError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InventoryError(f"cannot read inventory {path_or_hosts}: {exc}") from None
    suffix = path.suffix.lower()
    fmt = "yaml" if suffix in (".yml", ".yaml") else "ini" if suffix in (".ini", ".cfg") else None
    return parse_inventory(text, source=str(path_or_hosts), fmt=fmt)


# ------------------------------------------------------------------------------ --limit


def split_patterns(limit: str) -> list[str]:
    """Split a limit on commas, or on colons when there is no comma (IPv6 kept whole)."""
    limit = limit.strip()
    if "," in limit:
        return [p.strip() for p in limit.split(",") if p.strip()]
    try:
        ipaddress.IPv6Address(limit.lstrip("!&"))
        return [limit]
    except ValueError:
        pass
    return [p.strip() for p in limit.split(":") if p.strip()]


def _match_one(inv: Inventory, pattern: str) -> list[str]:
    if pattern in ("all", "*"):
        return list(inv.groups.get("all", []))
    if pattern in inv.groups:
        return list(inv.groups[pattern])
    names = [h.name for h in inv.hosts]
    if pattern.startswith("~"):
        try:
            rx = re.compile(pattern[1:])
        except re.error as exc:
            raise InventoryError(f"bad regex in limit {pattern!r}: {exc}") from None
        hits = [n for n in names if rx.match(n)]
        hits += [h for g, hs in inv.groups.items() if rx.match(g) for h in hs]
        return hits
    if any(ch in pattern for ch in "*?["):
        hits = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        hits += [h for g, hs in inv.groups.items() if g != "all" and fnmatch.fnmatchcase(g, pattern) for h in hs]
        return hits
    return [n for n in names if n == pattern]


def select_hosts(inv: Inventory, limit: str | None) -> list[InventoryHost]:
    """Hosts matching ``limit`` (Ansible --limit), in inventory order; unknown names are errors."""
    if limit is None or not limit.strip():
        return list(inv.hosts)
    limit = limit.strip()
    if limit.startswith("@"):
        try:
            lines = read_bounded(Path(limit[1:]).expanduser(), limit=MAX_INVENTORY_BYTES,
                                 what=f"limit file {limit[1:]}").decode("utf-8", "replace").split()
        except InputTooLarge as exc:
            raise InventoryError(str(exc)) from None
        except OSError as exc:
            raise InventoryError(f"cannot read limit file {limit[1:]}: {exc.strerror or exc}") from None
        limit = ",".join(lines)
    include: set[str] = set()
    positives = False
    intersect: list[set[str]] = []
    exclude: set[str] = set()
    for pattern in split_patterns(limit):
        op, body = (pattern[0], pattern[1:]) if pattern[0] in "!&" else ("", pattern)
        if not body:
            raise InventoryError(f"empty pattern in limit {limit!r}")
        hits = set(_match_one(inv, body))
        if not hits and op != "!":
            raise InventoryError(f"limit pattern {body!r} matches no host or group in the inventory")
        if op == "!":
            exclude |= hits
        elif op == "&":
            intersect.append(hits)
        else:
            positives = True
            include |= hits
    selected = include if positives else {h.name for h in inv.hosts}
    for hits in intersect:
        selected &= hits
    selected -= exclude
    return [h for h in inv.hosts if h.name in selected]
