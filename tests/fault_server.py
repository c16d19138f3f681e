"""A real loopback HTTP server whose replies to ``POST .../chat/completions`` are scripted.

It produces the faults a healthy server cannot: delays, 429 with ``Retry-After``, 5xx,
connection resets, malformed JSON, empty ``choices``, bodies cut off mid-way, very slow
replies, and normal OpenAI-shaped replies; a rule per model makes one model fail while the
others answer. Every request is recorded (headers and JSON body) and the largest number of requests in
flight at once is tracked.

Use the ``fault_server`` fixture (``from tests.fault_server import fault_server_fixture  # noqa: F401``
and a test argument named ``fault_server``) or ``with FaultServer() as server:``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from harness.model import Frozen

FaultKind = Literal["ok", "status", "reset", "malformed", "empty_choices", "no_content", "truncated"]


class Fault(Frozen):
    """How the server answers one request.

    Args:
        kind: ``ok`` (an OpenAI-shaped reply with ``text``), ``status`` (``status`` with ``body``
            and an optional ``Retry-After``), ``reset`` (close the socket with a TCP reset and no
            reply), ``malformed`` (200 with a body that is not JSON), ``empty_choices`` (200 with
            ``"choices": []``), ``no_content`` (a choice whose message content is null),
            ``truncated`` (a Content-Length larger than what is sent, then close).
        delay: seconds to wait before answering (a slow reply when large).
        status: the HTTP status of a ``status`` reply.
        retry_after: the ``Retry-After`` header value, if any.
        body: the body of a ``status`` reply.
        text: the message content of an ``ok`` reply.
    """

    kind: FaultKind = "ok"
    delay: float = 0.0
    status: int = 200
    retry_after: str | None = None
    body: str = '{"error": {"message": "scripted failure"}}'
    text: str = "The capital of France is Paris."


def ok(text: str = "The capital of France is Paris.", delay: float = 0.0) -> Fault:
    """A normal reply after ``delay`` seconds."""
    return Fault(kind="ok", text=text, delay=delay)


def status(code: int, retry_after: str | None = None, body: str | None = None) -> Fault:
    """An HTTP error reply."""
    return Fault(kind="status", status=code, retry_after=retry_after, **({"body": body} if body is not None else {}))


def reset() -> Fault:
    """Close the connection with a TCP reset before replying."""
    return Fault(kind="reset")


def malformed() -> Fault:
    """200 with a body that is not JSON."""
    return Fault(kind="malformed")


def empty_choices() -> Fault:
    """200 with an empty ``choices`` list."""
    return Fault(kind="empty_choices")


def no_content() -> Fault:
    """200 with a choice whose message content is null."""
    return Fault(kind="no_content")


def truncated() -> Fault:
    """200 whose body stops half-way through its announced Content-Length."""
    return Fault(kind="truncated")


def slow(seconds: float) -> Fault:
    """A normal reply that only starts after ``seconds``."""
    return Fault(kind="ok", delay=seconds)


class Received(Frozen):
    """One request the server received.

    Args:
        method, path: the request line.
        headers: header name (lower-cased) -> value.
        body: the decoded JSON body (``None`` when absent or not JSON).
    """

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None = None


def completion_body(text: str, model: str, prompt_tokens: int = 12, completion_tokens: int = 7) -> dict[str, Any]:
    """An OpenAI-shaped chat completion."""
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class FaultServer:
    """The scripted server.

    Args:
        default: the reply when the script is empty and no model rule matches.
    """

    def __init__(self, default: Fault | None = None) -> None:
        self.default = default or ok()
        self._script: deque[Fault] = deque()
        self._by_model: dict[str, Fault] = {}
        self._lock = threading.Lock()
        self._requests: list[Received] = []
        self._in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting --------------------------------------------------------------------------

    def script(self, *faults: Fault) -> None:
        """Answer the next requests with ``faults``, in order (then fall back to the default)."""
        with self._lock:
            self._script.extend(faults)

    def for_model(self, model: str, fault: Fault) -> None:
        """Answer every request for ``model`` with ``fault`` (before the script)."""
        with self._lock:
            self._by_model[model] = fault

    @property
    def requests(self) -> list[Received]:
        """The requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _next(self, body: dict[str, Any] | None) -> Fault:
        with self._lock:
            model = body.get("model") if isinstance(body, dict) else None
            if isinstance(model, str) and model in self._by_model:
                return self._by_model[model]
            return self._script.popleft() if self._script else self.default

    def _enter(self, received: Received) -> None:
        with self._lock:
            self._requests.append(received)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FaultServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                received = Received(
                    method="POST", path=self.path, headers={k.lower(): v for k, v in self.headers.items()},
                    body=body if isinstance(body, dict) else None,
                )
                server._enter(received)
                try:
                    fault = server._next(received.body)
                    if fault.delay:
                        time.sleep(fault.delay)
                    self._answer(fault, received)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (e.g. its timeout)
                finally:
                    server._leave()

            def _send(self, code: int, payload: bytes, extra: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()

            def _answer(self, fault: Fault, received: Received) -> None:
                model = str((received.body or {}).get("model", "model"))
                if fault.kind == "ok":
                    self._send(200, json.dumps(completion_body(fault.text, model)).encode())
                elif fault.kind == "status":
                    extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else None
                    self._send(fault.status, fault.body.encode(), extra)
                elif fault.kind == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                elif fault.kind == "malformed":
                    self._send(200, b'{"choices": [{"message": {"content": "Paris"')
                elif fault.kind == "empty_choices":
                    self._send(200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())
                elif fault.kind == "no_content":
                    body = completion_body("", model)
                    body["choices"][0]["message"]["content"] = None
                    self._send(200, json.dumps(body).encode())
                elif fault.kind == "truncated":
                    full = json.dumps(completion_body("The capital of France is Paris.", model)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(full)))
                    self.end_headers()
                    self.wfile.write(full[: len(full) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fault-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(name="fault_server")
def fault_server_fixture() -> Iterator[FaultServer]:
    """A running :class:`FaultServer` answering normally until scripted."""
    with FaultServer() as server:
        yield server


fault_server = fault_server_fixture  # the name the fixture is registered under
