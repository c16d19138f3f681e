"""What a scorer contributes to a case result: named scores and pass/fail checks."""

from __future__ import annotations

from harness.common.model import Frozen


class CheckResult(Frozen):
    """One pass/fail check on a case result.

    Args:
        kind: ``required_mention``, ``forbidden_claim``, ``minimum_score``, ``correctness``, ...
        target: what was checked (the mention, the claim, the score name).
        passed: the outcome.
        detail: expected vs got, in words.
    """

    kind: str
    target: str
    passed: bool
    detail: str = ""


class ScoreSet(Frozen):
    """What one scorer contributes: named scores and checks."""

    scores: dict[str, float] = {}
    checks: tuple[CheckResult, ...] = ()
