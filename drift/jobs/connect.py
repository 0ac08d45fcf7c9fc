"""Host options shared by launch/watch/runs, mirroring `drift scan`, and opening the connector.

Why here: the three job commands take the same OpenSSH-style options (HOST, -i, -J, -p, -F,
--accept-new, --python, --run-dir, --config); flags win over drift.toml, which wins over the
defaults. HOST omitted (and none configured) or "local" means this machine.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from drift.config import Config, ConfigError, load_config, require_trust, trust_requested
from drift.remote.connectors.base import Connector, ConnectorError
from drift.remote.connectors.local import LocalConnector

__all__ = ["JobSettings", "add_host_arguments", "open_connector", "settings_from_args"]


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-i", "--identity", action="append", default=None, metavar="FILE",
                        help="private key to log in with (repeatable)")
    parser.add_argument("-J", "--jump", metavar="HOST[,HOST]", help="jump host(s), as ssh -J")
    parser.add_argument("-p", "--port", type=int, help="SSH port")
    parser.add_argument("-F", "--ssh-config", metavar="FILE", help="ssh config file instead of ~/.ssh/config")
    parser.add_argument("--known-hosts", metavar="FILE", help="known_hosts file to check and record keys in")
    parser.add_argument("--accept-new", action="store_true", default=None,
                        help="record an unknown host key (as StrictHostKeyChecking=accept-new)")
    parser.add_argument("--python", help="the host's interpreter (default: python3; sys.executable for local)")
    parser.add_argument("--run-dir", help="run directory root on the host (default ~/.drift/runs)")
    parser.add_argument("--config", metavar="PATH", help="drift.toml to use instead of searching upwards")
    parser.add_argument("--trust-config", action="store_true", default=False,
                        help="let the config file run programs: a python:PATH target/baseline/consumer, an "
                             "ssh_config (also DRIFT_TRUST_CONFIG=1)")
    parser.add_argument("--connect-timeout", type=float, default=None, metavar="SECONDS",
                        help="give up on a host that has not answered and logged in within this many seconds "
                             "(default 10)")


@dataclass(frozen=True)
class JobSettings:
    """Config merged with the flags: what one job command acts on."""

    config: Config
    host: str | None  # None = this machine
    known_hosts: str | None
    identities: tuple[str, ...] = ()
    connect_timeout: float = 10  # seconds to reach and log in to a host (--connect-timeout)

    @property
    def is_local(self) -> bool:
        return self.host is None

    @property
    def python(self) -> str:
        return self.config.python or (sys.executable if self.is_local else "python3")


def settings_from_args(args: argparse.Namespace, *, host: str | None) -> JobSettings:
    """Raises ConfigError (exit 2) when the config file is unusable."""
    config = require_trust(load_config(getattr(args, "config", None)), trusted=trust_requested(args))
    identity = getattr(args, "identity", None)
    config = config.override(
        python=getattr(args, "python", None), run_dir=getattr(args, "run_dir", None),
        identity=identity[0] if identity else None,
        jump=getattr(args, "jump", None), port=getattr(args, "port", None),
        ssh_config=getattr(args, "ssh_config", None), accept_new=getattr(args, "accept_new", None),
    )
    chosen = host if host is not None else config.host
    if chosen in (None, "", "local"):
        chosen = None
    identities = tuple(identity) if identity else ((config.identity,) if config.identity else ())
    return JobSettings(config=config, host=chosen, known_hosts=getattr(args, "known_hosts", None),
                       identities=identities, connect_timeout=getattr(args, "connect_timeout", None) or 10)


async def open_connector(settings: JobSettings) -> Connector:
    """LocalConnector or an SSH connection; ConnectorError says why a host is unusable."""
    if settings.host is None:
        return LocalConnector()
    from drift.remote.connectors.ssh import connect

    cfg = settings.config
    return await connect(
        settings.host, identity=list(settings.identities) or None, jump=cfg.jump, port=cfg.port, config_file=cfg.ssh_config,
        known_hosts=settings.known_hosts, accept_new=bool(cfg.accept_new), connect_timeout=settings.connect_timeout,
    )


def connector_error_code(exc: ConnectorError) -> int:
    from drift import exitcodes

    return exitcodes.USAGE if exc.category == "usage" else exitcodes.UNREACHABLE


def describe_error(exc: ConnectorError | ConfigError) -> str:
    hint = getattr(exc, "hint", None)
    return f"drift: {exc}" + (f"\n  hint: {hint}" if hint else "")
