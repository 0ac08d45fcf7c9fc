"""Why drift/model/facts.py gives views over the probe's records instead of decoding them into objects.

A warm `drift check` of the largest corpus consumer (vllm_ascend: vllm-ascend 0.11.0 against vLLM
0.13.0, baseline 0.11.0) decodes a few hundred modules' records from the facts store, and its
rules and the resolver read some of them through drift.model.facts views. This times, on exactly what
that check loads and reads:

- eager: every record of every module the check loaded, decoded into slotted dataclasses (one
  class per view class, with the same attributes, generated from the model so it stays in step)
  — what a decoded-objects model would pay before the first rule runs. Attribute reads on those
  objects are not counted (they would cost a little more).
- views: the views the check created (outside attribute reads) and every attribute read it made
  through them, replayed on the same records — what the view model pays in total.
- raw: the same reads as `record.get(key)` on the records, no model at all: the floor, and what
  the rules did before the model (with their own `or {}` and None checks, not counted).

The check runs once in a child process first, so the releases, facts and derived indexes are
cached (like bench_check_corpus.py, it reads and primes the user's cache), then once in this
process with the view model instrumented.

    python benchmarks/bench_facts_model.py [--runs 5] [--consumer vllm_ascend]

Target: views cost less than the eager decode.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from drift.model import facts as F  # noqa: E402

_PRIME = r"""
import sys
sys.path.insert(0, %(repo)r)
from drift.pipeline.run import run_check
run_check(consumer_spec=%(consumer)r, target_spec=%(target)r, baseline_spec=%(baseline)r)
"""


# -- the eager alternative: a dataclass per view class, and a decoder for each ------------------
def _keys_of(view: type) -> list[tuple[str, F._Key]]:
    out: dict[str, F._Key] = {}
    for klass in reversed(view.__mro__):
        for name, k in vars(klass).items():
            if isinstance(k, F._Key):
                out[name] = k
    return list(out.items())


def _nesting(k: F._Key) -> tuple[str, type] | None:
    """("rows" | "table" | "one", view class) when the key holds records, found by asking its wrap."""
    if k.wrap is None:
        return None
    if isinstance(k.empty, list):
        return "rows", type(k.wrap([{}])[0])
    if isinstance(k.empty, F.Table):
        return "table", k.empty.of
    return "one", type(k.wrap({}))


def eager_decoders() -> dict[type, object]:
    """view class -> a function building its dataclass (and its nested records') from a record."""
    views = [v for v in vars(F).values() if isinstance(v, type) and issubclass(v, F.Record) and v is not F.Record]
    env: dict[str, object] = {}
    src = []
    for view in views:
        keys = _keys_of(view)
        extra = sorted(view.KEYS - {k.key for _, k in keys})  # keys read by properties (FieldFacts.init)
        names = [n for n, _ in keys] + extra + (["star_imports"] if view is F.ModuleFacts else [])
        env[f"{view.__name__}D"] = dataclasses.make_dataclass(f"{view.__name__}D", names, slots=True)
        args = []
        for name, k in keys:
            env[f"E_{view.__name__}_{name}"] = k.empty
            get = f"r.get({k.key!r})"
            nest = _nesting(k)
            if nest is None:
                args.append(f"{get}")
            elif k.key == "imports":
                args.append(f"{{n: d_ImportFacts(x) for n, x in ({get} or {{}}).items() if n != '*'}}")
            elif nest[0] == "rows":
                args.append(f"[d_{nest[1].__name__}(x) for x in {get} or ()]")
            elif nest[0] == "table":
                args.append(f"{{n: d_{nest[1].__name__}(x) for n, x in ({get} or {{}}).items()}}")
            else:
                args.append(f"d_{nest[1].__name__}({get} or {{}})")
        args += [f"r.get({key!r})" for key in extra]
        if view is F.ModuleFacts:
            args.append("[d_ImportFacts(x) for x in (r.get('imports') or {}).get('*') or ()]")
        src.append(f"def d_{view.__name__}(r):\n    return {view.__name__}D({', '.join(args)})\n")
    exec("\n".join(src), env)  # generated once: as fast as hand-written decoders
    return {view: env[f"d_{view.__name__}"] for view in views}


# -- recording what the check loads and reads ---------------------------------------------------
class Recorder:
    """Module records the check decoded, views it made outside attribute reads, reads it made."""

    def __init__(self):
        self.modules: dict[int, dict] = {}
        self.partial = 0
        self.created: list[tuple[type, object]] = []
        self.reads: list[tuple[F.Record, str]] = []
        self.keys: list[tuple[object, str]] = []  # (record, key) of each read, for the raw row
        self._depth = 0
        self._names = {id(k): name for view in vars(F).values() if isinstance(view, type)
                       and issubclass(view, F.Record) for name, k in _keys_of(view)}

    def install(self):
        import drift.model.demand as D
        import drift.model.store as S

        rec = self
        for cls in (S.LazyModules, D.TreeModules, D.OutlineModules):
            def getitem(self, name, _orig=cls.__getitem__):
                value = _orig(self, name)
                if isinstance(value, dict) and "path" in value and "imports" in value:
                    if type(value) is not dict:
                        rec.partial += 1  # an outline: decoding it whole would parse the module
                    rec.modules.setdefault(id(value), value)
                return value
            cls.__getitem__ = getitem
        init = F.Record.__init__

        def record_init(self, raw):
            init(self, raw)
            if rec._depth == 0:
                rec.created.append((type(self), raw))
        F.Record.__init__ = record_init
        get = F._Key.__get__

        def record_get(self, obj, owner=None):
            if obj is None:
                return get(self, obj, owner)
            rec.reads.append((obj, rec._names[id(self)]))
            rec.keys.append((obj.raw, self.key))
            rec._depth += 1
            try:
                return get(self, obj, owner)
            finally:
                rec._depth -= 1
        F._Key.__get__ = record_get
        self._undo = (init, get)

    def uninstall(self):
        F.Record.__init__, F._Key.__get__ = self._undo


def _best(fn, runs: int) -> float:
    """Best wall time of `runs` calls, the collector paused (as bench_check_corpus.py's check
    runs): a collection pass over the millions of objects the loaded facts hold is nobody's cost."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        finally:
            gc.enable()
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--consumer", default="vllm_ascend", help="a corpus consumer (tests/corpus/NAME.toml)")
    args = ap.parse_args()
    from tests.corpus_score import ground_truth

    gt = ground_truth(args.consumer)
    case = {"consumer": gt.get("consumer_source", gt["consumer"]), "target": gt["target"], "baseline": gt["baseline"]}
    subprocess.run([sys.executable, "-c", _PRIME % dict(case, repo=str(REPO))], check=True, capture_output=True)

    from drift.pipeline.run import run_check

    rec = Recorder()
    rec.install()
    t = time.perf_counter()
    outcome = run_check(consumer_spec=case["consumer"], target_spec=case["target"], baseline_spec=case["baseline"])
    instrumented = time.perf_counter() - t
    rec.uninstall()
    if outcome.report is None:
        print(f"the check failed: {outcome.error}")
        return 0

    decode = eager_decoders()[F.ModuleFacts]
    modules = [m for m in rec.modules.values() if type(m) is dict]
    objects = [0]

    def eager():
        return [decode(m) for m in modules]

    def count(obj):
        objects[0] += 1
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            for item in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else (v,)):
                if dataclasses.is_dataclass(item):
                    count(item)
    for obj in eager():
        count(obj)

    created, reads, keys = rec.created, rec.reads, rec.keys

    def views():
        for view, raw in created:
            view(raw)
        for obj, name in reads:
            getattr(obj, name)

    def raw():
        for record, key in keys:
            record.get(key)

    t = time.perf_counter()
    run_check(consumer_spec=case["consumer"], target_spec=case["target"], baseline_spec=case["baseline"])
    check = time.perf_counter() - t  # in-process, second run: the memos of the first are kept

    eager_s, views_s, raw_s = _best(eager, args.runs), _best(views, args.runs), _best(raw, args.runs)
    print(f"{args.consumer}: {case['consumer']} vs {case['target']} (baseline {case['baseline']}), "
          f"{len(outcome.report.findings)} findings; check {instrumented:.3f} s instrumented, {check:.3f} s again")
    outlines = f" (+{rec.partial} outlines, not decoded)" if rec.partial else ""
    print(f"modules the check loaded: {len(modules)}{outlines}")
    print(f"{'approach':<10} {'what':<58} {'best of ' + str(args.runs):>12}")
    rows = [("eager", f"{objects[0]:,} objects for every record of those modules", eager_s),
            ("views", f"{len(created):,} views made + {len(reads):,} attribute reads", views_s)]
    for label, what, seconds in rows:
        print(f"{label:<10} {what:<58} {seconds * 1000:>9.1f} ms")
    print(f"{'raw':<10} {f'the same {len(keys):,} reads as record.get(key)':<58} {raw_s * 1000:>9.1f} ms")
    ratio = views_s / eager_s if eager_s else float("inf")
    print(f"views / eager = {ratio:.2f} (target < 1): {'met' if ratio < 1 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
