"""The usage ledger: every recorded call's tokens, seconds and cost, rolled up; and the run's budget.

Definitions:

* **Cost** of a call (:func:`harness.providers.pricing.call_cost`): ``(tokens_in * input + tokens_out *
  output) / 1e6`` dollars with the ``pricing:`` entry of its model (``input``/``output``: dollars per
  million tokens). An embedded model (llama.cpp, :data:`harness.config.EMBEDDED_MODELS`) costs 0 and
  its seconds are reported as ``cpu_seconds`` instead; a model without a price has no cost (``None``),
  and a total that includes one counts it in ``unpriced_calls``.
* **Paid cost** (``cost_usd``): the cost of the calls that ran in this run; a call replayed from the
  record/replay cache costs 0 here and its cost (what it would have cost live) goes to
  ``replayed_cost_usd`` (:func:`harness.providers.pricing.live_cost`); ``nominal_cost_usd`` is the
  two together, what the calls cost whether replayed or not (the quality-per-dollar chart and the arm
  ratios use it, so a replayed run compares subjects as the live one did).
* **Ledger** (:func:`usage_ledger`): over the subjects' calls and the scoring calls of every result
  (:func:`harness.run.usage.result_calls`), sums of calls, cached calls, prompt and completion tokens,
  seconds, cpu_seconds and cost, in total and per case, subject, member, stage
  (:func:`harness.run.usage.stage_of`) and model. **Scoring is not a subject's**: a subject's row
  (``by_subject``, ``by_case`` ``<case>[<subject>]``) holds only the calls of its own transcript; the
  judge and every other scoring call of every result go to the row :data:`SCORING`
  (``by_case``: ``<case>[scoring]``); the calls of pairs a budget stopped before they finished
  (``Manifest.unrecorded_calls``: paid, but in no result) go to the row :data:`UNRECORDED`, so the
  ledger counts every call the endpoint saw. Cached calls are counted with their recorded tokens.
* **Cached tokens**, two kinds counted apart: ``cached_tokens`` sums the prompt tokens a backend
  reported serving from its own prefix cache (``CallRecord.cached_tokens``: an OpenAI-compatible
  ``usage.prompt_tokens_details.cached_tokens``; 0 for the embedded models, which reset llama.cpp's
  KV cache before every call) over the calls made in this run (not replayed); calls whose backend did
  not say are counted in ``cached_tokens_unknown``, never as 0. ``replayed_calls`` /
  ``replayed_tokens`` are the calls served from the harness's record/replay cache and their recorded
  prompt + completion tokens (no model ran for them in this run).
* **Budget** (:class:`Budget`): ``token_limit`` (prompt + completion tokens) and ``cost_limit``
  (dollars) over the *live* calls of one invocation of ``run`` (a ``--resume`` starts afresh):
  replayed calls spend nothing. It is charged after every call and checked before every call
  (:meth:`Budget.check`), so once either limit is reached no new call starts; the overshoot is at
  most the calls already in flight. The pair whose call was refused is not recorded (``--resume``
  runs it again) and the manifest records the run as partial. A call whose endpoint reported no
  usable usage (missing, negative, non-numeric or absurd counts) counts by its estimated tokens
  (:func:`harness.providers.openai_compat.checked_usage`), and the ledger and the stop message say
  how many calls were estimated (``estimated_calls``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from harness.common.errors import BudgetReached
from harness.common.model import Frozen
from harness.common.shared_state import SharedState
from harness.config import EMBEDDED_MODELS, ModelPrice
from harness.providers.pricing import call_cost
from harness.records.transcript import CallRecord
from harness.run.result import CaseResult
from harness.run.usage import result_calls, stage_of

#: the ledger row of the judge and every other scoring call (never inside a subject's row)
SCORING = "scoring"
#: the ledger row of the calls made for pairs a budget stopped before they finished
UNRECORDED = "unrecorded"


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
    replayed_cost_usd: float = 0.0

    def plus(self, record: CallRecord, pricing: dict[str, ModelPrice]) -> UsageTotals:
        cost = call_cost(record, pricing)
        paid = 0.0 if record.cached else (cost or 0.0)
        embedded = record.model in EMBEDDED_MODELS
        return UsageTotals(
            calls=self.calls + 1,
            cached_calls=self.cached_calls + int(record.cached),
            tokens_in=self.tokens_in + record.tokens_in,
            tokens_out=self.tokens_out + record.tokens_out,
            seconds=self.seconds + record.latency_s,
            cpu_seconds=self.cpu_seconds + (record.latency_s if embedded and not record.cached else 0.0),
            cost_usd=self.cost_usd + paid,
            unpriced_calls=self.unpriced_calls + int(cost is None),
            cached_tokens=self.cached_tokens + (0 if record.cached else (record.cached_tokens or 0)),
            cached_tokens_unknown=self.cached_tokens_unknown + int(not record.cached and record.cached_tokens is None),
            replayed_tokens=self.replayed_tokens + (record.tokens_in + record.tokens_out if record.cached else 0),
            estimated_calls=self.estimated_calls + int(record.tokens_estimated),
            replayed_cost_usd=self.replayed_cost_usd + ((cost or 0.0) if record.cached else 0.0),
        )

    @property
    def replayed_calls(self) -> int:
        """Calls served from the record/replay cache (``cached_calls``, named for the ledger's two caches)."""
        return self.cached_calls

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @property
    def live_tokens(self) -> int:
        """Prompt + completion tokens of the calls that ran in this run (not replayed)."""
        return self.tokens - self.replayed_tokens

    @property
    def nominal_cost_usd(self) -> float:
        """Paid plus replayed cost: what the calls cost whether they ran or were replayed."""
        return self.cost_usd + self.replayed_cost_usd


class UsageLedger(Frozen):
    """The run's ledger: totals, then per case, subject, member, stage and model."""

    total: UsageTotals
    by_case: dict[str, UsageTotals]
    by_subject: dict[str, UsageTotals]
    by_member: dict[str, UsageTotals]
    by_stage: dict[str, UsageTotals]
    by_model: dict[str, UsageTotals]


def _rows(results: Iterable[CaseResult], unrecorded: Iterable[CallRecord]) -> Iterator[tuple[str, str, CallRecord]]:
    """``(case row, subject row, call)`` for every call (see the module docstring)."""
    for r in results:
        own = len(r.transcript.calls) if r.transcript is not None else 0
        for i, call in enumerate(result_calls(r)):
            row = r.subject if i < own else SCORING
            yield f"{r.dataset}::{r.case_id}[{row}]", row, call
    for call in unrecorded:
        yield UNRECORDED, UNRECORDED, call


def usage_ledger(
    results: Iterable[CaseResult], pricing: dict[str, ModelPrice], unrecorded: Iterable[CallRecord] = ()
) -> UsageLedger:
    """The ledger of ``results`` and of the run's ``unrecorded`` calls (see the module docstring)."""
    total = UsageTotals()
    groups: dict[str, dict[str, UsageTotals]] = {k: {} for k in ("case", "subject", "member", "stage", "model")}
    for case, row, call in _rows(results, unrecorded):
        total = total.plus(call, pricing)
        keys = {"case": case, "subject": row, "member": call.member, "stage": stage_of(call), "model": call.model}
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


def cost_words(t: UsageTotals) -> str:
    """The paid cost, the replayed calls' cost (not paid) and the unpriced calls, in words."""
    replayed = f" paid (+${t.replayed_cost_usd:.4f} replayed, not paid)" if t.replayed_cost_usd else ""
    return f"${t.cost_usd:.4f}{replayed}" + (f" (+{t.unpriced_calls} unpriced call(s))" if t.unpriced_calls else "")


def ledger_lines(ledger: UsageLedger) -> list[str]:
    """Console lines: the total, then one per subject."""

    def words(t: UsageTotals) -> str:
        cost = cost_words(t)
        estimated = (
            f" ({t.estimated_calls} call(s) estimated: the endpoint reported no usable usage)"
            if t.estimated_calls
            else ""
        )
        return (
            f"{t.calls} calls, {t.tokens_in} prompt + {t.tokens_out} completion tokens{estimated}, {cost}, "
            f"{t.cpu_seconds:.1f} embedded CPU s, {cached_words(t)}"
        )

    return [f"usage: {words(ledger.total)}"] + [f"usage [{s}]: {words(t)}" for s, t in ledger.by_subject.items()]


class Budget:
    """``token_limit`` / ``cost_limit`` over the live calls of this invocation (module docstring).

    A :class:`harness.providers.base.SpendMeter`: :meth:`check` before every call, :meth:`charge` after.

    ``shared``: a file where the processes of one pytest session (its pytest-xdist workers) add up
    their live tokens, paid cost and estimated calls (:class:`harness.common.shared_state.SharedState`:
    each charge adds under a lock; each check reads without one), so the limits hold for the session as
    a whole: once the sum reaches a limit no worker starts a new call, and the overshoot is at most the
    calls already in flight in all of them. ``spent`` stays this process's own.
    """

    def __init__(
        self,
        token_limit: int | None,
        cost_limit: float | None,
        pricing: dict[str, ModelPrice],
        shared: Path | None = None,
    ) -> None:
        self.token_limit = token_limit
        self.cost_limit = cost_limit
        self.pricing = pricing
        self.spent = UsageTotals()
        self.stopped: str | None = None  # set when a call or a pair was refused because the budget was reached
        self.calls: list[CallRecord] = []  # every call charged, in order
        limited = token_limit is not None or cost_limit is not None
        self._shared = SharedState(shared) if shared is not None and limited else None

    def charge(self, record: CallRecord) -> None:
        """Count one finished call (a replayed one adds no live tokens and no paid cost)."""
        before = self.spent
        self.spent = self.spent.plus(record, self.pricing)
        self.calls.append(record)
        if self._shared is not None:
            with self._shared.update() as total:
                total["live_tokens"] = total.get("live_tokens", 0.0) + self.spent.live_tokens - before.live_tokens
                total["cost_usd"] = total.get("cost_usd", 0.0) + self.spent.cost_usd - before.cost_usd
                total["estimated_calls"] = (
                    total.get("estimated_calls", 0.0) + self.spent.estimated_calls - before.estimated_calls
                )

    def unrecorded(self, recorded: Iterable[CaseResult]) -> list[CallRecord]:
        """The calls charged that no result in ``recorded`` holds: those of the pairs the budget stopped."""
        left = Counter(c.model_dump_json() for r in recorded for c in result_calls(r))
        out = []
        for call in self.calls:
            key = call.model_dump_json()
            if left[key]:
                left[key] -= 1
            else:
                out.append(call)
        return out

    def check(self) -> None:
        """Raise :class:`BudgetReached` (and remember why) once a limit is reached."""
        if (why := self.reached) is not None:
            self.stopped = self.stopped or why
            raise BudgetReached(why)

    @property
    def reached(self) -> str | None:
        """Why no new call may start (``None`` while within the limits); live spend only (the session's
        sum when ``shared``)."""
        if self.token_limit is None and self.cost_limit is None:
            return None
        tokens, cost, estimated, whose = self.spent.live_tokens, self.spent.cost_usd, self.spent.estimated_calls, ""
        if self._shared is not None:
            total = self._shared.read()
            tokens, cost = int(total.get("live_tokens", 0)), total.get("cost_usd", 0.0)
            estimated, whose = int(total.get("estimated_calls", 0)), " over the session's workers"
        if self.token_limit is not None and tokens >= self.token_limit:
            note = (
                f", {estimated} call(s) counted by estimated tokens: the endpoint reported no usable usage"
                if estimated
                else ""
            )
            return f"token_limit {self.token_limit} reached ({tokens} live tokens{whose}{note})"
        if self.cost_limit is not None and cost >= self.cost_limit:
            return f"cost_limit ${self.cost_limit:g} reached (${cost:.4f} paid{whose})"
        return None
