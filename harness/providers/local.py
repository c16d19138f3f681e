"""Embedded models run in-process through llama.cpp (``llama-cpp-python``), fully offline.

Chat models use their chat template; base models (Gemma 3 270M) are prompted completion-style
with a few-shot template (:mod:`harness.providers.local_prompts`); probes read option
log-probabilities from the logits (:mod:`harness.providers.option_logprobs`). Structured replies
are grammar-constrained from the JSON schema.
Calls run in a worker thread, one at a time per model (a llama.cpp context is not thread-safe):
callers queue on the model's ``asyncio.Lock`` in the event loop (so a queue of cases holds no
worker thread), and the thread holds the model's ``threading.Lock`` while it generates. Different
engines (llama.cpp instances, see "Engines" below) compute side by side and share the cores: before
each evaluation an engine takes ``n_threads // (engines computing now)`` threads (at least one), so
two engines at work run one thread each on 2 cores instead of two each (which oversubscribed the
cores: ``bench/bench_stages.py`` measured calls at 1.4-2.2x their time alone). llama.cpp's CPU
results do not depend on the thread count (every output element is computed by one thread;
``tests/providers/test_f16_prompts.py`` checks the logits bit for bit), so this changes the time
only. Every call sets its seed and a reply depends on the call alone, never on which calls ran
before it: runs with any number of cases in flight give the same replies.

KV-cache reuse (probes): see :mod:`harness.providers.prompt_cache` (chunk-aligned prompts, saved
openings restored bit for bit). The five rubric dimensions of one judge call share one evaluated
prompt (see :meth:`LocalProvider.probe`).

Engines: one llama.cpp instance per model, except for models with ``f16_prompts`` (SmolLM2, see
:func:`harness.providers.embedded.prompt_model_path`): their probes run on an F16 copy of the
shipped weights, and a chat evaluates its prompt (all but the last token) there too, then loads that
KV cache into the shipped file's instance, which evaluates the last token and generates the reply
(:meth:`LocalProvider._prefill`). A probe's free text (a ballot's critique) is generated the same way:
the F16 copy hands its prompt's KV cache to the shipped file, which generates 1.6x faster
(:meth:`LocalProvider._continue_on_chat_engine`), and the copy is free for the next probe meanwhile.
Chat generations start from an empty cache on every call.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.common.errors import ConfigError, ProviderError
from harness.providers.base import mark_admitted
from harness.providers.embedded import EMBEDDED, INSTALL_HINT, model_file, model_path, prompt_model_path
from harness.providers.engine_guard import check_engine
from harness.providers.engine_setup import EngineSetup, engine_setup, load_llama
from harness.providers.local_prompts import STOP_COMPLETION, completion_prompt, prompt_tokens
from harness.providers.malloc_setup import bound_malloc
from harness.providers.option_logprobs import option_logprobs
from harness.providers.probe import Probe, ProbeReply
from harness.providers.prompt_cache import PREFIX_CHUNK, OpeningBudget, PromptCache, kv_state, load_kv_state
from harness.records.transcript import Completion, Message

N_CTX = 4096
REPEAT_PENALTY = 1.1  # passed explicitly: llama_cpp.server defaults to 1.1, the library to 1.0


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


def _close_llama_devnull_at_exit() -> None:
    """llama-cpp-python opens ``/dev/null`` twice at import (``llama_cpp._utils``) and never closes it,
    so every process that loaded a model ended with two ``ResourceWarning: unclosed file`` lines. The
    files are closed at exit, after the last model call and before module teardown warns about them."""
    if getattr(_close_llama_devnull_at_exit, "done", False):
        return
    import atexit

    from llama_cpp import _utils

    def close() -> None:
        for name in ("outnull_file", "errnull_file"):
            handle = getattr(_utils, name, None)
            if handle is not None and not handle.closed:
                handle.close()

    atexit.register(close)
    _close_llama_devnull_at_exit.done = True  # type: ignore[attr-defined]


def engine_files(model: str) -> list[Path]:
    """The GGUF files ``model``'s engines load: the shipped file, then its F16 copy if it has one."""
    shipped = model_path(model)
    prompts = prompt_model_path(model)
    return [shipped] if prompts == shipped else [shipped, prompts]


