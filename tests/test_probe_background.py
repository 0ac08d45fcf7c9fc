"""probes.background: one value computed in a forked child while the caller goes on, and the
host probe's identifier index built that way beside the closure, with the same answers."""

from __future__ import annotations

import os
import time

from drift.probes import background, closure


def test_a_childs_value_comes_back():
    pending = background.start(lambda n: {"squares": [i * i for i in range(n)]}, 5)
    assert pending is not None
    assert pending.result() == {"squares": [0, 1, 4, 9, 16]}
    assert pending.result() is None  # read once


def test_a_failing_child_is_none_and_leaves_no_process():
    def boom():
        raise RuntimeError("no")

    pending = background.start(boom)
    pid = pending.pid
    assert pending.result() is None
    try:
        os.kill(pid, 0)
        alive = True
    except OSError:
        alive = False
    assert not alive


def test_an_unread_child_is_ended():
    pending = background.start(time.sleep, 30)
    t = time.perf_counter()
    pending.close()
    assert time.perf_counter() - t < 5
    assert pending.result() is None


def _tree(n=40):
    texts, order = {}, []
    for i in range(n):
        name = f"pkg.m{i:02d}"
        order.append(name)
        texts[name] = (f"class C{i}:\n    def step(self):\n        return helper_{i % 7}(self.config)\n"
                       f"def helper_{i % 7}(config):\n    return config.block_size\n").encode()
    return texts, order


def test_the_index_built_beside_the_closure_gives_the_same_answers(monkeypatch):
    texts, order = _tree()
    usage = [{"module": "app.m", "calls": [{"callee": {"path": [f"sym:pkg.m{i:02d}.C{i}", ".step"]}}
                                          for i in range(20)],
              "classes": {"Mine": {"bases": [["sym:pkg.m01.C1"]], "methods": {"step": {}, "config": {}}}}}]
    words = [f"helper_{i}" for i in range(7)] + ["block_size", "config", "nothing_here"]

    def parse(names):
        return {n: {"path": n.replace(".", "/") + ".py", "classes": {}, "functions": {}, "imports": {}, "names": {}}
                for n in names}

    built_here = []
    real = closure.token_index
    monkeypatch.setattr(closure, "token_index", lambda *a: built_here.append(1) or real(*a))
    beside = closure.plan("pkg", usage, ["pkg"], order, texts, parse, words=words, whole_share=None)
    assert built_here == []  # built in the child (its count stays there)
    monkeypatch.setattr(background, "start", lambda *a, **k: None)  # no fork: built after, in-process
    after = closure.plan("pkg", usage, ["pkg"], order, texts, parse, words=words, whole_share=None)
    assert built_here == [1]
    assert len(beside[1]) >= closure.TOKEN_INDEX_AT
    assert beside[1] == after[1] and set(beside[0]) == set(after[0])
    assert beside[1][closure.word("helper_3")[1]] == [n for n in order if int(n[-2:]) % 7 == 3]


def _consumer(root, n=40):
    pkg = root / "app"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(n):
        (pkg / f"m{i:02d}.py").write_text(
            "from vllm.config import VllmConfig\n\n"
            f"class W{i}(VllmConfig):\n    def run(self, x):\n        return self.model_config.get(x, {i})\n")
    (pkg / "plain.py").write_text("X = 1\n")
    return root


def test_a_big_consumers_usage_is_read_by_forked_workers_with_the_same_records(tmp_path, monkeypatch):
    from drift.probes import consumer_scan

    root = _consumer(tmp_path)
    shared = consumer_scan.consumer_usage(str(root), "app", ["vllm"], use_importlib=False)
    monkeypatch.setattr(consumer_scan, "PARALLEL_AT", 10**9)  # one process
    alone = consumer_scan.consumer_usage(str(root), "app", ["vllm"], use_importlib=False)
    assert len(shared["modules"]) == 40
    assert shared == alone

    jobs = {f"app/m{i:02d}.py": (root / f"app/m{i:02d}.py").read_bytes() for i in range(40)}
    monkeypatch.setattr(consumer_scan, "PARALLEL_AT", 24)
    started = []
    real = background.start

    def start(fn, *args):
        started.append(len(args[0]))
        return real(fn, *args)

    monkeypatch.setattr(background, "start", start)
    assert consumer_scan._read_all(jobs, ["vllm"], workers=3) == consumer_scan._read_all(jobs, ["vllm"], workers=1)
    assert len(started) == 2 and sum(started) > 0  # two shares went to workers, one stayed here

    class Failed:  # a worker that died: its share is read here
        def result(self):
            return None

        def close(self):
            pass

    monkeypatch.setattr(background, "start", lambda *a: Failed())
    assert consumer_scan._read_all(jobs, ["vllm"], workers=3) == consumer_scan._read_all(jobs, ["vllm"], workers=1)
