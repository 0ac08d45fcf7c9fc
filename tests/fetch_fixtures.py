"""A real local package index for the fetcher tests: http.server on 127.0.0.1, real files.

The handler serves a PEP 503 (HTML) or PEP 691 (JSON) simple index and the distribution files,
answers `Range` requests (single ranges, suffix ranges) unless told not to, can demand HTTP
basic auth, and logs every request with the bytes it sent, so a test can assert what crossed
the wire rather than trusting the client's own count.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import os
import re
import tarfile
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename


@dataclass
class Served:
    method: str
    path: str
    range: str | None
    status: int
    sent: int


@dataclass
class IndexServer:
    """Settings a test may flip while the server runs; `log` is what it answered."""

    files: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes
    ranges: bool = True
    api: str = "html"  # "html" (PEP 503) or "json" (PEP 691)
    auth: tuple[str, str] | None = None
    log: list[Served] = field(default_factory=list)
    port: int = 0
    before_file: Callable[[str, str | None], None] | None = None  # called with (file name, Range) before serving it
    yanked: set[str] = field(default_factory=set)  # file names the index marks yanked (PEP 592)
    before_page: Callable[[str], None] | None = None  # called with the project before its page is served
    scheme: str = "http"  # "https" when `running(..., tls=...)` serves it
    page: Callable[[str], tuple[bytes, str]] | None = None  # project -> (body, Content-Type) served instead

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    @property
    def simple(self) -> str:
        return f"{self.url}/simple/"

    def add(self, path: Path) -> None:
        self.files[path.name] = path.read_bytes()

    def projects(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name in self.files:
            project = parse_wheel_filename(name)[0] if name.endswith(".whl") else parse_sdist_filename(name)[0]
            out.setdefault(canonicalize_name(project), []).append(name)
        return out

    def sent_for(self, filename: str) -> list[Served]:
        return [s for s in self.log if s.path.endswith("/" + filename)]


def _handler(state: IndexServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:  # the test reads state.log instead
            pass

        def _reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            served = Served(self.command, self.path, self.headers.get("Range"), status, 0)
            state.log.append(served)
            if self.command != "HEAD":
                try:
                    self.wfile.write(body)
                    served.sent = len(body)
                except (ConnectionResetError, BrokenPipeError):  # the client hung up: counts as not sent
                    self.close_connection = True

        def _authorised(self) -> bool:
            if state.auth is None:
                return True
            token = base64.b64encode(f"{state.auth[0]}:{state.auth[1]}".encode()).decode()
            return self.headers.get("Authorization") == f"Basic {token}"

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            if not self._authorised():
                self._reply(401, b"auth required", {"WWW-Authenticate": 'Basic realm="test"'})
                return
            path = self.path.split("?", 1)[0]
            if path.startswith("/simple/"):
                self._index(path[len("/simple/"):].strip("/"))
            elif path.startswith("/files/") and path[len("/files/"):] in state.files:
                if state.before_file is not None:
                    state.before_file(path[len("/files/"):], self.headers.get("Range"))
                self._file(state.files[path[len("/files/"):]])
            else:
                self._reply(404, b"not found", {"Content-Type": "text/plain"})

        def _index(self, project: str) -> None:
            if state.before_page is not None:
                state.before_page(project)
            if state.page is not None:  # a page of the test's own making (not UTF-8, say)
                body, content_type = state.page(project)
                self._reply(200, body, {"Content-Type": content_type})
                return
            names = state.projects().get(canonicalize_name(project)) if project else None
            if names is None:
                self._reply(404, b"no such project", {"Content-Type": "text/plain"})
                return
            links = [(n, f"../../files/{n}#sha256={hashlib.sha256(state.files[n]).hexdigest()}") for n in sorted(names)]
            if state.api == "json":
                body = json.dumps({
                    "meta": {"api-version": "1.0"}, "name": canonicalize_name(project),
                    "files": [{"filename": n, "url": f"/files/{n}", "yanked": n in state.yanked,
                               "hashes": {"sha256": hashlib.sha256(state.files[n]).hexdigest()}} for n in sorted(names)],
                }).encode()
                self._reply(200, body, {"Content-Type": "application/vnd.pypi.simple.v1+json"})
            else:
                yank = ' data-yanked=""'  # PEP 592: present (empty: no reason given) means yanked
                anchors = "".join(f'<a href="{html.escape(h)}"{yank if n in state.yanked else ""}>'
                                  f'{html.escape(n)}</a><br>' for n, h in links)
                self._reply(200, f"<!DOCTYPE html><html><body>{anchors}</body></html>".encode(),
                            {"Content-Type": "text/html"})

        def _file(self, blob: bytes) -> None:
            wanted = self.headers.get("Range")
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", wanted or "")
            if not state.ranges or not match or (not match.group(1) and not match.group(2)):
                self._reply(200, blob, {"Content-Type": "application/octet-stream"})
                return
            size = len(blob)
            if match.group(1):
                start = int(match.group(1))
                end = min(size - 1, int(match.group(2))) if match.group(2) else size - 1
            else:
                start, end = max(0, size - int(match.group(2))), size - 1
            if start >= size or start > end:
                self._reply(416, b"", {"Content-Range": f"bytes */{size}"})
                return
            self._reply(206, blob[start:end + 1], {"Content-Type": "application/octet-stream",
                                                   "Content-Range": f"bytes {start}-{end}/{size}",
                                                   "Accept-Ranges": "bytes"})

    return Handler


class running:
    """`with running(IndexServer(...)) as srv:` serves until the block ends; `tls`: a server
    `ssl.SSLContext`, the index then served over HTTPS."""

    def __init__(self, state: IndexServer, *, tls=None) -> None:
        self.state = state
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
            state.scheme = "https"
        self.server.daemon_threads = True
        state.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> IndexServer:
        self.thread.start()
        return self.state

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def local_ca(dest: Path) -> tuple[Path, "object"]:
    """A certificate authority of its own (`ca.pem`) and a server context for 127.0.0.1 signed
    by it, made with `cryptography` (asyncssh's dependency): HTTPS on loopback that verifies
    only with pip's `cert` pointed at the CA."""
    import datetime
    import ipaddress
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    span = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=2))

    def cert(subject: str, key, issuer: str, signer, *, ca: bool):
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(span[0]).not_valid_after(span[1])
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if ca:
            builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                                            critical=True)
            builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        else:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                            critical=False)
            builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()),
                                            critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, srv_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = cert("drift test CA", ca_key, "drift test CA", ca_key, ca=True)
    srv_cert = cert("127.0.0.1", srv_key, "drift test CA", ca_key, ca=False)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "ca.pem").write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    (dest / "server.pem").write_bytes(srv_cert.public_bytes(serialization.Encoding.PEM) + srv_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(dest / "server.pem")
    return dest / "ca.pem", server


def build_wheel(dest: Path, name: str = "demo_pkg", version: str = "1.0", *, native_mb: int = 3,
                blob_kb: int = 1024) -> Path:
    """A real wheel: two modules around a large native blob (what range reads should skip),
    metadata, and a RECORD with each file's sha256 (so extraction can be checked against it)."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f'"""{name} {version}."""\nfrom {name}.core import greet\n__version__ = "{version}"\n',
        f"{name}/_native.so": os.urandom(native_mb << 20),
        f"{name}/core.py": "def greet(who, *, loud=False):\n    return ('HELLO ' if loud else 'hello ') + who\n" * 40,
        f"{name}/data/blob.bin": os.urandom(blob_kb << 10),
        f"{name}/sub/__init__.py": "",
        f"{name}/sub/deep.py": "VALUE = 42\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: drift-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/top_level.txt": f"{name}\n",
    }
    record = []
    for path, content in files.items():
        blob = content.encode() if isinstance(content, str) else content
        digest = base64.urlsafe_b64encode(hashlib.sha256(blob).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(blob)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    wheel = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, content in files.items():
            method = zipfile.ZIP_STORED if path.endswith((".so", ".bin")) else zipfile.ZIP_DEFLATED
            zf.writestr(zipfile.ZipInfo(path, date_time=(2024, 1, 1, 0, 0, 0)), content, compress_type=method)
    return wheel


def build_sdist(dest: Path, name: str = "sdonly", version: str = "0.5") -> Path:
    """A real sdist (src layout) whose setup.py would leave a marker file if anything ran it."""
    top = f"{name}-{version}"
    marker = dest / "setup-py-ran"
    files = {
        f"{top}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Dist: packaging\n",
        f"{top}/setup.py": f"open({str(marker)!r}, 'w').write('built')\nfrom setuptools import setup\nsetup()\n",
        f"{top}/src/{name}/__init__.py": "from .api import run\n",
        f"{top}/src/{name}/api.py": "def run(job, retries=3):\n    return job\n",
        f"{top}/tests/test_api.py": "def test_x():\n    pass\n",
        f"{top}/README.md": "readme\n",
    }
    sdist = dest / f"{top}.tar.gz"
    with tarfile.open(sdist, "w:gz") as tf:
        for path, text in files.items():
            blob = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(blob)
            tf.addfile(info, io.BytesIO(blob))
    return sdist


def record_hashes(dist_info: Path) -> dict[str, str]:
    """path -> urlsafe-b64 sha256, from a RECORD file."""
    out = {}
    for line in (dist_info / "RECORD").read_text().splitlines():
        path, digest, _size = line.rsplit(",", 2)
        if digest.startswith("sha256="):
            out[path] = digest[len("sha256="):]
    return out


def sha256_b64(path: Path) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=").decode()


def isolated_pip(monkeypatch, **options: str) -> None:
    """Only the given pip options are in force (no machine or user pip.conf), as PIP_* variables."""
    for key in list(os.environ):
        if key.startswith("PIP_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    for key, value in options.items():
        monkeypatch.setenv("PIP_" + key.upper(), value)
