"""Reaching hosts: the one transport every stage that touches a host uses.

`connectors/` (local, SSH via asyncssh, and `script`: the one payload caller, code on stdin to
`<python> -`), `hostspec` (host specs as OpenSSH reads them), `inventory` (Ansible inventories,
`--limit`), `fleet` (one job on many hosts, bounded), `probe` (the stdlib probe in one round
trip), `reply` (a reply's shape checked before anything reads it). Imports only the core and
probes/: sources, model, fixes and jobs build on it.
"""
