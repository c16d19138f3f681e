"""Benchmark: concurrency speedup of ``OpenAICompatProvider`` against a loopback server with a fixed delay.

The server is a minimal threading HTTP server on 127.0.0.1 that answers every ``POST
/v1/chat/completions`` with an OpenAI-shaped reply (the tests' ``completion_body``) after a fixed
delay (100 ms by default). It is not the tests' ``FaultServer`` because that one keeps the
standard library's listen backlog of 5, which drops connection attempts when 16 arrive at once.
N requests (32) are sent at once through a provider with ``concurrency=1`` and then with larger
limits; the speedup is the time at 1 over the time at c, and the ideal is ``N / ceil(N / c)``
(the number of delay periods saved).

Run: ``python bench/run.py --only http``.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench import BenchResult, BenchRow, Timing, atimed, ratio
from harness.common.model import Frozen
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Message
from tests.fault_server import completion_body

MESSAGES = (Message(role="user", content="What is the capital of France?"),)


class DelayServer:
    """A loopback OpenAI-shaped server that answers every request after ``delay`` seconds.

    Args:
        delay: seconds to wait before each reply.
    """

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def __enter__(self) -> DelayServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server._enter()
                try:
                    time.sleep(server.delay)
                    model = str(json.loads(raw or b"{}").get("model", "model"))
                    payload = json.dumps(completion_body("Paris.", model)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                finally:
                    server._leave()

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the standard library's 5 drops simultaneous connections
            daemon_threads = True

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="bench-delay-server", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class Level(Frozen):
    """N concurrent requests at one concurrency limit.

    Args:
        concurrency: the provider's limit.
        timing: wall and CPU time of the N requests (after one warm-up request).
        max_in_flight: the most requests the server saw at once.
        ideal: the ideal speedup over ``concurrency=1``: ``N / ceil(N / concurrency)``.
    """

    concurrency: int
    timing: Timing
    max_in_flight: int
    ideal: float


async def _burst(base_url: str, concurrency: int, n: int) -> Timing:
    provider = OpenAICompatProvider(base_url, api_key_env=None, concurrency=concurrency, max_retries=0, timeout=60)
    try:

        async def one(i: int):  # noqa: ANN202 - local helper
            return await provider.chat("bench-model", MESSAGES, temperature=0.0, max_tokens=8, seed=i)

        await one(-1)  # warm-up: connection and client set up
        replies, t = await atimed(asyncio.gather(*(one(i) for i in range(n))))
        if len(replies) != n or any(not r.text for r in replies):
            raise RuntimeError("the loopback server did not answer every request")
        return t
    finally:
        await provider.aclose()


def measure(concurrency: int, n: int, delay: float) -> Level:
    """Send ``n`` requests at once with a provider limited to ``concurrency``, against a fresh server.

    Args:
        concurrency: the provider's ``concurrency``.
        n: requests sent together.
        delay: the server's delay before each reply, in seconds.
    """
    with DelayServer(delay) as server:
        timing = asyncio.run(_burst(server.base_url, concurrency, n))
        in_flight = server.max_in_flight
    return Level(concurrency=concurrency, timing=timing, max_in_flight=in_flight, ideal=n / math.ceil(n / concurrency))


def run(
    quick: bool = False, n: int | None = None, delay: float | None = None, levels: Sequence[int] | None = None
) -> BenchResult:
    """Measure the speedup of concurrent requests over one at a time.

    Args:
        quick: 4 requests, 20 ms delay, concurrency 1 and 4 (smoke test).
        n: requests per burst (default 32).
        delay: server delay per reply in seconds (default 0.1).
        levels: concurrency limits compared with 1 (default 8 and 16).
    """
    n = n or (4 if quick else 32)
    delay = delay or (0.02 if quick else 0.1)
    levels = tuple(levels or ((4,) if quick else (8, 16)))
    serial = measure(1, n, delay)
    figures = {"requests": float(n), "delay_ms": delay * 1000, "c1_s": serial.timing.wall_s}
    rows = [
        BenchRow(
            name="http.c1",
            figure=f"{serial.timing.wall_s:.2f} s",
            ratio=f"{ratio(serial.timing.wall_s, n * delay):.2f}x of {n} x {delay * 1000:.0f} ms",
            note=f"{n} requests, concurrency=1 (max in flight {serial.max_in_flight})",
        )
    ]
    for c in levels:
        level = measure(c, n, delay)
        speedup = ratio(serial.timing.wall_s, level.timing.wall_s)
        figures[f"c{c}_s"] = level.timing.wall_s
        figures[f"c{c}_speedup"] = speedup
        figures[f"c{c}_ideal"] = level.ideal
        figures[f"c{c}_efficiency"] = ratio(speedup, level.ideal)
        rows.append(
            BenchRow(
                name=f"http.c{c}",
                figure=f"{level.timing.wall_s:.2f} s",
                ratio=f"{speedup:.1f}x speedup (ideal {level.ideal:.0f}x)",
                note=f"concurrency={c} vs 1, {figures[f'c{c}_efficiency'] * 100:.0f}% of ideal "
                f"(max in flight {level.max_in_flight})",
            )
        )
    notes = (
        f"http: loopback threading server, fixed {delay * 1000:.0f} ms per reply, OpenAI-shaped JSON; "
        "one warm-up request per provider is not timed",
    )
    return BenchResult(name="http", figures=figures, rows=tuple(rows), notes=notes)
