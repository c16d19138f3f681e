"""What a model call costs in dollars, from the ``pricing:`` table (the one definition; issue 28).

**Cost** of a call (:func:`call_cost`): ``(tokens_in * input + tokens_out * output) / 1e6`` dollars
with the ``pricing:`` entry of its model (``input``/``output``: dollars per million tokens). An
embedded model (llama.cpp, :data:`harness.config.EMBEDDED_MODELS`) costs 0; a model without a price
has no cost (``None``). This is the cost the call has whether it ran or was replayed from the
record/replay cache; what was *paid* in this run is :func:`live_cost`: 0 for a replayed call.
"""

from __future__ import annotations

from harness.config import EMBEDDED_MODELS, ModelPrice
from harness.records.transcript import CallRecord

__all__ = ["call_cost", "live_cost", "priced"]


def call_cost(record: CallRecord, pricing: dict[str, ModelPrice]) -> float | None:
    """Dollars of one call, replayed or not (see the module docstring); ``None`` when unpriced."""
    if record.model in EMBEDDED_MODELS:
        return 0.0
    price = pricing.get(record.model)
    if price is None:
        return None
    return (record.tokens_in * price.input + record.tokens_out * price.output) / 1e6


def live_cost(record: CallRecord, pricing: dict[str, ModelPrice]) -> float | None:
    """Dollars paid for one call in this run: 0 when it was replayed, else :func:`call_cost`."""
    return 0.0 if record.cached else call_cost(record, pricing)


def priced(model: str, pricing: dict[str, ModelPrice]) -> bool:
    """Whether ``model`` has a positive price (a ``pricing:`` entry with a non-zero rate)."""
    price = pricing.get(model)
    return price is not None and (price.input > 0 or price.output > 0)
