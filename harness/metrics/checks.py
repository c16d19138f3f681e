"""The golden case checks: required mentions, forbidden claims, minimum scores.

Matching rules:

* a **required mention** is found when it appears in the answer case- and whitespace-insensitively;
  mentions that hold numbers are number-aware: a mention that is just a number ("three", "3",
  "1,000", "2.5 million") is found when the answer states that value in any form ("3 fruits" holds
  "three", "13" does not hold "3"), and a mention that mixes numbers and words ("three sisters") is
  also found with its numbers written the other way ("3 sisters"). Numbers are read by
  :mod:`harness.metrics.numbers` (spelled-out numbers through ``text2num``).
* a **forbidden claim** is literal: it fails when it appears case- and whitespace-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from harness.data.cases import Case
from harness.metrics.numbers import find_numbers, parse_number
from harness.records.score_spec import higher_is_better
from harness.records.scoreset import CheckResult, ScoreSet


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _digits(text: str) -> str:
    """``text`` with every number written as plain digits ("three sisters" -> "3 sisters", "1,000" -> "1000")."""
    out, last = [], 0
    for pos, num in find_numbers(text, words=True):
        if pos < last:
            continue
        out.append(text[last:pos])
        out.append(f"{num.value:.15g}" + ("%" if num.percent else ""))
        last = pos + len(num.text)
    out.append(text[last:])
    return "".join(out)


class _Answer:
    """An answer prepared once for every mention: folded text, its digits form and its numbers."""

    def __init__(self, answer: str) -> None:
        self.text = _norm(answer)
        self._digits: str | None = None
        self._values: set[float] | None = None
        self.raw = answer

    @property
    def digits(self) -> str:
        if self._digits is None:
            self._digits = _norm(_digits(self.raw))
        return self._digits

    @property
    def values(self) -> set[float]:
        if self._values is None:
            self._values = {n.value for _, n in find_numbers(self.raw, words=True)}
        return self._values


def mention_found(mention: str, answer: _Answer) -> tuple[bool, str]:
    """Whether a required mention is in the answer (see the module docstring), with the reason."""
    number = parse_number(mention)
    if number is not None:
        found = any(abs(v - number.value) <= 1e-9 * max(1.0, abs(number.value)) for v in answer.values)
        return found, (
            f"found the number {number.value:g}"
            if found
            else f"the number {number.value:g} ('{mention}') does not appear in the answer"
        )
    if _norm(mention) in answer.text:
        return True, "found"
    if find_numbers(mention, words=True):
        pattern = r"(?<![\w.])" + re.escape(_norm(_digits(mention))) + r"(?![\w]|\.\d)"
        if re.search(pattern, answer.digits):
            return True, "found (numbers compared as digits)"
    return False, f"'{mention}' does not appear in the answer"


def mention_checks(case: Case, answer: str) -> ScoreSet:
    """Required mentions must appear (number-aware, see the module docstring); forbidden claims must not."""
    text = _norm(answer)
    prepared = _Answer(answer)
    checks = []
    for m in case.required_mentions:
        found, detail = mention_found(m, prepared)
        checks.append(CheckResult(kind="required_mention", target=m, passed=found, detail=detail))
    checks += [
        CheckResult(
            kind="forbidden_claim",
            target=c,
            passed=_norm(c) not in text,
            detail="absent" if _norm(c) not in text else f"the answer contains the forbidden claim '{c}'",
        )
        for c in case.forbidden_claims
    ]
    scores: dict[str, float] = {}
    if case.required_mentions:
        hits = sum(1 for c in checks if c.kind == "required_mention" and c.passed)
        scores["required_mentions"] = round(hits / len(case.required_mentions), 3)
    return ScoreSet(scores=scores, checks=tuple(checks))


def minimum_score_checks(case: Case, scores: Mapping[str, float]) -> tuple[CheckResult, ...]:
    """Each ``minimum_scores`` entry: the score must exist and meet the bound.

    For a lower-is-better score (``hallucination_risk``) the bound is a maximum.
    """
    out = []
    for name, bound in case.minimum_scores.items():
        if name not in scores:
            out.append(
                CheckResult(
                    kind="minimum_score",
                    target=name,
                    passed=False,
                    detail=f"expected {name} >= {bound}, but this subject produced no {name}",
                )
            )
            continue
        got = scores[name]
        if higher_is_better(name):
            ok, rel = got >= bound, ">="
        else:
            ok, rel = got <= bound, "<="
        out.append(
            CheckResult(
                kind="minimum_score", target=name, passed=ok, detail=f"expected {name} {rel} {bound}, got {got:g}"
            )
        )
    return tuple(out)
