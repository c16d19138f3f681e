"""``quality-report --format json``: the session report and the trends as JSON-ready dicts (the same
figures as the text)."""

from __future__ import annotations

from typing import Any

from harness.common.model import Frozen
from harness.tier2.quality_records import QualityTrends, SessionQuality


def _dump(model: Frozen) -> Any:
    return model.model_dump(mode="json")


def session_json(q: SessionQuality) -> dict[str, Any]:
    """The per-session report as JSON-ready data (the same figures as the text).

    Args:
        q: the session's figures.
    """
    return {
        "report": "quality",
        "session": {
            "run_id": q.run_id,
            "started_at": q.started_at,
            "datasets": list(q.datasets),
            "subject": q.subject,
            "results": q.results,
            "errors": q.errors,
        },
        "core": _dump(q.core),
        "rubric_breakdown": _dump(q.rubric),
        "temporal_consistency": _dump(q.temporal) if q.temporal is not None else None,
        **q.calibration.seed_dict(),
        "calibration": _dump(q.calibration),
        "calibration_notes": q.calibration.notes(),
        "alerts": list(q.alerts),
        "results": [
            {
                "dataset": d.dataset,
                "case_id": d.case_id,
                "subject": d.subject,
                "status": d.status,
                "rubric_breakdown": {m: b.seed_json() for m, b in d.peer_rubric.items()},
                "temporal_consistency": _dump(d.temporal) if d.temporal is not None else None,
            }
            for d in q.details
        ],
    }


def trends_json(t: QualityTrends) -> dict[str, Any]:
    """The cross-session report as JSON-ready data.

    Args:
        t: the trends.
    """
    return {
        "report": "quality_trends",
        "subject": t.subject,
        "sessions": [_dump(p) for p in t.points],
        "trends": [_dump(tr) for tr in t.trends],
        **t.calibration.seed_dict(),
        "calibration": _dump(t.calibration),
        "calibration_notes": t.calibration.notes(),
        "alerts": list(t.alerts),
    }
