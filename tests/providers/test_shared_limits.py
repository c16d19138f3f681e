"""One rate budget across processes (issue 28 item 7): pytest-xdist workers share an endpoint's buckets.

``pytest -n 2`` on a scripted loopback endpoint with ``requests_per_minute`` scaled to 600 (10 a
second, so the test takes seconds, not minutes): the server records every request's arrival time, and
the requests after the bucket's one-second burst arrive no faster than the limit (+5%). Before the
buckets were shared each worker had its own, and two workers sent twice the limit.
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from harness.providers.limits import SharedTokenBucket
from tests.fault_server import FaultServer
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
