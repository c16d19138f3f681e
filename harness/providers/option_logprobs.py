"""Reading option log-probabilities from an embedded model's logits (the definitions are in
:mod:`harness.providers.probe`).

The caller holds the engine and has its prompt in the KV cache; the probe text and each option's
tokens are evaluated after it, the cache beyond the prompt dropped in between.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from harness.providers.probe import Probe


def logprobs_after(llm: Any, start: int, tokens: Sequence[int]) -> Any:
    """Evaluate ``tokens`` after the first ``start`` cached tokens; log-softmax of the next token."""
    import numpy as np
    from scipy.special import log_softmax

    llm.n_tokens = start  # eval() drops the KV cache beyond this point first
    llm.eval(list(tokens))
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
    return log_softmax(logits.astype(np.float64))


def option_logprobs(llm: Any, base: int, probe: Probe) -> tuple[dict[str, float], int]:
    """Exclusive option log-probabilities after ``base`` prompt tokens (see :mod:`harness.providers.probe`)."""
    text_ids = llm.tokenize(probe.text.encode("utf-8"), add_bos=False, special=False) if probe.text else []
    seqs: dict[str, tuple[int, ...]] = {}
    for option in probe.options:
        full = llm.tokenize((probe.text + option).encode("utf-8"), add_bos=False, special=False)
        own = (
            full[len(text_ids) :]
            if full[: len(text_ids)] == text_ids and len(full) > len(text_ids)
            else llm.tokenize(option.encode("utf-8"), add_bos=False, special=False)
        )
        seqs[option] = tuple(own)
    start = base + len(text_ids)
    # the next-token distribution after the probe text (no text: re-evaluate the prompt's last token)
    root = (
        logprobs_after(llm, base, text_ids)
        if text_ids
        else logprobs_after(llm, base - 1, [int(llm.input_ids[base - 1])])
    )
    contexts: dict[tuple[int, ...], Any] = {(): root}
    evaluated = len(text_ids)
    needed = {seq[:i] for seq in seqs.values() for i in range(1, len(seq))}
    needed |= {seq for seq in seqs.values() if any(o != seq and o[: len(seq)] == seq for o in seqs.values())}
    for ctx in sorted(needed, key=lambda c: (len(c), c)):
        contexts[ctx] = logprobs_after(llm, start, ctx)
        evaluated += len(ctx)
    out: dict[str, float] = {}
    for option, seq in seqs.items():
        lp = sum(float(contexts[seq[:i]][tok]) for i, tok in enumerate(seq))
        longer = {o[len(seq)] for o in seqs.values() if len(o) > len(seq) and o[: len(seq)] == seq}
        if longer:
            stay = 1.0 - sum(math.exp(float(contexts[seq][t])) for t in longer)
            lp += math.log(stay) if stay > 0 else -math.inf
        out[option] = lp
    return out, evaluated
