"""Benchmark: a one-request-at-a-time server with more queued calls than one attempt's time allows.

Issue 30 item 7: with ``request_timeout`` shorter than the server's queue, a timed-out request used to
be sent again while the server still had (and computed) the first copy. This starts a real
``python -m llama_cpp.server`` on loopback with the embedded SmolLM2-135M (``tests/llama_server.py``;
it computes one request at a time), sends ``--calls`` chats at ``--concurrency`` with ``--timeout``,
and counts from the server's own log the completions it computed (``llama_perf_context_print`` total
lines) and the requests it answered. Printed: calls that succeeded, completions computed per call
(1.00x: nothing computed twice), wall time. Nothing here asserts a time.

Run: ``PYTHONPATH=. python bench/bench_slow_endpoint.py [--calls 6] [--concurrency 3] [--timeout 30]``
(needs ``pip install -e .[local]``). Measured 2026-11-27 on 2 loaded cores, 6 calls, concurrency 3,
timeout 30 s: before, 7 completions for 6 calls (1.17x; every call's first attempt timed out and was
re-sent); after, 6 (1.00x; the timed-out attempts waited for their replies); all 6 calls succeeded both times.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Message
from tests.llama_server import start_llama_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--max-tokens", type=int, default=120)
    args = parser.parse_args()
    server = start_llama_server()
    try:
        log = Path(server.tmp.name) / "server.log"
        provider = OpenAICompatProvider(
            server.base, None, timeout=args.timeout, max_retries=3, concurrency=args.concurrency
        )

        async def run() -> list[object]:
            try:
                return await asyncio.gather(
                    *(
                        provider.chat(
                            "m",
                            [Message(role="user", content=f"Count from 1 to 40, item {i}.")],
                            temperature=0.0,
                            max_tokens=args.max_tokens,
                            seed=i,
                        )
                        for i in range(args.calls)
                    ),
                    return_exceptions=True,
                )
            finally:
                await provider.aclose()

        started = time.perf_counter()
        results = asyncio.run(run())
        wall = time.perf_counter() - started
        time.sleep(1.0)  # the server's last log lines
        text = log.read_text(errors="replace")
        computed, answered = text.count("total time ="), text.count("POST /v1/chat/completions")
        ok = sum(1 for r in results if not isinstance(r, BaseException))
        print(
            f"{args.calls} calls at concurrency {args.concurrency}, timeout {args.timeout:g} s: {ok} succeeded; "
            f"server computed {computed} completions ({computed / args.calls:.2f}x calls), answered {answered}; "
            f"wall {wall:.1f} s"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
