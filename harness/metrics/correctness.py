"""Objective correctness: check a final answer against the case's optional ``expected:`` block.

Per type (what is extracted is described in :mod:`harness.metrics.extraction`):

``exact``
    The extracted short answer matches ``value`` under :func:`~harness.metrics.extraction.phrase_match`:
    equal after normalization (case, NFKC, markdown, punctuation, whitespace; the articles a/an/the
    are dropped), or — for a candidate of at most 15 words — ``value`` appears in it as a whole phrase
    and the rest of the candidate has no negation or alternative word ("not", "never", "isn't",
    "or", "either", ...). ``normalize: false`` demands exact equality of the stripped strings.
``any_of``
    Any of ``values`` matches under the ``exact`` rule.
``numeric``
    The extracted number ``got`` is correct when ``|got - value| <= max(tolerance, rel_tolerance *
    |value|)``. A percentage ``p%`` is correct when either ``p`` or ``p/100`` is within tolerance, so
    "25%" answers both 25 and 0.25.
``regex``
    ``re.search(pattern)`` over the whole answer (``extract: auto``: the extracted short answer).
``choice``
    The extracted option letter equals ``answer``.
``python``
    The extracted code and the case's ``tests`` pass in :func:`harness.sandbox.run_python` (isolated
    child; each ``assert`` compared by plain value; when the machine offers no namespaces, the detail
    says ``[sandbox isolation none: ...]``).

``extract: whole`` (exact, any_of, numeric, regex) uses the whole stripped answer instead of an
extraction; for ``numeric`` it must then be exactly one number.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.expected import (
    ExpectAnyOf,
    Expected,
    ExpectExact,
    ExpectNumeric,
    ExpectPython,
    ExpectRegex,
)
from harness.metrics.extraction import (
    Extraction,
    extract_answer,
    extract_choice,
    extract_code,
    extract_number,
    parse_number,
    phrase_match,
)
from harness.model import Frozen
from harness.sandbox import SandboxResult, run_python
from harness.scoreset import CheckResult, ScoreSet
from harness.transcript import Transcript

if TYPE_CHECKING:
    from harness.cases import Case

#: Memory limit for the code of ``python`` cases, in MiB.
PYTHON_MEMORY_MB = 256


class CorrectnessResult(Frozen):
    """The outcome of one objective check.

    Args:
        correct: whether the answer is right.
        expected_display: what was expected, for people (``'Paris'``, ``0.75 (± 1e-06)``, ``B (London)``).
        extraction: what was taken from the answer, how and why.
        detail: expected vs got in words, with the reason for the verdict.
        sandbox: the sandbox run, for ``python`` cases that got as far as running code.
    """

    correct: bool
    expected_display: str
    extraction: Extraction
    detail: str
    sandbox: SandboxResult | None = None


def _got(extraction: Extraction) -> str:
    if extraction.value is None:
        return f"nothing ({extraction.detail})"
    return f"{extraction.value!r} ({extraction.method}: {extraction.detail})"


def _whole(answer: str) -> Extraction:
    text = answer.strip()
    return Extraction(value=text or None, method="whole" if text else "none",
                      detail="the whole answer (extract: whole)" if text else "the answer is empty")


def _check_text(values: list[str], normalize: bool, extraction: Extraction, shown: str) -> CorrectnessResult:
    if extraction.value is None:
        return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                                 detail=f"expected {shown}, got {_got(extraction)}")
    reasons = []
    for value in values:
        ok, why = phrase_match(value, extraction.value, normalize)
        if ok:
            return CorrectnessResult(correct=True, expected_display=shown, extraction=extraction,
                                     detail=f"expected {shown}, got {_got(extraction)}: {why}")
        reasons.append(why)
    return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                             detail=f"expected {shown}, got {_got(extraction)}: {'; '.join(reasons)}")


def _numeric_display(exp: ExpectNumeric) -> str:
    tol = f"± {exp.tolerance:g}"
    if exp.rel_tolerance:
        tol += f" or ± {exp.rel_tolerance:g} × |value|"
    return f"{exp.value:g} ({tol})"


def _check_numeric(exp: ExpectNumeric, answer: str) -> CorrectnessResult:
    shown = _numeric_display(exp)
    if exp.extract == "whole":
        num = parse_number(answer)
        extraction = Extraction(
            value=num.text if num else None, method="whole" if num else "none",
            detail="the whole answer is one number (extract: whole)" if num
            else "the whole answer is not exactly one number (extract: whole)",
        )
    else:
        extraction = extract_number(answer)
        num = parse_number(extraction.value) if extraction.value is not None else None
    if num is None:
        return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                                 detail=f"expected {shown}, got {_got(extraction)}")
    bound = max(exp.tolerance, exp.rel_tolerance * abs(exp.value))
    readings = [(num.value, f"{num.value:g}")]
    if num.percent:
        readings.append((num.value / 100, f"{num.value / 100:g} (the percentage as a fraction)"))
    for value, label in readings:
        diff = abs(value - exp.value)
        if diff <= bound:
            return CorrectnessResult(correct=True, expected_display=shown, extraction=extraction,
                                     detail=f"expected {shown}, got {label} from {_got(extraction)}; "
                                            f"|difference| {diff:.3g} <= {bound:g}")
    diffs = ", ".join(f"{label} differs by {abs(value - exp.value):.6g}" for value, label in readings)
    return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                             detail=f"expected {shown}, got {_got(extraction)}; {diffs} > {bound:g}")


def _check_regex(exp: ExpectRegex, answer: str) -> CorrectnessResult:
    flags = re.IGNORECASE if exp.ignore_case else 0
    shown = f"/{exp.pattern}/" + ("i" if exp.ignore_case else "")
    if exp.extract == "auto":
        short = extract_answer(answer)
        target, where = short.value or "", f"the extracted answer ({short.method}: {short.detail})"
    else:
        target, where = answer, "the whole answer"
    m = re.search(exp.pattern, target, flags)
    if m:
        extraction = Extraction(value=m.group(0), method="regex_search",
                                detail=f"matched {m.group(0)!r} at {m.start()}-{m.end()} in {where}")
        return CorrectnessResult(correct=True, expected_display=shown, extraction=extraction,
                                 detail=f"expected a match of {shown}, found {m.group(0)!r} in {where}")
    extraction = Extraction(value=None, method="regex_search", detail=f"no match in {where}")
    return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                             detail=f"expected a match of {shown}, none in {where}")


def _check_python(exp: ExpectPython, answer: str) -> CorrectnessResult:
    n_lines = sum(1 for ln in exp.tests.splitlines() if ln.strip() and not ln.strip().startswith("#"))
    target = f"code defining {exp.function}()" if exp.function else "code"
    shown = f"{target} that passes {n_lines} test line{'s' * (n_lines != 1)}"
    extraction = extract_code(answer, exp.function)
    if extraction.value is None:
        return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                                 detail=f"expected {shown}, got no code: {extraction.detail}")
    result = run_python(extraction.value, exp.tests, timeout_s=exp.timeout_s, memory_mb=PYTHON_MEMORY_MB)
    how = f"{extraction.method}: {extraction.detail}"
    verdict = "the tests passed" if result.passed else f"the tests did not pass: {result.summary()}"
    if result.isolation.startswith("none"):  # say so: the code ran without namespaces (see harness.sandbox)
        verdict += f" [sandbox isolation {result.isolation}]"
    return CorrectnessResult(correct=result.passed, expected_display=shown, extraction=extraction,
                             detail=f"expected {shown}; ran the extracted code ({how}): {verdict}", sandbox=result)


def check_expected(expected: Expected, answer: str) -> CorrectnessResult:
    """Check ``answer`` against one ``expected:`` block (see the module docstring for the rules).

    Args:
        expected: the case's ``expected`` block (exact, any_of, numeric, regex, choice or python).
        answer: the final answer text to check (untrusted; code in it runs only in the sandbox).
    """
    if isinstance(expected, ExpectExact):
        extraction = _whole(answer) if expected.extract == "whole" else extract_answer(answer)
        return _check_text([expected.value], expected.normalize, extraction, repr(expected.value))
    if isinstance(expected, ExpectAnyOf):
        extraction = _whole(answer) if expected.extract == "whole" else extract_answer(answer)
        shown = "any of " + ", ".join(repr(v) for v in expected.values)
        return _check_text(expected.values, True, extraction, shown)
    if isinstance(expected, ExpectNumeric):
        return _check_numeric(expected, answer)
    if isinstance(expected, ExpectRegex):
        return _check_regex(expected, answer)
    if isinstance(expected, ExpectPython):
        return _check_python(expected, answer)
    shown = f"{expected.answer} ({expected.options[expected.answer]})"
    extraction = extract_choice(answer, expected.options)
    got = extraction.value
    if got is None:
        return CorrectnessResult(correct=False, expected_display=shown, extraction=extraction,
                                 detail=f"expected {shown}, got {_got(extraction)}")
    got_shown = f"{got} ({expected.options[got]})"
    return CorrectnessResult(correct=got == expected.answer, expected_display=shown, extraction=extraction,
                             detail=f"expected {shown}, got {got_shown} ({extraction.method}: {extraction.detail})")


def correctness_scores(case: Case, transcript: Transcript) -> tuple[CorrectnessResult | None, ScoreSet]:
    """Score ``transcript.final_answer`` against ``case.expected``.

    Args:
        case: the case; without an ``expected`` block nothing is scored.
        transcript: what the subject produced; its ``final_answer`` is checked.

    Returns:
        The detailed result (``None`` without an ``expected`` block) and a :class:`ScoreSet` with the
        score ``correct`` (1.0 or 0.0) and one ``correctness`` check whose detail says expected vs got.
    """
    if case.expected is None:
        return None, ScoreSet()
    result = check_expected(case.expected, transcript.final_answer)
    check = CheckResult(kind="correctness", target=f"{case.expected.type}: {result.expected_display}",
                        passed=result.correct, detail=result.detail)
    return result, ScoreSet(scores={"correct": 1.0 if result.correct else 0.0}, checks=(check,))
