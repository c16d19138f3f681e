"""Reading a model's probabilities over a few short options instead of sampling text.

A *probe* is a text appended to the prompt (after the assistant turn starts) and a set of
option strings that may follow it (``" 1"`` .. ``" 10"``, ``" A"``, ``" B"``). The provider
returns each option's log-probability as a continuation of prompt + probe text.

Definitions (the one place for each):

* **Option log-probability** -- the sum of the log-probabilities of the option's tokens, each
  conditioned on the prompt, the probe text and the option's earlier tokens (the option's
  tokens are those the tokenizer gives for prompt + probe + option beyond the tokens of
  prompt + probe). When an option's tokens are a strict prefix of another option's (``1`` and
  ``10`` for tokenizers that split digits), the shorter option only counts when the next token
  does not continue into a longer option: ``log P(1) = log P(1) + log(1 - P(0 | 1))``. So the
  options are mutually exclusive events.
* **Distribution** (:func:`normalise`) -- the option probabilities renormalised to sum to 1
  over the options (mass on tokens that are no option is dropped).
* **Expected value** (:func:`expected_value`) -- sum of value x probability over the
  distribution (G-Eval's score form).
* **Entropy** (:func:`entropy_bits`) -- ``-sum p log2 p`` of the distribution, in bits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from harness.common.model import Frozen


class Probe(Frozen):
    """Text appended after the prompt and the options whose probabilities are read after it."""

    text: str
    options: tuple[str, ...]


class ProbeReply(Frozen):
    """What one probe call returned.

    Args:
        model: the model that answered.
        logprobs: per probe, option -> log-probability (exclusive events, not renormalised).
        text: the free text generated after the prompt and ``lead`` (the generation only), when asked.
        tokens_in: tokens evaluated (prompt once, plus each probe's and option's tokens).
        tokens_out: tokens generated for ``text``.
        latency_s: wall time of the call.
        finish_reason: of the free-text generation (``stop`` when none was asked).
        method: ``logits`` (read from the model's logits) or ``top_logprobs`` (an endpoint's).
        cached: served from the record/replay cache.
        cached_tokens: of ``tokens_in``, the prompt tokens reused from an earlier call's KV cache (the
            embedded models: whole 32-token chunks of a shared prompt opening, see
            :mod:`harness.providers.local`); ``None`` when not known.
    """

    model: str
    logprobs: tuple[dict[str, float], ...]
    text: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    finish_reason: str = "stop"
    method: Literal["logits", "top_logprobs"] = "logits"
    cached: bool = False
    cached_tokens: int | None = None


def normalise(logprobs: Mapping[str, float]) -> dict[str, float]:
    """Option probabilities renormalised to sum to 1 (uniform when every option has zero mass)."""
    if not logprobs:
        return {}
    top = max(logprobs.values())
    if top == -math.inf:
        return {k: 1.0 / len(logprobs) for k in logprobs}
    weights = {k: math.exp(v - top) for k, v in logprobs.items()}
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def expected_value(dist: Mapping[str, float], values: Mapping[str, float]) -> float:
    """``sum values[o] * dist[o]`` over the options of ``dist``."""
    return sum(values[o] * p for o, p in dist.items())


def entropy_bits(dist: Mapping[str, float]) -> float:
    """Shannon entropy of ``dist`` in bits (0 for a certain outcome)."""
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)
