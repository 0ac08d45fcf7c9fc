"""A real, short-lived stand-in for a speculators hidden-state extraction run (Python 3.9+).

It prints what the real job prints in the order it prints it: vLLM's tqdm-style checkpoint
shard loading (carriage-return updates, as a terminal would get them), then batch progress,
then either exits 0 or dies with one of the errors vLLM nightlies raise into speculators 0.3.0,
with a traceback. Which one is chosen by argv so tests can drive every outcome:

  fake_extraction.py [--shards N] [--batches N] [--delay S] [--wait-for PATH]
                     [--outcome ok|two-phase|return-shape|block-hasher|keyword|required|exit:N|hang]

--wait-for makes the job block after loading until PATH exists, so a test can observe it
running (and cut the connection) without any timing assumption.
"""

import argparse
import os
import sys
import time

FAILURES = {
    "two-phase": (
        "vllm/v1/worker/gpu_model_runner.py", 2710, "sample_tokens",
        "RuntimeError: State error: sample_tokens() must be called after execute_model() returns None.",
    ),
    "return-shape": (
        "speculators/data_generation/vllm_hidden_states_generator.py", 212, "_extract",
        "RuntimeError: Boolean value of Tensor with more than one values is ambiguous",
    ),
    "block-hasher": (
        "vllm/v1/core/kv_cache_manager.py", 178, "get_computed_blocks",
        "AssertionError",
    ),
    "keyword": (
        "speculators/data_generation/vllm_hidden_states_generator.py", 136, "_init_kv_cache",
        "TypeError: get_kv_cache_config_from_groups() got an unexpected keyword argument 'kv_cache_specs'",
    ),
    "required": (
        "speculators/data_generation/vllm_hidden_states_generator.py", 131, "_create_request",
        "TypeError: Scheduler.__init__() missing 1 required positional argument: 'block_size'",
    ),
}

ASSERT_LINE = "    assert len(request.block_hashes) == 0"


def bar(desc, done, total, fmt):
    pct = int(100 * done / total) if total else 100
    return fmt.format(desc=desc, pct=pct, done=done, total=total)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--batches", type=int, default=3)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--wait-for", default=None)
    p.add_argument("--outcome", default="ok")
    args = p.parse_args(argv)

    print("INFO 11-29 10:15:00 [core.py:93] Initializing a V1 LLM engine (v0.16.0) with config: ...")
    err = sys.stderr
    for i in range(args.shards + 1):
        shard = "Loading safetensors checkpoint shards: {pct:3d}% Completed | {done}/{total} [00:0{done}<00:00,  1.10it/s]"
        err.write("\r" + bar("", i, args.shards, shard))
        err.flush()
        time.sleep(args.delay)
    err.write("\n")
    err.flush()
    print("INFO 11-29 10:15:09 [default_loader.py:262] Loading weights took 8.91 seconds")
    if args.wait_for:
        while not os.path.exists(args.wait_for):
            time.sleep(0.05)
    for i in range(1, args.batches + 1):
        print("Generating hidden states: batch %d/%d (32 samples)" % (i, args.batches), flush=True)
        time.sleep(args.delay)
        if args.outcome in FAILURES and i == max(1, args.batches // 2 + 1):
            crash(args.outcome)
    if args.outcome == "hang":
        while True:
            time.sleep(1)
    if args.outcome.startswith("exit:"):
        print("fatal: giving up", flush=True)
        return int(args.outcome.split(":", 1)[1])
    print("Saved 96 samples to ./hidden_states", flush=True)
    return 0


def crash(outcome):
    path, line, func, message = FAILURES[outcome]
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.12/site-packages/speculators/data_generation/vllm_hidden_states_generator.py", line 301, in generate',
        "    outputs = self._run_batch(batch)",
        '  File "/opt/venv/lib/python3.12/site-packages/%s", line %d, in %s' % (path, line, func),
    ]
    lines.append(ASSERT_LINE if outcome == "block-hasher" else "    raise ...")
    lines.append(message)
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()
    os._exit(1)


if __name__ == "__main__":
    sys.exit(main())
