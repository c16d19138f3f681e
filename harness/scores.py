"""The score registry's functions under their old import path (see :mod:`harness.scorers.spec`)."""

from __future__ import annotations

from harness.scorers.spec import SCORES, ScoreSpec, default_tolerance, higher_is_better, register_score, score_scale

__all__ = ["SCORES", "ScoreSpec", "default_tolerance", "higher_is_better", "register_score", "score_scale"]
