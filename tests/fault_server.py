"""A real loopback HTTP server whose replies to ``POST .../chat/completions`` are scripted.

It produces the faults a healthy server cannot: delays, 429 with ``Retry-After``, 5xx,
connection resets, malformed JSON, empty ``choices``, bodies cut off mid-way, very slow
replies, and normal OpenAI-shaped replies; a rule per model makes one model fail while the
others answer. Every request is recorded (headers, JSON body, arrival time) and the largest number of
requests in flight at once is tracked (``max_in_flight``: until the handler is done, after the reply is
written; ``max_unanswered``: until the reply starts, so a client that sends its next request only once
it has the previous reply never shows 2 there, however fast it sends). A ``responder`` makes normal
replies depend on the request (so that a reply given to the wrong case shows), and ``rate_limit``
makes the server refuse requests beyond a number per sliding window with ``429`` and the
``Retry-After`` that frees a place, as hosted APIs do.

Use the ``fault_server`` fixture of ``tests/conftest.py`` (a test argument named ``fault_server``) or
``with FaultServer() as server:``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from harness.common.model import Frozen

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


#: llama_cpp.server's answer to ``response_format: {"type": "json_schema", ...}`` (HTTP 500).
LLAMA_SCHEMA_REJECTION = (
    '{"error": {"message": "1 validation error: {\'type\': \'literal_error\', '
    "'loc': ('body', 'response_format', 'type'), 'msg': \\\"Input should be 'text' or "
    '\'json_object\'\\"}", "type": "internal_server_error"}}'
)


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
    at: float = 0.0
    status: int | None = None
    peer: str = ""  # the client's address and port (one per connection: tells the clients apart)


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
        responder: the text of an ``ok`` reply computed from the request's JSON body (instead of
            the fault's ``text``).
        rate_limit: ``(n, seconds)``: at most ``n`` requests answered per sliding window of
            ``seconds``; beyond it a ``429`` whose ``Retry-After`` is the wait until the oldest
            request in the window leaves it.
        delay: seconds every ``ok`` reply waits (on top of the fault's own delay).
        reject_json_schema: answer every request whose ``response_format`` type is ``json_schema`` as
            llama_cpp.server does (500, :data:`LLAMA_SCHEMA_REJECTION`), before any other rule.
        decide: the fault for a request given every request received so far (it included; called under
            the server's lock), or ``None`` for the other rules; after ``rate_limit``, before the rest.
    """

    def __init__(
        self,
        default: Fault | None = None,
        *,
        responder: Callable[[dict[str, Any]], str] | None = None,
        rate_limit: tuple[int, float] | None = None,
        delay: float = 0.0,
        reject_json_schema: bool = False,
        decide: Callable[[Received, list[Received]], Fault | None] | None = None,
    ) -> None:
        self.reject_json_schema = reject_json_schema
        self.decide = decide
        self.default = default or ok()
        self.responder = responder
        self.rate_limit = rate_limit
        self.delay = delay
        self._window: deque[float] = deque()
        self.refused = 0
        self._script: deque[Fault] = deque()
        self._by_model: dict[str, Fault] = {}
        self._by_text: list[tuple[str, str | None, Fault]] = []
        self._lock = threading.Lock()
        self._requests: list[Received] = []
        self._in_flight = 0
        self.max_in_flight = 0
        self._unanswered = 0
        self.max_unanswered = 0
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

    def when(self, contains: str, fault: Fault, model: str | None = None) -> None:
        """Answer every request whose messages contain ``contains`` (for ``model`` only, when given)
        with ``fault``; these rules come before the model rules and the script, first match wins."""
        with self._lock:
            self._by_text.append((contains, model, fault))

    def clear_rules(self) -> None:
        """Forget the text and model rules and the script (the default reply stays)."""
        with self._lock:
            self._by_text.clear()
            self._by_model.clear()
            self._script.clear()

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
            form = body.get("response_format") if isinstance(body, dict) else None
            if self.reject_json_schema and isinstance(form, dict) and form.get("type") == "json_schema":
                return status(500, body=LLAMA_SCHEMA_REJECTION)
            messages = body.get("messages") if isinstance(body, dict) else None
            text = (
                " ".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
                if isinstance(messages, list)
                else ""
            )
            for contains, only, fault in self._by_text:
                if contains in text and (only is None or only == model):
                    return fault
            if isinstance(model, str) and model in self._by_model:
                return self._by_model[model]
            return self._script.popleft() if self._script else self.default

    def _decided(self, received: Received) -> Fault | None:
        if self.decide is None:
            return None
        with self._lock:
            return self.decide(received, list(self._requests))

    def _limited(self) -> Fault | None:
        """A 429 when the request is beyond ``rate_limit``, else ``None`` (and the request is counted)."""
        if self.rate_limit is None:
            return None
        n, seconds = self.rate_limit
        with self._lock:
            now = time.monotonic()
            while self._window and now - self._window[0] >= seconds:
                self._window.popleft()
            if len(self._window) >= n:
                self.refused += 1
                wait = seconds - (now - self._window[0])
                return status(429, retry_after=f"{wait:.3f}", body='{"error": {"message": "rate limit"}}')
            self._window.append(now)
            return None

    def _enter(self, received: Received) -> Received:
        with self._lock:
            received = received.model_copy(update={"at": time.monotonic()})
            self._requests.append(received)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._unanswered += 1
            self.max_unanswered = max(self.max_unanswered, self._unanswered)
            return received

    def _replying(self) -> None:
        with self._lock:
            self._unanswered -= 1

    def _answered(self, received: Received, code: int) -> None:
        with self._lock:
            for i in range(len(self._requests) - 1, -1, -1):
                if self._requests[i] is received:
                    self._requests[i] = received.model_copy(update={"status": code})
                    break

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
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body if isinstance(body, dict) else None,
                    peer=f"{self.client_address[0]}:{self.client_address[1]}",
                )
                received = server._enter(received)
                unanswered = True
                try:
                    fault = server._limited() or server._decided(received) or server._next(received.body)
                    delay = fault.delay + (server.delay if fault.kind == "ok" else 0.0)
                    if delay:
                        time.sleep(delay)
                    server._replying()
                    unanswered = False
                    self._answer(fault, received)
                    server._answered(received, fault.status if fault.kind == "status" else 200)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (e.g. its timeout)
                finally:
                    if unanswered:
                        server._replying()
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
                    text = server.responder(received.body or {}) if server.responder else fault.text
                    self._send(200, json.dumps(completion_body(text, model)).encode())
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

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the standard library's 5 drops connections when many arrive at once
            daemon_threads = True

        self._httpd = Server(("127.0.0.1", 0), Handler)
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
