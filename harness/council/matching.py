"""The budget self-consistency is matched on (``arms.match_on``, issue 28), measured over call records.

``tokens``: prompt + completion tokens; ``completion_tokens``: completion tokens only; ``cost``: dollars
by :func:`harness.providers.pricing.call_cost` — the cost the call has whether it ran or was replayed,
so a replayed run draws the same n as the live one. Cost matching needs a price for every model whose
calls are measured (:func:`check_priced`): an unpriced call would count as free and let the arm
sample without bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from harness.common.errors import ConfigError
from harness.config import ModelPrice, Settings
from harness.providers.pricing import call_cost, priced
from harness.records.transcript import CallRecord

MatchOn = Literal["tokens", "completion_tokens", "cost"]

__all__ = ["MatchOn", "check_priced", "spend", "unit"]


def spend(calls: Sequence[CallRecord], match_on: MatchOn, pricing: dict[str, ModelPrice]) -> float:
    """The budget ``calls`` used, in ``match_on``'s unit (see the module docstring)."""
    if match_on == "tokens":
        return float(sum(c.tokens_in + c.tokens_out for c in calls))
    if match_on == "completion_tokens":
        return float(sum(c.tokens_out for c in calls))
    return sum(call_cost(c, pricing) or 0.0 for c in calls)


def unit(match_on: MatchOn) -> str:
    """``match_on`` in words, for messages."""
    return {"tokens": "tokens", "completion_tokens": "completion tokens", "cost": "dollars"}[match_on]


def check_priced(settings: Settings, models: Iterable[str], subject: str) -> None:
    """Raise :class:`ConfigError` when ``arms.match_on`` is ``cost`` and one of ``models`` has no price."""
    if settings.arms.match_on != "cost":
        return
    missing = sorted({m for m in models if not priced(m, settings.pricing)})
    if missing:
        raise ConfigError(
            f"{subject}: arms.match_on is 'cost' but {', '.join(repr(m) for m in missing)} "
            "has no positive price; add it under pricing: (input/output dollars per million tokens) "
            "or match on tokens",
            "arms.match_on",
        )
