"""The golden case checks: required mentions, forbidden claims, minimum scores."""

from __future__ import annotations

import re
from collections.abc import Mapping

from harness.cases import Case
from harness.scores import higher_is_better
from harness.scoreset import CheckResult, ScoreSet


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def mention_checks(case: Case, answer: str) -> ScoreSet:
    """Required mentions must appear (case- and whitespace-insensitive); forbidden claims must not."""
    text = _norm(answer)
    checks = [
        CheckResult(
            kind="required_mention", target=m, passed=_norm(m) in text,
            detail="found" if _norm(m) in text else f"'{m}' does not appear in the answer",
        )
        for m in case.required_mentions
    ]
    checks += [
        CheckResult(
            kind="forbidden_claim", target=c, passed=_norm(c) not in text,
            detail="absent" if _norm(c) not in text else f"the answer contains the forbidden claim '{c}'",
        )
        for c in case.forbidden_claims
    ]
    scores = {}
    if case.required_mentions:
        found = sum(1 for c in checks if c.kind == "required_mention" and c.passed)
        scores["required_mentions"] = round(found / len(case.required_mentions), 3)
    return ScoreSet(scores=scores, checks=tuple(checks))


def minimum_score_checks(case: Case, scores: Mapping[str, float]) -> tuple[CheckResult, ...]:
    """Each ``minimum_scores`` entry: the score must exist and meet the bound.

    For a lower-is-better score (``hallucination_risk``) the bound is a maximum.
    """
    out = []
    for name, bound in case.minimum_scores.items():
        if name not in scores:
            out.append(CheckResult(kind="minimum_score", target=name, passed=False,
                                   detail=f"expected {name} >= {bound}, but this subject produced no {name}"))
            continue
        got = scores[name]
        if higher_is_better(name):
            ok, rel = got >= bound, ">="
        else:
            ok, rel = got <= bound, "<="
        out.append(CheckResult(kind="minimum_score", target=name, passed=ok,
                               detail=f"expected {name} {rel} {bound}, got {got:g}"))
    return tuple(out)
