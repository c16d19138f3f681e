"""Embedded models run in-process through llama.cpp (``llama-cpp-python``), fully offline.

Chat models use their chat template; base models (Gemma 3 270M) are prompted completion-style
with a few-shot template. Structured replies are grammar-constrained from the JSON schema.
Calls run in a worker thread, one at a time per model (a llama.cpp context is not thread-safe):
callers queue on the model's ``asyncio.Lock`` in the event loop (so a queue of cases holds no
worker thread), and the thread holds the model's ``threading.Lock`` while it generates. Every call
resets the context and sets its seed, so a reply depends on the call alone, never on which calls
ran before it: runs with any number of cases in flight give the same replies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from harness.errors import ConfigError, ProviderError
from harness.providers.base import mark_admitted
from harness.providers.embedded import EMBEDDED, INSTALL_HINT, model_path
from harness.transcript import Completion, Message

N_CTX = 4096
REPEAT_PENALTY = 1.1  # passed explicitly: llama_cpp.server defaults to 1.1, the library to 1.0
FEW_SHOT = """Below are questions, each followed by a short, correct answer.

Question: What is the capital of France?
Answer: The capital of France is Paris.

Question: What is 7 times 8?
Answer: 7 times 8 is 56.

Question: What does a thermometer measure?
Answer: A thermometer measures temperature.

"""
_STOP_COMPLETION = ["\nQuestion:", "\n\n\n"]


def completion_prompt(messages: Sequence[Message], structured: bool) -> str:
    """Turn chat messages into a completion-style prompt for a base model."""
    system = " ".join(m.content for m in messages if m.role == "system")
    user = "\n\n".join(m.content for m in messages if m.role != "system").strip()
    if structured:
        return f"{user}\n\nJSON:\n"
    if user.endswith(":"):  # the prompt already ends in its own cue (e.g. "Final answer:")
        return f"{system}\n\n{user} ".lstrip()
    prefix = f"{system}\n\n" if system else ""
    return f"{prefix}{FEW_SHOT}Question: {user}\nAnswer:"


@contextlib.contextmanager
def _quiet_stderr():  # noqa: ANN202
    """Silence llama.cpp's C-level load messages (they bypass ``verbose=False``)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class LocalProvider:
    """llama.cpp in-process provider for the embedded models.

    Args:
        n_threads: CPU threads per model (default: all cores).
        n_ctx: context window.
    """

    name = "local"
    reports_admission = True

    def __init__(self, n_threads: int | None = None, n_ctx: int = N_CTX) -> None:
        self.n_threads = n_threads or os.cpu_count() or 1
        self.n_ctx = n_ctx
        self._models: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._load_lock = threading.Lock()
        self._queues: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Lock] = {}

    def identity(self, model: str) -> str:
        path = model_path(model)
        return f"local:{model}:{path.name}:{path.stat().st_size}"

    def _llama(self, model: str) -> Any:
        with self._load_lock:
            if model not in self._models:
                if model not in EMBEDDED:
                    raise ConfigError(f"unknown embedded model; expected one of {sorted(EMBEDDED)}", model)
                try:
                    from llama_cpp import Llama
                except ImportError:
                    raise ConfigError(f"llama-cpp-python is not installed; {INSTALL_HINT}", model) from None
                path = str(model_path(model))
                with _quiet_stderr():
                    self._models[model] = Llama(
                        model_path=path, n_ctx=self.n_ctx, n_threads=self.n_threads,
                        n_threads_batch=self.n_threads, seed=0, verbose=False,
                    )
                self._locks[model] = threading.Lock()
            return self._models[model]

    def _generate(
        self, model: str, messages: Sequence[Message], temperature: float, top_p: float,
        max_tokens: int, seed: int, json_schema: dict[str, Any] | None,
    ) -> Completion:
        llm = self._llama(model)
        style = EMBEDDED[model].style
        started = time.perf_counter()
        with self._locks[model]:
            llm.reset()  # no KV-prefix reuse: identical calls give identical replies
            llm.set_seed(seed)
            if style == "chat":
                kwargs: dict[str, Any] = {}
                if json_schema is not None:
                    kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
                out = llm.create_chat_completion(
                    messages=[m.model_dump() for m in messages], temperature=temperature,
                    top_p=top_p, max_tokens=max_tokens, seed=seed, repeat_penalty=REPEAT_PENALTY,
                    **kwargs,
                )
                choice = out["choices"][0]
                text = choice["message"].get("content") or ""
            else:
                from llama_cpp import LlamaGrammar

                grammar = (
                    LlamaGrammar.from_json_schema(json.dumps(json_schema), verbose=False)
                    if json_schema is not None else None
                )
                prompt = completion_prompt(messages, json_schema is not None)
                out = llm.create_completion(
                    prompt=prompt, temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                    seed=seed, repeat_penalty=REPEAT_PENALTY, grammar=grammar,
                    stop=None if grammar is not None else _STOP_COMPLETION,
                )
                choice = out["choices"][0]
                text = choice.get("text") or ""
        usage = out.get("usage") or {}
        return Completion(
            text=text, model=model, tokens_in=int(usage.get("prompt_tokens", 0)),
            tokens_out=int(usage.get("completion_tokens", 0)),
            latency_s=time.perf_counter() - started,
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )

    async def chat(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        top_p: float = 1.0,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        loop = asyncio.get_running_loop()
        queue = self._queues.get((loop, model))
        if queue is None:  # an asyncio.Lock belongs to one event loop
            self._queues = {k: v for k, v in self._queues.items() if k[0] is loop and not loop.is_closed()}
            queue = self._queues[(loop, model)] = asyncio.Lock()
        try:
            async with queue:
                mark_admitted()
                return await asyncio.to_thread(
                    self._generate, model, messages, temperature, top_p, max_tokens, seed, json_schema
                )
        except (ConfigError, ProviderError):
            raise
        except ValueError as exc:  # e.g. prompt longer than the context window
            raise ProviderError(f"llama.cpp rejected the request: {exc}", f"local:{model}") from None

    def _close_all(self) -> None:
        with self._load_lock:
            for model, llm in self._models.items():
                with self._locks[model]:  # a cancelled call's generation may still run in its thread
                    close = getattr(llm, "close", None)
                    if close is not None:
                        close()
            self._models.clear()

    async def aclose(self) -> None:
        await asyncio.to_thread(self._close_all)
