"""G-Eval scoring of the rubric: the expected score under the judge's distribution over ``1``..``10``.

For a judge whose probabilities can be read (the embedded models), the judge prompt is
evaluated once and, per rubric dimension, one probe ``"<Dimension> (1-10):"`` is evaluated from
the cached prompt; the options are ``" 1"`` .. ``" 10"`` (exclusive events: see
:mod:`harness.providers.probe`). Per dimension:

* ``p_s = P(s) / sum_t P(t)`` over ``s, t`` in 1..10 (renormalised over the score options),
* score ``= sum_s s * p_s`` (continuous, in [1, 10]),
* entropy ``= -sum_s p_s log2 p_s`` bits (0: certain; log2(10) = 3.32: uniform).

For an OpenAI-compatible endpoint that returns ``top_logprobs`` with its JSON reply
(:func:`json_value_logprobs`), the same expected score is taken over the alternatives the
endpoint returned at the position where each dimension's value starts: every alternative that
keeps the text before the value and continues with a number from 1 to 10 is that score's
option. A value token ``1`` that may continue into ``10`` (tokenizers that split digits) is
split with the next position's alternatives when the reply's own value starts with ``1``
(``P(10) = P(1) P(0 | 1)``, ``P(1) = P(1) (1 - P(0 | 1))``); otherwise it counts as 1.

The dimension scores then go through seed 004's weighted score, accuracy ceiling and safety
gate exactly as the JSON judge's integer scores do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from harness.common.rubric_terms import RUBRIC_DIMENSIONS
from harness.providers.probe import Probe, entropy_bits, expected_value, normalise
from harness.records.transcript import TokenLogprob

SCORE_OPTIONS: dict[str, float] = {f" {i}": float(i) for i in range(1, 11)}
GEVAL_INSTRUCTION = (
    "Score the answer from 1 to 10 on each dimension: accuracy, relevance, completeness, conciseness and clarity."
)


def geval_probes() -> list[Probe]:
    """One probe per rubric dimension, in :data:`RUBRIC_DIMENSIONS` order."""
    return [Probe(text=f"{d.capitalize()} (1-10):", options=tuple(SCORE_OPTIONS)) for d in RUBRIC_DIMENSIONS]


def score_from_logprobs(logprobs: Mapping[str, float]) -> tuple[float, float, dict[int, float]]:
    """(expected score, entropy in bits, score -> probability) from one dimension's option log-probs."""
    dist = normalise({o: logprobs[o] for o in SCORE_OPTIONS})
    score = expected_value(dist, SCORE_OPTIONS)
    return score, entropy_bits(dist), {int(SCORE_OPTIONS[o]): p for o, p in dist.items()}


def _add(dist: dict[str, float], option: str, lp: float) -> None:
    """Add probability ``exp(lp)`` to ``option`` (log-space sum)."""
    if option not in dist:
        dist[option] = lp
        return
    hi, lo = max(dist[option], lp), min(dist[option], lp)
    dist[option] = hi + math.log1p(math.exp(lo - hi))


def json_value_logprobs(tokens: Sequence[TokenLogprob], keys: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per JSON key, score option (``" 1"`` .. ``" 10"``) -> log-probability, read from the alternatives
    at the position where the key's value starts (see the module docstring); keys not found are left out."""
    text, starts = "", []
    for t in tokens:
        starts.append(len(text))
        text += t.token
    out: dict[str, dict[str, float]] = {}
    for key in keys:
        m = re.search(rf'"{re.escape(key)}"\s*:\s*', text, re.IGNORECASE)
        if m is None:
            continue
        at = m.end()
        i = next((j for j, s0 in enumerate(starts) if s0 <= at < s0 + len(tokens[j].token)), None)
        if i is None:
            continue
        tok = tokens[i]
        prefix = tok.token[: at - starts[i]]
        own = tok.token[len(prefix) :]
        dist: dict[str, float] = {}
        for alt, lp in (tok.top or {tok.token: tok.logprob}).items():
            if not alt.startswith(prefix):
                continue
            rest = alt[len(prefix) :]
            digits = re.match(r"\d+", rest)
            if digits is None:
                continue
            value = int(digits.group())
            open_ended = digits.end() == len(rest)  # the next token may add digits
            if value == 1 and open_ended and own == rest and i + 1 < len(tokens):
                nxt = tokens[i + 1]
                p0 = sum(math.exp(v) for s1, v in (nxt.top or {nxt.token: nxt.logprob}).items() if s1.startswith("0"))
                p0 = min(max(p0, 0.0), 1.0)
                if p0 > 0:
                    _add(dist, " 10", lp + math.log(p0))
                if p0 < 1:
                    _add(dist, " 1", lp + math.log1p(-p0))
            elif 1 <= value <= 10:
                _add(dist, f" {value}", lp)
        if dist:
            out[key] = {o: dist.get(o, -math.inf) for o in SCORE_OPTIONS}
    return out