@dataclass(frozen=True)
class _Handoff:
    """A probe's prompt KV cache (all but the last token) passed from the F16 copy to the shipped file."""

    state: Any | None  # None: llama.cpp could not copy it (the shipped file then evaluates the prompt)
    prompt: list[int]
    lead: list[int]


class LocalProvider:
    """llama.cpp in-process provider for the embedded models.

    Args:
        n_threads: CPU threads per model (default: see
            :func:`harness.providers.engine_setup.choose_threads`).
        n_ctx: context window.
        setup: the engine's set-up (threads, wait policy, buffer types; default:
            :func:`harness.providers.engine_setup.engine_setup` of ``n_threads``).
    """

    name = "local"
    reports_admission = True

    def __init__(self, n_threads: int | None = None, n_ctx: int = N_CTX, setup: EngineSetup | None = None) -> None:
        bound_malloc()  # before the engines' threads start (see harness.providers.malloc_setup)
        self.setup = setup or engine_setup(n_threads)
        self.n_threads = self.setup.threads
        self.n_ctx = n_ctx
        self._computing = 0  # engines inside a call now (see the module docstring)
        self._computing_lock = threading.Lock()
        self._models: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._load_lock = threading.Lock()
        self._queues: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Lock] = {}
        self._prompt_caches: dict[str, PromptCache] = {}  # per engine: see harness.providers.prompt_cache
        self._openings = OpeningBudget()  # the engines' saved openings share one byte budget
        self.reuse_prefix = True  # False: every probe evaluates its whole prompt (bench/bench_kv_reuse.py)

    def identity(self, model: str) -> str:
        # the weights' file name and size, not the path they load from (Gemma's is per process, see
        # harness.providers.joined_parts), so a key stays what it was when Gemma was joined into the cache
        file = model_file(model)
        engine = ":f16-prompts" if model in EMBEDDED and EMBEDDED[model].f16_prompts else ""
        # probe numbers depend (by rounding) on the chunk grid their prompts are evaluated on
        return f"local:{model}:{file.name}:{file.size}{engine}:chunk{PREFIX_CHUNK}"

    @staticmethod
    def _engine(model: str, prompts: bool) -> str:
        """The key of the llama.cpp instance that evaluates ``model``'s prompts (or generates its chat replies)."""
        return f"{model}#f16" if prompts and model in EMBEDDED and EMBEDDED[model].f16_prompts else model

    def _llama(self, model: str, prompts: bool = False) -> tuple[Any, str]:
        """The llama.cpp instance for ``model``'s chat replies (``prompts``: for its prompts and probes, see
        :func:`harness.providers.embedded.prompt_model_path`) and its key."""
        key = self._engine(model, prompts)
        with self._load_lock:
            if key not in self._models:
                if model not in EMBEDDED:
                    raise ConfigError(f"unknown embedded model; expected one of {sorted(EMBEDDED)}", model)
                if importlib.util.find_spec("llama_cpp") is None:
                    raise ConfigError(f"llama-cpp-python is not installed; {INSTALL_HINT}", model)
                files = engine_files(model)
                check_engine(files, self.setup.extra_bufts)  # once per machine and build: a crash stops here
                _close_llama_devnull_at_exit()
                path = files[-1] if key != model else files[0]
                with _quiet_stderr():
                    llm = load_llama(
                        path,
                        extra_bufts=self.setup.extra_bufts,
                        n_ctx=self.n_ctx,
                        n_threads=self.n_threads,
                        n_threads_batch=self.n_threads,
                        seed=0,
                        verbose=False,
                    )
                llm.eval = self._sharing_cores(llm, llm.eval)  # generate() calls self.eval
                self._models[key] = llm
                self._locks[key] = threading.Lock()
                self._prompt_caches[key] = PromptCache(self._openings)
            return self._models[key], key

    @contextlib.contextmanager
    def _busy(self):  # noqa: ANN202
        """Count this engine as computing while the block runs (see :meth:`_sharing_cores`)."""
        with self._computing_lock:
            self._computing += 1
        try:
            yield
        finally:
            with self._computing_lock:
                self._computing -= 1

    def _sharing_cores(self, llm: Any, evaluate: Any) -> Any:
        """``llm.eval`` that first sets the threads to ``n_threads // engines computing`` (at least 1)."""
        import llama_cpp

        current = [self.n_threads]

        def eval_sharing(tokens: Sequence[int]) -> None:
            n = max(1, self.n_threads // max(1, self._computing))
            if n != current[0]:
                llama_cpp.llama_set_n_threads(llm.ctx, n, n)
                current[0] = n
            evaluate(tokens)

        return eval_sharing

    def _generate(
        self,
        model: str,
        messages: Sequence[Message],
        temperature: float,
        top_p: float,
        max_tokens: int,
        seed: int,
        json_schema: dict[str, Any] | None,
    ) -> Completion:
        llm, key = self._llama(model)
        style = EMBEDDED[model].style
        started = time.perf_counter()
        with self._locks[key]:
            llm.reset()  # no KV-prefix reuse: identical calls give identical replies
            self._prompt_caches[key].forget_live()
            llm.set_seed(seed)
            if style == "chat" and EMBEDDED[model].f16_prompts:
                self._prefill(llm, model, messages)  # counts itself as computing while it does
            with self._busy():
                out, text = self._reply(llm, style, messages, temperature, top_p, max_tokens, seed, json_schema)
        usage = out.get("usage") or {}
        choice = out["choices"][0]
        return Completion(
            text=text,
            model=model,
            tokens_in=int(usage.get("prompt_tokens", 0)),
            tokens_out=int(usage.get("completion_tokens", 0)),
            latency_s=time.perf_counter() - started,
            finish_reason=str(choice.get("finish_reason") or "stop"),
            cached_tokens=0,  # the KV cache was reset above: no prompt token was reused
        )

    @staticmethod
    def _reply(
        llm: Any,
        style: str,
        messages: Sequence[Message],
        temperature: float,
        top_p: float,
        max_tokens: int,
        seed: int,
        json_schema: dict[str, Any] | None,
    ) -> tuple[dict[str, Any], str]:
        """Generate the reply (llama-cpp-python's response and its text) on the chat engine ``llm``."""
        if style == "chat":
            kwargs: dict[str, Any] = {}
            if json_schema is not None:
                kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
            out = llm.create_chat_completion(
                messages=[m.model_dump() for m in messages],
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_tokens,
                seed=seed,
                repeat_penalty=REPEAT_PENALTY,
                **kwargs,
            )
            choice = out["choices"][0]
            text = choice["message"].get("content") or ""
        else:
            from llama_cpp import LlamaGrammar

            grammar = (
                LlamaGrammar.from_json_schema(json.dumps(json_schema), verbose=False)
                if json_schema is not None
                else None
            )
            prompt = completion_prompt(messages, json_schema is not None)
            out = llm.create_completion(
                prompt=prompt,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_tokens,
                seed=seed,
                repeat_penalty=REPEAT_PENALTY,
                grammar=grammar,
                stop=None if grammar is not None else STOP_COMPLETION,
            )
            choice = out["choices"][0]
            text = choice.get("text") or ""
        return out, text

    def _prefill(self, llm: Any, model: str, messages: Sequence[Message]) -> int:
        """Evaluate a chat prompt, all but its last token, on ``model``'s F16 engine and load that KV
        cache into the chat engine ``llm`` (which then evaluates the last token and generates).

        llama.cpp's KV cache has the same shape for both files (same architecture, F16 keys and
        values), so the state of one loads into the other (:func:`kv_state`, :func:`load_kv_state`);
        ``create_chat_completion`` finds the loaded tokens as its cached prefix. Returns the number
        of tokens loaded (0: nothing loaded, the chat evaluates its whole prompt).
        """
        prompt = prompt_tokens(llm, model, messages)
        if len(prompt) < 2 or len(prompt) + 64 > self.n_ctx:
            return 0
        fill, key = self._llama(model, prompts=True)
        with self._locks[key], self._busy():
            fill.reset()
            self._prompt_caches[key].forget_live()  # the probes' saved openings stay
            fill.eval(prompt[:-1])
            state = kv_state(fill)
        if state is None or not load_kv_state(llm, state, prompt[:-1]):
            llm.reset()
            return 0
        return len(prompt) - 1

    def _probe(
        self,
        model: str,
        messages: Sequence[Message],
        probes: Sequence[Probe],
        lead: str,
        max_tokens: int,
        temperature: float,
        top_p: float,
        seed: int,
        stop: Sequence[str],
    ) -> tuple[ProbeReply, _Handoff | None]:
        """The probes, and the free text when it is generated on this engine; else what
        :meth:`_continue_on_chat_engine` needs to generate it (models with ``f16_prompts``)."""
        llm, key = self._llama(model, prompts=True)
        started = time.perf_counter()
        handoff = None
        with self._locks[key], self._busy():
            llm.set_seed(seed)
            prompt = prompt_tokens(llm, model, messages)
            if len(prompt) + 64 > self.n_ctx:
                raise ValueError(f"the prompt has {len(prompt)} tokens; the context window is {self.n_ctx}")
            # the same request gives the same numbers whatever ran before: see the module docstring
            reused = self._prompt_caches[key].evaluate(llm, prompt, reuse=self.reuse_prefix)
            evaluated = len(prompt)  # tokens_in counts the whole prompt; cached_tokens says how much was reused
            logprobs = []
            for probe in probes:
                found, n = option_logprobs(llm, len(prompt), probe)
                logprobs.append(found)
                evaluated += n
            text, generated, finish = "", 0, "stop"
            if max_tokens > 0:
                lead_ids = llm.tokenize(lead.encode("utf-8"), add_bos=False, special=False) if lead else []
                evaluated += len(lead_ids)
                if key != model:  # the F16 copy: the shipped file generates (faster), from this prompt's KV
                    llm._ctx.kv_cache_seq_rm(-1, len(prompt) - 1, -1)
                    llm.n_tokens = len(prompt) - 1  # the saved openings end at or before this
                    handoff = _Handoff(kv_state(llm), list(prompt), list(lead_ids))
                else:
                    # the logits now are the last probe's: the generation re-evaluates the prompt's last token
                    llm.n_tokens = len(prompt) - 1
                    text, generated, finish = self._continue(
                        llm, model, [*prompt, *lead_ids], max_tokens, temperature, top_p, seed, stop
                    )
        reply = ProbeReply(
            model=model,
            logprobs=tuple(logprobs),
            text=text,
            tokens_in=evaluated,
            tokens_out=generated,
            latency_s=time.perf_counter() - started,
            finish_reason=finish,
            method="logits",
            cached_tokens=reused,  # of tokens_in: the prompt opening served from the previous probe's KV cache
        )
        return reply, handoff

    @staticmethod
    def _continue(
        llm: Any,
        model: str,
        tokens: Sequence[int],
        max_tokens: int,
        temperature: float,
        top_p: float,
        seed: int,
        stop: Sequence[str],
    ) -> tuple[str, int, str]:
        """Generate after ``tokens`` (the cached ones are not evaluated again) until a ``stop`` string (or
        a completion-style model's own stops): text, tokens, finish reason."""
        stops = [*(STOP_COMPLETION if EMBEDDED[model].style == "completion" else []), *stop]
        out = llm.create_completion(
            prompt=list(tokens),
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            seed=seed,
            repeat_penalty=REPEAT_PENALTY,
            stop=stops or None,
        )
        choice = out["choices"][0]
        generated = int((out.get("usage") or {}).get("completion_tokens", 0))
        return choice.get("text") or "", generated, str(choice.get("finish_reason") or "stop")

    def _continue_on_chat_engine(
        self,
        model: str,
        reply: ProbeReply,
        handoff: _Handoff,
        max_tokens: int,
        temperature: float,
        top_p: float,
        seed: int,
        stop: Sequence[str],
    ) -> ProbeReply:
        """A probe's free text generated on the shipped file from the F16 copy's KV cache of its prompt
        (all but the last token, as a chat's :meth:`_prefill`); the F16 engine is free meanwhile."""
        llm, key = self._llama(model)
        started = time.perf_counter()
        with self._locks[key], self._busy():
            llm.reset()
            self._prompt_caches[key].forget_live()
            llm.set_seed(seed)
            if handoff.state is None or not load_kv_state(llm, handoff.state, handoff.prompt[:-1]):
                llm.reset()  # nothing loaded: the whole prompt is evaluated here
            text, generated, finish = self._continue(
                llm, model, [*handoff.prompt, *handoff.lead], max_tokens, temperature, top_p, seed, stop
            )
        return reply.model_copy(
            update={
                "text": text,
                "tokens_out": generated,
                "finish_reason": finish,
                "latency_s": reply.latency_s + time.perf_counter() - started,
            }
        )

    async def probe(
        self,
        model: str,
        messages: Sequence[Message],
        probes: Sequence[Probe],
        *,
        seed: int,
        lead: str = "",
        max_tokens: int = 0,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
    ) -> ProbeReply:
        """Option log-probabilities after ``messages`` for each probe, over one cached prompt.

        The prompt is evaluated once; each probe's text and options are evaluated from the
        cached prompt (the KV cache beyond the prompt is dropped between probes). With
        ``max_tokens > 0`` a free text is then generated after the prompt and ``lead``, up to the first
        ``stop`` string (for a model with ``f16_prompts``: on the shipped file, queued like a chat, from
        the prompt's KV cache).
        """
        try:
            async with self._queue(self._engine(model, prompts=True)):
                mark_admitted()
                reply, handoff = await asyncio.to_thread(
                    self._probe, model, messages, probes, lead, max_tokens, temperature, top_p, seed, stop
                )
            if handoff is None:
                return reply
            async with self._queue(model):
                return await asyncio.to_thread(
                    self._continue_on_chat_engine,
                    model,
                    reply,
                    handoff,
                    max_tokens,
                    temperature,
                    top_p,
                    seed,
                    stop,
                )
        except (ConfigError, ProviderError):
            raise
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp rejected the request: {exc}", f"local:{model}") from None

    def _queue(self, model: str) -> asyncio.Lock:
        """The model's queue in the running event loop (an ``asyncio.Lock`` belongs to one loop)."""
        loop = asyncio.get_running_loop()
        queue = self._queues.get((loop, model))
        if queue is None:
            self._queues = {k: v for k, v in self._queues.items() if k[0] is loop and not loop.is_closed()}
            queue = self._queues[(loop, model)] = asyncio.Lock()
        return queue

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
        top_logprobs: int = 0,
    ) -> Completion:
        """A reply to ``messages``; ``top_logprobs`` is ignored (read probabilities with :meth:`probe`)."""
        try:
            async with self._queue(model):
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
            for key, llm in self._models.items():
                with self._locks[key]:  # a cancelled call's generation may still run in its thread
                    close = getattr(llm, "close", None)
                    if close is not None:
                        close()
            self._models.clear()
            for cache in self._prompt_caches.values():
                self._openings.forget(cache)  # up to PREFIX_CACHE_BYTES of saved openings
            self._prompt_caches.clear()

    async def aclose(self) -> None:
        await asyncio.to_thread(self._close_all)
