"""The usage ledger: every recorded call's tokens, seconds and cost, rolled up; and the run's budget.

Definitions:

* **Cost** of a call (:func:`harness.providers.pricing.call_cost`): ``(tokens_in * input + tokens_out *
  output) / 1e6`` dollars with the ``pricing:`` entry of its model (``input``/``output``: dollars per
  million tokens). An embedded model (llama.cpp, :data:`harness.config.EMBEDDED_MODELS`) costs 0 and
  its seconds are reported as ``cpu_seconds`` instead; a model without a price has no cost (``None``),
  and a total that includes one counts it in ``unpriced_calls``.
* **Ledger** (:func:`usage_ledger`): over the subjects' calls and the scoring calls of every result
  (:func:`harness.run.usage.result_calls`), sums of calls, cached calls, prompt and completion tokens,
  seconds, cpu_seconds and cost, in total and per case, subject, member, stage
  (:func:`harness.run.usage.stage_of`) and model. Cached calls are counted with their recorded tokens.
* **Cached tokens**, two kinds counted apart: ``cached_tokens`` sums the prompt tokens a backend
  reported serving from its own prefix cache (``CallRecord.cached_tokens``: an OpenAI-compatible
  ``usage.prompt_tokens_details.cached_tokens``; 0 for the embedded models, which reset llama.cpp's
  KV cache before every call) over the calls made in this run (not replayed); calls whose backend did
  not say are counted in ``cached_tokens_unknown``, never as 0. ``replayed_calls`` /
  ``replayed_tokens`` are the calls served from the harness's record/replay cache and their recorded
  prompt + completion tokens (no model ran for them in this run).
* **Budget** (:class:`Budget`): ``token_limit`` (prompt + completion tokens) and ``cost_limit``
  (dollars) over the results finished by one invocation of ``run`` (a ``--resume`` starts afresh).
  Once either is reached no new (case, subject) pair is started; those in flight finish and the
  manifest records the run as partial. A call whose endpoint reported no usable usage (missing,
  negative, non-numeric or absurd counts) counts by its estimated tokens
  (:func:`harness.providers.openai_compat.checked_usage`), and the ledger and the stop message say
  how many calls were estimated (``estimated_calls``).
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.common.model import Frozen
from harness.config import EMBEDDED_MODELS, ModelPrice
from harness.providers.pricing import call_cost
from harness.records.transcript import CallRecord
from harness.run.result import CaseResult
from harness.run.usage import result_calls, stage_of


class UsageTotals(Frozen):
    """Sums over a set of calls (see the module docstring)."""

    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    cached_tokens: int = 0
    cached_tokens_unknown: int = 0
    replayed_tokens: int = 0
    estimated_calls: int = 0  # calls whose tokens are estimates (the endpoint reported no usable usage)

    def plus(self, record: CallRecord, pricing: dict[str, ModelPrice]) -> UsageTotals:
        cost = call_cost(record, pricing)
        embedded = record.model in EMBEDDED_MODELS
        return UsageTotals(
            calls=self.calls + 1, cached_calls=self.cached_calls + int(record.cached),
            tokens_in=self.tokens_in + record.tokens_in, tokens_out=self.tokens_out + record.tokens_out,
            seconds=self.seconds + record.latency_s,
            cpu_seconds=self.cpu_seconds + (record.latency_s if embedded and not record.cached else 0.0),
            cost_usd=self.cost_usd + (cost or 0.0), unpriced_calls=self.unpriced_calls + int(cost is None),
            cached_tokens=self.cached_tokens + (0 if record.cached else (record.cached_tokens or 0)),
            cached_tokens_unknown=self.cached_tokens_unknown
            + int(not record.cached and record.cached_tokens is None),
            replayed_tokens=self.replayed_tokens + (record.tokens_in + record.tokens_out if record.cached else 0),
            estimated_calls=self.estimated_calls + int(record.tokens_estimated),
        )

    @property
    def replayed_calls(self) -> int:
        """Calls served from the record/replay cache (``cached_calls``, named for the ledger's two caches)."""
        return self.cached_calls

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


class UsageLedger(Frozen):
    """The run's ledger: totals, then per case, subject, member, stage and model."""

    total: UsageTotals
    by_case: dict[str, UsageTotals]
    by_subject: dict[str, UsageTotals]
    by_member: dict[str, UsageTotals]
    by_stage: dict[str, UsageTotals]
    by_model: dict[str, UsageTotals]


def usage_ledger(results: Iterable[CaseResult], pricing: dict[str, ModelPrice]) -> UsageLedger:
    """The ledger of ``results`` (see the module docstring)."""
    total = UsageTotals()
    groups: dict[str, dict[str, UsageTotals]] = {k: {} for k in ("case", "subject", "member", "stage", "model")}
    for r in results:
        for call in result_calls(r):
            total = total.plus(call, pricing)
            keys = {"case": f"{r.dataset}::{r.case_id}[{r.subject}]", "subject": r.subject, "member": call.member,
                    "stage": stage_of(call), "model": call.model}
            for group, key in keys.items():
                groups[group][key] = groups[group].get(key, UsageTotals()).plus(call, pricing)
    return UsageLedger(total=total, **{f"by_{g}": dict(sorted(v.items())) for g, v in groups.items()})


def cached_words(t: UsageTotals) -> str:
    """The two caches in words: the backend's prefix cache (or "not known") and record/replay hits."""
    made = t.calls - t.cached_calls
    if made and t.cached_tokens_unknown == made:
        prefix = "cached prompt tokens not known"
    else:
        unknown = f" (not known for {t.cached_tokens_unknown} call(s))" if t.cached_tokens_unknown else ""
        prefix = f"{t.cached_tokens} cached prompt tokens{unknown}"
    return f"{prefix}; {t.cached_calls} call(s) replayed from the record/replay cache ({t.replayed_tokens} tokens)"


def ledger_lines(ledger: UsageLedger) -> list[str]:
    """Console lines: the total, then one per subject."""
    def words(t: UsageTotals) -> str:
        cost = f"${t.cost_usd:.4f}" + (f" (+{t.unpriced_calls} unpriced call(s))" if t.unpriced_calls else "")
        estimated = (f" ({t.estimated_calls} call(s) estimated: the endpoint reported no usable usage)"
                     if t.estimated_calls else "")
        return (f"{t.calls} calls, {t.tokens_in} prompt + {t.tokens_out} completion tokens{estimated}, {cost}, "
                f"{t.cpu_seconds:.1f} embedded CPU s, {cached_words(t)}")
    return [f"usage: {words(ledger.total)}"] + [f"usage [{s}]: {words(t)}" for s, t in ledger.by_subject.items()]


class Budget:
    """``token_limit`` / ``cost_limit`` over the results finished in this invocation (module docstring)."""

    def __init__(self, token_limit: int | None, cost_limit: float | None, pricing: dict[str, ModelPrice]) -> None:
        self.token_limit = token_limit
        self.cost_limit = cost_limit
        self.pricing = pricing
        self.spent = UsageTotals()
        self.stopped: str | None = None  # set when a pair was held back because the budget was reached

    def add(self, result: CaseResult) -> None:
        for call in result_calls(result):
            self.spent = self.spent.plus(call, self.pricing)

    @property
    def reached(self) -> str | None:
        """Why no new pair may start (``None`` while within the limits)."""
        if self.token_limit is not None and self.spent.tokens >= self.token_limit:
            estimated = (f", {self.spent.estimated_calls} call(s) counted by estimated tokens: the endpoint reported "
                         "no usable usage" if self.spent.estimated_calls else "")
            return f"token_limit {self.token_limit} reached ({self.spent.tokens} tokens{estimated})"
        if self.cost_limit is not None and self.spent.cost_usd >= self.cost_limit:
            return f"cost_limit ${self.cost_limit:g} reached (${self.spent.cost_usd:.4f})"
        return None
