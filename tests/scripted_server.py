"""A real loopback OpenAI-compatible server whose answers are scripted per question and per arm.

Each query carries an id (``Q07: ...``). The server answers ``POST .../chat/completions``:

* the baseline model (``solo``): the right answer for the ids in ``baseline_right``, a wrong one otherwise;
* the chairman's synthesis (the stage-3 prompt): the right answer for the ids in ``council_right``;
* a stage-2 review: a valid JSON ballot;
* a council member's stage-1 answer: a fixed wrong answer (the synthesis decides the council's final answer).

``finish_reason`` is ``length`` for the ids in ``truncate`` on the arm named by ``truncate_arm``, so
the truncation report can be tested; every reply is otherwise ``stop``.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SOLO = "solo"
QID = re.compile(r"\b(Q\d+):")


def question(i: int) -> str:
    """The query of case ``i``: its id and an arithmetic question whose answer is ``i + 100``."""
    return f"Q{i:02d}: What is {i} + 100? Reply with the number."


class ScriptedServer:
    """``with ScriptedServer(council_right, baseline_right) as server: server.base_url``."""

    def __init__(
        self,
        council_right: Iterable[int],
        baseline_right: Iterable[int],
        truncate: Iterable[int] = (),
        truncate_arm: str = SOLO,
    ) -> None:
        self.council_right = {f"Q{i:02d}" for i in council_right}
        self.baseline_right = {f"Q{i:02d}" for i in baseline_right}
        self.truncate = {f"Q{i:02d}" for i in truncate}
        self.truncate_arm = truncate_arm
        self.requests = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def reply(self, body: dict[str, Any]) -> tuple[str, str]:
        """The scripted ``(content, finish_reason)`` for one request body."""
        content = str(body["messages"][-1]["content"])
        match = QID.search(content)
        qid = match.group(1) if match else ""
        right = str(int(qid[1:]) + 100) if qid else "0"
        if content.startswith("You are reviewing anonymized answers"):
            return json.dumps({"ranking": ["Response A", "Response B", "Response C"]}), "stop"
        if content.startswith("Several assistants answered"):
            finish = "length" if qid in self.truncate and self.truncate_arm == "council" else "stop"
            return (f"The answer is {right}." if qid in self.council_right else "The answer is 7."), finish
        if body.get("model") == SOLO:
            finish = "length" if qid in self.truncate and self.truncate_arm == SOLO else "stop"
            return (f"The answer is {right}." if qid in self.baseline_right else "The answer is 7."), finish
        return "The answer is 7.", "stop"

    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        """``(prompt_tokens, completion_tokens)`` reported for one request (a subclass may vary them)."""
        return 20, 6

    def usage_block(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The reply's ``usage`` object (``None``: left out), from :meth:`usage` and :meth:`cached_tokens`."""
        prompt, completion = self.usage(body)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if (cached := self.cached_tokens(body)) is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        return usage

    def cached_tokens(self, body: dict[str, Any]) -> int | None:
        """``usage.prompt_tokens_details.cached_tokens`` for one request; ``None``: the field is left out."""
        return None

    def __enter__(self) -> ScriptedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                with server._lock:
                    server.requests += 1
                text, finish = server.reply(body)
                reply: dict[str, Any] = {
                    "id": "scripted",
                    "object": "chat.completion",
                    "model": body.get("model", ""),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
                    ],
                }
                if (usage := server.usage_block(body)) is not None:
                    reply["usage"] = usage
                out = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
