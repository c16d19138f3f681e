"""The score registry's functions under their old import path (see :mod:`harness.scorers.spec`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from harness.scorers.spec import SCORES, ScoreSpec, default_tolerance, higher_is_better, register_score, score_scale

__all__ = [
    "SCORES", "SCORE_NAMES", "ScoreSpec", "default_tolerance", "higher_is_better", "register_score", "score_scale",
]


class _ScoreNames(Mapping[str, tuple[str, bool]]):
    """The old ``SCORE_NAMES`` (name -> (description, higher_is_better)), read from :data:`SCORES`."""

    def __getitem__(self, name: str) -> tuple[str, bool]:
        s = SCORES[name]
        return (s.description, s.higher_is_better)

    def __iter__(self) -> Iterator[str]:
        return iter(SCORES)

    def __len__(self) -> int:
        return len(SCORES)


SCORE_NAMES: Mapping[str, tuple[str, bool]] = _ScoreNames()
