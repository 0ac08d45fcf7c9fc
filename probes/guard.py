"""Run a fact extractor on one file so that no file can take the probe down.

Generated code holds expressions Python's default recursion limit cannot walk (700 chained
`+`, a 100k-deep attribute chain), and some sources exhaust the parser itself (`not ` x 100000
raises MemoryError). On a host that would end the whole probe. So an extractor that hits
RecursionError is run once more in a thread with a large stack under a raised limit (deep,
but bounded, and without the risk of overflowing the main thread's C stack), and what still
fails is returned as the reason the file was skipped. Sources are decoded as Python does
(PEP 263 coding cookie, UTF-8 BOM) before an extractor sees them.
"""

import io
import sys
import threading
import tokenize

_STACK_BYTES = 512 * 1024 * 1024
# Python frames stay off the C stack from 3.11 on; before, each one costs C stack too.
_DEEP_LIMIT = 400_000 if sys.version_info >= (3, 11) else 100_000


def decode_source(data):
    """(text, None) for source bytes decoded by their PEP 263 cookie or BOM, else (None, why)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), None
    except (SyntaxError, LookupError) as exc:
        return None, "UnicodeDecodeError: %s" % (getattr(exc, "msg", None) or exc)
    except UnicodeDecodeError as exc:
        return None, "UnicodeDecodeError: %s" % exc
    except (UnicodeError, ValueError, TypeError) as exc:
        # `# coding: undefined` names a codec that exists and refuses every byte (UnicodeError);
        # a transform codec's cookie fails its own way: one bad file is noted, never the probe
        return None, "UnicodeError: %s" % exc


def _deep(fn, args, kwargs):
    out = {}

    def body():
        old = sys.getrecursionlimit()
        try:
            sys.setrecursionlimit(max(old, _DEEP_LIMIT))
            out["value"] = fn(*args, **kwargs)
        except (RecursionError, MemoryError) as exc:
            out["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    try:
        old_size = threading.stack_size(_STACK_BYTES)
    except (ValueError, RuntimeError):
        return None, RecursionError("maximum recursion depth exceeded")
    try:
        worker = threading.Thread(target=body, name="drift-deep-parse")
        worker.start()
        worker.join()
    except RuntimeError as exc:  # no thread (limits): the first failure stands
        return None, RecursionError(str(exc))
    finally:
        threading.stack_size(old_size)
    return out.get("value"), out.get("error")


def guarded(fn, *args, retry_if=None, **kwargs):
    """(result, None), or (None, "why the file was skipped") when even a deep retry fails.

    `retry_if(result)` says a result is itself a recursion failure the extractor caught."""
    try:
        value = fn(*args, **kwargs)
        if retry_if is None or not retry_if(value):
            return value, None
    except MemoryError:
        return None, "skipped: MemoryError: nested too deeply for Python's parser"
    except RecursionError:
        pass
    value, error = _deep(fn, args, kwargs)
    if error is None and (retry_if is None or not retry_if(value)):
        return value, None
    if isinstance(error, MemoryError):
        return None, "skipped: MemoryError: nested too deeply for Python's parser"
    return None, "skipped: RecursionError: nested deeper than %d levels" % _DEEP_LIMIT
