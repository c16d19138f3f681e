"""One rate budget across processes (issue 28 item 7): pytest-xdist workers share an endpoint's buckets.

``pytest -n 2`` on a scripted loopback endpoint with ``requests_per_minute`` scaled to 600 (10 a
second, so the test takes seconds, not minutes): the server records every request's arrival time, and
the requests after the bucket's one-second burst arrive no faster than the limit (+5%). Before the
buckets were shared each worker had its own, and two workers sent twice the limit.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from pathlib import Path

import pytest

from harness.providers.limits import EndpointLimits, SharedTokenBucket
from tests.fault_server import Fault, FaultServer, Received, status
from tests.run.test_concurrency import run_pytest
from tests.scripted import scripted_dataset, scripted_reply

RPM = 600
CASES = 40


def _drain(path: str, n: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    bucket = SharedTokenBucket(RPM, Path(path))
    got = []
    while len(got) < n:
        wait = bucket.take(1)
        if wait:
            time.sleep(wait)
            continue
        got.append(time.monotonic())
    out.put(got)


def test_two_processes_draw_from_one_bucket(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_drain, args=(str(tmp_path / "b.json"), 15, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    stamps = sorted(queue.get(timeout=60) + queue.get(timeout=60))
    for p in procs:
        p.join(timeout=60)
    # 30 takes from one bucket of 10 a second holding one second's worth: the 20 after the burst need
    # at least 2 s (two private buckets would have served them in 0.5 s)
    assert stamps[-1] - stamps[0] >= (30 - RPM / 60) / (RPM / 60) * 0.95


def test_pytest_n_2_workers_share_requests_per_minute(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "one.yaml", CASES // 2, name="one")
    scripted_dataset(tmp_path / "golden" / "two.yaml", CASES // 2, name="two")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(
            tmp_path,
            server.base_url,
            "-n",
            "2",
            "--harness-subjects",
            "baseline",
            extra_env={"LLM_COUNCIL_REQUESTS_PER_MINUTE": str(RPM)},
        )
        stamps = sorted(r.at for r in server.requests)
    assert out.returncode in (0, 1), out.stdout + out.stderr
    assert len(stamps) == CASES
    rate, burst = RPM / 60, RPM / 60
    span = stamps[-1] - stamps[0]
    # any budget that holds: after the one-second burst, at most the limit (+5%)
    assert len(stamps) - burst <= 1.05 * rate * span, (len(stamps), span)
    # and the workers together still use it: at least half the limit
    assert (len(stamps) - burst) / span >= 0.5 * rate, (len(stamps), span)


def _two_limits(tmp_path: Path, concurrency: int) -> tuple[EndpointLimits, EndpointLimits]:
    """Two processes' admission state for one endpoint: two objects on one shared folder (each holds its
    own lock files, as two processes do)."""
    return (
        EndpointLimits("http://127.0.0.1:1/v1", concurrency, shared_dir=tmp_path / "limits"),
        EndpointLimits("http://127.0.0.1:1/v1", concurrency, shared_dir=tmp_path / "limits"),
    )


def test_a_slot_held_by_one_process_holds_the_other_back(tmp_path: Path) -> None:
    first, second = _two_limits(tmp_path, 1)
    order: list[str] = []

    async def scenario() -> None:
        release = asyncio.Event()

        async def holder() -> None:
            async with first.slot():
                order.append("first in")
                await release.wait()
                order.append("first out")

        async def waiter() -> None:
            async with second.slot():
                order.append("second in")

        held = asyncio.create_task(holder())
        while not order:
            await asyncio.sleep(0)
        waiting = asyncio.create_task(waiter())
        for _ in range(20):  # the waiter polls the slot file many times meanwhile
            await asyncio.sleep(0.01)
        assert order == ["first in"]
        release.set()
        await asyncio.gather(held, waiting)

    asyncio.run(scenario())
    assert order == ["first in", "first out", "second in"]


def test_a_429_in_one_process_pauses_and_halves_the_other(tmp_path: Path) -> None:
    first, second = _two_limits(tmp_path, 4)
    assert second.paused_for() == 0 and second.allowed == 4
    first.pause(30.0)
    assert 29.0 < second.paused_for() <= 30.0
    assert second.allowed == 2  # halved for the endpoint, whoever got the 429
    second.pause(5.0)  # a shorter pause never shortens the one running
    assert first.paused_for() > 29.0 and first.allowed == 1
    second.succeeded()  # one success in a row at allowed 1 raises it to 2, seen by both
    assert first.allowed == 2


def test_only_slots_below_allowed_are_taken(tmp_path: Path) -> None:
    first, second = _two_limits(tmp_path, 2)
    first.pause(0.0)  # allowed 2 -> 1 for both

    async def scenario() -> list[str]:
        order: list[str] = []
        release = asyncio.Event()

        async def hold(limits: EndpointLimits, name: str) -> None:
            async with limits.slot():
                order.append(name)
                await release.wait()

        tasks = [asyncio.create_task(hold(first, "first")), asyncio.create_task(hold(second, "second"))]
        for _ in range(20):
            await asyncio.sleep(0.01)
        seen = list(order)
        release.set()
        await asyncio.gather(*tasks)
        return seen

    assert len(asyncio.run(scenario())) == 1  # two slot files, but one allowed after the 429


def test_pytest_n_2_workers_share_concurrency(tmp_path: Path) -> None:
    """``concurrency: 1`` under ``pytest -n 2``: the endpoint never has two requests at once (with a
    budget per worker it had two whenever both workers were busy)."""
    pytest.importorskip("xdist")
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "one.yaml", 16, name="one")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply, delay=0.05) as server:
        out = run_pytest(
            tmp_path,
            server.base_url,
            "-n",
            "2",
            "--harness-subjects",
            "baseline",
            extra_env={"LLM_COUNCIL_CONCURRENCY": "1"},
        )
        received = server.requests
        peak = server.max_unanswered
    assert out.returncode == 1, out.stdout + out.stderr  # a third of the cases fail by construction
    assert len(received) == 16 and len({r.peer for r in received}) >= 2  # both workers sent requests
    assert peak == 1, peak


def test_pytest_n_2_a_429_on_one_worker_pauses_the_other(tmp_path: Path) -> None:
    """One worker gets a ``429`` with ``Retry-After: R`` while the other has work left; no request of
    either reaches the server sooner than R after the 429 did (server timestamps; with a pause per
    worker, the other worker's next request came at once).

    Which items each worker gets is xdist's choice: on a loaded machine the other worker may have
    finished its share before the 429, which says nothing either way. The rule is asserted on every
    session, and up to three sessions are run until one has the other worker sending after the 429.
    """
    pytest.importorskip("xdist")
    wait = 1.0

    def first_worker_after_overlap(request: Received, seen: list[Received]) -> Fault | None:
        """``429`` once: to the first worker's (connection's) next request after the second one's first."""
        if any(r.status == 429 for r in seen) or len({r.peer for r in seen}) < 2 or request.peer != seen[0].peer:
            return None
        return status(429, retry_after=f"{wait:g}", body='{"error": {"message": "rate limit"}}')

    informative = 0
    for attempt in range(3):
        root = tmp_path / f"session{attempt}"
        (root / "golden").mkdir(parents=True)
        scripted_dataset(root / "golden" / "one.yaml", 24, name="one")
        (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        # 0.15 s a reply: the worker that starts first is still busy when the other starts
        with FaultServer(responder=scripted_reply, delay=0.15, decide=first_worker_after_overlap) as server:
            out = run_pytest(
                root,
                server.base_url,
                "-n",
                "2",
                "--harness-subjects",
                "baseline",
                extra_env={"LLM_COUNCIL_CONCURRENCY": "1", "LLM_COUNCIL_MAX_RETRIES": "2"},
            )
            received = server.requests
        refused = [r for r in received if r.status == 429]
        assert len(refused) == 1, [(r.peer, r.status) for r in received]
        assert out.returncode == 1, out.stdout + out.stderr
        assert "8 failed, 16 passed" in out.stdout, out.stdout  # the 429 was retried: the failures by construction
        assert len(received) == 24 + 1  # every case once, plus the refused request's retry
        after = [r for r in received if r.at > refused[0].at]
        assert min(r.at for r in after) - refused[0].at >= wait
        others = [r for r in after if r.peer != refused[0].peer]
        if others:
            assert others[0].at - refused[0].at >= wait, others[0].at - refused[0].at
            informative += 1
            break
    assert informative == 1, "in three sessions the other worker never sent a request after the 429"
