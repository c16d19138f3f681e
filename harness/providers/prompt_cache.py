"""The KV cache of an embedded engine's prompts: chunk-aligned reuse, saved openings, state transfer.

A probe's prompt is evaluated in chunks of :data:`PREFIX_CHUNK` tokens at fixed positions (0-63,
64-127, ...), never in one batch. The chunks of the previous probe prompt that are identical, from
position 0, to this prompt's are kept in the KV cache and only the rest is evaluated. Because a
chunk's keys and values depend only on the tokens up to its end and on its own batch shape, a
reused chunk holds exactly the numbers a fresh evaluation would compute, so reuse changes the time,
never the probabilities. It pays where probes share an opening: the two presentation orders of one
ballot (and the reviewers of one case on the same model) share the review instructions and the
question; the judge's prompts for two answers to one question share the grading instructions, the
question, the reference and the rubric (the answer comes last).

Since probes of other cases arrive in between, each engine also keeps the chunk-aligned openings
its prompts evaluated as saved KV states (``llama_state_seq_get_data``, a few MB each) and restores
the one sharing the most whole chunks with a new prompt when that beats its live cache. The engines
of one provider share one :class:`OpeningBudget` of :data:`PREFIX_CACHE_BYTES`, least recently used
(saved or restored) dropped first whichever engine holds it: an engine whose openings are reused keeps
them, one whose openings are not (Gemma's, measured below) gives its bytes to the others. A restored
state holds the same bytes in the same cells as the evaluation that saved it, so this too changes the
time only
(``tests/providers/test_probe_embedded.py`` compares the numbers bit for bit).

:func:`kv_state` and :func:`load_kv_state` also carry a prompt's KV cache from one engine to another
of the same architecture (SmolLM2's F16 copy to its Q4_1 file: see
:meth:`harness.providers.local.LocalProvider._prefill`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

#: prompts are evaluated in chunks of this many tokens at fixed positions (see the module docstring).
#: Smaller chunks are reused at a finer grain but evaluate slower: SmolLM2's F16 copy evaluated
#: about 280 tokens/s in 32-token chunks, 340 in 64 and 355 in 128 on 2 cores (Gemma about 270
#: whatever the size), and a reuse loses on average half a chunk; 64 costs the least in the whole suite.
PREFIX_CHUNK = 64
#: bytes of saved prompt openings (KV states) a provider's engines keep together, least recently used
#: dropped first; an opening of SmolLM2 takes about 23 KB per token (9 MB for a 400-token judge
#: prompt). Chosen by measured benefit (``bench/bench_prompt_cache.py``, the main job's first 4
#: challenges, unbounded): SmolLM2's F16 engine restored 13 openings that saved 2,048 prompt tokens, of
#: which a bound of 32 MB would have kept 53% and 192 MB all (the judge's second answer finds the
#: first answer's opening about 190 MB of newer openings later); Gemma's engine saved 38 MB of openings
#: and restored none. The main job's peak RSS was 1.37 GB with 200 MB of openings; 512 MB per engine
#: (1 GB in all) took it to 2.9 GB on the whole suite. With 256 MB shared and glibc's allocator set
#: (:mod:`harness.providers.malloc_setup`) the openings held 256 MB of a 1.50 GB peak by challenge 34;
#: 192 MB, the smallest bound that kept every measured restore, takes 64 MB off that.
PREFIX_CACHE_BYTES = 192 * 2**20


class OpeningBudget:
    """The bytes of saved openings of several :class:`PromptCache` (one provider's engines), and their
    order of use across them: over ``max_bytes``, the least recently used opening is dropped, whichever
    cache holds it (the newest one is always kept)."""

    def __init__(self, max_bytes: int = PREFIX_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self._order: OrderedDict[tuple[int, tuple[int, ...]], PromptCache] = OrderedDict()

    def touch(self, cache: PromptCache, tokens: tuple[int, ...]) -> None:
        """``cache``'s opening ``tokens`` was saved or restored now: the most recently used."""
        key = (id(cache), tokens)
        if key not in self._order:
            self._order[key] = cache
            self.used += len(cache.openings[tokens])
        self._order.move_to_end(key)
        while self.used > self.max_bytes and len(self._order) > 1:
            (_, old), holder = self._order.popitem(last=False)
            self.used -= len(holder.openings.pop(old))

    def forget(self, cache: PromptCache) -> None:
        """Drop every opening of ``cache`` (its engine was closed)."""
        for key in [k for k, c in self._order.items() if c is cache]:
            del self._order[key]
            self.used -= len(cache.openings.pop(key[1]))


def kv_state(llm: Any) -> Any | None:
    """The KV state of sequence 0 (every token now in the cache), or None if llama.cpp cannot copy it."""
    import ctypes

    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    state = (ctypes.c_uint8 * size)()
    return state if llama_cpp.llama_state_seq_get_data(llm.ctx, state, size, 0) == size else None


def load_kv_state(llm: Any, state: Any, tokens: Sequence[int]) -> bool:
    """Replace sequence 0 of ``llm`` with ``state`` (the KV cache of ``tokens``) and record those tokens
    as evaluated; False, and an empty cache, if llama.cpp refuses the state."""
    import llama_cpp

    if llama_cpp.llama_state_seq_set_data(llm.ctx, state, len(state), 0) != len(state):
        llm.n_tokens = 0
        llm._ctx.kv_cache_clear()
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return True


class PromptCache:
    """One engine's reusable prompt KV: the chunk-aligned prefix of its live cache and saved openings.

    Args:
        budget: the byte budget shared with other engines' caches (default: one of its own,
            :data:`PREFIX_CACHE_BYTES`).
    """

    def __init__(self, budget: OpeningBudget | None = None) -> None:
        self.budget = budget or OpeningBudget()
        self.live = 0  # leading tokens of the engine's KV cache that were evaluated chunk-aligned
        self.openings: OrderedDict[tuple[int, ...], Any] = OrderedDict()  # token ids -> KV state, oldest first
        #: per restored opening: (bytes of the openings used since it was saved or last restored, itself
        #: included: its LRU depth; tokens it saved beyond the live cache) - bench/bench_prompt_cache.py
        self.restores: list[tuple[int, int]] = []

    def forget_live(self) -> None:
        """The engine's KV cache was changed outside :meth:`evaluate` (a chat, a prefill)."""
        self.live = 0

    def evaluate(self, llm: Any, prompt: Sequence[int], reuse: bool = True) -> int:
        """Evaluate ``prompt`` in :data:`PREFIX_CHUNK`-aligned chunks, keeping the cached chunks it shares.

        Returns the number of prompt tokens reused. Only whole chunks strictly before the prompt's
        last token are reused (the last token is always evaluated, so its logits are fresh): from the
        live KV cache or from a saved opening, whichever shares more; the prompt's own opening
        (every chunk before its last) is saved in turn. ``reuse=False`` evaluates every chunk and
        saves nothing (``bench/bench_kv_reuse.py``'s "off").
        """

        def shared(tokens: Sequence[int]) -> int:
            same = 0
            for a, b in zip(tokens, prompt, strict=False):
                if a != b:
                    break
                same += 1
            return min(same, len(prompt) - 1) // PREFIX_CHUNK * PREFIX_CHUNK

        keep = 0
        if reuse:
            keep = shared(llm.input_ids[: min(llm.n_tokens, self.live)])
            best = max(self.openings, key=shared, default=None)
            if best is not None and shared(best) > keep and load_kv_state(llm, self.openings[best], best):
                depth, found = 0, False
                for tokens, state in self.openings.items():
                    found = found or tokens == best
                    depth += len(state) if found else 0
                self.restores.append((depth, shared(best) - keep))
                self.openings.move_to_end(best)
                self.budget.touch(self, best)
                keep = shared(best)
        llm.n_tokens = keep  # eval() drops the KV cache beyond this point first
        opening = (len(prompt) - 1) // PREFIX_CHUNK * PREFIX_CHUNK  # every chunk before the last one
        for start in range(keep, len(prompt), PREFIX_CHUNK):
            if reuse and start == opening and opening > keep:
                self._save(llm, tuple(prompt[:opening]))
            llm.eval(list(prompt[start : start + PREFIX_CHUNK]))
        # later steps may re-evaluate the last token alone: only the chunks before it stay reusable
        self.live = opening
        return keep

    def _save(self, llm: Any, tokens: tuple[int, ...]) -> None:
        """Keep the KV state of the ``tokens`` now in the cache (exactly those) as a saved opening."""
        state = kv_state(llm)
        if state is None:
            return
        if tokens in self.openings:
            self.budget.used -= len(self.openings[tokens]) - len(state)
        self.openings[tokens] = state
        self.openings.move_to_end(tokens)
        self.budget.touch(self, tokens)
