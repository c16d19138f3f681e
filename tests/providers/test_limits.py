"""Endpoint admission (token buckets, pause, AIMD slots) with a fake clock, and the progress line/ETA."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from harness.providers.limits import EndpointLimits, TokenBucket, estimate_tokens
from harness.records.transcript import Message
from harness.run.progress import CompletionRate, RunProgress, fmt_eta, line, shorten


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_holds_one_second_and_refills_at_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(120, clock)  # 2 per second, capacity 2
    assert (bucket.rate, bucket.capacity) == (2.0, 2.0)
    assert bucket.take(1) == 0.0 and bucket.take(1) == 0.0
    assert bucket.take(1) == 0.5  # empty: half a second until one more is refilled
    clock.now += 0.5
    assert bucket.take(1) == 0.0
    clock.now += 10
    assert bucket.take(1) == 0.0 and bucket.take(1) == 0.0 and bucket.take(1) == 0.5  # never more than capacity


def test_a_request_larger_than_the_capacity_waits_for_a_full_bucket_then_goes_into_debt() -> None:
    clock = FakeClock()
    bucket = TokenBucket(600, clock)  # 10 tokens per second, capacity 10
    assert bucket.take(25) == 0.0 and bucket.level == -15.0
    assert bucket.take(1) == 1.6  # (1 - (-15)) / 10
    clock.now += 2.5
    assert bucket.take(25) == 0.0  # full again (10): admitted, in debt again
    bucket.give(20)  # the reply used 5, not 25
    assert bucket.level == 5.0


def test_estimate_tokens_is_a_quarter_of_the_characters_plus_max_tokens() -> None:
    messages = [Message(role="system", content="x" * 10), Message(role="user", content="y" * 7)]
    assert estimate_tokens(messages, 100) == 5 + 100  # ceil(17 / 4) + 100


def test_pause_extends_never_shortens_and_halves_the_allowed_slots() -> None:
    clock = FakeClock()
    limits = EndpointLimits("http://x/v1", 8, clock=clock)
    limits.pause(2.0)
    assert limits.paused_for() == 2.0 and limits.allowed == 4
    limits.pause(0.5)
    assert limits.paused_for() == 2.0 and limits.allowed == 2
    clock.now += 1.5
    assert limits.paused_for() == 0.5
    for _ in range(2):
        limits.succeeded()
    assert limits.allowed == 3  # +1 after `allowed` successes in a row
    for _ in range(3 + 4 + 5 + 6 + 7):
        limits.succeeded()
    assert limits.allowed == 8  # back to the configured concurrency, never above
    limits.succeeded()
    assert limits.allowed == 8


def test_slots_bound_the_requests_in_flight() -> None:
    limits = EndpointLimits("http://x/v1", 3)

    async def one() -> None:
        async with limits.slot():
            await asyncio.sleep(0.01)

    async def go() -> None:
        await asyncio.gather(*(one() for _ in range(10)))

    asyncio.run(go())
    assert limits.max_in_flight == 3 and limits.in_flight == 0


def test_completion_rate_uses_the_last_n_completions_and_always_has_an_eta_after_one() -> None:
    clock = FakeClock()
    rate = CompletionRate(total=10, window=3, clock=clock)
    assert rate.eta() is None and fmt_eta(rate.eta()) == "-:--:--"
    clock.now += 4
    rate.add()
    assert rate.rate() == 0.25 and rate.eta() == 36.0  # 9 left at 1 per 4 s
    for _ in range(3):  # three quick ones: the window forgets the slow start
        clock.now += 1
        rate.add(failed=True)
    assert rate.rate() == 1.0 and rate.eta() == 6.0 and rate.failed == 3
    clock.now += 3  # nothing finished for 3 s: the rate falls
    assert rate.rate() == 0.5
    assert line(rate, "ds::c [council]") == "progress 4/10 · 0.5/s · ETA 0:00:12 · 3 failed · last: ds::c [council]"


def test_shorten_cuts_in_the_middle() -> None:
    assert shorten("golden::a-very-long-case-identifier [council]", 20) == "golden::a… [council]"
    assert len(shorten("x" * 100, 20)) == 20 and shorten("short", 20) == "short"


def test_plain_progress_prints_at_most_one_line_per_period_and_never_wraps() -> None:
    clock = FakeClock()
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False)
    name = "a-dataset-with-a-long-name::case-" + "x" * 80 + " [council]"
    with RunProgress(console, 100, every=30.0, clock=clock) as progress:
        for _ in range(50):
            clock.now += 1
            progress.advance(name)
    lines = out.getvalue().splitlines()
    # the first completion, then t=31 (30 s later), then the end (t=50)
    assert [ln.split(" · ")[0] for ln in lines] == ["progress 1/100", "progress 31/100", "progress 50/100"]
    assert all(ln.endswith(name) for ln in lines)  # the whole line, past 80 columns
    assert "ETA 0:00:50" in lines[-1]  # 50 left at 1 per second


def test_no_time_limit_for_a_provider_that_reports_admission() -> None:
    """A judge built without a timeout (DeepEval/RAGAS through the embedded model) made every call fail
    with ``float + None`` once the embedded provider started reporting admission."""
    import asyncio

    from harness.providers.base import mark_admitted, with_time_limit

    class Queued:
        reports_admission = True

    async def call() -> int:
        mark_admitted()
        await asyncio.sleep(0)
        return 7

    assert asyncio.run(with_time_limit(Queued(), call(), None)) == 7
    assert asyncio.run(with_time_limit(Queued(), call(), 5.0)) == 7


def test_an_absurd_usage_report_charges_at_most_four_times_the_estimate() -> None:
    """``prompt_tokens: 10**30`` used to put the bucket 10**30 tokens in debt: the endpoint stalled for ever."""
    clock = FakeClock()
    limits = EndpointLimits("e", 1, tokens_per_minute=600, clock=clock)  # 10 tokens per second, capacity 10
    assert limits.tokens is not None and limits.tokens.take(25) == 0.0  # the estimate: 25, level -15
    limits.settle(25, 10**30)
    assert limits.tokens.level == -15.0 - 3 * 25  # charged 4 x 25 in all, not 10**30
    assert limits.tokens.take(1) == (1 + 90.0) / 10  # a wait of seconds, not of ages


def test_usage_counts_are_whole_numbers_in_range_or_not_known() -> None:
    from harness.providers.openai_compat import _count, checked_usage
    from harness.records.transcript import MAX_TOKENS_PER_CALL, CallRecord, Completion

    assert [_count(v) for v in (12, 12.0, 0, MAX_TOKENS_PER_CALL)] == [12, 12, 0, MAX_TOKENS_PER_CALL]
    assert [_count(v) for v in (10**30, -5, 1.5, float("nan"), float("inf"), "12", True, None, [3])] == [None] * 9
    messages = [Message(role="user", content="x" * 40)]
    guessed = checked_usage(Completion(text="y" * 9, model="m", tokens_estimated=True), messages)
    assert (guessed.tokens_in, guessed.tokens_out, guessed.tokens_estimated) == (10, 3, True)
    reported = Completion(text="y", model="m", tokens_in=7, tokens_out=2)
    assert checked_usage(reported, messages) is reported
    # a record/replay cache row with negative or absurd numbers is clamped when it is read back
    row = Completion(text="a", model="m", tokens_in=-3, tokens_out=10**12, latency_s=-1.0)
    assert (row.tokens_in, row.tokens_out, row.latency_s) == (0, MAX_TOKENS_PER_CALL, 0.0)
    call = CallRecord(stage="s", member="m", model="m", tokens_in=-1, latency_s=float("inf"))
    assert (call.tokens_in, call.latency_s) == (0, 0.0)
