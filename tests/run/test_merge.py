"""``council-harness merge``: shard run folders (one per dataset) combined into one run and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli import main
from harness.data.cases import load_datasets
from harness.run.merge import merged_manifest
from harness.run.orchestrate import run_cases
from harness.run.runs import Manifest, load_run
from tests.fault_server import FaultServer
from tests.run.test_concurrency import comparable, scripted_settings
from tests.scripted import scripted_dataset, scripted_reply

QUIET = Console(stderr=True, quiet=True)


@pytest.fixture(name="shards")
def shards_fixture(tmp_path: Path) -> tuple[list[Path], Path, list]:
    """Two shards (datasets ``one`` and ``two``) and, for reference, one run over both."""
    one = load_datasets(scripted_dataset(tmp_path / "one.yaml", 5, name="one"))
    two = load_datasets(scripted_dataset(tmp_path / "two.yaml", 4, name="two"))
    with FaultServer(responder=scripted_reply) as server:
        settings = scripted_settings(server.base_url, tmp_path, concurrency=4)
        a = run_cases(settings, one, ["council", "baseline"], console=QUIET)
        b = run_cases(settings, two, ["council", "baseline"], console=QUIET)
        whole = run_cases(settings, one + two, ["council", "baseline"], console=QUIET)
    return [a.run_dir, b.run_dir], tmp_path, whole.results


def test_merge_combines_shards_into_one_run_with_a_report(
    shards: tuple[list[Path], Path, list], capsys: pytest.CaptureFixture[str]
) -> None:
    (a, b), tmp, whole = shards
    out = tmp / "merged"
    code = main(["merge", str(a), str(b), "--output", str(out)])
    printed = capsys.readouterr().out
    assert f"merged 2 runs (18 results) into {out}" in printed
    # the merged gate's exit code: some scripted cases fail by construction, and nothing is missing
    failing = sum(r.status in ("failed", "error") for r in whole)
    assert failing and code == 1
    assert f"gate: fail ({failing} reason(s)); complete: 18 of 18 planned result(s)" in printed
    run = load_run(out)
    assert run.manifest.run_id == "merged" and run.manifest.shards == (a.name, b.name)
    assert run.manifest.datasets == ("one", "two") and run.manifest.subjects == ("council", "baseline")
    assert run.manifest.finished_at is not None
    assert run.manifest.started_at == min(load_run(a).manifest.started_at, load_run(b).manifest.started_at)
    # the same results as one run over both datasets
    assert [comparable(r) for r in run.results] == [comparable(r) for r in whole]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "one" in html and "two" in html and "s00005" in html


def test_merge_refuses_overlapping_shards(
    shards: tuple[list[Path], Path, list], capsys: pytest.CaptureFixture[str]
) -> None:
    (a, _), tmp, _ = shards
    copy = tmp / "copy"
    copy.mkdir()
    for name in ("manifest.json", "results.jsonl"):
        (copy / name).write_bytes((a / name).read_bytes())
    out = tmp / "merged"
    assert main(["merge", str(a), str(copy), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "one::s00001 [baseline] is in both shard" in err and "shards must not overlap" in err
    assert not out.exists()  # nothing written


def test_merge_refuses_shards_of_different_configurations(
    shards: tuple[list[Path], Path, list], capsys: pytest.CaptureFixture[str]
) -> None:
    (a, b), tmp, _ = shards
    manifest = json.loads((b / "manifest.json").read_text(encoding="utf-8"))
    manifest["config"]["seed"] = 7
    (b / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["merge", str(a), str(b), "--output", str(tmp / "merged")]) == 2
    err = capsys.readouterr().err
    assert f"shard {b.name} ran with a different configuration" in err and "config fields seed" in err


def test_merge_needs_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["merge", str(tmp_path), "--output", str(tmp_path / "m")]) == 2
    assert "expected at least two run folders" in capsys.readouterr().err


def test_merged_manifest_keeps_the_pairs_each_pytest_shard_skipped() -> None:
    """Shards run by pytest: the merged run plans what they planned and lists what each one skipped."""
    a = Manifest(run_id="a", started_at="2026-01-01T00:00:00Z", planned=3, skipped=("one::s1[council]",))
    b = Manifest(run_id="b", started_at="2026-01-01T00:00:01Z", planned=2, skipped=("two::s2[baseline]",))
    merged = merged_manifest("m", [a, b])
    assert merged.planned == 5 and merged.skipped == ("one::s1[council]", "two::s2[baseline]")
