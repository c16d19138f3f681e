"""Retention of run history: old runs pruned, recent ones and unreadable folders kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.run.runs import Manifest, RunWriter, prune_runs


def _run(root: Path, name: str, days_ago: float) -> None:
    started = (datetime.now(UTC) - timedelta(days=days_ago)).isoformat(timespec="seconds").replace("+00:00", "Z")
    RunWriter(root / name).write_manifest(Manifest(run_id=name, started_at=started))


def test_prune_old_runs_only(tmp_path: Path) -> None:
    _run(tmp_path, "old", 10)
    _run(tmp_path, "older-but-kept", 20)
    _run(tmp_path, "recent", 1)
    (tmp_path / "no-manifest").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{not json")
    removed = prune_runs(tmp_path, 7, keep=["older-but-kept"])
    assert removed == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "no-manifest", "older-but-kept", "recent"]
