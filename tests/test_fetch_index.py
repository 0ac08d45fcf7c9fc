"""The resolver against PEP 503 and PEP 691 simple indexes served locally, as pip's settings name them.

Covers index-url and extra-index-url from the environment and from a pip.conf, credentials in
the URL and from netrc, and the three distinct failures: an index that does not answer, a
project no index has, and no release matching the requirement.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from packaging.requirements import Requirement

from drift import exitcodes
from drift.sources.fetch import fetch_sources, index_versions, newest_release
from drift.sources.errors import FetchError, IndexUnreachable, NoMatchingRelease, ProjectNotFound
from drift.sources.index import open_index
from drift.sources.pipconfig import _items_from_cli, _items_from_pip, layered, pip_settings
from tests.fetch_fixtures import IndexServer, build_wheel, isolated_pip, running


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dists")
    return [build_wheel(dist, version=v, native_mb=1) for v in ("1.0", "1.1", "2.0rc1")]


@pytest.mark.parametrize("api", ["html", "json"])
def test_resolve_and_list_versions(api, wheels, monkeypatch) -> None:
    with running(IndexServer(api=api)) as srv:
        for w in wheels:
            srv.add(w)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with open_index() as index:
            res = index.resolve(Requirement("demo-pkg==1.0"))
            assert (res.name, res.version, res.filename) == ("demo-pkg", "1.0", "demo_pkg-1.0-py3-none-any.whl")
            assert res.url == f"{srv.url}/files/demo_pkg-1.0-py3-none-any.whl"
            assert res.hashes["sha256"] == __import__("hashlib").sha256(wheels[0].read_bytes()).hexdigest()
            assert index.resolve(Requirement("demo-pkg")).version == "1.1"  # no pre-release unless asked
            assert index.resolve(Requirement("demo-pkg>=2.0rc1")).version == "2.0rc1"
        assert index_versions("demo-pkg") == ["2.0rc1", "1.1", "1.0"]
        assert newest_release("demo-pkg") == "1.1"
        pages = [s for s in srv.log if s.path.startswith("/simple/")]
        assert pages and all(s.status == 200 for s in pages)


@pytest.mark.parametrize("api", ["html", "json"])
def test_lookups_on_one_client_keep_each_requirements_rules(api, wheels, monkeypatch) -> None:
    """One index client serves a check's lookups of one project (its files evaluated once):
    each lookup still gets its own answer. A pin may name a yanked release (PEP 592), a range
    never does, nor does the list of versions; pre-releases only when asked."""
    with running(IndexServer(api=api, yanked={wheels[1].name})) as srv:
        for w in wheels:
            srv.add(w)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with open_index() as index:
            assert index.resolve(Requirement("demo-pkg==1.1")).version == "1.1"  # yanked, but pinned
            assert index.resolve(Requirement("demo-pkg")).version == "1.0"
            assert index.resolve(Requirement("demo-pkg>=1.0")).version == "1.0"
            assert index.resolve(Requirement("demo-pkg==1.0")).version == "1.0"
            assert index.versions("demo-pkg") == ["2.0rc1", "1.0"]
            assert index.resolve(Requirement("demo-pkg>=2.0rc1")).version == "2.0rc1"
            assert index.resolve(Requirement("demo-pkg==1.1")).version == "1.1"
            with pytest.raises(NoMatchingRelease):
                index.resolve(Requirement("demo-pkg==3.0"))
        pages = [s for s in srv.log if s.path.startswith("/simple/")]
        assert len(pages) == 1  # the page asked once for all of them


def test_two_lookups_at_once_ask_the_page_once(wheels, monkeypatch) -> None:
    """A check's target and baseline are looked up by two threads at once on one client: the
    second waits for the first's answer instead of asking vLLM's large page again. The server
    holds the first page request until a second request comes (it never does, so the hold ends
    after a bound) and counts what it was asked."""
    import threading

    first, second = threading.Event(), threading.Event()

    def hold(_project: str) -> None:
        if first.is_set():
            second.set()
            return
        first.set()
        second.wait(1.5)  # without the shared answer, the other lookup's request arrives meanwhile

    with running(IndexServer(api="json", before_page=hold)) as srv:
        for w in wheels:
            srv.add(w)
        isolated_pip(monkeypatch, index_url=srv.simple)
        with open_index() as index:
            got: dict[str, str] = {}

            def look(spec: str) -> None:
                got[spec] = index.resolve(Requirement(spec)).version

            threads = [threading.Thread(target=look, args=(s,)) for s in ("demo-pkg==1.0", "demo-pkg==1.1")]
            threads[0].start()
            assert first.wait(30)
            threads[1].start()
            for t in threads:
                t.join(30)
        assert got == {"demo-pkg==1.0": "1.0", "demo-pkg==1.1": "1.1"}
        assert [s.path for s in srv.log if s.path.startswith("/simple/")] == ["/simple/demo-pkg/"]
        assert not second.is_set()


def test_extra_index_url_is_searched(wheels, monkeypatch) -> None:
    with running(IndexServer()) as empty, running(IndexServer(api="json")) as extra:
        extra.add(wheels[1])
        isolated_pip(monkeypatch, index_url=empty.simple, extra_index_url=extra.simple)
        assert newest_release("demo-pkg") == "1.1"
        assert any(s.path == "/simple/demo-pkg/" and s.status == 404 for s in empty.log)
        assert any(s.path == "/simple/demo-pkg/" and s.status == 200 for s in extra.log)


def test_pip_conf_sections_and_environment_layer_as_in_pip(wheels, tmp_path, monkeypatch) -> None:
    with running(IndexServer()) as first, running(IndexServer()) as second:
        second.add(wheels[0])
        conf = tmp_path / "pip.conf"
        conf.write_text(f"[global]\nindex-url = {first.simple}\ntimeout = 7\n"
                        f"[download]\nextra-index-url = {second.simple}\n")
        isolated_pip(monkeypatch)
        monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
        settings = pip_settings()
        assert settings.index_url == first.simple and settings.extra_index_urls == (second.simple,)
        assert settings.timeout == 7.0
        # what pip's own CLI lists is what drift read in-process
        assert layered(_items_from_cli()) == layered(_items_from_pip())
        assert newest_release("demo-pkg") == "1.0"
        monkeypatch.setenv("PIP_EXTRA_INDEX_URL", first.simple)  # the environment wins over the file
        assert pip_settings().extra_index_urls == (first.simple,)
        with pytest.raises(ProjectNotFound):
            newest_release("demo-pkg")


def test_credentials_in_the_index_url(wheels, tmp_path, monkeypatch) -> None:
    with running(IndexServer(auth=("alice", "s3cret"))) as srv:
        srv.add(wheels[0])
        isolated_pip(monkeypatch, index_url=f"http://alice:s3cret@127.0.0.1:{srv.port}/simple/")
        monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
        assert src.how == "range"
        # the file host is the index host: the range reads carried the credentials too
        assert all(s.status == 206 for s in srv.sent_for(wheels[0].name))


def test_credentials_from_netrc(wheels, tmp_path, monkeypatch) -> None:
    with running(IndexServer(auth=("bob", "hunter2"))) as srv:
        srv.add(wheels[0])
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1 login bob password hunter2\n")
        netrc.chmod(0o600)
        monkeypatch.setenv("NETRC", str(netrc))
        isolated_pip(monkeypatch, index_url=srv.simple)
        src = fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
        assert src.how == "range" and (src.root / "demo_pkg" / "core.py").exists()
        assert srv.log and all(s.status in (200, 206) for s in srv.log)  # every request carried bob's entry
        monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))  # the same fetch without it is refused
        with pytest.raises(IndexUnreachable, match="401"):
            fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache2")


def test_refused_credentials_are_not_a_missing_project(wheels, tmp_path, monkeypatch) -> None:
    with running(IndexServer(auth=("bob", "hunter2"))) as srv:
        srv.add(wheels[0])
        monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
        isolated_pip(monkeypatch, index_url=f"http://bob:wrong@127.0.0.1:{srv.port}/simple/")
        with pytest.raises(IndexUnreachable) as err:
            fetch_sources("demo-pkg==1.0", cache=tmp_path / "cache")
        assert "401" in str(err.value) and "wrong" not in str(err.value)
        assert err.value.exit_code == exitcodes.UNREACHABLE


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_three_failures_are_told_apart(wheels, tmp_path, monkeypatch) -> None:
    isolated_pip(monkeypatch, index_url=f"http://127.0.0.1:{_closed_port()}/simple/")
    with pytest.raises(IndexUnreachable) as down:
        fetch_sources("demo-pkg==1.0", cache=tmp_path)
    assert "cannot read the package index" in str(down.value)
    with pytest.raises(IndexUnreachable):
        index_versions("demo-pkg")

    with running(IndexServer()) as srv:
        srv.add(wheels[0])
        srv.add(wheels[1])
        isolated_pip(monkeypatch, index_url=srv.simple)
        with pytest.raises(ProjectNotFound) as missing:
            fetch_sources("no-such-project==1.0", cache=tmp_path)
        assert "no project named 'no-such-project'" in str(missing.value)
        with pytest.raises(NoMatchingRelease) as nomatch:
            fetch_sources("demo-pkg==9.9", cache=tmp_path)
        assert str(nomatch.value) == "no release matches demo-pkg==9.9; newest versions: 1.1, 1.0"
        for err in (missing.value, nomatch.value):
            assert isinstance(err, FetchError) and err.exit_code == exitcodes.USAGE


def test_cli_reports_each_failure_in_one_line(wheels, tmp_path, monkeypatch) -> None:
    with running(IndexServer()) as srv:
        srv.add(wheels[0])
        isolated_pip(monkeypatch, index_url=srv.simple)
        monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
        for spec, code, text in (("demo-pkg==7", exitcodes.USAGE, "no release matches demo-pkg==7"),
                                 ("nope-pkg==1", exitcodes.USAGE, "no project named 'nope-pkg'")):
            proc = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", "snapshot", spec,
                                   "--summary"], capture_output=True, text=True, timeout=120)
            assert proc.returncode == code, proc.stderr
            assert proc.stderr.strip().splitlines()[-1].startswith("drift: error: ") and text in proc.stderr
            assert "Traceback" not in proc.stderr
    isolated_pip(monkeypatch, index_url=f"http://127.0.0.1:{_closed_port()}/simple/")
    proc = subprocess.run([sys.executable, "-c", "from drift.cli import entry; entry()", "snapshot", "demo-pkg==1.0",
                           "--summary"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == exitcodes.UNREACHABLE and "cannot read the package index" in proc.stderr


@pytest.mark.parametrize("reader", ["files", "pip"])
def test_saved_pip_settings_follow_the_config_file(reader, tmp_path, monkeypatch) -> None:
    """Settings follow a changed pip.conf: read afresh from the files (Linux), or, where pip's
    module reads them, its on-disk copy is dropped as soon as a file pip reads changes."""
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = http://127.0.0.1:9/first/\n")
    isolated_pip(monkeypatch)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    monkeypatch.setenv("DRIFT_CACHE", str(tmp_path / "cache"))
    force = "P._items_from_files = lambda: None; " if reader == "pip" else ""
    read = [sys.executable, "-c", f"import drift.sources.pipconfig as P; {force}print(P.pip_settings().index_url)"]
    assert subprocess.run(read, capture_output=True, text=True, check=True).stdout.strip() == "http://127.0.0.1:9/first/"
    assert (tmp_path / "cache" / "pip-settings.json").exists() == (reader == "pip")
    conf.write_text("[global]\nindex-url = http://127.0.0.1:9/second/index/\n")
    assert subprocess.run(read, capture_output=True, text=True, check=True).stdout.strip() == "http://127.0.0.1:9/second/index/"


_BOTH_READERS = ("import json, sys; from drift.sources.pipconfig import _items_from_files, _items_from_pip;"
                 "print(json.dumps([sorted(map(list, _items_from_files())), sorted(map(list, _items_from_pip()))]))")


@pytest.mark.parametrize("layout", ["user-and-xdg", "xdg-home", "config-file", "config-file-missing", "devnull"])
def test_pip_files_read_without_pip_as_pip_reads_them(layout, tmp_path) -> None:
    """drift's own reader of pip's files (no pip import: ~0.15 s of a first fetch) gives exactly
    the items of pip's `Configuration`, run in the same environment: files in pip's order, later
    ones winning, PIP_CONFIG_FILE replacing the user's files or (os.devnull) every file, the
    variables last, keys normalised as pip does."""
    home, xdg_a, xdg_b = tmp_path / "home", tmp_path / "xdg-a", tmp_path / "xdg-b"
    files = {
        home / ".pip" / "pip.conf": "[global]\nindex-url = http://127.0.0.1:9/legacy/\ntimeout = 3\n",
        home / ".config" / "pip" / "pip.conf": "[global]\nindex-url = http://127.0.0.1:9/user/\n[download]\nNo_Index = yes\n",
        xdg_a / "pip" / "pip.conf": "[DEFAULT]\nproxy = http://127.0.0.1:9/\n[global]\nextra-index-url = http://127.0.0.1:9/a/\n",
        xdg_b / "pip" / "pip.conf": "[global]\nextra-index-url = http://127.0.0.1:9/b/\n--trusted-host = 127.0.0.1\n",
        tmp_path / "xdg-home" / "pip" / "pip.conf": "[global]\nindex-url = http://127.0.0.1:9/xdg-home/\n",
        tmp_path / "given.conf": "[global]\nindex-url = http://127.0.0.1:9/given/\n[install]\nuser = no\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "XDG_"))}
    env.update(HOME=str(home), XDG_CONFIG_DIRS=f"{xdg_a}{os.pathsep}{xdg_b}", PIP_EXTRA_INDEX_URL="http://127.0.0.1:9/env/",
               PIP_DEFAULT_TIMEOUT="9", PIP_VERSION="ignored", PIP_Find_Links="/nowhere")
    if layout == "xdg-home":
        env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-home")
    elif layout == "config-file":
        env["PIP_CONFIG_FILE"] = str(tmp_path / "given.conf")
    elif layout == "config-file-missing":
        env["PIP_CONFIG_FILE"] = str(tmp_path / "absent.conf")
    elif layout == "devnull":
        env["PIP_CONFIG_FILE"] = os.devnull
    proc = subprocess.run([sys.executable, "-c", _BOTH_READERS], env=env, capture_output=True, text=True, check=True)
    ours, pips = json.loads(proc.stdout)
    assert ours == pips
    keys = {k for k, _ in ours}
    assert (":env:.extra-index-url" in keys) and (":env:.version" not in keys)
    assert ("global.index-url" in keys) == (layout != "devnull")


def test_index_client_loads_without_trio_or_requests_and_leaves_them_importable() -> None:
    """drift.sources.lean keeps httpcore's trio support and unearth's requests helpers out of a
    fetch (installed or not), and takes nothing away from later imports."""
    import subprocess
    import sys

    code = ("import sys, drift.sources.index as i; i.Index(i.PipSettings()).close();"
            "print(sorted(n for n in ('trio', 'requests') if n in sys.modules));"
            "import importlib.util as u; have = [n for n in ('trio', 'requests') if u.find_spec(n)];"
            "print(have == [__import__(n).__name__ for n in have])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"  # neither loaded by the index client nor by unearth's finder
    assert out[1] == "True"  # and each one installed still imports afterwards
