"""The child side of the start-up guard (:mod:`harness.providers.engine_guard`).

``python -m harness.providers.engine_check [--no-extra-bufts] MODEL.gguf...`` loads each file, evaluates
a 64-token prompt batch and generates one token, printing ``build: ...``, then ``model: PATH`` before
and ``ok: PATH`` after each file, so that the parent can say where a crash happened. Exit 0: every
file ran.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

PROMPT = " ".join(["The quick brown fox jumps over the lazy dog."] * 8)
BATCH = 64


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.providers.engine_check")
    parser.add_argument("--no-extra-bufts", action="store_true", help="load without llama.cpp's extra buffer types")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args(argv)
    from harness.providers.engine_setup import load_llama, prepare_openmp

    prepare_openmp()
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    print(f"build: {info}", flush=True)
    threads = min(2, os.cpu_count() or 1)
    for path in args.models:
        print(f"model: {path}", flush=True)
        llm = load_llama(
            path,
            extra_bufts=not args.no_extra_bufts,
            n_ctx=256,
            n_batch=BATCH,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )
        tokens = llm.tokenize(PROMPT.encode(), add_bos=True)[:BATCH]
        llm.eval(tokens)  # one prompt batch: the matmul path that crashed (issue 24)
        out = llm.create_completion(prompt=tokens, max_tokens=1, temperature=0.0)
        print(f"ok: {path} ({len(tokens)} tokens, then {out['usage']['completion_tokens']} generated)", flush=True)
        llm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
